"""Claims about names the text leaves opaque: names it never declares (read around), functions
whose parameters are its own, and names it defined with a value the checker does not use.

Each is undecided or not understood, never false; a claim whose only unread names are matrices
of known shape may be verified for every value of them (`any_matrices`). Imports the kernel and the
reader's claims, terms and undeclared modules; must not import the resolver, the checker or the CLI.
"""

from __future__ import annotations

import sympy

from symattn.kernel.dims import dims_equal, shape_str
from symattn.kernel.errors import SymattnError
from symattn.kernel.expr import MatExpr
from symattn.reader.claims.infer import scalar_reading
from symattn.reader.claims.introductions import definition_form, mentions, parameters
from symattn.reader.claims.resolved import ResolvedClaim, new_claim
from symattn.reader.claims.vector_reading import vector_reading
from symattn.reader.syntax import ast
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.problems import not_understood
from symattn.reader.terms.translator import Problem, Terms, as_comparable
from symattn.reader.terms.undeclared import read_around


def has_undeclared(terms: Terms, left: ast.Node, right: ast.Node) -> bool:
    """Whether reading around undeclared names finds any (False when a part is unreadable)."""
    try:
        return bool(read_around(terms, left) + read_around(terms, right))
    except (SymattnError, RecursionError):
        return False


def undeclared_claim(
    terms: Terms, span: MathSpan, left: ast.Node, right: ast.Node, start: int, end: int
) -> ResolvedClaim:
    """A claim about names the text never declares: every other part is read (its errors are
    reported as usual), and the claim is undecided, unless those names are letters that read
    as real numbers in a scalar claim (`infer.scalar_reading`)."""
    names = read_around(terms, left)
    try:
        names += read_around(terms, right)
    except Problem as p:
        if p.status != "shape_error" or not about_parameters(left, right):
            raise
        return parameters_claim(span, left, p.message, start, end)
    scalar = scalar_reading(terms, span, left, right, names, start, end)
    if scalar is not None:
        return scalar
    vectors = vector_reading(terms, span, left, right, names, start, end)
    if vectors is not None:
        return vectors
    shown = ", ".join(dict.fromkeys(names))
    msg = f"not decided: {shown} {'is' if len(set(names)) == 1 else 'are'} not declared by the text"
    return new_claim(span, start, end, "unknown", msg + " (names of unknown shape and value)")


def about_parameters(left: ast.Node, right: ast.Node) -> bool:
    return definition_form(left) and mentions(right, parameters(left))


def parameters_claim(
    span: MathSpan, left: ast.Node, problem: str, start: int, end: int
) -> ResolvedClaim:
    """`a(\\mathbf q,\\mathbf k) = \\mathbf q^\\top\\mathbf k/\\sqrt d` restated: q and k are the
    function's parameters here, not the vectors the text declared elsewhere, so a shape
    conflict that involves them is no error of the text; the claim is undecided."""
    msg = f"not decided: {problem}, but the parameters of {span.body[left.start : left.end]}"
    return new_claim(span, start, end, "unknown", msg + " need not have those shapes")


def opaque_shape(terms: Terms, message: str) -> str:
    used = ", ".join(dict.fromkeys(terms.defs.used))
    return f"{message} (with {used}, whose shape comes from its definition: not decided)"


def any_matrices(terms: Terms, lhs: sympy.Basic, rhs: sympy.Basic) -> str:
    """`X_{norm} = \\mathrm{RMSNorm}(X)`, then `QK^T = X_{norm}W_QW_K^TX_{norm}^T`: every name
    the claim reads whose value the checker does not use is a matrix of known shape, with no
    index and no argument. The claim may then be decided for every matrix of that shape: an
    identity for all of them holds for the text's (verified), but one that fails for some may
    hold for the text's (the verdict names why, and a failure is undecided). '' otherwise:
    terms indexed or applied (`e_{ij}`, `a(q, k_i)`) stand for a family, not one value.

    The text returned names them: `value of X_{norm} (n × d; its definition, line 3, is not
    used)`. Sides of two shapes are left to `opaque_claim` (not read)."""
    lhs, rhs = as_comparable(lhs, rhs)
    if not (isinstance(lhs, MatExpr) and isinstance(rhs, MatExpr)):
        return ""
    if not (dims_equal(lhs.rows, rhs.rows) and dims_equal(lhs.cols, rhs.cols)):
        return ""
    meaning = [terms.defs.meaning.get(t) for t in dict.fromkeys(terms.defs.used)]
    if not meaning or any(
        d is None or d.indices or d.params is not None or not isinstance(d.value, tuple)
        for d in meaning
    ):
        return ""
    shown = [
        f"{t} ({shape_str(d.value)}; its definition, line {d.line}, is not used)"
        for t, d in zip(dict.fromkeys(terms.defs.used), meaning, strict=True)
        if d is not None and isinstance(d.value, tuple)
    ]
    return "value of " + ", ".join(shown)


def opaque_claim(
    terms: Terms, span: MathSpan, lhs: sympy.Basic, rhs: sympy.Basic, start: int, end: int
) -> ResolvedClaim:
    """A claim about names the document defined (`e_{ij}`, `a(q, k)`): their values are never
    used, so the claim is undecided once both sides have the same shape; a scalar against a
    matrix is not read (the shape a definition gave may depend on its arguments)."""
    used = ", ".join(dict.fromkeys(terms.defs.used))
    lhs, rhs = as_comparable(lhs, rhs)
    if isinstance(lhs, MatExpr) != isinstance(rhs, MatExpr):
        raise not_understood(f"a scalar against a matrix, with {used} defined by the text", None)
    if isinstance(lhs, MatExpr) and isinstance(rhs, MatExpr):
        if not (dims_equal(lhs.rows, rhs.rows) and dims_equal(lhs.cols, rhs.cols)):
            msg = f"shapes {shape_str(lhs.shape)} and {shape_str(rhs.shape)} differ, with {used}"
            raise not_understood(msg + " defined by the text", None)
    msg = f"shapes agree; not decided: {used} defined by the text (its value is not used)"
    if set(terms.defs.used) <= terms.defs.notations:
        msg = f"shapes agree; not decided: the value of {used} is not read, only its shape"
    return new_claim(span, start, end, "unknown", msg)


__all__ = [
    "any_matrices",
    "has_undeclared",
    "undeclared_claim",
    "about_parameters",
    "parameters_claim",
    "opaque_shape",
    "opaque_claim",
]
