"""Where the -inf of a masked entry may go: the one rule that every witness and `evaluate()` follow.

Imports only sympy and the kernel below it (errors, text, expr, modern); must not import anything
above it.

A mask (`CausalMask`, `PadMask`) makes its masked entries -inf, and a softmax turns them into
weights 0. A bare mask, and what only moves its entries (transposes, rows, row blocks, prefixes,
repeated heads), is a value: compared as a whole side it is its value, -inf included. Arithmetic
that combines a masked entry with anything is defined only where its result goes into a softmax
(the extended-real reading of a score on its way into a softmax), and there only where no +inf
can arise: -inf + x = -inf (x finite or -inf), c · (-inf) = -inf for a scalar c that is provably
positive (`1/sqrt(d_k)`). Every other use is ill-formed: a sum or a scaling of a masked matrix
outside a softmax (`mask(S) + mask(M)` as a side), 0 · (-inf), a factor that may be 0 or negative,
(-inf) - (-inf), a product of matrices, a sum over heads, a feature map, a rotation, an online
softmax, an entry inside arithmetic. Scalars with an infinite value (`oo`, `nan`) are ill-formed
as well.
"""

from __future__ import annotations

import sympy

from symattn.kernel.errors import Signal
from symattn.kernel.expr import (
    CausalMask,
    ColSoftmax,
    Dot,
    Entry,
    MatAdd,
    MatExpr,
    Row,
    RowBlock,
    Scale,
    Softmax,
    Transpose,
)
from symattn.kernel.modern import FirstRows, PadMask, RepeatKV
from symattn.kernel.text import plain

_MASKS = (CausalMask, PadMask)
_CONSUMERS = (Softmax, ColSoftmax)
_MOVES = (Transpose, Row, RowBlock, FirstRows, RepeatKV)  # rearrange entries, nothing more
_INFINITE = (sympy.oo, -sympy.oo, sympy.zoo, sympy.nan)


class _Bad(Signal):
    pass


def problem(*sides: sympy.Basic) -> str | None:
    """Why these sides use a masked (-inf) entry outside a softmax, or None when they do not.

    >>> from symattn.kernel.expr import MatSym
    >>> S = MatSym("S", 3, 3)
    >>> problem(Softmax(CausalMask(S) / sympy.sqrt(2))) is None
    True
    >>> problem(CausalMask(S).T) is None  # a move of a mask is a value
    True
    >>> print(problem(CausalMask(S) / sympy.sqrt(2)))  # doctest: +ELLIPSIS
    a masked entry (-inf) is defined only on its way into a softmax: arithmetic on ... in ...
    >>> print(problem(CausalMask(S) - CausalMask(S)))  # doctest: +ELLIPSIS
    a masked entry (-inf) is defined only on its way into a softmax: -1 · (-inf) in ...
    """
    walker = _Walk()
    try:
        for side in sides:
            walker.side(side)
    except _Bad as exc:
        return str(exc)
    return None


def _bad(what: str, node: sympy.Basic) -> _Bad:
    return _Bad(
        f"a masked entry (-inf) is defined only on its way into a softmax: {what} in "
        f"{plain(node)} (docs/kernel.md, masks)"
    )


# What a matrix may hold: finite entries, -inf entries a mask put there and moves carried, or
# -inf entries that arithmetic produced (defined only on their way into a softmax).
_FINITE, _VALUE, _ARITH = 0, 1, 2


class _Walk:
    def __init__(self) -> None:
        self.seen: dict[sympy.Basic, int] = {}

    def side(self, e: sympy.Basic) -> None:
        if isinstance(e, MatExpr):
            self.value(e, e)
        elif isinstance(e, Entry):  # a masked entry as a whole side: its value, -inf included
            self.value(e.matrix, e)
            self.scalar(e.args[1])
            self.scalar(e.args[2])
        else:
            self.scalar(e)

    def value(self, m: MatExpr, where: sympy.Basic) -> None:
        """m is compared as a value: arithmetic on its masked entries has no softmax to go to."""
        if self.mat(m) == _ARITH:
            raise _bad("arithmetic on a masked entry outside a softmax", where)

    def mat(self, m: MatExpr) -> int:
        """What m may hold (`_FINITE`, `_VALUE`, `_ARITH`); raises on a use the rule refuses."""
        hit = self.seen.get(m)
        if hit is None:
            hit = self.seen[m] = self._mat(m)
        return hit

    def _mat(self, m: MatExpr) -> int:
        inner = [_FINITE]
        for a in m.args:
            if isinstance(a, MatExpr):
                inner.append(self.mat(a))
            elif isinstance(a, sympy.Expr):
                self.scalar(a)
        held = max(inner)
        if isinstance(m, _MASKS):
            return max(held, _VALUE)
        if isinstance(m, _CONSUMERS):
            return _FINITE
        if held == _FINITE:
            return _FINITE
        if isinstance(m, _MOVES):
            return held
        if isinstance(m, MatAdd):
            return _ARITH
        if isinstance(m, Scale):
            c = m.scalar
            if c.is_positive and c.is_finite:
                return _ARITH
            raise _bad(f"{plain(c)} · (-inf)", m)
        raise _bad(f"{type(m).__name__} of a masked matrix", m)

    def scalar(self, e: sympy.Basic) -> None:
        stack = [e]
        while stack:
            x = stack.pop()
            if x in (sympy.zoo, sympy.nan):  # what sympy makes of 1/0 and 0/0
                where = "" if e in _INFINITE else f" in the scalar {plain(e)}"
                raise _Bad(f"a division by zero{where} (its value is not a number)")
            if x in _INFINITE:
                raise _Bad(f"the infinite value {x} in the scalar {plain(e)}")
            if isinstance(x, Entry):
                if self.mat(x.matrix) != _FINITE:
                    raise _bad("arithmetic on an entry of a masked matrix", e)
                stack.extend(x.args[1:])
            elif isinstance(x, Dot):
                if self.mat(x.args[0]) != _FINITE or self.mat(x.args[1]) != _FINITE:
                    raise _bad("a dot product with a masked row", x)
            elif isinstance(x, MatExpr):
                self.mat(x)
            else:
                stack.extend(x.args)
