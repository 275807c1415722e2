"""The exact witness: the claim at explicit sizes, by full expansion or exactly mod p.

Imports only the kernel below it (canon, dispatch, expr, masked, modern, ranges, semantics,
witness.evidence, .sizes, .points, .field, .definitions, .certify, .coincidence,
.counterexample); must not import proof or anything above it.

At small sizes the sides are evaluated from the nodes' own definitions (`witness.definitions`),
so the exact witness shares no code with the fast walker (`kernel.evaluate`) that the numeric
witness, the field witness at large sizes and `evaluate()` use.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import sympy

from symattn.kernel import masked
from symattn.kernel.dispatch import Dispatcher
from symattn.kernel.expr import (
    CausalMask,
    ColSoftmax,
    Concat,
    Dot,
    Entry,
    FromColumn,
    Hadamard,
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
)
from symattn.kernel.modern import (
    CausalZero,
    FeatureMap,
    FirstRows,
    OnlineSoftmax,
    PadMask,
    PairDots,
    PositionBias,
    RepeatKV,
    Rope,
)
from symattn.kernel.ranges import Range
from symattn.kernel.semantics import ReversedRange
from symattn.kernel.witness import certify, coincidence, definitions, sizes
from symattn.kernel.witness import field as modp
from symattn.kernel.witness.counterexample import (
    confirmed_counterexample,
    counterexample,
    entry_name,
    sparse_counterexample,
)
from symattn.kernel.witness.evidence import (
    EXHAUSTIVE,
    Counterexample,
    Evidence,
    Term,
    WitnessResult,
    supported,
)
from symattn.kernel.witness.points import (
    dims_of,
    generic_entries,
    index_points,
    instantiate,
    is_zero,
    no_plan,
    over_budget,
    plan_names,
    points_over_budget,
    unit_of,
)


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
    infinite = masked.problem(lhs, rhs)
    if infinite is not None:
        return WitnessResult(None, f"ill-formed: {infinite}")
    ranges = dict(ranges)
    wanted = 2
    choice = None
    if plans is None:
        choice = coincidence.choose(lhs, rhs, ranges)  # enough plans to rule out a coincidence
        if choice.general is not None and choice.fallback is not None:
            gl, gr = choice.general
            got = exact(gl, gr, ranges, plans=choice.plans, assuming=assuming, method=method)
            if got.holds is True:
                return coincidence.conclude(choice, got)
            choice = choice.fallback
        plans = choice.plans
        if not plans:
            return no_plan()
        wanted = len(choice.plans) if choice.settles else wanted
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
        too_large = over_budget(lhs, rhs, subs) or points_over_budget(lhs, rhs, ranges, subs)
        if too_large is not None:
            return WitnessResult(None, f"not evaluated: {too_large}")
        cost = expansion_cost(lhs, rhs, ranges, subs)
        use_field = method == "field" or (method == "auto" and cost > EXPAND_LIMIT)
        if use_field:
            result = _field_plan(lhs, rhs, ranges, subs, assuming, cost, plan_names(plan))
        else:
            result = _expand_plan(lhs, rhs, ranges, subs, assuming, plan_names(plan))
        if result.holds is None and result.evidence and not result.evaluated:
            evidence.extend(result.evidence)  # no index point at these sizes: try the next plan
            continue
        if result.holds is not True:
            return result
        evidence.extend(result.evidence)
        details.append(result.detail)
    return coincidence.conclude(choice, supported(evidence, "; ".join(dict.fromkeys(details))))


# Full expansion above this many estimated terms (index points x terms per entry) is slow in
# sympy (about a second per few hundred terms); the field evaluation takes milliseconds.
EXPAND_LIMIT = 64

_EXPAND_FALLBACK = 5_000  # the field model cannot decide the claim: expand up to this

# Up to this many estimated terms the sides are evaluated mod p from the nodes' definitions,
# entry by entry; above it by the fast walker (one product of matrices per node). The smallest
# plans of a claim fall below it, so definitions and walker cross-check there; the larger
# plans that rule out a coincidence are the walker's (entry by entry they cost about as much
# again as the rest of a check: benchmarks/bench_reader.py).
DEFINITIONS_LIMIT = 2_000


def _expand_plan(lhs, rhs, ranges, subs, assuming, named) -> WitnessResult:
    rng = dict(ranges)
    a, b = generic_entries(lhs, rhs, rng)
    try:
        points, total = index_points(rng, subs, assuming)
    except ReversedRange:
        raise
    except ValueError as exc:
        return WitnessResult(None, f"exact expansion failed: {exc}")
    for point in points:
        try:
            left, right = instantiate(a, subs, point), instantiate(b, subs, point)
            if certify.worth_certifying(left, right):
                # exp or roots: a proof that the sides differ, before any slow simplification
                found = certify.separate(left, right)
                if found is not None:
                    return _separated(found, named, point, ranges, rng)
            # the same value (even -oo, whose difference would be nan) is equal
            diff = left == right or is_zero(left - right)
        except ReversedRange:
            raise
        except (ValueError, TypeError, NotImplementedError) as exc:
            return WitnessResult(None, f"exact expansion failed: {exc}")
        if diff is not True:
            cex = counterexample(lhs, rhs, ranges, assuming=assuming) or counterexample(
                lhs, rhs, ranges, assuming=assuming, plans=[subs]
            )
            if cex is not None:
                return WitnessResult(False, "the two sides differ", cex)
            return WitnessResult(None, "exact expansion did not simplify to zero")
    ev = Evidence(named, "expansion", len(points), total, unit_of(lhs))
    return supported([ev], "equal after full expansion")


def _separated(found, named, point, given, rng) -> WitnessResult:
    cells = [s for s in rng if s not in given]  # the generic entry's fresh indices
    labels = dict(zip(cells, ("row", "col"), strict=False))
    shown = tuple(sorted((s.name, v) for s, v in point.items() if s not in labels)) + tuple(
        (labels[s], v) for s, v in point.items() if s in labels
    )
    cex = Counterexample(
        sizes=named,
        indices=shown,
        entries=certify.separation_entries(found, entry_name),
        lhs=found.shown("left"),
        rhs=found.shown("right"),
        exact=False,
        certified=True,
    )
    return WitnessResult(False, "the two sides differ (certified by interval arithmetic)", cex)


def _field_plan(lhs, rhs, ranges, subs, assuming, cost, named) -> WitnessResult:

    at = {s: sympy.Integer(v) for s, v in subs.items()}
    rng = {
        v: tuple(sympy.sympify(x, strict=True).xreplace(at) for x in r) for v, r in ranges.items()
    }
    here = [c.xreplace(at) for c in assuming]
    walker = cost > DEFINITIONS_LIMIT
    try:
        if walker:
            raise definitions.Unsupported("too large to evaluate entry by entry")
        found = definitions.check(lhs.xreplace(at), rhs.xreplace(at), rng, assuming=here)
    except definitions.IllFormed as exc:
        return WitnessResult(None, f"ill-formed at these sizes: {exc}")
    except definitions.Unsupported:
        walker = True
    try:
        if walker:
            found = modp.check(lhs.xreplace(at), rhs.xreplace(at), rng, assuming=here)
    except modp.Unsupported as exc:
        if cost <= _EXPAND_FALLBACK:
            return _expand_plan(lhs, rhs, ranges, subs, assuming, named)
        return WitnessResult(None, f"exact evaluation not supported ({exc}); too large to expand")
    if found.equal:
        points = found.points
        if walker and isinstance(lhs, MatExpr):  # each point compared every entry (L x = R x)
            points *= int(lhs.rows.xreplace(at)) * int(lhs.cols.xreplace(at))
        ev = Evidence(
            named, "mod p", points, points, unit_of(lhs), found.trials, found.primes, found.bound
        )
        return supported([ev], "equal mod p")
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
        try:
            cex = sparse_counterexample(lhs.xreplace(at), rhs.xreplace(at), found.where)
        except modp.Unsupported:  # a masked entry compared as a value: the walker has none
            cex = counterexample(lhs, rhs, ranges, assuming=assuming)
        return WitnessResult(False, f"the two sides differ: {found.detail()}", cex)
    cex = confirmed_counterexample(lhs.xreplace(at), rhs.xreplace(at), found.where)
    if cex is not None:
        return WitnessResult(False, f"the two sides differ ({found.detail()})", cex)
    return WitnessResult(
        None,
        f"{found.detail()} with exp or algebraic numbers as free values; "
        "no counterexample confirmed the difference",
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
    return min(points, EXHAUSTIVE) * (_terms(lhs, at) + _terms(rhs, at))


def _size(e: object, at: Mapping, low: bool = False) -> int:
    v = sympy.sympify(e).xreplace(dict(at))
    if v.is_Integer:
        return int(v)
    return 1 if low else _BIG


_BIG = 64  # an index-dependent bound with no number yet


def _terms(e: sympy.Basic, at: Mapping) -> int:
    """Terms in one fully expanded entry (an estimate; softmax counts its row sum)."""
    if not e.args:
        return 1
    f = TERMS.find(type(e))
    return _terms_of_args(e, at) if f is None else f(e, at)


Terms = Callable[[Any, Mapping], int]
TERMS: Dispatcher[Terms] = Dispatcher("expansion cost")


@TERMS.register(MatMul)
def _terms_matmul(e: MatMul, at: Mapping) -> int:
    return _size(e.args[0].cols, at) * _terms(e.args[0], at) * _terms(e.args[1], at)


@TERMS.register(MatAdd, sympy.Add)
def _terms_add(e: sympy.Basic, at: Mapping) -> int:
    return sum(_terms(a, at) for a in e.args)


@TERMS.register(Hadamard)
def _terms_hadamard(e: Hadamard, at: Mapping) -> int:
    return _terms(e.args[0], at) * _terms(e.args[1], at)


@TERMS.register(Scale)
def _terms_scale(e: Scale, at: Mapping) -> int:
    return _terms(e.args[0], at) * _terms(e.args[1], at)


@TERMS.register(Softmax, ColSoftmax)
def _terms_softmax(e: MatExpr, at: Mapping) -> int:
    return (_size(e.rows, at) + _size(e.cols, at)) * _terms(e.args[0], at)


@TERMS.register(MatSum)
def _terms_matsum(e: MatSum, at: Mapping) -> int:
    return _count(e.args[2], e.args[3], at) * _terms(e.body, at)


@TERMS.register(Concat)
def _terms_concat(e: Concat, at: Mapping) -> int:
    return _terms(e.body, at)


@TERMS.register(Dot)
def _terms_dot(e: Dot, at: Mapping) -> int:
    return _size(e.args[0].cols, at) * _terms(e.args[0], at) * _terms(e.args[1], at)


@TERMS.register(sympy.Sum)
def _terms_sum(e: sympy.Sum, at: Mapping) -> int:
    out = _terms(e.function, at)
    for _, lo, hi in e.limits:
        out *= _count(lo, hi, at)
    return out


@TERMS.register(sympy.Mul)
def _terms_mul(e: sympy.Mul, at: Mapping) -> int:
    out = 1
    for a in e.args:
        out *= _terms(a, at)
    return out


@TERMS.register(sympy.Indexed, sympy.Symbol)
def _terms_one(e: sympy.Basic, at: Mapping) -> int:
    return 1


@TERMS.register(
    MatExpr, HeadSym, Ones, FromColumn, Transpose, CausalMask, Row, RowBlock,
    PositionBias, PadMask, CausalZero, FirstRows, RepeatKV, Rope, PairDots, OnlineSoftmax,
)  # fmt: skip
def _terms_of_matrices(e: MatExpr, at: Mapping) -> int:
    return max((_terms(a, at) for a in e.args if isinstance(a, MatExpr)), default=1)


@TERMS.register(MatSym, FeatureMap, Entry)
def _terms_of_args(e: sympy.Basic, at: Mapping) -> int:
    return max((_terms(a, at) for a in e.args), default=1)


def _count(lo: object, hi: object, at: Mapping) -> int:
    return max(_size(hi, at) - _size(lo, at, low=True) + 1, 1)
