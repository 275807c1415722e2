"""A bracketed 1 × 1 product beside a vector or matrix (`(\\mathbf q^\\top\\mathbf k)\\mathbf v`,
`W(q^\\top k)`) is the number it holds. Imports sympy, the kernel and the reader's AST only."""

from __future__ import annotations

import sympy

from symattn.kernel.dims import dims_equal
from symattn.kernel.expr import Entry, MatExpr
from symattn.reader.syntax import ast

__all__ = ["bracketed_after", "bracketed_scalar"]


def bracketed_scalar(factor: ast.Node, value: sympy.Basic, then: sympy.Basic) -> sympy.Basic:
    """`(\\mathbf k_j^\\top\\mathbf q_t)\\mathbf v_j`: the parentheses hold an inner product (1 × 1)
    which multiplies the vector after it as the number it is (read as a matrix, it
    would be a product of 1 × 1 by d × 1). Anything else is returned as it is: a 1 × 1 matrix
    without parentheses, or one before a row (whose product is defined as written)."""
    if not _bracketed(factor) or not (isinstance(value, MatExpr) and isinstance(then, MatExpr)):
        return value
    if not (dims_equal(value.rows, 1) and dims_equal(value.cols, 1)) or dims_equal(then.rows, 1):
        return value
    one = sympy.Integer(1)
    return Entry(value, one, one)


def bracketed_after(before: sympy.Basic, factor: ast.Node, value: sympy.Basic) -> sympy.Basic:
    """`W(q^\\top k)`, `v_j(k_j q^\\top)` with rows, `X[a^\\top b]`: a bracketed 1 × 1 product
    after a matrix whose columns are not one is a scalar factor, the only reading that
    typechecks (as a matrix it would be a product of m × d by 1 × 1). After a column
    (`v_j(k_j^\\top q)`) the product is defined as written and stays so.

    >>> from symattn.kernel.expr import MatSym
    >>> from symattn.reader.syntax.parse import parse_formula
    >>> q, w = MatSym("q", 3, 1), MatSym("W", 2, 3)
    >>> group = parse_formula("W(q^T q)").items[0].subjects[0].factors[1]
    >>> bracketed_after(w, group, q.T @ q)
    Entry(MatMul(Transpose(MatSym(q, 3, 1)), MatSym(q, 3, 1)), 1, 1)
    """
    if not _bracketed(factor) or not (isinstance(value, MatExpr) and isinstance(before, MatExpr)):
        return value
    if not (dims_equal(value.rows, 1) and dims_equal(value.cols, 1)) or dims_equal(before.cols, 1):
        return value
    one = sympy.Integer(1)
    return Entry(value, one, one)


def _bracketed(factor: ast.Node) -> bool:
    return isinstance(factor, ast.Group) and factor.delim in "([" and len(factor.items) == 1
