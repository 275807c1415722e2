"""`o_i = \\sum_j a_{ij} v_j` where the text never declares O: the equation defines the rows of O,
whose width is that of the right side (v_j's), not the chapter's conventional one.

Imports sympy, the kernel and the reader's AST, spans, claims, scope and translator; never the
resolver (which calls `define_rows`), the checker or the CLI.
"""

from __future__ import annotations

import sympy

from symattn.kernel.dims import dims_equal, shape_str
from symattn.kernel.errors import ShapeError
from symattn.kernel.expr import MatExpr, MatSym, walk
from symattn.kernel.text import plain
from symattn.reader.claims.resolved import ResolvedClaim, new_claim
from symattn.reader.syntax import ast
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.scope import Name, Scope
from symattn.reader.terms.translator import KEEP_FONTS, Problem, Terms

__all__ = ["define_rows"]


def define_rows(
    scope: Scope,
    terms: Terms,
    span: MathSpan,
    left: ast.Node,
    right: ast.Node,
    start: int,
    end: int,
) -> ResolvedClaim | None:
    """`o_i = \\sum_j a_{ij} v_j` (a lower-case letter with one index letter on the left) where O
    has only the chapter's conventional shape and the right side is a vector of another width:
    the text's definition of O's rows, which gives O that width (its value is not read). None
    when the left side is anything else, or the right side has the conventional width (then it
    is a claim about the chapter's O, as before)."""
    if not (
        isinstance(left, ast.Symbol)
        and left.font in KEEP_FONTS
        and len(left.name) == 1
        and left.name.islower()
        and isinstance(left.sub, ast.Symbol)
        and left.sub.sub is None
        and left.sub.font is None
        and len(left.sub.name) == 1
    ):
        return None
    if isinstance(right, ast.Symbol | ast.Number) or scope.supposing:
        return None  # `\\mathbf k_i = \\mathbf v_i` asserts (or supposes), it does not define
    letter = left.name.upper()
    own = scope.lookup(letter)
    if own is None or own.origin != "convention" or own.definition is not None:
        return None
    if scope.lookup(left.name) is not None:
        return None  # a vector of its own: `o` declared, `o_i` its component
    scope.consulted.clear()
    try:
        value = terms.term(right)
    except (Problem, ShapeError, sympy.SympifyError):
        return None
    if not isinstance(value, MatExpr) or not ((value.rows == 1) ^ (value.cols == 1)):
        return None
    if scope.consulted or not _document_names(scope, value):
        return None  # a width that rests on the chapter's conventions or an unsettled reading
    width = value.cols if value.rows == 1 else value.rows
    rows, cols = own.shape
    if dims_equal(scope.bind(cols), scope.bind(width)):
        return None
    entry = Name((rows, width), "declared", scope.section, scope.line)
    entry.label = letter
    scope.top().names[letter] = entry
    msg = (
        f"defines the rows of {letter} by {plain(value)}: {letter} is {shape_str(entry.shape)} "
        f"(not the conventional {shape_str(own.shape)}; its value is not read)"
    )
    return new_claim(span, start, end, "declared", msg)


def _document_names(scope: Scope, value: MatExpr) -> bool:
    """Every matrix in `value` is one the document declared or defined (not only the chapter's
    convention), so the width is the text's own."""
    for x in walk(value):
        if isinstance(x, MatSym):
            entry = scope.lookup(x.name)
            if entry is None or entry.origin == "convention":
                return False
    return True
