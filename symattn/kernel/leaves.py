"""The named matrices an expression is built from: `Q`, heads `W_Q^{(h)}`, all-ones, a column.

Imports only sympy and the kernel below it (errors, dims, nodes); must not import anything above it.
"""

from __future__ import annotations

import sympy
from sympy import Basic, Indexed, IndexedBase
from sympy.core.symbol import Str

from symattn.kernel.dims import Shape, as_dim
from symattn.kernel.nodes import Fresh, MatExpr, _sympify


class MatSym(MatExpr):
    """A named matrix such as `Q` (n × d_k) or `W_O` (H d_v × d).

    >>> from symattn.kernel.dims import n, d_k
    >>> MatSym("Q", n, d_k).shape
    (n, d_k)
    """

    def __new__(cls, name: str, rows: object, cols: object) -> MatSym:
        return Basic.__new__(cls, Str(str(name)), as_dim(rows), as_dim(cols))

    @property
    def name(self) -> str:
        return self.args[0].name  # the Str's text (str() goes through the printer)

    @property
    def shape(self) -> Shape:
        return (self.args[1], self.args[2])

    @property
    def base(self) -> IndexedBase:
        return IndexedBase(self.name)

    def _entry(self, i: sympy.Expr, j: sympy.Expr, fresh: Fresh) -> sympy.Expr:
        return Indexed(self.base, i, j)


class HeadSym(MatExpr):
    """Member `h` of a per-head family such as `Z^{(h)}` or `W_Q^{(h)}` (one shape for all)."""

    def __new__(cls, name: str, head: object, rows: object, cols: object) -> HeadSym:
        return Basic.__new__(cls, Str(str(name)), _sympify(head), as_dim(rows), as_dim(cols))

    @property
    def name(self) -> str:
        return self.args[0].name  # the Str's text (str() goes through the printer)

    @property
    def head(self) -> sympy.Expr:
        return self.args[1]

    @property
    def shape(self) -> Shape:
        return (self.args[2], self.args[3])

    @property
    def base(self) -> IndexedBase:
        return IndexedBase(self.name + "^()")

    def _entry(self, i: sympy.Expr, j: sympy.Expr, fresh: Fresh) -> sympy.Expr:
        return Indexed(self.base, self.head, i, j)


class Ones(MatExpr):
    """The all-ones matrix (rows × cols); `A @ Ones(n, 1)` holds the row sums of A."""

    def __new__(cls, rows: object, cols: object) -> Ones:
        return Basic.__new__(cls, as_dim(rows), as_dim(cols))

    @property
    def shape(self) -> Shape:
        return (self.args[0], self.args[1])

    def _entry(self, i: sympy.Expr, j: sympy.Expr, fresh: Fresh) -> sympy.Expr:
        return sympy.Integer(1)


class FromColumn(MatExpr):
    """`c 1^T`: the n × m matrix whose row i is the constant `c_i` (a per-row shift)."""

    def __new__(cls, name: str, rows: object, cols: object) -> FromColumn:
        return Basic.__new__(cls, Str(str(name)), as_dim(rows), as_dim(cols))

    @property
    def name(self) -> str:
        return self.args[0].name  # the Str's text (str() goes through the printer)

    @property
    def shape(self) -> Shape:
        return (self.args[1], self.args[2])

    def _entry(self, i: sympy.Expr, j: sympy.Expr, fresh: Fresh) -> sympy.Expr:
        return Indexed(IndexedBase(self.name), i)
