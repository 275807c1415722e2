"""The exact witness's evaluator: an entry formula's value at one index point, mod p, compiled once.

Imports only sympy and the kernel below it (errors, semantics, witness.draw); must not import
kernel.evaluate, whose fast walker it checks, nor proof or anything above it.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

import sympy

from symattn.kernel.errors import Signal
from symattn.kernel.semantics import summation_range
from symattn.kernel.witness.draw import Point

# Each side is written as its entry formula (`entry(i, j)` of every node, as `expand_entries` gives
# it) and that scalar formula is evaluated at every index point, value by value, with Python
# integers mod a prime. Leaves, free scalars and the atoms (`exp(x)`, `cos(x)`, `sin(x)` of each
# distinct value, algebraic numbers) are random field elements, as in `witness.field`; the degree
# bound is computed from the same formulas (`witness.degree_bound`). A masked entry is the value
# `NEG_INF`: `exp` of it is 0 (and exp(0) = 1, cos(0) = 1, sin(0) = 0, as sympy writes them), adding
# a finite value keeps it, a provably positive factor keeps it; any other arithmetic on it is ill-
# formed (`IllFormed`), the rule of docs/kernel.md ("Masks").


class Unsupported(Signal):
    """A formula this evaluator cannot take (the exact witness then expands it)."""


class IllFormed(Unsupported):
    """Arithmetic on a masked (-inf) entry outside a softmax, or an index outside its matrix."""


class _Resample(Signal):
    """A denominator vanished at this random point."""


NEG_INF = "-oo"  # a masked entry: not a field element


@functools.lru_cache(maxsize=65536)
def _free(e: sympy.Basic) -> tuple[sympy.Symbol, ...]:
    """The free symbols of a formula, in a fixed order (sympy computes them anew each time)."""
    return tuple(sorted(e.free_symbols, key=str))


class Scalar:
    """The value of scalar formulas at one point, with index values bound in `env`."""

    def __init__(self, point: Point, env: Mapping[sympy.Symbol, int]):
        self.pt, self.p = point, point.p
        self.env: dict[sympy.Symbol, int] = dict(env)
        self.memo: dict[tuple, Any] = {}

    def value(self, e: sympy.Basic) -> Any:
        """The value of `e` here (memoized by `e` and the values of its free symbols)."""
        return _code(e)(self)

    def _value(self, e: sympy.Basic) -> Any:
        p = self.p
        if e.is_Rational:
            return int(e.p) % p * pow(int(e.q) % p, -1, p) % p
        if e == -sympy.oo:
            return NEG_INF
        if e in (sympy.oo, sympy.zoo, sympy.nan):
            raise IllFormed(f"the value {e} in a formula")
        if isinstance(e, sympy.Symbol):
            if e in self.env:
                return self.env[e] % p
            if e.is_integer:
                raise Unsupported(f"no value for {e}")
            return self.pt.leaf(("scalar", e.name))
        if e.is_Atom and e.is_number:  # pi, E, a float: as in witness.field, no exact value
            raise Unsupported(f"cannot evaluate the number {e} exactly")
        if isinstance(e, sympy.Add):
            return self._add(e)
        if isinstance(e, sympy.Mul):
            return self._mul(e)
        if isinstance(e, sympy.Pow):
            return self._pow(e)
        if isinstance(e, sympy.exp):  # exp(-inf) = 0 and exp(0) = 1, as sympy writes them
            x = self.value(e.args[0])
            return 0 if x is NEG_INF else 1 if x == 0 else self.pt.atom(("exp", x))
        if isinstance(e, (sympy.cos, sympy.sin)):
            x = self._finite(self.value(e.args[0]), e)
            if x == 0:
                return 1 if isinstance(e, sympy.cos) else 0
            return self.pt.atom((type(e).__name__, x))
        if isinstance(e, sympy.Sum):
            return self._sum(e.function, list(e.limits))
        if isinstance(e, sympy.Indexed):
            return self._indexed(e)
        if isinstance(e, (sympy.Mod, sympy.ceiling, sympy.floor)):  # an index used as a number
            return self.integer(e) % p
        if isinstance(e, sympy.Piecewise):
            for val, cond in e.args:
                if self.truth(cond):
                    return self.value(val)
            raise IllFormed(f"no case of {e} applies")
        raise Unsupported(f"cannot evaluate {type(e).__name__} from its definition")

    def _finite(self, x: Any, where: sympy.Basic) -> int:
        if x is NEG_INF:
            raise IllFormed(f"arithmetic on a masked (-inf) entry outside a softmax: {where}")
        return int(x)

    def _add(self, e: sympy.Add) -> Any:
        total, masked = 0, False
        for a in e.args:
            x = self.value(a)
            if x is NEG_INF:
                masked = True  # -inf + finite (or -inf) = -inf
            else:
                total += x
        return NEG_INF if masked else total % self.p

    def _mul(self, e: sympy.Mul) -> Any:
        out, masked = 1, False
        for a in e.args:
            x = self.value(a)
            if x is NEG_INF:
                if masked:
                    raise IllFormed(f"a product of two masked (-inf) entries: {e}")
                masked = True
            else:
                out = out * x % self.p
        if not masked:
            return out
        return self._masked_product(e)

    def _masked_product(self, e: sympy.Mul) -> Any:
        """A product with one masked (-inf) factor: -inf when the others are positive."""
        rest = [a for a in e.args if self.value(a) is not NEG_INF]
        if all(a.xreplace(self._at(a)).is_positive for a in rest):
            return NEG_INF  # c * -inf = -inf for c > 0
        raise IllFormed(
            f"a masked (-inf) entry times a factor not provably positive outside a softmax: {e}"
        )

    def _at(self, e: sympy.Basic) -> dict:
        return {s: sympy.Integer(v) for s, v in self.env.items() if s in e.free_symbols}

    def _pow(self, e: sympy.Pow) -> Any:
        if e.exp.is_Integer:
            base = self._finite(self.value(e.base), e)
            k = int(e.exp)
            if k < 0:
                if base % self.p == 0:
                    raise _Resample
                base, k = pow(base, -1, self.p), -k
            return pow(base, k, self.p)
        if e.is_number:
            if e.is_algebraic:
                return self.pt.atom(("number", e))  # sqrt(2): one free element
            raise Unsupported(f"cannot evaluate the power {e} exactly")
        at = e.xreplace(self._at(e))
        if at.is_number:
            return self.value(at)
        raise Unsupported(f"cannot evaluate the power {e} exactly")

    def _sum(self, body: sympy.Expr, limits: list) -> Any:
        if not limits:
            return self.value(body)
        v, lo, hi = limits[-1]  # sympy lists the innermost limit first
        a, b = self.integer(lo), self.integer(hi)
        total, masked = 0, False
        old = self.env.get(v)
        try:
            for k in summation_range(a, b, v):
                self.env[v] = k
                x = self._sum(body, limits[:-1])
                if x is NEG_INF:
                    masked = True
                else:
                    total += x
        finally:
            if old is None:
                self.env.pop(v, None)
            else:
                self.env[v] = old
        return NEG_INF if masked else total % self.p

    def _indexed(self, e: sympy.Indexed) -> int:
        name = str(e.base.label)
        idx = tuple(self.integer(k) for k in e.indices)
        shape = self.pt.shapes.get(name)
        if shape is None:
            raise Unsupported(f"no shape known for {name}")
        rows, cols = shape
        cell = idx[-2:] if len(idx) >= 2 else (idx[0], 1)
        if len(idx) == 3 and idx[0] < 1:
            raise IllFormed(f"head {idx[0]} of {name}")
        if not (1 <= cell[0] <= rows and 1 <= cell[1] <= (cols if len(idx) >= 2 else 1)):
            raise IllFormed(f"index {idx} of {name} outside {rows} x {cols}")
        return self.pt.leaf((name, *idx))

    # -- index arithmetic, exactly over the integers --
    def integer(self, e: sympy.Basic) -> int:
        q = self.rational(e)
        if q.denominator != 1:
            raise Unsupported(f"the index {e} is not an integer here")
        return int(q)

    def rational(self, e: sympy.Basic) -> Fraction:
        if e.is_Rational:
            return Fraction(int(e.p), int(e.q))
        if isinstance(e, sympy.Symbol):
            if e not in self.env:
                raise Unsupported(f"no value for the index {e}")
            return Fraction(self.env[e])
        if isinstance(e, sympy.Add):
            return sum((self.rational(a) for a in e.args), Fraction(0))
        if isinstance(e, sympy.Mul):
            return math.prod((self.rational(a) for a in e.args), start=Fraction(1))
        if isinstance(e, sympy.Pow) and e.exp.is_Integer:
            return self.rational(e.base) ** int(e.exp)
        if isinstance(e, sympy.ceiling):
            return Fraction(math.ceil(self.rational(e.args[0])))
        if isinstance(e, sympy.floor):
            return Fraction(math.floor(self.rational(e.args[0])))
        if isinstance(e, sympy.Mod):
            return self.rational(e.args[0]) % self.rational(e.args[1])
        raise Unsupported(f"cannot use {e} as an index")

    def truth(self, cond: sympy.Basic) -> bool:
        if cond in (sympy.true, sympy.false):
            return bool(cond)
        if isinstance(cond, sympy.core.relational.Relational):
            a, b = self.rational(cond.lhs), self.rational(cond.rhs)
            ops: dict[str, Callable[[Fraction, Fraction], bool]] = {
                "<=": lambda x, y: x <= y,
                ">=": lambda x, y: x >= y,
                "<": lambda x, y: x < y,
                ">": lambda x, y: x > y,
                "==": lambda x, y: x == y,
                "!=": lambda x, y: x != y,
            }
            return ops[cond.rel_op](a, b)
        if isinstance(cond, sympy.And):
            return all(self.truth(c) for c in cond.args)
        if isinstance(cond, sympy.Or):
            return any(self.truth(c) for c in cond.args)
        if isinstance(cond, sympy.Not):
            return not self.truth(cond.args[0])
        raise Unsupported(f"cannot decide {cond}")


# ---- the same evaluation, compiled ------------------------------------------------------------
#
# `Scalar.value` runs each formula as a tree of closures built once per distinct subformula
# (`_code`), keyed by the formula itself, so the sympy tree is walked once and not at every index
# point, trial and plan. Each closure does what `Scalar._value` does for its node, with the same
# memo (keyed by the node and the values of its free symbols), the same order of evaluation and
# the same errors; a node without a closure of its own runs `Scalar._value`.


_MISS = object()


_CODE: dict[sympy.Basic, Callable[[Scalar], Any]] = {}


_CODE_LIMIT = 200_000  # formulas kept compiled, at most (then the table starts anew)


_IDS = itertools.count()


def _code(e: sympy.Basic) -> Callable[[Scalar], Any]:
    f = _CODE.get(e)
    if f is None:
        if len(_CODE) >= _CODE_LIMIT:
            _CODE.clear()
        f = _CODE[e] = _compile(e)
    return f


def _compile(e: sympy.Basic) -> Callable[[Scalar], Any]:
    if e.is_Rational:
        return _rational_value(e)
    inner = _inner(e)
    nid, deps = next(_IDS), _free(e)

    def run(ev: Scalar) -> Any:
        env = ev.env
        key = (nid, tuple([env.get(s) for s in deps]))
        memo = ev.memo
        v = memo.get(key, _MISS)
        if v is _MISS:
            v = memo[key] = inner(ev)
        return v

    return run


def _rational_value(e: sympy.Rational) -> Callable[[Scalar], Any]:
    num, den = int(e.p), int(e.q)
    cache: dict[int, int] = {}

    def const(ev: Scalar) -> int:
        p = ev.p
        v = cache.get(p)
        if v is None:
            v = cache[p] = num % p * pow(den % p, -1, p) % p
        return v

    return const


def _inner(e: sympy.Basic) -> Callable[[Scalar], Any]:  # noqa: C901 - one case a node, as _value
    if e == -sympy.oo:
        return lambda ev: NEG_INF
    if e in (sympy.oo, sympy.zoo, sympy.nan):
        return lambda ev: Scalar._value(ev, e)  # raises IllFormed
    if isinstance(e, sympy.Symbol):
        return _symbol(e)
    if e.is_Atom:
        return lambda ev: Scalar._value(ev, e)
    if isinstance(e, sympy.Add):
        return _add(e)
    if isinstance(e, sympy.Mul):
        return _mul(e)
    if isinstance(e, sympy.Pow) and e.exp.is_Integer:
        return _int_pow(e)
    if isinstance(e, sympy.exp):
        arg = _code(e.args[0])

        def exp_(ev: Scalar) -> Any:
            x = arg(ev)
            return 0 if x is NEG_INF else 1 if x == 0 else ev.pt.atom(("exp", x))

        return exp_
    if isinstance(e, (sympy.cos, sympy.sin)):
        arg, cos, name = _code(e.args[0]), isinstance(e, sympy.cos), type(e).__name__

        def trig(ev: Scalar) -> Any:
            x = ev._finite(arg(ev), e)
            if x == 0:
                return 1 if cos else 0
            return ev.pt.atom((name, x))

        return trig
    if isinstance(e, sympy.Sum):
        return _sum(e)
    if isinstance(e, sympy.Indexed):
        return _indexed(e)
    if isinstance(e, (sympy.Mod, sympy.ceiling, sympy.floor)):
        whole = _integer(e)
        return lambda ev: whole(ev) % ev.p
    if isinstance(e, sympy.Piecewise):
        cases = [(_code(val), _truth(cond)) for val, cond in e.args]

        def piecewise(ev: Scalar) -> Any:
            for val, cond in cases:
                if cond(ev):
                    return val(ev)
            raise IllFormed(f"no case of {e} applies")

        return piecewise
    return lambda ev: Scalar._value(ev, e)


def _symbol(e: sympy.Symbol) -> Callable[[Scalar], Any]:
    integer, key = bool(e.is_integer), ("scalar", e.name)

    def symbol(ev: Scalar) -> Any:
        env = ev.env
        if e in env:
            return env[e] % ev.p
        if integer:
            raise Unsupported(f"no value for {e}")
        return ev.pt.leaf(key)

    return symbol


def _add(e: sympy.Add) -> Callable[[Scalar], Any]:
    kids = [_code(a) for a in e.args]

    def add(ev: Scalar) -> Any:
        total, masked = 0, False
        for k in kids:
            x = k(ev)
            if x is NEG_INF:
                masked = True  # -inf + finite (or -inf) = -inf
            else:
                total += x
        return NEG_INF if masked else total % ev.p

    return add


def _mul(e: sympy.Mul) -> Callable[[Scalar], Any]:
    kids = [_code(a) for a in e.args]

    def mul(ev: Scalar) -> Any:
        out, masked, p = 1, False, ev.p
        for k in kids:
            x = k(ev)
            if x is NEG_INF:
                if masked:
                    raise IllFormed(f"a product of two masked (-inf) entries: {e}")
                masked = True
            else:
                out = out * x % p
        if not masked:
            return out
        return ev._masked_product(e)

    return mul


def _int_pow(e: sympy.Pow) -> Callable[[Scalar], Any]:
    base_, k0 = _code(e.base), int(e.exp)

    def power(ev: Scalar) -> Any:
        p = ev.p
        base, k = ev._finite(base_(ev), e), k0
        if k < 0:
            if base % p == 0:
                raise _Resample
            base, k = pow(base, -1, p), -k
        return pow(base, k, p)

    return power


def _sum(e: sympy.Sum) -> Callable[[Scalar], Any]:
    body = _code(e.function)
    limits = [(v, _integer(lo), _integer(hi)) for v, lo, hi in e.limits]

    def run(ev: Scalar, depth: int) -> Any:
        if depth < 0:
            return body(ev)
        v, lo, hi = limits[depth]  # sympy lists the innermost limit first
        a, b = lo(ev), hi(ev)
        total, masked = 0, False
        env = ev.env
        old = env.get(v)
        try:
            for k in summation_range(a, b, v):
                env[v] = k
                x = run(ev, depth - 1)
                if x is NEG_INF:
                    masked = True
                else:
                    total += x
        finally:
            if old is None:
                env.pop(v, None)
            else:
                env[v] = old
        return NEG_INF if masked else total % ev.p

    top = len(limits) - 1
    return lambda ev: run(ev, top)


def _indexed(e: sympy.Indexed) -> Callable[[Scalar], Any]:
    name = str(e.base.label)
    idx_ = [_integer(k) for k in e.indices]
    n = len(idx_)

    def indexed(ev: Scalar) -> Any:
        idx = tuple([f(ev) for f in idx_])
        shape = ev.pt.shapes.get(name)
        if shape is None:
            raise Unsupported(f"no shape known for {name}")
        rows, cols = shape
        cell = idx[-2:] if n >= 2 else (idx[0], 1)
        if n == 3 and idx[0] < 1:
            raise IllFormed(f"head {idx[0]} of {name}")
        if not (1 <= cell[0] <= rows and 1 <= cell[1] <= (cols if n >= 2 else 1)):
            raise IllFormed(f"index {idx} of {name} outside {rows} x {cols}")
        return ev.pt.leaf((name, *idx))

    return indexed


# -- index arithmetic, exactly over the integers (ints, or Fractions where a ratio appears) --
_Num = int | Fraction


def _integer(e: sympy.Basic) -> Callable[[Scalar], int]:
    q_ = _rational(e)

    def integer(ev: Scalar) -> int:
        q = q_(ev)
        if type(q) is not int:
            if q.denominator != 1:
                raise Unsupported(f"the index {e} is not an integer here")
            return int(q)
        return q

    return integer


def _rational(e: sympy.Basic) -> Callable[[Scalar], _Num]:  # noqa: C901 - as Scalar.rational
    if e.is_Rational:
        c: _Num = int(e.p) if e.q == 1 else Fraction(int(e.p), int(e.q))
        return lambda ev: c
    if isinstance(e, sympy.Symbol):

        def symbol(ev: Scalar) -> _Num:
            env = ev.env
            if e not in env:
                raise Unsupported(f"no value for the index {e}")
            return env[e]

        return symbol
    if isinstance(e, sympy.Add):
        kids = [_rational(a) for a in e.args]
        return lambda ev: sum([k(ev) for k in kids])
    if isinstance(e, sympy.Mul):
        kids = [_rational(a) for a in e.args]
        return lambda ev: math.prod([k(ev) for k in kids])
    if isinstance(e, sympy.Pow) and e.exp.is_Integer:
        base, k = _rational(e.base), int(e.exp)
        return lambda ev: Fraction(base(ev)) ** k
    if isinstance(e, sympy.ceiling):
        arg = _rational(e.args[0])
        return lambda ev: math.ceil(arg(ev))
    if isinstance(e, sympy.floor):
        arg = _rational(e.args[0])
        return lambda ev: math.floor(arg(ev))
    if isinstance(e, sympy.Mod):
        a, b = _rational(e.args[0]), _rational(e.args[1])
        return lambda ev: a(ev) % b(ev)

    def unsupported(ev: Scalar) -> _Num:
        raise Unsupported(f"cannot use {e} as an index")

    return unsupported


_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "<=": lambda x, y: x <= y,
    ">=": lambda x, y: x >= y,
    "<": lambda x, y: x < y,
    ">": lambda x, y: x > y,
    "==": lambda x, y: x == y,
    "!=": lambda x, y: x != y,
}


def _truth(cond: sympy.Basic) -> Callable[[Scalar], bool]:
    if cond in (sympy.true, sympy.false):
        v = bool(cond)
        return lambda ev: v
    if isinstance(cond, sympy.core.relational.Relational):
        a, b, op = _rational(cond.lhs), _rational(cond.rhs), _OPS.get(cond.rel_op)
        if op is None:
            return lambda ev: Scalar.truth(ev, cond)
        return lambda ev: op(a(ev), b(ev))
    if isinstance(cond, sympy.And):
        parts = [_truth(c) for c in cond.args]
        return lambda ev: all(c(ev) for c in parts)
    if isinstance(cond, sympy.Or):
        parts = [_truth(c) for c in cond.args]
        return lambda ev: any(c(ev) for c in parts)
    if isinstance(cond, sympy.Not):
        inner = _truth(cond.args[0])
        return lambda ev: not inner(ev)
    return lambda ev: Scalar.truth(ev, cond)  # raises Unsupported
