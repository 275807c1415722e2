"""Matrices of numbers written out (`\\begin{bmatrix}\\cos m\\theta & -\\sin m\\theta\\\\ ...`),
multiplied and compared entry by entry, for a claim whose names are read as numbers.
Imports sympy, the reader's AST and translator; never the resolver, the checker or the CLI.
"""

from __future__ import annotations

from typing import Any

import sympy

from symattn.kernel.errors import Signal, SymattnError
from symattn.kernel.expr import MatExpr
from symattn.reader.syntax import ast
from symattn.reader.terms.translator import Terms

__all__ = ["has_written", "written_pairs"]

Pair = tuple[sympy.Expr, sympy.Expr]


class _NotWritten(Signal):
    """A part that is not a matrix of numbers written out (a name, a function of matrices)."""


def has_written(node: ast.Node) -> bool:
    """Whether a matrix written out occurs in `node`."""
    if isinstance(node, ast.Matrix):
        return True
    return any(has_written(k) for k in ast.children(node))


def written_pairs(terms: Terms, left: ast.Node, right: ast.Node) -> tuple[Pair, ...] | None:
    """The entries of both sides, one pair per entry, when each side is built from matrices
    of numbers written out (products, sums, scalar multiples); None when a side is not so
    built, or the two sides' sizes differ (the claim is then read another way)."""
    try:
        a, b = _value(terms, left), _value(terms, right)
    except (_NotWritten, SymattnError, RecursionError):
        return None
    if not (isinstance(a, sympy.MatrixBase) and isinstance(b, sympy.MatrixBase)):
        return None
    if a.shape != b.shape:
        return None
    return tuple((sympy.expand(x), sympy.expand(y)) for x, y in zip(a, b, strict=True))


def _value(terms: Terms, node: ast.Node) -> sympy.Expr | sympy.MatrixBase:
    if isinstance(node, ast.Matrix):
        rows = [[_number(terms, c) for c in row] for row in node.rows]
        if not rows or len({len(r) for r in rows}) != 1:
            raise _NotWritten("rows of different lengths")
        return sympy.Matrix(rows)
    if isinstance(node, ast.Group) and len(node.items) == 1 and node.delim == "(":
        return _value(terms, node.items[0])
    if isinstance(node, ast.Product) or (
        isinstance(node, ast.Mul) and set(node.ops) <= {"cdot", "times"}
    ):
        acc = _value(terms, node.factors[0])
        for f in node.factors[1:]:
            acc = _times(acc, _value(terms, f))
        return acc
    if isinstance(node, ast.Add):
        parts = [_value(terms, t) for t in node.terms]
        acc = parts[0]
        for op, p in zip(node.ops, parts[1:], strict=True):
            if isinstance(acc, sympy.MatrixBase) != isinstance(p, sympy.MatrixBase):
                raise _NotWritten("a number added to a matrix")
            if isinstance(acc, sympy.MatrixBase) and acc.shape != p.shape:
                raise _NotWritten("matrices of different sizes added")
            acc = acc - p if op == "-" else acc + p
        return acc
    if isinstance(node, ast.Neg):
        return -_value(terms, node.operand)
    if has_written(node):
        raise _NotWritten("a written matrix inside another construct")
    return _number(terms, node)


def _number(terms: Terms, node: ast.Node) -> sympy.Expr:
    value = terms.term(node)
    if isinstance(value, MatExpr) or not isinstance(value, sympy.Expr):
        raise _NotWritten("an entry that is not a number")
    return value


def _times(a: Any, b: Any) -> Any:
    am, bm = isinstance(a, sympy.MatrixBase), isinstance(b, sympy.MatrixBase)
    if am and bm:
        if a.shape[1] != b.shape[0]:
            raise _NotWritten("sizes that do not multiply")
        return a * b
    return a * b
