"""The three witnesses of an equality: symbolic (all sizes), exact (explicit sizes), numeric.

Imports the kernel (dims, expr, index, numeric); never the front or back ends.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import sympy

from symattn import numeric
from symattn.canon import Range, TooLarge, bound_indices, normal_form
from symattn.dims import current
from symattn.expr import Entry, MatExpr, MatSym, dims_in, expand_entries, index, walk
from symattn.ranges import dependency_order

Term: TypeAlias = sympy.Basic  # a MatExpr or a scalar sympy expression

# Sizes tried by the exact and numeric witnesses, first one first. Distinct values for
# n, d_k, d_v catch a confusion of one dim for another.
SIZE_PLANS: tuple[dict[str, int], ...] = (
    {"n": 3, "d": 4, "d_k": 2, "d_v": 5, "H": 2},
    {"n": 4, "d": 6, "d_k": 3, "d_v": 2, "H": 3},
)
_DEFAULT_SIZES = (2, 3)
_MAX_INDEX_POINTS = 40


@dataclass(frozen=True)
class Counterexample:
    """Sizes, index values and entries at which the two sides differ, with both values."""

    sizes: tuple[tuple[str, int], ...]
    indices: tuple[tuple[str, int], ...]
    entries: tuple[tuple[str, str], ...]
    lhs: str
    rhs: str
    exact: bool

    def __str__(self) -> str:
        sizes = ", ".join(f"{k}={v}" for k, v in self.sizes) or "(no dims)"
        idx = ", ".join(f"{k}={v}" for k, v in self.indices)
        ents = ", ".join(f"{k}={v}" for k, v in self.entries[:12])
        more = f" (and {len(self.entries) - 12} more)" if len(self.entries) > 12 else ""
        how = "exactly" if self.exact else "with 30-digit arithmetic"
        at = f" at {idx}" if idx else ""
        return (
            f"at sizes {sizes}{at}, with {ents}{more}: "
            f"left side = {self.lhs}, right side = {self.rhs} (evaluated {how})"
        )


@dataclass(frozen=True)
class WitnessResult:
    holds: bool | None  # None: this witness could not decide
    detail: str = ""
    counterexample: Counterexample | None = None
    sizes: tuple[tuple[tuple[str, int], ...], ...] = field(default_factory=tuple)


# ---- symbolic ------------------------------------------------------------------------------


def symbolic(lhs: Term, rhs: Term, ranges: Mapping[sympy.Symbol, Range]) -> WitnessResult:
    """Equal for all sizes when the canonical index forms agree (sound, not complete)."""
    try:
        a, b = _generic_entries(lhs, rhs, ranges)
        diff = normal_form(a, ranges) - normal_form(b, ranges)
    except TooLarge as exc:
        return WitnessResult(None, f"symbolic expansion too large ({exc})")
    except NotImplementedError as exc:
        return WitnessResult(None, f"symbolic expansion not supported: {exc}")
    if diff == 0:
        return WitnessResult(True, "canonical index forms agree")
    return WitnessResult(None, "canonical index forms differ")


def _generic_entries(
    lhs: Term, rhs: Term, ranges: Mapping[sympy.Symbol, Range]
) -> tuple[sympy.Expr, sympy.Expr]:
    """Scalars stay; matrices are compared at a generic entry (i, j) with fresh indices."""
    if not isinstance(lhs, MatExpr):
        return lhs, rhs
    used = {s.name for s in _free(lhs) | _free(rhs)}
    i, j = (index(_unused(p, used)) for p in ("i", "j"))
    if isinstance(ranges, dict):
        ranges.setdefault(i, (sympy.Integer(1), lhs.rows))
        ranges.setdefault(j, (sympy.Integer(1), lhs.cols))
    return Entry(lhs, i, j), Entry(rhs, i, j)


def _unused(prefix: str, used: set[str]) -> str:
    for k in itertools.count():
        name = prefix if k == 0 else f"{prefix}{k}"
        if name not in used:
            used.add(name)
            return name
    raise AssertionError  # pragma: no cover


def _free(e: sympy.Basic) -> set[sympy.Symbol]:
    return {
        s for x in walk(e) for s in getattr(x, "free_symbols", set()) if isinstance(s, sympy.Symbol)
    }


# ---- explicit sizes -------------------------------------------------------------------------


def dims_of(*terms: Term, indices: Iterable[sympy.Symbol] = ()) -> list[sympy.Symbol]:
    """The dimension symbols a claim depends on (positive-integer symbols that are not indices)."""
    skip = set(indices) | bound_indices(*terms)
    found: set[sympy.Symbol] = set()
    for t in terms:
        found |= dims_in(t)
        for x in walk(t):
            if isinstance(x, sympy.Symbol) and x.is_integer and x.is_positive and x not in skip:
                found.add(x)
    ctx = current()
    resolved: set[sympy.Symbol] = set()
    for s in found:
        resolved |= ctx.resolve(s).free_symbols
    return sorted(resolved - skip, key=lambda s: s.name)


def scalars_of(*terms: Term) -> list[sympy.Symbol]:
    """Free scalar variables (symbols that are neither dims nor indices), e.g. `c` in `cA`."""
    labels = {b.label for t in terms for b in t.atoms(sympy.IndexedBase)}
    found = {x for t in terms for x in walk(t) if isinstance(x, sympy.Symbol) and not x.is_integer}
    return sorted(found - labels, key=lambda s: s.name)


def size_plans(dims: Sequence[sympy.Symbol], limit: int = 2) -> list[dict[sympy.Symbol, int]]:
    """Explicit sizes to try, consistent with the declared dim equalities."""
    plans: list[dict[sympy.Symbol, int]] = []
    candidates: list[dict[sympy.Symbol, int]] = []
    for plan in SIZE_PLANS:
        candidates.append({s: plan.get(s.name, _DEFAULT_SIZES[0]) for s in dims})
    for values in itertools.product(range(1, 7), repeat=len(dims)):
        candidates.append(dict(zip(dims, values, strict=False)))
    ctx = current()
    for cand in candidates:
        if _consistent(cand, ctx) and cand not in plans:
            plans.append(cand)
        if len(plans) >= limit:
            break
    return plans


def _consistent(sizes: Mapping[sympy.Symbol, int], ctx) -> bool:  # type: ignore[no-untyped-def]
    for _sym, value in ctx.equalities.items():
        v = ctx.resolve(value).xreplace(dict(sizes))
        if not (v.is_Integer and v > 0):
            return False
    return True


def substitution(sizes: Mapping[sympy.Symbol, int]) -> dict[sympy.Symbol, sympy.Integer]:
    """Every dim (declared-equal ones too) mapped to its number under `sizes`."""
    ctx = current()
    out = {s: sympy.Integer(v) for s, v in sizes.items()}
    for sym, value in ctx.equalities.items():
        out[sym] = sympy.Integer(int(ctx.resolve(value).xreplace(out)))
    return out


def index_points(
    free: Mapping[sympy.Symbol, Range], subs: Mapping[sympy.Symbol, sympy.Integer], seed: int = 0
) -> list[dict[sympy.Symbol, int]]:
    """All index values (or a seeded sample with the corners) within the ranges at these sizes.

    A range may depend on another index (t in 1..n-i); those are chosen after it.
    """
    names = dependency_order(free)
    points: list[dict[sympy.Symbol, int]] = [{}]
    for s in names:
        nxt: list[dict[sympy.Symbol, int]] = []
        for pt in points:
            values = {**subs, **{k: sympy.Integer(v) for k, v in pt.items()}}
            lo, hi = (sympy.sympify(x).xreplace(values) for x in free[s])
            if not (lo.is_Integer and hi.is_Integer):
                raise ValueError(f"range of {s} is not explicit: {lo}..{hi}")
            nxt.extend({**pt, s: v} for v in range(int(lo), int(hi) + 1))
        points = nxt
        if len(points) > 50 * _MAX_INDEX_POINTS:
            points = _sample(points, seed)
    return _sample(points, seed) if len(points) > _MAX_INDEX_POINTS else points


def _sample(points: list[dict[sympy.Symbol, int]], seed: int) -> list[dict[sympy.Symbol, int]]:
    rng = random.Random(seed)
    keep = [points[0], points[-1]]
    keep.extend(rng.sample(points[1:-1], min(_MAX_INDEX_POINTS - 2, max(len(points) - 2, 0))))
    return keep


def instantiate(
    side: Term, subs: Mapping[sympy.Symbol, sympy.Integer], point: Mapping[sympy.Symbol, int]
) -> sympy.Expr:
    """One side at explicit sizes and index values, all sums written out."""
    values = {**subs, **{k: sympy.Integer(v) for k, v in point.items()}}
    e = expand_entries(side.xreplace(values))
    return e.doit()


def exact(
    lhs: Term,
    rhs: Term,
    ranges: Mapping[sympy.Symbol, Range],
    *,
    plans: Iterable[Mapping[sympy.Symbol, int]] | None = None,
    assuming: Sequence[sympy.Basic] = (),
    method: str = "auto",
) -> WitnessResult:
    """Equal at explicit sizes, every entry an independent symbol.

    Each size plan is checked by full symbolic expansion when that is cheap (estimated terms
    at most `EXPAND_LIMIT`), else by exact evaluation mod p at random points (`symattn.modp`),
    whose detail states the chance of a false "equal". `method` forces "expand" or "field".

    >>> from symattn.attention import multi_head
    >>> mh = multi_head(n=7, d=512, d_v=64, H=8, d_k=64)
    >>> r = exact(mh.output, mh.blockwise, {})
    >>> r.holds, r.detail.startswith("equal mod p at 3 independent random points")
    (True, True)
    """
    ranges = dict(ranges)
    generic = dict(ranges)
    a, b = _generic_entries(lhs, rhs, generic)
    dims = dims_of(a, b, indices=generic)
    if plans is None:
        plans = size_plans(dims)
    checked, details = [], []
    for plan in plans:
        subs = substitution(plan)
        cost = expansion_cost(lhs, rhs, ranges, subs)
        use_field = method == "field" or (method == "auto" and cost > EXPAND_LIMIT)
        if use_field:
            result = _field_plan(lhs, rhs, ranges, subs, assuming, cost)
        else:
            result = _expand_plan(lhs, rhs, ranges, subs, assuming)
        if result.holds is not True:
            return result
        details.append(result.detail)
        if plan:
            checked.append(_named(plan))
    return WitnessResult(True, "; ".join(dict.fromkeys(details)), sizes=tuple(checked))


# Full expansion above this many estimated terms (index points x terms per entry) is slow in
# sympy (about a second per few hundred terms); the field evaluation takes milliseconds.
EXPAND_LIMIT = 64
_EXPAND_FALLBACK = 5_000  # the field model cannot decide the claim: expand up to this


def _named(plan: Mapping[sympy.Symbol, int]) -> tuple[tuple[str, int], ...]:
    return tuple((s.name, v) for s, v in sorted(plan.items(), key=lambda x: x[0].name))


def _expand_plan(lhs, rhs, ranges, subs, assuming) -> WitnessResult:  # type: ignore[no-untyped-def]
    rng = dict(ranges)
    a, b = _generic_entries(lhs, rhs, rng)
    for point in index_points(rng, subs):
        if not _holds(assuming, subs, point):
            continue
        try:
            left, right = instantiate(a, subs, point), instantiate(b, subs, point)
            # the same value (even -oo, whose difference would be nan) is equal
            diff = left == right or _zero(left - right)
        except (ValueError, TypeError, NotImplementedError) as exc:
            return WitnessResult(None, f"exact expansion failed: {exc}")
        if diff is not True:
            cex = counterexample(lhs, rhs, ranges, assuming=assuming)
            if cex is not None:
                return WitnessResult(False, "the two sides differ", cex)
            return WitnessResult(None, "exact expansion did not simplify to zero")
    return WitnessResult(True, "equal after full expansion")


def _field_plan(lhs, rhs, ranges, subs, assuming, cost) -> WitnessResult:  # type: ignore[no-untyped-def]
    from symattn import modp

    at = {s: sympy.Integer(v) for s, v in subs.items()}
    rng = {v: tuple(sympy.sympify(x).xreplace(at) for x in r) for v, r in ranges.items()}
    try:
        found = modp.check(
            lhs.xreplace(at),
            rhs.xreplace(at),
            rng,
            assuming=[c.xreplace(at) for c in assuming],
        )
    except modp.Unsupported as exc:
        if cost <= _EXPAND_FALLBACK:
            return _expand_plan(lhs, rhs, ranges, subs, assuming)
        return WitnessResult(None, f"exact evaluation not supported ({exc}); too large to expand")
    if found.equal:
        return WitnessResult(True, found.detail())
    if found.uses_atoms and cost <= _EXPAND_FALLBACK:
        # exp(a + b) = exp(a) exp(b) is invisible to the field model (softmax shift
        # invariance); full expansion sees it, and gives the counterexample when false.
        return _expand_plan(lhs, rhs, ranges, subs, assuming)
    if dims_of(lhs, rhs, indices=ranges):
        cex = counterexample(lhs, rhs, ranges, assuming=assuming)  # at the smallest sizes
        if cex is not None:
            return WitnessResult(False, f"the two sides differ ({found.detail()})", cex)
    if not found.uses_atoms:
        # No exp or algebraic atoms: the field values are a certificate that the sides differ.
        cex = _sparse_counterexample(lhs.xreplace(at), rhs.xreplace(at), found.where)
        return WitnessResult(False, f"the two sides differ: {found.detail()}", cex)
    cex = _confirmed_counterexample(lhs.xreplace(at), rhs.xreplace(at), found.where)
    if cex is not None:
        return WitnessResult(False, f"the two sides differ ({found.detail()})", cex)
    return WitnessResult(
        None,
        f"{found.detail()} with exp or algebraic numbers as free values; "
        "no counterexample confirmed the difference",
    )


def _confirmed_counterexample(lhs: Term, rhs: Term, where) -> Counterexample | None:  # type: ignore[no-untyped-def]
    """Explicit sizes with exp: few small entries found in float64, confirmed to 30 digits."""
    import numpy as np

    from symattn import modp

    at = dict(where)
    cell = (at.pop("row"), at.pop("col")) if isinstance(lhs, MatExpr) else None
    names = {s.name: s for t in (lhs, rhs) for s in _free(t)}
    point = {names[k]: v for k, v in at.items() if k in names}
    values: dict[tuple, np.ndarray] = {}
    gen = np.random.default_rng(0)
    env = numeric.Env(sizes={}, seed=0)
    env.learn(lhs, rhs)

    def draw(key: tuple, shape: tuple[int, int]) -> np.ndarray:
        if key not in values:
            values[key] = gen.integers(-2, 4, size=shape).astype(np.float64)
        return values[key]

    env.matrix = draw  # type: ignore[method-assign]
    env.data = values

    def differs() -> bool | None:
        env.indices = dict(point)
        try:
            if cell is not None:
                x = numeric.matrix(lhs, env)[cell[0] - 1, cell[1] - 1]
                y = numeric.matrix(rhs, env)[cell[0] - 1, cell[1] - 1]
            else:
                x, y = numeric.scalar(lhs, env), numeric.scalar(rhs, env)
        except numeric.EvalError:
            return None
        return True if abs(x - y) > 1e-6 * (1 + abs(x) + abs(y)) else None

    if differs() is None:
        return None
    modp._minimise(values, differs, budget=400)
    subs = {
        sympy.Indexed(sympy.IndexedBase(_base(k)), *_idx(k, int(i), arr.shape)): int(arr.flat[i])
        for k, arr in values.items()
        for i in np.flatnonzero(arr)
    }
    try:
        lf, rf = (_digits30(_entry_at(t, cell), point, subs) for t in (lhs, rhs))
    except (ValueError, TypeError, KeyError, ZeroDivisionError):
        return None
    if abs(lf - rf) <= 1e-20 * (1 + abs(lf) + abs(rf)):
        return None
    shown = [(_entry_name(x), str(v)) for x, v in subs.items()]
    where_shown = tuple(where) if cell is not None else _names(point)
    return Counterexample(
        sizes=(),
        indices=where_shown,
        entries=_sparse_entries(sorted(shown)),
        lhs=str(sympy.Float(lf, 12)),
        rhs=str(sympy.Float(rf, 12)),
        exact=False,
    )


def _sparse_entries(shown: list[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    return tuple(shown) + ((("every other entry" if shown else "every entry"), "0"),)


def _names(point: Mapping[sympy.Symbol, int]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted((s.name, v) for s, v in point.items()))


def _entry_at(side: Term, cell) -> sympy.Expr:  # type: ignore[no-untyped-def]
    if cell is not None:
        side = Entry(side, sympy.Integer(cell[0]), sympy.Integer(cell[1]))
    return expand_entries(side)


def _digits30(e: sympy.Basic, env: Mapping, entries: Mapping) -> Any:
    """Evaluate a scalar with 30-digit mpmath arithmetic; unlisted entries are 0."""
    import mpmath

    with mpmath.workdps(30):
        return _mp(e, dict(env), entries, mpmath)


def _mp(e, env, entries, mp):  # type: ignore[no-untyped-def]
    if e.is_Rational:
        return mp.mpf(int(e.p)) / int(e.q)
    if isinstance(e, sympy.Symbol):
        return mp.mpf(env[e])
    if isinstance(e, sympy.Add):
        return mp.fsum(_mp(a, env, entries, mp) for a in e.args)
    if isinstance(e, sympy.Mul):
        return mp.fprod(_mp(a, env, entries, mp) for a in e.args)
    if isinstance(e, sympy.Pow):
        return _mp(e.base, env, entries, mp) ** _mp(e.exp, env, entries, mp)
    if isinstance(e, sympy.exp):
        return mp.exp(_mp(e.args[0], env, entries, mp))
    if isinstance(e, sympy.Indexed):
        idx = tuple(int(_index_value(k, env)) for k in e.indices)
        return mp.mpf(entries.get(sympy.Indexed(e.base, *idx), 0))
    if isinstance(e, sympy.Sum):
        return _mp_sum(e.function, list(e.limits), env, entries, mp)
    if isinstance(e, sympy.Piecewise):
        for value, cond in e.args:
            if bool(cond.xreplace({k: sympy.Integer(v) for k, v in env.items()})):
                return _mp(value, env, entries, mp)
        raise ValueError(f"no branch of {e} applies")
    if e.is_number:
        return mp.mpf(sympy.N(e, 35))
    raise TypeError(f"cannot evaluate {type(e).__name__}")


def _mp_sum(body, limits, env, entries, mp):  # type: ignore[no-untyped-def]
    if not limits:
        return _mp(body, env, entries, mp)
    v, lo, hi = limits[-1]
    total = mp.mpf(0)
    for k in range(_index_value(lo, env), _index_value(hi, env) + 1):
        total += _mp_sum(body, limits[:-1], {**env, v: k}, entries, mp)
    return total


def _index_value(e: sympy.Basic, env: Mapping) -> int:
    v = sympy.sympify(e).xreplace({k: sympy.Integer(x) for k, x in env.items()})
    if not v.is_Integer:
        raise ValueError(f"index {e} has no value")
    return int(v)


def _base(key: tuple) -> str:
    if len(key) == 3 and key[1] == "head":
        return key[0] + "^()"
    return str(key[0])


def _idx(key: tuple, flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    r, c = divmod(flat, shape[1])
    if len(key) == 3 and key[1] == "head":
        return (key[2], r + 1, c + 1)
    if len(key) == 2 and key[1] == "column":
        return (r + 1,)
    return (r + 1, c + 1)


def _sparse_counterexample(lhs: Term, rhs: Term, where) -> Counterexample | None:  # type: ignore[no-untyped-def]
    from symattn import modp

    found = modp.shrink(lhs, rhs, where)
    if found is None:
        return None
    return Counterexample(
        sizes=(),
        indices=tuple(where),
        entries=_sparse_entries([(k, str(v)) for k, v in found.entries]),
        lhs=str(found.left),
        rhs=str(found.right),
        exact=True,
    )


def expansion_cost(
    lhs: Term,
    rhs: Term,
    ranges: Mapping[sympy.Symbol, Range],
    subs: Mapping[sympy.Symbol, int],
) -> int:
    """Estimated work of full expansion: index points x terms in one expanded entry.

    >>> from symattn.attention import multi_head
    >>> mh = multi_head(n=7, d=512, d_v=64, H=8, d_k=64)
    >>> expansion_cost(mh.output, mh.blockwise, {}, {})
    40960
    """
    at = {s: sympy.Integer(v) for s, v in subs.items()}
    points = 1
    for lo, hi in ranges.values():
        points *= _count(lo, hi, at)
    if isinstance(lhs, MatExpr):
        points *= _size(lhs.rows, at) * _size(lhs.cols, at)
    # full expansion looks at a sample of at most _MAX_INDEX_POINTS index points
    return min(points, _MAX_INDEX_POINTS) * (_terms(lhs, at) + _terms(rhs, at))


def _size(e: object, at: Mapping, low: bool = False) -> int:
    v = sympy.sympify(e).xreplace(dict(at))
    if v.is_Integer:
        return int(v)
    return 1 if low else _BIG


_BIG = 64  # an index-dependent bound with no number yet


def _terms(e: sympy.Basic, at: Mapping) -> int:
    """Terms in one fully expanded entry (an estimate; softmax counts its row sum)."""
    from symattn.expr import ColSoftmax, Concat, Dot, MatAdd, MatMul, MatSum, Scale, Softmax

    if isinstance(e, MatMul):
        return _size(e.args[0].cols, at) * _terms(e.args[0], at) * _terms(e.args[1], at)
    if isinstance(e, (MatAdd, sympy.Add)):
        return sum(_terms(a, at) for a in e.args)
    if isinstance(e, Scale):
        return _terms(e.args[0], at) * _terms(e.args[1], at)
    if isinstance(e, (Softmax, ColSoftmax)):
        return (_size(e.rows, at) + _size(e.cols, at)) * _terms(e.args[0], at)
    if isinstance(e, MatSum):
        return _count(e.args[2], e.args[3], at) * _terms(e.body, at)
    if isinstance(e, Concat):
        return _terms(e.body, at)
    if isinstance(e, Dot):
        return _size(e.args[0].cols, at) * _terms(e.args[0], at) * _terms(e.args[1], at)
    if isinstance(e, sympy.Sum):
        out = _terms(e.function, at)
        for _, lo, hi in e.limits:
            out *= _count(lo, hi, at)
        return out
    if isinstance(e, sympy.Mul):
        out = 1
        for a in e.args:
            out *= _terms(a, at)
        return out
    if isinstance(e, (sympy.Indexed, sympy.Symbol)) or not e.args:
        return 1
    if isinstance(e, MatExpr) and not isinstance(e, MatSym):
        return max((_terms(a, at) for a in e.args if isinstance(a, MatExpr)), default=1)
    return max((_terms(a, at) for a in e.args), default=1)


def _count(lo: object, hi: object, at: Mapping) -> int:
    return max(_size(hi, at) - _size(lo, at, low=True) + 1, 1)


def _holds(assuming: Sequence[sympy.Basic], subs: Mapping, point: Mapping) -> bool:
    values = {**subs, **{k: sympy.Integer(v) for k, v in point.items()}}
    return all(bool(cond.xreplace(values)) for cond in assuming)


def _zero(diff: sympy.Expr) -> bool:
    d = sympy.expand(diff)
    if d == 0:
        return True
    d = sympy.expand(sympy.powsimp(sympy.expand_power_exp(d)))
    if d == 0:
        return True
    return bool(sympy.cancel(sympy.together(d)) == 0)


# ---- counterexamples ------------------------------------------------------------------------


def counterexample(
    lhs: Term,
    rhs: Term,
    ranges: Mapping[sympy.Symbol, Range],
    *,
    assuming: Sequence[sympy.Basic] = (),
    trials: int = 3,
    seed: int = 0,
) -> Counterexample | None:
    """The smallest sizes (then small integer entries) at which the sides differ, if any."""
    ranges = dict(ranges)
    a, b = _generic_entries(lhs, rhs, ranges)
    dims = dims_of(a, b, indices=ranges)
    rng = random.Random(seed)
    for plan in size_plans(dims, limit=12):
        subs = substitution(plan)
        for point in index_points(ranges, subs, seed):
            if not _holds(assuming, subs, point):
                continue
            left, right = instantiate(a, subs, point), instantiate(b, subs, point)
            for _ in range(trials):
                cex = _try_point(left, right, plan, point, rng)
                if cex is not None:
                    return cex
    return None


def _try_point(left, right, plan, point, rng: random.Random) -> Counterexample | None:  # type: ignore[no-untyped-def]
    atoms = sorted((left.atoms(sympy.Indexed) | right.atoms(sympy.Indexed)), key=str)
    atoms += scalars_of(left, right)
    values = {x: sympy.Integer(rng.choice([-2, -1, 1, 2, 3])) for x in atoms}
    lv, rv = left.xreplace(values), right.xreplace(values)
    if lv == rv:
        return None
    if lv.free_symbols or rv.free_symbols:
        return None  # something stayed symbolic: no honest counterexample here
    exact = not (lv.has(sympy.exp) or rv.has(sympy.exp) or lv.has(sympy.sqrt) or rv.has(sympy.sqrt))
    if exact:
        lv, rv = sympy.nsimplify(lv), sympy.nsimplify(rv)
        if sympy.simplify(lv - rv) == 0:
            return None
    else:
        lf, rf = sympy.N(lv, 30), sympy.N(rv, 30)
        if abs(lf - rf) <= sympy.Float("1e-20", 30) * (1 + abs(lf) + abs(rf)):
            return None
        lv, rv = sympy.N(lv, 12), sympy.N(rv, 12)
    return Counterexample(
        sizes=tuple((s.name, v) for s, v in sorted(plan.items(), key=lambda x: x[0].name)),
        indices=tuple((s.name, v) for s, v in sorted(point.items(), key=lambda x: x[0].name)),
        entries=tuple((_entry_name(k), str(v)) for k, v in values.items()),
        lhs=str(lv),
        rhs=str(rv),
        exact=exact,
    )


def _entry_name(x: sympy.Basic) -> str:
    if not isinstance(x, sympy.Indexed):
        return str(x)
    name = str(x.base.label)
    idx = ",".join(str(k) for k in x.indices)
    if name.endswith("^()"):
        head, *rest = x.indices
        return f"{name[:-3]}^({head})[{','.join(str(k) for k in rest)}]"
    return f"{name}[{idx}]"


# ---- numeric --------------------------------------------------------------------------------


def numeric_check(
    lhs: Term,
    rhs: Term,
    ranges: Mapping[sympy.Symbol, Range],
    *,
    seed: int = 0,
    assuming: Sequence[sympy.Basic] = (),
) -> WitnessResult:
    """float64 random data: both sides agree within RTOL/ATOL at every index point tried."""
    ranges = dict(ranges)
    a, b = _generic_entries(lhs, rhs, ranges)
    dims = dims_of(a, b, indices=ranges)
    checked = []
    for plan in size_plans(dims):
        subs = substitution(plan)
        env = numeric.Env(sizes=dict(subs), seed=seed)
        env.learn(a, b)
        env.scalars = {c: 0.5 + k for k, c in enumerate(scalars_of(a, b))}
        for point in index_points(ranges, subs, seed):
            if not _holds(assuming, subs, point):
                continue
            env.indices = dict(point)
            try:
                x, y = numeric.scalar(a, env), numeric.scalar(b, env)
            except numeric.EvalError as exc:
                return WitnessResult(None, f"numeric evaluation failed: {exc}")
            if not numeric.close(x, y):
                where = ", ".join(
                    f"{k}={v}" for k, v in sorted((s.name, v) for s, v in point.items())
                )
                return WitnessResult(False, f"differ numerically at {where}: {x!r} vs {y!r}")
        checked.append(tuple((s.name, v) for s, v in sorted(plan.items(), key=lambda x: x[0].name)))
    return WitnessResult(
        True, f"agree within rtol={numeric.RTOL}, atol={numeric.ATOL}", sizes=tuple(checked)
    )
