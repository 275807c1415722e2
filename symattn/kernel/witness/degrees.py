"""Degree bounds of a claim in its sizes: each side as a rational function of the sizes.

Imports only the kernel below it (errors, dims, evaluate, expr, modern, ranges, witness.points,
.field's degree walker); must not import the other witnesses, proof or anything above them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction

import sympy

from symattn.kernel.dims import current
from symattn.kernel.errors import Signal
from symattn.kernel.evaluate import Unsupported
from symattn.kernel.expr import (
    CausalMask,
    ColSoftmax,
    Concat,
    Dot,
    Entry,
    FromColumn,
    HeadSym,
    MatAdd,
    MatExpr,
    MatMul,
    MatSum,
    MatSym,
    Ones,
    Row,
    RowBlock,
    Scale,
    Softmax,
    Transpose,
    walk,
)
from symattn.kernel.modern import (
    CausalZero,
    FirstRows,
    OnlineSoftmax,
    PadMask,
    PairDots,
    PositionBias,
    RepeatKV,
    Rope,
)
from symattn.kernel.ranges import Range
from symattn.kernel.witness.field import _Deg
from symattn.kernel.witness.points import (
    claim_bounds,
)

Degrees = tuple[int, int]  # (numerator, denominator) degree of a rational function


class NotPolynomial(Signal):
    """A side is no rational function of bounded degree in a size; the message says why."""


def _name(s: sympy.Symbol) -> str:
    return s.name


# ---- degree bounds in the sizes -------------------------------------------------------------


class _SizeDegree(_Deg):
    """Degrees of an entry as a rational function of some sizes (the entries held fixed).

    The field witness's walker with other leaves: a named matrix's entry is a constant, a size
    has degree `weight` (2 in half units, so that `sqrt(s)` has degree 1), a sum of `c` terms
    whose body has degree k in its index has degree (k + 1)·deg c more than its body (Faulhaber).
    """

    def __init__(self, weights: Mapping[sympy.Symbol, int]):
        super().__init__(sizes=_no_sizes)
        self.weights = dict(weights)
        self.odd = False  # a half power (sqrt of a size) was met
        self.ctx = current()

    def _exponent(self, e: sympy.Basic, what: str) -> None:
        inner = _SizeDegree(self.weights)
        d = inner.mat(e) if isinstance(e, MatExpr) else inner.scalar(e)
        if d != (0, 0):
            raise NotPolynomial(f"{what} of an argument that depends on {self._named()}")

    def mat(self, m: MatExpr) -> Degrees:
        if isinstance(m, (MatSym, HeadSym, FromColumn, Ones)):
            return (0, 0)
        if isinstance(m, MatMul):
            a, b = self.mat(m.args[0]), self.mat(m.args[1])
            k = max(_index_degree(m.args[0]), _index_degree(m.args[1]))
            body = (a[0] + b[0], a[1] + b[1])
            if _varies(m.args[0], 1) or _varies(m.args[1], 0):
                return body  # distinct terms A_ik B_kj: no coefficient grows with their count
            return self._summed(body, k, 1, m.args[0].cols)
        if isinstance(m, (Softmax, ColSoftmax)):
            self._exponent(m.args[0], "a softmax")
            axis = 1 if isinstance(m, Softmax) else 0
            if _varies(m.args[0], axis):
                return (0, 0)  # exp(s_ij) over a sum of distinct exps: no number of the sizes
            row = self._summed((0, 0), 0, 1, m.cols if axis else m.rows)
            return (row[1], row[0])  # exp(s_ij) over the sum of its row
        if isinstance(m, MatSum):
            v, lo, hi = m.limits
            if _varies_with(m.body, v):
                return self.mat(m.body)
            k = _var_degree(m.body, v)
            return self._summed(self.mat(m.body), k, lo, hi)
        try:
            return super().mat(m)
        except Unsupported as exc:
            raise NotPolynomial(str(exc)) from None

    def scalar(self, e: sympy.Basic) -> Degrees:
        if e.is_number and not e.free_symbols:
            if isinstance(e, sympy.Pow) and not e.exp.is_Integer:
                return (0, 0)  # sqrt(2): a constant
            if not isinstance(e, (sympy.Add, sympy.Mul, sympy.Pow)):
                return (0, 0)
        if isinstance(e, sympy.Symbol):
            if e in self.weights:
                return (self.weights[e], 0)
            if e in self.ctx.equalities:
                return self.scalar(self.ctx.resolve(e))
            return (0, 0)  # an index or a scalar variable: fixed
        if isinstance(e, sympy.Indexed):
            return (0, 0)
        if isinstance(e, sympy.Pow) and not e.exp.is_Integer:
            return self._root(e)
        if isinstance(e, (sympy.exp, sympy.cos, sympy.sin)):
            self._exponent(e.args[0], type(e).__name__)
            return (0, 0)
        if isinstance(e, sympy.Sum):
            out = self.scalar(e.function)
            body = e.function
            for v, lo, hi in e.limits:  # innermost first
                if not _varies_with(body, v):
                    out = self._summed(out, _var_degree(body, v), lo, hi)
                body = sympy.Sum(body, (v, lo, hi))
            return out
        if isinstance(e, Dot):
            u, v = self.mat(e.args[0]), self.mat(e.args[1])
            k = max(_index_degree(e.args[0]), _index_degree(e.args[1]))
            body = (u[0] + v[0], u[1] + v[1])
            if _varies(e.args[0], 1) or _varies(e.args[1], 1):
                return body
            return self._summed(body, k, 1, e.args[0].cols)
        if isinstance(e, sympy.Piecewise) and any(self._touches(c) for _, c in e.args):
            # a case split on a size (keys padded beyond n - p) is a step, not a polynomial
            raise NotPolynomial(f"a case split on {self._named()}")
        if isinstance(e, (sympy.floor, sympy.ceiling, sympy.Mod, sympy.log, sympy.Abs)):
            if self._touches(e):
                raise NotPolynomial(f"{type(e).__name__} of {self._named()}")
            return (0, 0)
        try:
            return super().scalar(e)
        except Unsupported as exc:
            if isinstance(e, sympy.Function) and not self._touches(e):
                return (0, 0)  # a function of indices only (a Kronecker delta)
            raise NotPolynomial(str(exc)) from None

    def _named(self) -> str:
        return ", ".join(s.name for s in sorted(self.weights, key=_name))

    def _touches(self, e: sympy.Basic) -> bool:
        syms = e.free_symbols
        syms = syms | {
            x for s in syms if s in self.ctx.equalities for x in self.ctx.resolve(s).free_symbols
        }
        return bool(set(syms) & set(self.weights))

    def _root(self, e: sympy.Pow) -> Degrees:
        """`base^(p/q)` for a monomial base: its degree, when whole in the units used."""
        base = self.ctx.resolve(e.base)
        if not self._touches(base):
            return (0, 0)
        weight = 0
        for factor, power in base.as_powers_dict().items():
            if factor in self.weights:
                if not power.is_Integer:
                    raise NotPolynomial(f"a power {e} of {self._named()}")
                weight += self.weights[factor] * int(power)
            elif self._touches(factor):
                raise NotPolynomial(f"a root {e} of a sum of sizes")
        degree = Fraction(weight) * Fraction(int(e.exp.p), int(e.exp.q))
        if degree.denominator != 1:
            raise NotPolynomial(f"a power {e} of {self._named()}")
        whole = int(degree)
        if whole % 2:
            self.odd = True  # sqrt(s) with s of degree 2: a polynomial in sqrt(s)
        return (whole, 0) if whole >= 0 else (0, -whole)

    def _summed(self, body: Degrees, k: int, lo: object, hi: object) -> Degrees:
        """A sum over lo..hi of a body of degrees `body` and of degree k in its index."""
        low = self.scalar(sympy.sympify(lo, strict=True))
        high = self.scalar(sympy.sympify(hi, strict=True))
        count = max(low[0], low[1]) + max(high[0], high[1])
        if count == 0:
            return body
        return (body[0] + (k + 1) * count, body[1] + (k + 1) * (low[1] + high[1]))


def _varies(m: sympy.Basic, axis: int) -> bool:
    """Every entry of `m` a sum of terms that each hold a named matrix's entry that changes with
    the row (axis 0) or column (axis 1) index: a sum of such entries along that index has as
    many distinct terms as the index has values, and its coefficients do not grow with it."""
    if isinstance(m, (MatSym, HeadSym)):
        return True
    if isinstance(m, FromColumn):
        return axis == 0
    if isinstance(m, Transpose):
        return _varies(m.args[0], 1 - axis)
    if isinstance(m, MatMul):
        return _varies(m.args[axis], axis)
    if isinstance(m, MatAdd):
        return all(_varies(a, axis) for a in m.args)
    if isinstance(m, Scale):
        return _varies(m.args[1], axis)
    if isinstance(m, Row):
        return axis == 1 and _varies(m.args[0], 1)
    if isinstance(m, (RowBlock, CausalMask, Softmax, ColSoftmax)):
        return _varies(m.args[0], axis)  # softmax: exp of distinct entries
    if isinstance(m, (Concat, MatSum)):
        return _varies(m.body, axis)
    if isinstance(m, (FirstRows, CausalZero, PadMask)):
        return _varies(m.args[0], axis)
    if isinstance(m, RepeatKV):  # each column block R times: a column sum counts R copies
        return axis == 0 and _varies(m.args[0], 0)
    return False


def _varies_with(e: sympy.Basic, v: sympy.Symbol) -> bool:
    """Every term of `e` holds an entry of a named matrix that changes with the index v."""
    if isinstance(e, (sympy.Add, MatAdd)):
        return all(_varies_with(a, v) for a in e.args)
    if isinstance(e, (sympy.Mul, MatMul, Dot)):
        return any(_varies_with(a, v) for a in e.args)
    if isinstance(e, Scale):
        return _varies_with(e.args[1], v)
    if isinstance(e, sympy.Indexed):
        return any(v in x.free_symbols for x in e.indices)
    if isinstance(e, Entry):
        r, c = e.args[1], e.args[2]
        return (
            (v in sympy.sympify(r, strict=True).free_symbols and _varies(e.matrix, 0))
            or (v in sympy.sympify(c, strict=True).free_symbols and _varies(e.matrix, 1))
            or _varies_with(e.matrix, v)
        )
    if isinstance(e, HeadSym):
        return v in sympy.sympify(e.args[1], strict=True).free_symbols
    if isinstance(e, RowBlock):
        head = e.args[1]
        return v in sympy.sympify(head, strict=True).free_symbols or _varies_with(e.args[0], v)
    if isinstance(e, Row):
        return (
            v in sympy.sympify(e.args[1], strict=True).free_symbols and _varies(e.args[0], 0)
        ) or (_varies_with(e.args[0], v))
    if isinstance(e, (Transpose, CausalMask, Softmax, ColSoftmax)):
        return _varies_with(e.args[0], v)
    if isinstance(e, (sympy.Sum, MatSum, Concat)):
        return _varies_with(e.args[0], v)
    return False


def _no_sizes(e: sympy.Expr) -> int:
    raise Unsupported("a size bound is not used here")


def _var_degree(body: sympy.Basic, v: sympy.Symbol) -> int:
    """The degree of a sum's body in its index (as a number, not as a position)."""
    walker = _SizeDegree({v: 1})
    d = walker.mat(body) if isinstance(body, MatExpr) else walker.scalar(body)
    if d[1]:
        raise NotPolynomial(f"a sum over {v} of a fraction whose denominator depends on {v}")
    return d[0]


def _index_degree(m: MatExpr) -> int:
    """How the entries of `m` depend on their own indices as numbers (ALiBi's slope·(j - i))."""
    out = 0
    i, j = sympy.Dummy("i", integer=True), sympy.Dummy("j", integer=True)
    for x in walk(m):
        if isinstance(x, (PositionBias, Rope, PairDots, OnlineSoftmax)):
            walker = _SizeDegree({i: 1, j: 1})
            d = walker.scalar(x.entry(i, j))
            if d[1]:
                raise NotPolynomial(f"entries of {type(x).__name__} are fractions of their indices")
            out = max(out, d[0])
    return out


def _difference(walker: _SizeDegree, a: sympy.Basic, b: sympy.Basic) -> int:
    da = walker.mat(a) if isinstance(a, MatExpr) else walker.scalar(a)
    db = walker.mat(b) if isinstance(b, MatExpr) else walker.scalar(b)
    return max(da[0] + db[1], db[0] + da[1])


def _degrees(
    a: sympy.Basic, b: sympy.Basic, free: Sequence[sympy.Symbol]
) -> tuple[dict[sympy.Symbol, int], set[sympy.Symbol], int]:
    """(degree of the difference in each size, the sizes counted in sqrt, total degree)."""
    per: dict[sympy.Symbol, int] = {}
    halves: set[sympy.Symbol] = set()
    for s in free:
        walker = _SizeDegree({s: 2})
        half_units = _difference(walker, a, b)
        if walker.odd:
            halves.add(s)
            per[s] = half_units
        else:
            per[s] = math.ceil(half_units / 2)
    walker = _SizeDegree({s: 2 if s in halves else 1 for s in free})
    total = _difference(walker, a, b)
    return per, halves, total


def _floor(a: sympy.Basic, b: sympy.Basic, ranges: Mapping[sympy.Symbol, Range]) -> int:
    """The largest constant of the claim (exponents aside): every size is chosen above it."""
    found = 1
    stack: list[sympy.Basic] = [a, b, *claim_bounds(ranges)]
    while stack:
        x = stack.pop()
        if isinstance(x, sympy.Pow):
            stack.append(x.base)
            continue
        if isinstance(x, (MatSym, HeadSym, FromColumn, Ones)):
            continue  # the shape of a named matrix is no constant of the claim
        if isinstance(x, sympy.Rational):
            found = max(found, abs(int(x.p)), abs(int(x.q)))
            continue
        stack.extend(x.args)
    return found
