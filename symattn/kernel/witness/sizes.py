"""Size plans: explicit values for the dims of a claim that satisfy the declared relations.

Imports only sympy, kernel.errors and kernel.dims; must not import anything above it. The exact and
numeric witnesses evaluate at these plans.

A plan is built, never filtered out of a fixed grid: the claim's dims are resolved through the
declared equalities (`d_v = d/H` makes a claim about `d_v` a claim about `d` and `H`), values are
chosen for the dims that remain free, and every declared dim they determine must come out a
positive integer. Among the plans that do, those that keep dims apart which the assumptions do
not make equal come first (`n = 3, d_k = 2` catches a confusion of `n` with `d_k`; `n = d_k = 2`
cannot), then those with no dim of size 1, then the smallest.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction

import sympy

from symattn.kernel.dims import DimContext, current
from symattn.kernel.errors import Signal

Plan = dict[sympy.Symbol, int]

_MAX_VALUE = 9  # the largest value tried for a free dim
_MAX_CANDIDATES = 60_000  # assignments looked at, at most, before settling for what was found


class NoPlan(Signal):
    """No explicit sizes satisfy the declared relations; the message names them."""


def plans(
    dims: Sequence[sympy.Symbol], limit: int = 2, ctx: DimContext | None = None
) -> list[Plan]:
    """Up to `limit` plans for `dims` (free dim symbols), best first; [] when there is none.

    >>> from symattn.kernel.dims import assume, d, d_v, H, n
    >>> plans([d_v, n])
    [{d_v: 2, n: 3}, {d_v: 3, n: 2}]
    >>> with assume(d_v=d / H):
    ...     [{str(k): v for k, v in p.items()} for p in plans([n, d, H], limit=1)]
    [{'H': 2, 'd': 6, 'n': 4}]
    """
    ctx = ctx if ctx is not None else current()
    key = (tuple(dims), frozenset(ctx.equalities.items()), limit)
    return [dict(p) for p in _plans_cached(*key)]


@functools.lru_cache(maxsize=1024)
def _plans_cached(
    dims: tuple[sympy.Symbol, ...], eqs: frozenset, limit: int
) -> tuple[tuple[tuple[sympy.Symbol, int], ...], ...]:
    ctx = DimContext(dict(eqs))
    free, derived = _relevant(dims, ctx)
    if not free:
        return ((),) if _valid({}, derived) is not None else ()
    named = sorted(free, key=lambda s: s.name)
    found: list[tuple[tuple, tuple[int, ...]]] = []
    perfect = 0
    for looked, values in enumerate(_candidates(len(named))):
        if looked >= _MAX_CANDIDATES or perfect >= 3 * limit:
            break
        all_values = _valid(dict(zip(named, values, strict=True)), derived)
        if all_values is None:
            continue
        score = (_collisions(all_values, derived), values.count(1))
        perfect += score == (0, 0)
        found.append((score, values))
    chosen: list[tuple[int, ...]] = []
    while found and len(chosen) < limit:
        # after the first, prefer plans that differ from those chosen in every dim
        best = min(found, key=lambda f: (f[0], -_apart(f[1], chosen), sum(f[1]), f[1]))
        found.remove(best)
        chosen.append(best[1])
    return tuple(tuple(zip(named, values, strict=True)) for values in chosen)


def _apart(values: tuple[int, ...], chosen: list[tuple[int, ...]]) -> int:
    return min((sum(a != b for a, b in zip(values, c, strict=True)) for c in chosen), default=0)


def _relevant(
    dims: Sequence[sympy.Symbol], ctx: DimContext
) -> tuple[set[sympy.Symbol], dict[sympy.Symbol, sympy.Expr]]:
    """The free dims to choose, and every declared dim they determine (resolved)."""
    resolved = {s: ctx.resolve(v) for s, v in ctx.equalities.items()}
    free: set[sympy.Symbol] = set()
    for s in dims:
        free |= ctx.resolve(s).free_symbols
    derived: dict[sympy.Symbol, sympy.Expr] = {}
    changed = True
    while changed:
        changed = False
        for s, v in resolved.items():
            if s in derived:
                continue
            syms = v.free_symbols
            # a relation that fixes a number (d_k = d/H = 3/2) must hold whatever the claim is
            if s in dims or not syms or syms & free:
                derived[s] = v
                free |= syms
                changed = True
    free -= set(derived)
    return free, derived


def _candidates(k: int):
    """Assignments of k values in 1.._MAX_VALUE, in layers of growing largest value."""
    order = list(range(2, _MAX_VALUE + 1)) + [1]
    for top in range(len(order)):
        allowed = order[: top + 1]
        newest = order[top]
        for values in itertools.product(allowed, repeat=k):
            if newest in values:
                yield values


def _valid(
    plan: Mapping[sympy.Symbol, int], derived: Mapping[sympy.Symbol, sympy.Expr]
) -> dict[sympy.Symbol, Fraction] | None:
    """Every dim's value under `plan`, or None when a declared dim is not a positive integer."""
    values: dict[sympy.Symbol, Fraction] = {s: Fraction(v) for s, v in plan.items()}
    for s, e in derived.items():
        try:
            v = _compile(e)(values)
        except (KeyError, ZeroDivisionError, TypeError):
            return None
        if v.denominator != 1 or v < 1:
            return None
        values[s] = v
    return values


def _collisions(
    values: Mapping[sympy.Symbol, Fraction], derived: Mapping[sympy.Symbol, sympy.Expr]
) -> int:
    """Pairs of dims with one value that the assumptions do not make equal."""
    names = sorted(values, key=lambda s: s.name)
    exprs = {s: derived.get(s, s) for s in names}
    count = 0
    for a, b in itertools.combinations(names, 2):
        if values[a] == values[b] and not _same(exprs[a], exprs[b]):
            count += 1
    return count


@functools.lru_cache(maxsize=4096)
def _same(a: sympy.Expr, b: sympy.Expr) -> bool:
    return bool(sympy.cancel(a - b) == 0)


@functools.lru_cache(maxsize=4096)
def _compile(e: sympy.Expr) -> Callable[[Mapping[sympy.Symbol, Fraction]], Fraction]:
    """A dim expression as a function of exact values (no eval, no floats)."""
    if e.is_Integer:
        c = Fraction(int(e))
        return lambda env: c
    if e.is_Rational:
        c = Fraction(int(e.p), int(e.q))
        return lambda env: c
    if isinstance(e, sympy.Symbol):
        return lambda env: env[e]
    if isinstance(e, sympy.Add):
        parts = [_compile(a) for a in e.args]
        return lambda env: sum((f(env) for f in parts), Fraction(0))
    if isinstance(e, sympy.Mul):
        parts = [_compile(a) for a in e.args]

        def product(env: Mapping[sympy.Symbol, Fraction]) -> Fraction:
            out = Fraction(1)
            for f in parts:
                out *= f(env)
            return out

        return product
    if isinstance(e, sympy.Pow) and e.exp.is_Integer:
        base, k = _compile(e.base), int(e.exp)
        return lambda env: base(env) ** k
    raise TypeError(f"a dim must be a rational expression of dims, not {e}")


def substitution(plan: Mapping[sympy.Symbol, int]) -> dict:
    """`plan` and every declared dim it determines, as sympy Integers.

    Declared dims that the plan does not determine (relations about other dims) are left out.

    >>> from symattn.kernel.dims import assume, d, d_v, H
    >>> with assume(d_v=d / H):
    ...     sorted((str(k), v) for k, v in substitution({d: 6, H: 2}).items())
    [('H', 2), ('d', 6), ('d_v', 3)]
    """
    ctx = current()
    out = {s: sympy.Integer(int(v)) for s, v in plan.items()}
    for s, value in ctx.equalities.items():
        v = ctx.resolve(sympy.sympify(value, strict=True)).xreplace(out)
        if v.is_Integer and v > 0:
            out[s] = sympy.Integer(int(v))
        elif v.is_number:
            raise NoPlan(f"{s} = {value} is {v} at {_shown(plan)}, not a positive integer")
    return out


def describe(ctx: DimContext | None = None) -> str:
    """The declared relations as text, for "no sizes satisfy ..." messages."""
    ctx = ctx if ctx is not None else current()
    return ", ".join(f"{s} = {v}" for s, v in ctx.equalities.items()) or "none"


def _shown(plan: Mapping[sympy.Symbol, int]) -> str:
    return ", ".join(f"{s}={v}" for s, v in sorted(plan.items(), key=lambda x: x[0].name))
