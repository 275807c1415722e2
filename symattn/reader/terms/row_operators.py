"""Operators of backward passes over the rows of a matrix: `\\operatorname{rowsum}(X)`, the column
of X's row sums (`X\\mathbf 1`), and the matrix of ones `\\mathbf 1_{n\\times m}`, as kernel terms.

Imports the kernel and the reader's AST and problems; never the translator or the resolver.
"""

from __future__ import annotations

import sympy

from symattn.kernel.expr import MatExpr, MatMul, Ones
from symattn.kernel.text import plain
from symattn.reader.syntax import ast
from symattn.reader.terms.problems import Problem

__all__ = ["ROW_OPERATORS", "ones_sides", "row_operator"]

#: The operators read here (by their name in lower case).
ROW_OPERATORS = frozenset(("rowsum",))


def row_operator(name: str, args: list[sympy.Basic], node: ast.Node) -> sympy.Basic:
    """`rowsum(X)` = `X 1` (a column, one sum per row of X); a scalar or several arguments are
    refused, naming what was given.

    >>> from symattn.kernel.expr import MatSym
    >>> from symattn.kernel.dims import n, d
    >>> row_operator("rowsum", [MatSym("X", n, d)], None).shape
    (n, 1)
    """
    if len(args) != 1:
        msg = f"{name} takes one matrix, got {len(args)} arguments"
        raise Problem("not_understood", msg, node)
    (x,) = args
    if not isinstance(x, MatExpr):
        msg = f"{name} needs a matrix, got the scalar {plain(x)}"
        raise Problem("not_understood", msg, node)
    return MatMul(x, Ones(x.cols, 1))


def ones_sides(sub: ast.Node) -> tuple[ast.Expr, ast.Expr] | None:
    """The two sizes of `\\mathbf 1_{n\\times m}` (a matrix of ones); None for `\\mathbf 1_n`."""
    if isinstance(sub, ast.Mul) and sub.ops == ("times",) and len(sub.factors) == 2:
        return sub.factors[0], sub.factors[1]
    return None
