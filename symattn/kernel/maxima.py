"""Running maxima over a prefix (`prefix_max`) and the lattice reasoning an induction needs.

Imports only sympy and the kernel below it (dims, errors, expr, text); must not import proof,
induction or anything above the kernel.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import product

import sympy

from symattn.kernel.dims import dim
from symattn.kernel.errors import Signal
from symattn.kernel.expr import MatExpr, walk
from symattn.kernel.text import plain


class _MaxOver(sympy.Expr):
    """`max_{lo <= j <= hi} body`: a running maximum over a range of positions (-inf if empty).

    >>> from symattn.kernel.expr import index
    >>> j = sympy.Dummy("j", integer=True, positive=True)
    >>> _MaxOver(j**2, j, 1, 3).limits
    (_j, 1, 3)
    """

    is_commutative = True
    is_extended_real = True

    def __new__(cls, body: object, j: object, lo: object = None, hi: object = None) -> _MaxOver:
        if lo is None:  # rebuilt from its args (xreplace): (body, (j, lo, hi))
            j, lo, hi = j  # type: ignore[misc]
        return sympy.Expr.__new__(
            cls,
            sympy.sympify(body, strict=True),
            sympy.Tuple(j, sympy.sympify(lo, strict=True), sympy.sympify(hi, strict=True)),
        )

    @property
    def body(self) -> sympy.Expr:
        return self.args[0]

    @property
    def limits(self) -> tuple[sympy.Symbol, sympy.Expr, sympy.Expr]:
        j, lo, hi = self.args[1]
        return j, lo, hi

    @property
    def free_symbols(self) -> set[sympy.Basic]:  # the bound position is not free
        j, lo, hi = self.limits
        return (self.body.free_symbols - {j}) | lo.free_symbols | hi.free_symbols

    def _sympystr(self, printer: object) -> str:
        j, lo, hi = self.limits
        return f"max_{{{j}={lo}..{hi}}} {self.body}"


def prefix_max(body: Callable[[sympy.Symbol], sympy.Expr], hi: sympy.Expr) -> _MaxOver:
    """max_{j=1}^{hi} body(j), a running maximum (-inf for hi = 0).

    >>> prefix_max(lambda j: j, 3).limits[1:]
    (1, 3)
    """
    j = sympy.Dummy("j", integer=True, positive=True)
    return _MaxOver(body(j), j, 1, hi)


class _Infinite(Signal):
    pass


def plain_max(e: sympy.Basic) -> str:
    return sympy.sstr(e) if not isinstance(e, MatExpr) else plain(e)


def _canonical(e: sympy.Basic) -> sympy.Basic:
    """_MaxOver with its bound position renamed to one symbol, so equal ranges compare equal."""
    k = dim("_k_bound")

    def one(m: _MaxOver) -> _MaxOver:
        j, lo, hi = m.limits
        return _MaxOver(m.body.xreplace({j: k}), k, lo, hi)

    return e.replace(lambda x: isinstance(x, _MaxOver), one)


def _merge_maxima(e: sympy.Basic) -> sympy.Basic:
    """max_append: `max(max_{lo..mid} f, max_{mid+1..hi} f) = max_{lo..hi} f` when both ranges
    provably run forward (an empty range is the identity -inf of max)."""

    def merge(m: sympy.Max) -> sympy.Basic:
        items = [x for x in m.args if x != -sympy.oo]
        changed = True
        while changed:
            changed = False
            for x, y in product(items, items):
                if x is y or not (isinstance(x, _MaxOver) and isinstance(y, _MaxOver)):
                    continue
                (jx, lx, hx), (jy, ly, hy) = x.limits, y.limits
                if x.body.xreplace({jx: jy}) != y.body:
                    continue
                if sympy.expand(ly - hx - 1) != 0:
                    continue
                if not (_nonneg(hx - lx + 1) and _nonneg(hy - ly + 1)):
                    continue
                items = [z for z in items if z is not x and z is not y] + [
                    _MaxOver(y.body, jy, lx, hy)
                ]
                changed = True
                break
        return items[0] if len(items) == 1 else sympy.Max(*items, evaluate=False)

    return e.replace(lambda x: isinstance(x, sympy.Max), merge)


def _nonneg(x: sympy.Expr) -> bool:
    """x >= 0 provably, positive integers counted as 1 + a nonnegative integer (P + b - 1)."""
    x = sympy.expand(x)
    shift = {
        s: sympy.Symbol(f"{s.name}_minus_1", integer=True, nonnegative=True) + 1
        for s in x.free_symbols
        if s.is_integer and s.is_positive
    }
    return bool(sympy.expand(x.xreplace(shift)).is_nonnegative)


def _abstract_maxima(a: sympy.Basic, b: sympy.Basic) -> tuple[sympy.Basic, sympy.Basic, bool]:
    """Each running maximum M becomes log E_M (E_M > 0) when M is provably finite; then
    `e^{x - M}` is `e^x / E_M`, and the ring claim is decided for every positive E_M."""
    found: dict[sympy.Basic, _MaxOver] = {}
    instances: dict[_MaxOver, sympy.Basic] = {}  # each occurrence -> its class up to renaming
    for side in (a, b):
        for x in walk(side):
            if isinstance(x, _MaxOver) and x not in instances:
                instances[x] = _canonical(x)
                found.setdefault(instances[x], x)
    if not found:
        return a, b, False
    bound = {
        v
        for side in (a, b)
        for x in walk(side)
        if isinstance(x, (sympy.Sum, _MaxOver))
        for v in ([lim[0] for lim in x.limits] if isinstance(x, sympy.Sum) else [x.limits[0]])
    }
    for m in found.values():
        inside = m.free_symbols & bound
        if inside:  # one E for a maximum that changes with a bound index would be unsound
            raise _Infinite(
                f"the running maximum {plain_max(m)} depends on the bound index "
                f"{', '.join(map(str, inside))}: not supported"
            )
    names: dict[sympy.Basic, sympy.Basic] = {}
    for k, (canon, m) in enumerate(found.items(), start=1):
        problem = _finite_problem(m)
        if problem:
            raise _Infinite(problem)
        j, lo, hi = m.limits
        names[canon] = sympy.log(sympy.Symbol(f"E_max{k}({lo}..{hi})", positive=True))

    positive = {sympy.exp(x) for x in names.values()}
    by_instance = {x: names[c] for x, c in instances.items()}

    def swap(e: sympy.Basic) -> sympy.Basic:
        e = e.xreplace(by_instance)  # e^{x - log E} is e^x / E as sympy builds it
        return e.replace(lambda x: isinstance(x, sympy.Sum), lambda x: _factor_sum(x, positive))

    return swap(a), swap(b), True


def _factor_sum(s: sympy.Sum, positive: set[sympy.Basic]) -> sympy.Basic:
    """`Σ_j [c_j] E^k v_j = E^k Σ_j [c_j] v_j` (sympy folds a factor back into a mask inside a
    sum, so it comes out of both at once)."""
    body = s.function
    if not isinstance(body, sympy.Piecewise):
        return s
    pulled = _factor_out(body, positive)
    if pulled is body:
        return s
    args = sympy.Mul.make_args(pulled)
    masks = [f for f in args if isinstance(f, sympy.Piecewise)]
    if len(masks) != 1:
        return s
    factor = [f for f in args if not isinstance(f, sympy.Piecewise)]
    return sympy.Mul(*factor) * sympy.Sum(masks[0], *s.limits)


def _factor_out(pw: sympy.Piecewise, positive: set[sympy.Basic]) -> sympy.Basic:
    """`[c] E^k v = E^k [c] v` for the positive finite E = e^M of a running maximum: the mask
    gives 0 or the value, either way the factor comes out."""
    if len(pw.args) != 2 or pw.args[1].cond != sympy.true or pw.args[1].expr != 0:
        return pw
    value, cond = pw.args[0]
    out: list[sympy.Basic] = []
    keep: list[sympy.Basic] = []
    for f in sympy.Mul.make_args(value):
        base = f.base if isinstance(f, sympy.Pow) and f.exp.is_Integer else f
        (out if base in positive else keep).append(f)
    if not out:
        return pw
    return sympy.Mul(*out) * sympy.Piecewise((sympy.Mul(*keep), cond), (0, True))


def _finite_problem(m: _MaxOver) -> str:
    """Why the running maximum m may be -inf or +inf, or "" when it is provably finite: a
    nonempty range of finite terms, or a masked range that starts at key 1 (never masked)."""
    j, lo, hi = m.limits
    if m.body.has(sympy.oo, sympy.zoo, sympy.nan):
        return f"the running maximum {plain_max(m)} may be +inf"
    if not m.body.has(-sympy.oo, sympy.Piecewise):
        if _nonneg(hi - lo):
            return ""
        return f"cannot show that the range of the running maximum {plain_max(m)} is nonempty"
    if lo != 1 or not _nonneg(hi - 1):
        return f"cannot show that the running maximum {plain_max(m)} is finite (is key 1 in it?)"
    first = m.body.xreplace({j: sympy.Integer(1)})
    if first.has(sympy.oo, -sympy.oo, sympy.zoo, sympy.nan, sympy.Piecewise):
        return (
            f"cannot show that the running maximum {plain_max(m)} is finite: its first term "
            f"{plain_max(first)} may be masked (-inf)"
        )
    if m.body.has(sympy.oo, sympy.zoo, sympy.nan):
        return f"the running maximum {plain_max(m)} may be +inf"
    return ""
