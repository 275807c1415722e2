"""A claim at explicit sizes: its dims, size plans, index points, and the claim written out there.

Imports only the kernel below it (dims, exp_built, expr, canon, ranges, semantics,
witness.evidence, .sizes); must not import the other witnesses, proof or anything above them.
"""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Iterable, Mapping, Sequence

import sympy

from symattn.kernel.dims import current
from symattn.kernel.errors import ResourceError
from symattn.kernel.exp_built import exp_of
from symattn.kernel.expr import (
    Entry,
    MatExpr,
    dims_in,
    expand_entries,
    index,
    substituted,
    summed,
    walk,
)
from symattn.kernel.limits import MAX_ARRAY_ENTRIES, check_array
from symattn.kernel.ranges import Range, bound_indices, dependency_order
from symattn.kernel.semantics import summation_range
from symattn.kernel.text import plain
from symattn.kernel.witness import sizes
from symattn.kernel.witness.evidence import ENUMERATE, EXHAUSTIVE, MAX_SAMPLE, Term, WitnessResult


def generic_entries(
    lhs: Term, rhs: Term, ranges: Mapping[sympy.Symbol, Range]
) -> tuple[sympy.Expr, sympy.Expr]:
    """Scalars stay; matrices are compared at a generic entry (i, j) with fresh indices."""
    if not isinstance(lhs, MatExpr):
        return lhs, rhs
    used = {s.name for s in free_symbols_of(lhs) | free_symbols_of(rhs)}
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


def free_symbols_of(e: sympy.Basic) -> set[sympy.Symbol]:
    return {
        s for x in walk(e) for s in getattr(x, "free_symbols", set()) if isinstance(s, sympy.Symbol)
    }


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
    limit: int = EXHAUSTIVE,
    seed: int = 0,
) -> tuple[list[dict[sympy.Symbol, int]], int | None]:
    """(points to evaluate, how many there are): every point when at most `limit`, else a
    seeded sample of `MAX_SAMPLE` with the first and last. Hypotheses (`j > i`) filter points;
    a range may depend on another index (t in 1..n-i), which is then chosen first. The count is
    None when there are more than `ENUMERATE`.

    >>> from symattn.kernel.expr import index
    >>> i, j = index("i"), index("j")
    >>> pts, total = index_points({i: (1, 3), j: (1, i)}, {})
    >>> total, pts[-1]
    (6, {i: 3, j: 3})
    """
    names = dependency_order(free)
    rng = random.Random(seed)
    size = max(min(limit, MAX_SAMPLE), 2)
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
        if count >= ENUMERATE:
            return kept, None
    return kept, count


def _enumerate(names, free, subs):
    if not names:
        yield {}
        return
    first, rest = names[0], names[1:]
    lo, hi = range_at(free[first], subs)
    if not (lo.is_Integer and hi.is_Integer):
        raise ValueError(f"range of {first} is not explicit: {lo}..{hi}")
    values = range(int(lo), int(hi) + 1)  # a free index over an empty range: no points
    if not rest:
        for v in values:
            yield {first: v}
        return
    later = {k: range_at(free[k], subs) for k in rest}
    for v in values:
        at = {first: sympy.Integer(v)}
        narrowed = {
            k: (range_at(r, at) if r[0].free_symbols or r[1].free_symbols else r)
            for k, r in later.items()
        }
        for tail in _enumerate(rest, narrowed, subs):
            yield {first: v, **tail}


def range_at(r: Range, values: Mapping) -> Range:
    lo, hi = (sympy.sympify(x, strict=True).xreplace(values) for x in r)
    return (lo, hi)


def instantiate(
    side: Term, subs: Mapping[sympy.Symbol, sympy.Integer], point: Mapping[sympy.Symbol, int]
) -> sympy.Expr:
    """One side at explicit sizes and index values, all sums written out (`write_out`)."""
    values = {**subs, **{k: sympy.Integer(v) for k, v in point.items()}}
    return _written_out(side.xreplace(values))


@functools.lru_cache(maxsize=4096)
def _written_out(side: Term) -> sympy.Basic:
    """A side with every size and index a number, as one scalar formula with no sum left (a
    function of the side alone: remembered, since other contexts ask at the same sizes)."""
    return write_out(expand_entries(side))


@functools.lru_cache(maxsize=50_000)
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
        body = summed(e.function, *inner) if inner else e.function
        return sympy.Add(
            *(
                write_out(substituted(body, {v: sympy.Integer(k)}))
                for k in summation_range(int(lo), int(hi), v)
            )
        )
    if not e.args or isinstance(e, (MatExpr, sympy.Indexed)):
        return e
    if e.func is sympy.exp:
        return exp_of(write_out(e.args[0]))  # the same as sympy.exp, without its slow questions
    return e.func(*(write_out(a) for a in e.args))


def _holds(assuming: Sequence[sympy.Basic], subs: Mapping, point: Mapping) -> bool:
    values = {**subs, **{k: sympy.Integer(v) for k, v in point.items()}}
    return all(bool(cond.xreplace(values)) for cond in assuming)


@functools.lru_cache(maxsize=4096)
def is_zero(diff: sympy.Expr) -> bool:
    """Whether the difference of two written-out sides simplifies to 0 (remembered by the
    difference itself)."""
    d = sympy.expand(diff)
    if d == 0:
        return True
    d = sympy.expand(sympy.powsimp(sympy.expand_power_exp(d)))
    if d == 0:
        return True
    if d.has(sympy.sin, sympy.cos, sympy.tan):
        # `\sin(a+b) - (\sin a\cos b + \cos a\sin b)`: the angle-sum rules, then expand
        t = sympy.expand(sympy.expand_trig(d))
        if t == 0 or sympy.cancel(sympy.together(t)) == 0:
            return True
    return bool(sympy.cancel(sympy.together(d)) == 0)


# Plans looked at, at most, to find two at which the claim has index points (j <= n - 1, i < j
# has none at n = 2).
_SPARE_PLANS = 6


def over_budget(lhs: Term, rhs: Term, subs: Mapping[sympy.Symbol, sympy.Integer]) -> str | None:
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


def points_over_budget(
    lhs: Term,
    rhs: Term,
    ranges: Mapping[sympy.Symbol, Range],
    subs: Mapping[sympy.Symbol, sympy.Integer],
) -> str | None:
    """Why comparing a claim's sides at every index point would exceed the work budget at these
    sizes, if it would: the points of its free indices times its largest size (what a sum or a
    product costs at each point) past `MAX_ARRAY_ENTRIES`. `(QK^T)_{ij} = ...` at n = 4096 is
    16,777,216 points: evaluating every one is no witness anyone waits for.

    >>> from symattn.kernel.expr import Entry, MatSym
    >>> from symattn.kernel.dims import dim
    >>> n, i, j = dim("n"), sympy.Symbol("i"), sympy.Symbol("j")
    >>> A = MatSym("A", n, n)
    >>> points_over_budget(Entry(A, i, j), Entry(A, i, j), {i: (1, n), j: (1, n)}, {n: 7})
    >>> print(points_over_budget(Entry(A, i, j), Entry(A, i, j), {i: (1, n), j: (1, n)},
    ...     {n: 4096}))
    16,777,216 index points at sizes up to 4,096: more work than the budget allows
    """
    at = {k: sympy.Integer(v) for k, v in subs.items()}
    points = 1
    for lo, hi in ranges.values():
        a = sympy.sympify(lo, strict=True).xreplace(at)
        b = sympy.sympify(hi, strict=True).xreplace(at)
        if not (a.is_Integer and b.is_Integer):
            return None  # a bound that depends on another index: not counted here
        points *= max(int(b) - int(a) + 1, 0)
    if points <= 1:
        return None
    largest = 1
    for side in (lhs, rhs):
        for x in walk(side):
            if isinstance(x, MatExpr):
                for k in x.shape:
                    v = sympy.sympify(k, strict=True).xreplace(at)
                    if v.is_Integer:
                        largest = max(largest, int(v))
    if points * largest <= MAX_ARRAY_ENTRIES:
        return None
    return f"{points:,} index points at sizes up to {largest:,}: more work than the budget allows"


def size_plans(lhs: Term, rhs: Term, ranges: Mapping[sympy.Symbol, Range]) -> list[sizes.Plan]:
    """The size plans for a claim: its dims, the generic entry's included, under the relations."""
    generic = dict(ranges)
    a, b = generic_entries(lhs, rhs, generic)
    found = sizes.plans(dims_of(a, b, *claim_bounds(generic), indices=generic), limit=_SPARE_PLANS)
    return [p for p in found if plan_fits(lhs, rhs, p)]


def plan_fits(lhs: Term, rhs: Term, plan: Mapping[sympy.Symbol, int]) -> bool:
    """Whether the claim can be evaluated at the plan: every shape a positive integer, every
    numbered head block one of its heads."""
    return _heads_exist(lhs, rhs, plan) and _whole_sizes(lhs, rhs, plan)


def _whole_sizes(lhs: Term, rhs: Term, plan: Mapping[sympy.Symbol, int]) -> bool:
    """Every shape in the claim is a positive integer at the plan: a matrix declared
    n × d/H has no columns to evaluate at d = 3, H = 2."""
    sub = {k: sympy.Integer(v) for k, v in plan.items()}
    for side in (lhs, rhs):
        for x in walk(side):
            if not isinstance(x, MatExpr):
                continue
            for k in x.shape:
                v = sympy.sympify(k, strict=True).xreplace(sub)
                if v.is_number and not (v.is_Integer and v > 0):
                    return False
    return True


def _heads_exist(lhs: Term, rhs: Term, plan: Mapping[sympy.Symbol, int]) -> bool:
    """Every numbered head block (`W_O^{(5)}`, row block 5) is one of the plan's heads: a plan
    with H = 2 has no head 5, so it is no evidence about it."""
    for side in (lhs, rhs):
        for x in walk(side):
            if type(x).__name__ != "RowBlock":
                continue
            sub = {k: sympy.Integer(v) for k, v in plan.items()}
            head, count = (
                sympy.sympify(x.args[1], strict=True),
                sympy.sympify(x.args[3], strict=True).xreplace(sub),
            )
            if head.is_Integer and count.is_Integer and not 1 <= int(head) <= int(count):
                return False
    return True


def no_plan() -> WitnessResult:
    return WitnessResult(
        None, f"no evidence: no explicit sizes satisfy the assumptions ({sizes.describe()})"
    )


def claim_bounds(ranges: Mapping[sympy.Symbol, Range]) -> list[sympy.Basic]:
    return [sympy.Tuple(*r) for r in ranges.values()]


def plan_names(plan: Mapping[sympy.Symbol, int]) -> tuple[tuple[str, int], ...]:
    return tuple((s.name, int(v)) for s, v in sorted(plan.items(), key=lambda x: x[0].name))


def unit_of(lhs: Term) -> str:
    return "entries" if isinstance(lhs, MatExpr) else "index points"
