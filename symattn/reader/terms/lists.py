"""Lists in brackets read as one matrix: `[Z^{(1)}, \\ldots, Z^{(H)}]` (the heads side by side),
`[x_1; x_2; \\ldots; x_t]` (rows stacked), `[x_1, \\ldots, x_t]` (columns side by side).
Imports sympy, the kernel's expressions and the reader's AST; never the scope, the claim
readers, the checker or the CLI (the translator's `_group` calls this with itself).

A list is read only where its separator and the text's vectors say which matrix it is: `;`
stacks rows, `,` puts columns or heads side by side. Vectors read as columns stacked by `;`
make a longer vector, and rows put side by side by `,` a longer row, which the kernel does
not build: those lists are not read, and the message names both readings.
"""

from __future__ import annotations

from typing import Any

import sympy

from symattn.kernel.errors import ShapeError, SymattnError
from symattn.kernel.expr import MatExpr, Row, Transpose
from symattn.kernel.modern import FirstRows
from symattn.kernel.text import plain
from symattn.reader.syntax import ast
from symattn.reader.terms.problems import Problem, not_understood

__all__ = ["list_value"]


def list_value(terms: Any, node: ast.Group) -> sympy.Basic | None:
    """The matrix a bracketed list of two items or more stands for, or None when it is no list
    of heads or of consecutive vectors of one matrix (the caller says it is not a value).
    Raises `Problem` (not understood) for a list of vectors that names two readings."""
    if node.delim != "[" or len(node.items) < 2:
        return None
    if _heads(node.items):
        if node.stacked:
            return None  # heads stacked by `;`: blocks of rows, not the Concat of heads
        call = ast.Call("Concat", node.items, parens=True, start=node.start, end=node.end)
        value: sympy.Basic = terms._concat(call)
        return value
    return _vectors(terms, node)


def _heads(items: tuple[ast.Expr, ...]) -> bool:
    """`Z^{(1)}, \\ldots, Z^{(H)}` or `u_t^{(1)}, u_t^{(2)}`: members of head families only."""
    kinds = [isinstance(x, ast.HeadSup) for x in items if not isinstance(x, ast.Dots)]
    return all(kinds) and len(kinds) >= 2


def _vectors(terms: Any, node: ast.Group) -> sympy.Basic | None:
    """`[x_1; x_2]`, `[x_1; \\ldots; x_t]`, `[x_1, \\ldots, x_n]`: vectors 1, 2, ... (or 1 and
    the last, with an ellipsis between) of one matrix, in order."""
    items = node.items
    dots = [k for k, x in enumerate(items) if isinstance(x, ast.Dots)]
    if dots and (len(dots) != 1 or len(items) != 3 or dots[0] != 1):
        return None
    ends = (items[0], items[2]) if dots else items
    read = [_vector_of(terms, x) for x in ends]
    if any(r is None for r in read):
        return None
    matrices = {r[0] for r in read if r is not None}
    columns = {r[2] for r in read if r is not None}
    if len(matrices) != 1 or len(columns) != 1:
        return None
    positions = [r[1] for r in read if r is not None]
    if positions[0] != 1:
        return None
    if not dots and positions != [sympy.Integer(k) for k in range(1, len(positions) + 1)]:
        return None
    matrix, column, last = matrices.pop(), columns.pop(), positions[-1]
    shown = ("; " if node.stacked else ", ").join(ast.dump(x) for x in ends)
    if node.stacked == column:
        side = "stacked" if node.stacked else "side by side"
        longer = "column" if column else "row"
        which = "columns" if column else "rows"
        msg = (
            f"the vectors {shown} read as {which} {side} make one longer {longer}, which is "
            f"not read; the matrix whose {which} they are is written with "
            f"{'`,`' if node.stacked else '`;`'}"
        )
        raise not_understood(msg, node)
    try:
        run: MatExpr = FirstRows(matrix, last)
    except ShapeError:
        msg = f"[{shown}]: {plain(last)} <= {plain(matrix.rows)} is not known"
        raise not_understood(msg, node) from None
    return run.T if column else run


def _vector_of(terms: Any, node: ast.Node) -> tuple[MatExpr, sympy.Expr, bool] | None:
    """(matrix, position, read as a column) of `x_i` read as row i of X (or its transpose)."""
    if isinstance(node, ast.Dots):
        return None
    try:
        value = terms.term(node)
    except (SymattnError, Problem, RecursionError):
        return None  # an item that does not read: the list is no value, as before
    column = isinstance(value, Transpose)
    row = value.args[0] if column else value
    if not isinstance(row, Row):
        return None
    matrix, position = row.args
    return matrix, position, column
