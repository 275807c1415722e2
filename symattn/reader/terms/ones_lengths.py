"""The length of an all-ones vector a sum leaves unwritten: in `X - c\\mathbf 1^\\top` the ones row
is as long as X is wide (the one length that typechecks), as backward passes write it.

Imports the kernel's expressions and the reader's AST and problems; never the resolver.
"""

from __future__ import annotations

from typing import Any

import sympy

from symattn.kernel.expr import MatExpr
from symattn.reader.syntax import ast
from symattn.reader.terms.problems import Problem

__all__ = ["ONES_LENGTH", "sum_parts"]

#: The message of an all-ones vector written without its length.
ONES_LENGTH = "write the length of the all-ones vector"

_ONES_FONTS = ("mathbf", "boldsymbol", "bm", "mathbb")


def _bare_ones(node: ast.Node) -> bool:
    return (
        isinstance(node, ast.Symbol)
        and node.name == "1"
        and node.sub is None
        and (node.font in _ONES_FONTS)
    )


def _ones_side(node: ast.Node) -> str | None:
    """`c\\mathbf 1^\\top`: "cols" (the row of ones spans the sum's columns); `\\mathbf 1 c^\\top`:
    "rows"; None for anything else (or more than one bare ones vector)."""
    if isinstance(node, ast.Neg):
        node = node.operand
    if not isinstance(node, ast.Product) or len(node.factors) < 2:
        return None
    bare = [f for f in node.factors if _bare_ones(f)]
    bare += [f for f in node.factors if isinstance(f, ast.Transpose) and _bare_ones(f.operand)]
    if len(bare) != 1:
        return None
    last, first = node.factors[-1], node.factors[0]
    if isinstance(last, ast.Transpose) and _bare_ones(last.operand):
        return "cols"
    if _bare_ones(first):
        return "rows"
    return None


def sum_parts(terms: Any, node: ast.Add) -> list[sympy.Basic]:
    """The terms of a sum, each read; a term `c\\mathbf 1^\\top` whose ones vector has no length
    is read with the length the sum's other terms give it (their columns, or rows for
    `\\mathbf 1 c^\\top`). Anything else that fails raises as before."""
    parts: list[Any] = []
    waiting: list[tuple[int, Problem]] = []
    for k, t in enumerate(node.terms):
        try:
            parts.append(terms.term(t))
        except Problem as p:
            if not p.message.startswith(ONES_LENGTH) or _ones_side(t) is None:
                raise
            parts.append(None)
            waiting.append((k, p))
    known = [p for p in parts if isinstance(p, MatExpr)]
    for k, problem in waiting:
        if not known:
            raise problem
        side = _ones_side(node.terms[k])
        terms.ones_length = known[0].cols if side == "cols" else known[0].rows
        try:
            parts[k] = terms.term(node.terms[k])
        finally:
            terms.ones_length = None
    return parts
