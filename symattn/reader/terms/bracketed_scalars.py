"""A bracketed 1 × 1 product before a vector or matrix (`(\\mathbf q^\\top\\mathbf k)\\mathbf v`) is
the number it holds. Imports sympy, the kernel's expressions and dims, and the reader's AST only."""

from __future__ import annotations

import sympy

from symattn.kernel.dims import dims_equal
from symattn.kernel.expr import Entry, MatExpr
from symattn.reader.syntax import ast

__all__ = ["bracketed_scalar"]


def bracketed_scalar(factor: ast.Node, value: sympy.Basic, then: sympy.Basic) -> sympy.Basic:
    """`(\\mathbf k_j^\\top\\mathbf q_t)\\mathbf v_j`: the parentheses hold an inner product (1 × 1)
    which multiplies the vector after it as the number it is (read as a matrix, it
    would be a product of 1 × 1 by d × 1). Anything else is returned as it is: a 1 × 1 matrix
    without parentheses, or one before a row (whose product is defined as written)."""
    if not (isinstance(factor, ast.Group) and factor.delim == "(" and len(factor.items) == 1):
        return value
    if not (isinstance(value, MatExpr) and isinstance(then, MatExpr)):
        return value
    if not (dims_equal(value.rows, 1) and dims_equal(value.cols, 1)) or dims_equal(then.rows, 1):
        return value
    one = sympy.Integer(1)
    return Entry(value, one, one)
