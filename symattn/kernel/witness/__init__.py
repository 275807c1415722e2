"""The three witnesses of an equality: symbolic (all sizes), exact (explicit sizes), numeric.

Imports the kernel (dims, expr, index, numeric); never the front or back ends.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

import numpy as np
import sympy

from symattn.kernel import evaluate
from symattn.kernel.canon import Range, TooLarge, bound_indices, normal_form
from symattn.kernel.dims import current
from symattn.kernel.errors import ResourceError
from symattn.kernel.expr import Entry, MatExpr, MatSym, dims_in, expand_entries, index, walk
from symattn.kernel.limits import MAX_ARRAY_ENTRIES, check_array
from symattn.kernel.ranges import dependency_order
from symattn.kernel.semantics import ReversedRange, summation_range
from symattn.kernel.text import plain
from symattn.kernel.witness import numeric, sizes

Term: TypeAlias = sympy.Basic  # a MatExpr or a scalar sympy expression

_MAX_SAMPLE = 40  # index points looked at when there are too many to look at all
_EXHAUSTIVE = 400  # full expansion looks at every index point up to this many
_ENUMERATE = 200_000  # index points counted, at most, before the count is given as a floor


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
        sizes = ", ".join(f"{k}={v}" for k, v in self.sizes)
        idx = ", ".join(f"{k}={v}" for k, v in self.indices)
        ents = ", ".join(f"{k}={v}" for k, v in self.entries[:12])
        more = f" (and {len(self.entries) - 12} more)" if len(self.entries) > 12 else ""
        how = "exactly" if self.exact else "with 30-digit arithmetic"
        where = [f"at sizes {sizes}" if sizes else "", f"at {idx}" if idx else ""]
        where.append(f"with {ents}{more}" if ents else "")
        head = ", ".join(w for w in where if w)
        return (
            f"{head + ': ' if head else ''}"
            f"left side = {self.lhs}, right side = {self.rhs} (evaluated {how})"
        )


Method = Literal["expansion", "mod p", "float64"]


@dataclass(frozen=True)
class Evidence:
    """What one witness evaluated at one size plan: the sizes, how, and how many points.

    `total` counts the index points (entries, for a matrix claim) the claim ranges over at these
    sizes, hypotheses applied; `points` those actually evaluated. `total` is None when there
    were too many to count.

    >>> print(Evidence((("n", 3), ("d_k", 2)), "expansion", 9, 9))
    exactly by full expansion at n=3, d_k=2: all 9 index points
    >>> print(Evidence((("n", 9),), "expansion", 40, 81))
    exactly by full expansion at n=9: 40 of 81 index points sampled
    """

    sizes: tuple[tuple[str, int], ...]
    method: Method
    points: int
    total: int | None
    unit: str = "index points"
    trials: int = 0
    primes: tuple[int, ...] = ()
    bound: float | None = None

    @property
    def exhaustive(self) -> bool:
        return self.total is not None and self.points >= self.total

    def __str__(self) -> str:
        at = ", ".join(f"{k}={v}" for k, v in self.sizes) or "the sizes given"
        if self.total == 0:
            what = f"no {self.unit} (every range is empty)"
        elif self.exhaustive:
            what = f"all {self.total} {self.unit}"
        else:
            of = f"{self.total}" if self.total is not None else f"more than {_ENUMERATE}"
            what = f"{self.points} of {of} {self.unit} sampled"
        how = {
            "expansion": "exactly by full expansion",
            "mod p": "exactly mod p",
            "float64": "in float64",
        }[self.method]
        text = f"{how} at {at}: {what}"
        if self.method == "mod p":
            ps = ", ".join(str(p) for p in self.primes)
            text += (
                f", {self.trials} random trials (p = {ps}); "
                f"chance of a false 'equal' <= {self.bound:.1e}"
            )
        elif self.method == "float64":
            text += f", within rtol={numeric.RTOL}, atol={numeric.ATOL}"
        return text


@dataclass(frozen=True)
class WitnessResult:
    """One witness's answer. `holds` is True only with evidence that evaluated something."""

    holds: bool | None  # None: this witness could not decide
    detail: str = ""
    counterexample: Counterexample | None = None
    evidence: tuple[Evidence, ...] = ()

    @property
    def sizes(self) -> tuple[tuple[tuple[str, int], ...], ...]:
        """The size plans at which every index point was evaluated."""
        return tuple(e.sizes for e in self.evidence if e.exhaustive and e.points)

    @property
    def evaluated(self) -> int:
        return sum(e.points for e in self.evidence)

    @property
    def exhaustive(self) -> bool:
        """Some plan was evaluated at every one of its index points (and there was one)."""
        return any(e.exhaustive and e.points for e in self.evidence)


def _supported(evidence: Sequence[Evidence], detail: str) -> WitnessResult:
    """'holds' when the evidence evaluated something; otherwise 'no evidence', never 'holds'."""
    evidence = tuple(evidence)
    if not any(e.points for e in evidence):
        shown = "; ".join(str(e) for e in evidence) or "no size plan"
        return WitnessResult(None, f"no evidence: nothing was evaluated ({shown})", None, evidence)
    return WitnessResult(True, detail, None, evidence)


# ---- symbolic ------------------------------------------------------------------------------


def symbolic(lhs: Term, rhs: Term, ranges: Mapping[sympy.Symbol, Range]) -> WitnessResult:
    """Equal for all sizes when the canonical index forms agree (sound, not complete)."""
    key = (lhs, rhs, frozenset(ranges.items()), frozenset(current().equalities.items()))
    hit = _SYMBOLIC.get(key)
    if hit is None:
        hit = _SYMBOLIC[key] = _symbolic(lhs, rhs, dict(ranges))
        if len(_SYMBOLIC) > 1024:
            _SYMBOLIC.pop(next(iter(_SYMBOLIC)))
    return hit


_SYMBOLIC: dict[tuple, WitnessResult] = {}  # deterministic, so asked twice it answers once


def _symbolic(lhs: Term, rhs: Term, ranges: dict[sympy.Symbol, Range]) -> WitnessResult:
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


def index_points(
    free: Mapping[sympy.Symbol, Range],
    subs: Mapping[sympy.Symbol, sympy.Integer],
    assuming: Sequence[sympy.Basic] = (),
    *,
    limit: int = _EXHAUSTIVE,
    seed: int = 0,
) -> tuple[list[dict[sympy.Symbol, int]], int | None]:
    """(points to evaluate, how many there are): every point when at most `limit`, else a
    seeded sample of `_MAX_SAMPLE` with the first and last. Hypotheses (`j > i`) filter points;
    a range may depend on another index (t in 1..n-i), which is then chosen first. The count is
    None when there are more than `_ENUMERATE`.

    >>> from symattn.kernel.expr import index
    >>> i, j = index("i"), index("j")
    >>> pts, total = index_points({i: (1, 3), j: (1, i)}, {})
    >>> total, pts[-1]
    (6, {i: 3, j: 3})
    """
    names = dependency_order(free)
    rng = random.Random(seed)
    size = max(min(limit, _MAX_SAMPLE), 2)
    kept: list[dict[sympy.Symbol, int]] = []
    count = 0
    for point in _enumerate(names, free, subs):
        if not _holds(assuming, subs, point):
            continue
        count += 1
        if count <= limit:
            kept.append(point)
        elif count == limit + 1:
            kept = [kept[0], *rng.sample(kept[1:], size - 2), point]
        else:  # reservoir sampling: the last point seen is always kept
            k = rng.randrange(count)
            if 0 < k < size - 1:
                kept[k] = kept[-1]
            kept[-1] = point
        if count >= _ENUMERATE:
            return kept, None
    return kept, count


def _enumerate(names, free, subs):  # type: ignore[no-untyped-def]
    if not names:
        yield {}
        return
    first, rest = names[0], names[1:]
    lo, hi = _at(free[first], subs)
    if not (lo.is_Integer and hi.is_Integer):
        raise ValueError(f"range of {first} is not explicit: {lo}..{hi}")
    values = range(int(lo), int(hi) + 1)  # a free index over an empty range: no points
    if not rest:
        for v in values:
            yield {first: v}
        return
    later = {k: _at(free[k], subs) for k in rest}
    for v in values:
        at = {first: sympy.Integer(v)}
        narrowed = {
            k: (_at(r, at) if r[0].free_symbols or r[1].free_symbols else r)
            for k, r in later.items()
        }
        for tail in _enumerate(rest, narrowed, subs):
            yield {first: v, **tail}


def _at(r: Range, values: Mapping) -> Range:
    lo, hi = (sympy.sympify(x, strict=True).xreplace(values) for x in r)
    return (lo, hi)


def instantiate(
    side: Term, subs: Mapping[sympy.Symbol, sympy.Integer], point: Mapping[sympy.Symbol, int]
) -> sympy.Expr:
    """One side at explicit sizes and index values, all sums written out (`write_out`)."""
    values = {**subs, **{k: sympy.Integer(v) for k, v in point.items()}}
    return write_out(expand_entries(side.xreplace(values)))


def write_out(e: sympy.Basic) -> sympy.Basic:
    """Every sum with explicit limits written out term by term, by the one semantics of sums.

    An empty range (`hi = lo - 1`) gives 0; a reversed one is refused (`summation_range`).
    sympy's own `doit` would give Karr's convention instead (sum_{j=3}^{1} x_j = -x_2).

    >>> j = index("j")
    >>> write_out(sympy.Sum(j, (j, 2, 4))), write_out(sympy.Sum(j, (j, 3, 2)))
    (9, 0)
    """
    if isinstance(e, sympy.Sum):
        *inner, (v, lo, hi) = e.limits  # sympy lists the innermost limit first
        lo, hi = write_out(lo), write_out(hi)
        if not (lo.is_Integer and hi.is_Integer):
            raise ValueError(f"the sum over {v} has no explicit range: {lo}..{hi}")
        body = sympy.Sum(e.function, *inner) if inner else e.function
        return sympy.Add(
            *(
                write_out(body.xreplace({v: sympy.Integer(k)}))
                for k in summation_range(int(lo), int(hi), v)
            )
        )
    if not e.args or isinstance(e, (MatExpr, sympy.Indexed)):
        return e
    return e.func(*(write_out(a) for a in e.args))


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

    The sizes are plans that satisfy the declared dim relations (`witness.sizes`). Each plan is
    checked by full symbolic expansion when that is cheap (estimated terms at most
    `EXPAND_LIMIT`), else by exact evaluation mod p at random points (`witness.field`), whose
    evidence states the chance of a false "equal". `method` forces "expand" or "field".

    >>> from symattn.kernel.attention import multi_head
    >>> mh = multi_head(n=7, d=512, d_v=64, H=8, d_k=64)
    >>> r = exact(mh.output, mh.blockwise, {})
    >>> r.holds, str(r.evidence[0]).startswith("exactly mod p at the sizes given: all 3584 entries")
    (True, True)
    """
    ranges = dict(ranges)
    wanted = 2
    if plans is None:
        plans = _plans(lhs, rhs, ranges)
        if not plans:
            return _no_plan()
    else:
        plans = list(plans)
        wanted = len(plans)
    evidence: list[Evidence] = []
    details: list[str] = []
    for plan in plans:
        if sum(1 for e in evidence if e.points) >= wanted:
            break
        try:
            subs = sizes.substitution(plan)
        except sizes.NoPlan as exc:
            return WitnessResult(None, f"no evidence: {exc}")
        too_large = _over_budget(lhs, rhs, subs)
        if too_large is not None:
            return WitnessResult(None, f"not evaluated: {too_large}")
        cost = expansion_cost(lhs, rhs, ranges, subs)
        use_field = method == "field" or (method == "auto" and cost > EXPAND_LIMIT)
        if use_field:
            result = _field_plan(lhs, rhs, ranges, subs, assuming, cost, _named(plan))
        else:
            result = _expand_plan(lhs, rhs, ranges, subs, assuming, _named(plan))
        if result.holds is None and result.evidence and not result.evaluated:
            evidence.extend(result.evidence)  # no index point at these sizes: try the next plan
            continue
        if result.holds is not True:
            return result
        evidence.extend(result.evidence)
        details.append(result.detail)
    return _supported(evidence, "; ".join(dict.fromkeys(details)))


# Plans looked at, at most, to find two at which the claim has index points (j <= n - 1, i < j
# has none at n = 2).
_SPARE_PLANS = 6


def _over_budget(lhs: Term, rhs: Term, subs: Mapping[sympy.Symbol, sympy.Integer]) -> str | None:
    """Why evaluating these sides at these sizes would exceed the array budget, if it would."""
    for side in (lhs, rhs):
        for x in walk(side):
            if not isinstance(x, MatExpr):
                continue
            rows, cols = (sympy.sympify(k, strict=True).xreplace(dict(subs)) for k in x.shape)
            if rows.is_Integer and cols.is_Integer and int(rows) * int(cols) > MAX_ARRAY_ENTRIES:
                try:
                    check_array(int(rows), int(cols), plain(x))
                except ResourceError as exc:
                    return str(exc)
    return None


def _plans(lhs: Term, rhs: Term, ranges: Mapping[sympy.Symbol, Range]) -> list[sizes.Plan]:
    """The size plans for a claim: its dims, the generic entry's included, under the relations."""
    generic = dict(ranges)
    a, b = _generic_entries(lhs, rhs, generic)
    return sizes.plans(dims_of(a, b, *_bounds(generic), indices=generic), limit=_SPARE_PLANS)


def _no_plan() -> WitnessResult:
    return WitnessResult(
        None, f"no evidence: no explicit sizes satisfy the assumptions ({sizes.describe()})"
    )


def _bounds(ranges: Mapping[sympy.Symbol, Range]) -> list[sympy.Basic]:
    return [sympy.Tuple(*r) for r in ranges.values()]


# Full expansion above this many estimated terms (index points x terms per entry) is slow in
# sympy (about a second per few hundred terms); the field evaluation takes milliseconds.
EXPAND_LIMIT = 64
_EXPAND_FALLBACK = 5_000  # the field model cannot decide the claim: expand up to this


def _named(plan: Mapping[sympy.Symbol, int]) -> tuple[tuple[str, int], ...]:
    return tuple((s.name, int(v)) for s, v in sorted(plan.items(), key=lambda x: x[0].name))


def _unit(lhs: Term) -> str:
    return "entries" if isinstance(lhs, MatExpr) else "index points"


def _expand_plan(lhs, rhs, ranges, subs, assuming, named) -> WitnessResult:  # type: ignore[no-untyped-def]
    rng = dict(ranges)
    a, b = _generic_entries(lhs, rhs, rng)
    try:
        points, total = index_points(rng, subs, assuming)
    except ReversedRange:
        raise
    except ValueError as exc:
        return WitnessResult(None, f"exact expansion failed: {exc}")
    for point in points:
        try:
            left, right = instantiate(a, subs, point), instantiate(b, subs, point)
            # the same value (even -oo, whose difference would be nan) is equal
            diff = left == right or _zero(left - right)
        except ReversedRange:
            raise
        except (ValueError, TypeError, NotImplementedError) as exc:
            return WitnessResult(None, f"exact expansion failed: {exc}")
        if diff is not True:
            cex = counterexample(lhs, rhs, ranges, assuming=assuming)
            if cex is not None:
                return WitnessResult(False, "the two sides differ", cex)
            return WitnessResult(None, "exact expansion did not simplify to zero")
    ev = Evidence(named, "expansion", len(points), total, _unit(lhs))
    return _supported([ev], "equal after full expansion")


def _field_plan(lhs, rhs, ranges, subs, assuming, cost, named) -> WitnessResult:  # type: ignore[no-untyped-def]
    from symattn.kernel.witness import field as modp

    at = {s: sympy.Integer(v) for s, v in subs.items()}
    rng = {
        v: tuple(sympy.sympify(x, strict=True).xreplace(at) for x in r) for v, r in ranges.items()
    }
    try:
        found = modp.check(
            lhs.xreplace(at),
            rhs.xreplace(at),
            rng,
            assuming=[c.xreplace(at) for c in assuming],
        )
    except modp.Unsupported as exc:
        if cost <= _EXPAND_FALLBACK:
            return _expand_plan(lhs, rhs, ranges, subs, assuming, named)
        return WitnessResult(None, f"exact evaluation not supported ({exc}); too large to expand")
    if found.equal:
        points = found.points
        if isinstance(lhs, MatExpr):  # each point compared every entry at once (L x = R x)
            points *= int(lhs.rows.xreplace(at)) * int(lhs.cols.xreplace(at))
        ev = Evidence(
            named, "mod p", points, points, _unit(lhs), found.trials, found.primes, found.bound
        )
        return _supported([ev], "equal mod p")
    if found.uses_atoms and cost <= _EXPAND_FALLBACK:
        # exp(a + b) = exp(a) exp(b) is invisible to the field model (softmax shift
        # invariance); full expansion sees it, and gives the counterexample when false.
        return _expand_plan(lhs, rhs, ranges, subs, assuming, named)
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
    from symattn.kernel.witness import field as modp

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
        env.forget()
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
        lf, rf = numeric.digits30((lhs, rhs), cell, point, values)
    except (numeric.EvalError, ValueError, TypeError, ZeroDivisionError):
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
    from symattn.kernel.witness import field as modp

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

    >>> from symattn.kernel.attention import multi_head
    >>> mh = multi_head(n=7, d=512, d_v=64, H=8, d_k=64)
    >>> expansion_cost(mh.output, mh.blockwise, {}, {})
    409600
    """
    at = {s: sympy.Integer(v) for s, v in subs.items()}
    points = 1
    for lo, hi in ranges.values():
        points *= _count(lo, hi, at)
    if isinstance(lhs, MatExpr):
        points *= _size(lhs.rows, at) * _size(lhs.cols, at)
    return min(points, _EXHAUSTIVE) * (_terms(lhs, at) + _terms(rhs, at))


def _size(e: object, at: Mapping, low: bool = False) -> int:
    v = sympy.sympify(e).xreplace(dict(at))
    if v.is_Integer:
        return int(v)
    return 1 if low else _BIG


_BIG = 64  # an index-dependent bound with no number yet


def _terms(e: sympy.Basic, at: Mapping) -> int:
    """Terms in one fully expanded entry (an estimate; softmax counts its row sum)."""
    from symattn.kernel.expr import ColSoftmax, Concat, Dot, MatAdd, MatMul, MatSum, Scale, Softmax

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
    given = set(ranges)
    a, b = _generic_entries(lhs, rhs, ranges)
    # the generic entry of a matrix claim is shown as row and col, not as invented indices
    labels = dict(zip([s for s in ranges if s not in given], ("row", "col"), strict=False))
    dims = dims_of(a, b, *_bounds(ranges), indices=ranges)
    rng = random.Random(seed)
    for plan in sizes.plans(dims, limit=12):
        try:
            subs = sizes.substitution(plan)
        except sizes.NoPlan:
            continue
        points, _ = index_points(ranges, subs, assuming, limit=_MAX_SAMPLE, seed=seed)
        for point in points:
            left, right = instantiate(a, subs, point), instantiate(b, subs, point)
            for _ in range(trials):
                cex = _try_point(left, right, plan, point, rng, labels)
                if cex is not None:
                    return cex
    return None


def _try_point(left, right, plan, point, rng: random.Random, labels=None) -> Counterexample | None:  # type: ignore[no-untyped-def]
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
        indices=_shown_point(point, labels or {}),
        entries=tuple((_entry_name(k), str(v)) for k, v in values.items()),
        lhs=str(lv),
        rhs=str(rv),
        exact=exact,
    )


def _shown_point(point: Mapping[sympy.Symbol, int], labels: Mapping) -> tuple[tuple[str, int], ...]:
    named = [(s.name, v) for s, v in point.items() if s not in labels]
    cells = [(labels[s], v) for s, v in point.items() if s in labels]
    return tuple(sorted(named)) + tuple(sorted(cells, key=lambda x: x[0] != "row"))


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
    """float64 random data: both sides agree within RTOL/ATOL at every index point.

    The same walker as the exact witness (`symattn.kernel.evaluate`) with float64 arithmetic
    (`numeric.Float64`): every index point at once, every entry of a matrix claim.
    """
    ranges = dict(ranges)
    plans = _plans(lhs, rhs, ranges)
    if not plans:
        return _no_plan()
    evidence: list[Evidence] = []
    for plan in plans:
        if sum(1 for e in evidence if e.points) >= 2:
            break
        try:
            subs = sizes.substitution(plan)
        except sizes.NoPlan as exc:
            return WitnessResult(None, f"no evidence: {exc}")
        too_large = _over_budget(lhs, rhs, subs)
        if too_large is not None:
            return WitnessResult(None, f"not evaluated: {too_large}")
        at = {s: sympy.Integer(v) for s, v in subs.items()}
        left, right = lhs.xreplace(at), rhs.xreplace(at)
        rng = {v: _at(r, at) for v, r in ranges.items()}
        f = evaluate.Evaluator(
            numeric.Float64(seed), np.random.default_rng(seed), evaluate.learn_shapes(left, right)
        )
        try:
            found, points = evaluate.compare(
                f, left, right, evaluate.ordered(rng), [c.xreplace(at) for c in assuming]
            )
        except ReversedRange:
            raise
        except (evaluate.Unsupported, evaluate._Loop, numeric.EvalError, ValueError) as exc:
            return WitnessResult(None, f"numeric evaluation failed: {exc}")
        if found is not None:
            where, x, y = found
            at_text = ", ".join(f"{k}={v}" for k, v in where) or "the claim"
            values = f"{float(x)!r} vs {float(y)!r}"
            if not (np.isfinite(float(x)) and np.isfinite(float(y))):
                # overflow or inf - inf: float64 cannot tell, which is no evidence either way
                return WitnessResult(None, f"float64 gave no finite value at {at_text}: {values}")
            return WitnessResult(False, f"differ numerically at {at_text}: {values}")
        if isinstance(lhs, MatExpr):
            points *= int(lhs.rows.xreplace(at)) * int(lhs.cols.xreplace(at))
        evidence.append(Evidence(_named(plan), "float64", points, points, _unit(lhs)))
    return _supported(evidence, f"agree within rtol={numeric.RTOL}, atol={numeric.ATOL}")
