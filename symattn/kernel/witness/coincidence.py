"""Size plans that rule out a coincidence: degree bounds of a claim in its sizes, and enough plans.

Imports only the kernel below it (dims, expr, ranges, witness.sizes, .points, .evidence and the
degree bounds of .degrees); must not import the other witnesses, proof or anything above them.

A size that enters a claim as a number (a coefficient, `sqrt(d_k)`, the bound of a sum) makes
each side a function of that size, the entries held fixed. Counting every term of a sum as one
more of the same kind (`sum_{j=1}^{n} x_j` as if it were `n x`), each side is a rational function
of the sizes whose degrees the walker here bounds (in `sqrt(s)` where a square root of `s`
appears). A nonzero polynomial of degree <= D_s in each size `s` and <= D in all of them vanishes
nowhere on every point of a lower set {a : a_s <= D_s, sum a <= D} of a grid of distinct values
per size (interpolation on lower sets), so equal sides at every such plan rule the coincidence
out. The values are above every constant of the claim (`n = 2, 3` are roots of `(n-2)(n-3)`),
derived sizes are not collapsed to 1 where the relations allow more (`d_k = d/8` with d = 8
makes `1/sqrt(d_k)` vanish from the claim), and every plan has an index point to look at.
Where no such bound exists (`exp` of a size, a sum of `1/j`) or the plans would be too many,
agreement is reported as what it is: no evidence for every size.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import sympy

from symattn.kernel.dims import current
from symattn.kernel.expr import (
    ColSoftmax,
    MatExpr,
    Scale,
    Softmax,
    walk,
)
from symattn.kernel.ranges import Range, dependency_order
from symattn.kernel.witness import sizes
from symattn.kernel.witness.degrees import NotPolynomial, _degrees, _floor, _name
from symattn.kernel.witness.evidence import WitnessResult
from symattn.kernel.witness.points import (
    _enumerate,
    _holds,
    claim_bounds,
    dims_of,
    generic_entries,
    plan_fits,
    range_at,
    size_plans,
)

MAX_PLANS = 24  # plans evaluated, at most, to rule a coincidence out
_SEARCH = 1024  # values looked at, at most, above the floor for each size
_RAISES = 3  # times the floor is raised to give every plan an index point


@dataclass(frozen=True)
class Choice:
    """The plans to evaluate, and what agreement at all of them shows.

    `settles`: agreement at every plan rules out a coincidence (`why` says why); otherwise the
    plans serve only to find a counterexample and `why` says why they cannot settle the claim.
    """

    plans: list[sizes.Plan]
    why: str
    settles: bool
    # the claim to evaluate instead, with a size-dependent scale inside softmax made a free
    # number (equal for every value of it: equal at the size's); `fallback` when it is not equal
    general: tuple[sympy.Basic, sympy.Basic] | None = None
    fallback: Choice | None = None


def choose(lhs: MatExpr | sympy.Basic, rhs: sympy.Basic, ranges: Mapping[sympy.Symbol, Range]):
    """The size plans for the exact witness.

    >>> from symattn.kernel.expr import index
    >>> from symattn.kernel.dims import n
    >>> j = index("j")
    >>> c = choose(sympy.Sum(1, (j, 1, n)), (n - 2) * (n - 3) + 1, {})
    >>> c.settles, [p[n] for p in c.plans]  # the smallest plans, then 3 values above 3
    (True, [2, 3, 4, 5, 6])
    >>> c.why
    'degree <= 2 in n: 3 values of n (4, 5, 6), above every constant of the claim (3)'
    """
    generic = dict(ranges)
    a, b = generic_entries(lhs, rhs, generic)
    dims = dims_of(a, b, *claim_bounds(generic), indices=generic)
    if not dims:
        return Choice(size_plans(lhs, rhs, ranges), "no symbolic size", True)
    ctx = current()
    free, derived = sizes._relevant(dims, ctx)
    try:
        degrees, halves, total = _degrees(a, b, sorted(free, key=lambda s: s.name))
    except NotPolynomial as exc:
        fallback = _fallback(
            lhs, rhs, ranges, f"{exc}: no finite set of sizes rules out a coincidence"
        )
        general = _generalized(lhs, rhs, free)
        if general is None:
            return fallback
        gl, gr, named = general
        got = choose(gl, gr, ranges)
        if not got.settles or got.general is not None:
            return fallback
        why = f"{got.why}; with {named} inside the softmax taken as a free number"
        return Choice(got.plans, why, True, (gl, gr), fallback)
    floor = _floor(a, b, generic)
    counts = {s: max(d, 1) for s, d in degrees.items()}
    top = max(total, 1)
    lattice = [
        a_
        for a_ in itertools.product(*(range(counts[s] + 1) for s in sorted(counts, key=_name)))
        if sum(a_) <= top
    ]
    if len(lattice) > MAX_PLANS:
        shown = _degree_text(degrees, halves, total)
        return _fallback(
            lhs,
            rhs,
            ranges,
            f"ruling out a coincidence ({shown}) needs {len(lattice)} size plans, "
            f"more than the budget of {MAX_PLANS}",
        )
    order = sorted(counts, key=_name)
    for _ in range(_RAISES + 1):
        picked = _nodes(order, counts, derived, set(dims), floor)
        if picked is None:
            return _fallback(
                lhs,
                rhs,
                ranges,
                f"no sizes above {floor} satisfy the relations ({sizes.describe(ctx)}) at "
                "enough distinct values to rule out a coincidence",
            )
        nodes, collapsed = picked
        plans = [{s: nodes[s][k] for s, k in zip(order, a_, strict=True)} for a_ in lattice]
        if not all(plan_fits(lhs, rhs, p) for p in plans):
            # a shape such as d/H that is not whole at some plan, or a numbered head past H:
            # those plans cannot be evaluated, and the rest do not rule a coincidence out
            return _fallback(
                lhs,
                rhs,
                ranges,
                "some of the plans needed to rule out a coincidence make a shape fractional "
                "or leave out a numbered head",
            )
        if all(_has_point(generic, p) for p in plans):
            why = _why(degrees, halves, total, nodes, floor, len(plans), collapsed)
            # the smallest plans too, as the other witnesses use: a claim false there only is
            # false, and every witness sees it
            small = [p for p in size_plans(lhs, rhs, ranges)[:2] if _has_point(generic, p)]
            return Choice([p for p in small if p not in plans] + plans, why, True)
        floor += 1
    return _fallback(lhs, rhs, ranges, "some size plan has no index point to evaluate")


def conclude(choice: Choice | None, result: WitnessResult) -> WitnessResult:
    """The exact witness's result over `choice`'s plans, with what agreement there shows."""
    if choice is None or result.holds is not True:
        return result
    if not choice.settles:
        why = f"equal at the sizes evaluated, but {choice.why}"
        return WitnessResult(True, why, None, result.evidence, settles=False)
    done = [e for e in result.evidence if e.points]
    if len(done) < len(choice.plans) or not all(e.exhaustive for e in done):
        why = (
            "equal where evaluated, but not at every index point of every plan needed to rule "
            f"out a coincidence ({choice.why})"
        )
        return WitnessResult(True, why, None, result.evidence, settles=False)
    if choice.why == "no symbolic size":
        return result
    return WitnessResult(
        True,
        f"{result.detail}; the plans rule out a coincidence: {choice.why}",
        None,
        result.evidence,
    )


def _generalized(lhs, rhs, free) -> tuple[sympy.Basic, sympy.Basic, str] | None:
    """Both sides with every scale that depends on a size, inside a softmax, a fresh number."""
    ctx = current()
    found: dict[sympy.Expr, sympy.Symbol] = {}
    swaps: dict[sympy.Basic, sympy.Basic] = {}
    for side in (lhs, rhs):
        for x in walk(side):
            if not isinstance(x, (Softmax, ColSoftmax)):
                continue
            for y in walk(x.args[0]):
                if isinstance(y, Scale):
                    c = y.scalar
                    touched = {t for v in c.free_symbols for t in ctx.resolve(v).free_symbols}
                    if touched & set(free):
                        lam = found.setdefault(c, sympy.Dummy(f"c{len(found) + 1}", real=True))
                        swaps[y] = Scale(lam, y.args[1])
    if not swaps:
        return None
    named = ", ".join(str(c) for c in found)
    return lhs.xreplace(swaps), rhs.xreplace(swaps), named


def _fallback(lhs, rhs, ranges, why: str) -> Choice:
    return Choice(size_plans(lhs, rhs, ranges), why, False)


# ---- the plans --------------------------------------------------------------------------


def _nodes(
    order: Sequence[sympy.Symbol],
    counts: Mapping[sympy.Symbol, int],
    derived: Mapping[sympy.Symbol, sympy.Expr],
    claimed: set[sympy.Symbol],
    floor: int,
) -> tuple[dict[sympy.Symbol, list[int]], bool] | None:
    """Distinct values for each free size, above the floor, such that every derived size is a
    positive integer at every combination; derived sizes of the claim kept above the floor and
    apart from the other values where the relations allow, else at least 2, else 1."""
    dens = set()
    for e in derived.values():
        dens |= sympy.fraction(sympy.together(e))[1].free_symbols
    order = sorted(order, key=lambda s: (s not in dens, s.name))
    for strict in (2, 1, 0):
        chosen: dict[sympy.Symbol, list[int]] = {}
        for s in order:
            firsts = {vs[0] for vs in chosen.values()}
            values: list[int] = []
            for v in range(floor + 1, floor + 1 + _SEARCH):
                if len(values) > counts[s]:
                    break
                if strict == 2 and not values and v in firsts:
                    continue  # the first plan keeps distinct sizes apart
                if _fits(s, v, chosen, derived, claimed, strict, floor):
                    values.append(v)
            if len(values) <= counts[s]:
                break
            chosen[s] = values
        else:
            return chosen, strict == 0
    return None


def _fits(s, v, chosen, derived, claimed, strict, floor) -> bool:
    names = list(chosen)
    for combo in itertools.product(*(chosen[k] for k in names)):
        env = {k: Fraction(x) for k, x in zip(names, combo, strict=True)}
        env[s] = Fraction(v)
        for d, e in derived.items():
            if not e.free_symbols <= set(env):
                continue
            try:
                value = sizes._compile(e)(env)
            except (KeyError, ZeroDivisionError, TypeError):
                return False
            if value.denominator != 1 or value < 1:
                return False
            if strict >= 1 and value < 2:
                return False
            if strict == 2 and d in claimed and value <= floor:
                return False
    return True


def _has_point(ranges: Mapping[sympy.Symbol, Range], plan: sizes.Plan) -> bool:
    try:
        subs = sizes.substitution(plan)
        names = dependency_order(ranges)
        bounds = {k: range_at(r, subs) for k, r in ranges.items()}
        for point in _enumerate(names, bounds, subs):
            if _holds((), subs, point):
                return True
    except (sizes.NoPlan, ValueError):
        return False
    return False


def _degree_text(degrees, halves, total) -> str:
    parts = [
        f"degree <= {d} in {_var(s, halves)}"
        for s, d in sorted(degrees.items(), key=lambda x: x[0].name)
    ]
    if len(degrees) > 1:
        parts.append(f"<= {total} in all")
    return ", ".join(parts)


def _var(s: sympy.Symbol, halves) -> str:
    return f"sqrt({s.name})" if s in halves else s.name


def _why(degrees, halves, total, nodes, floor, count, collapsed) -> str:
    shown = _degree_text(degrees, halves, total)
    if len(degrees) == 1:
        (s,) = degrees
        vs = nodes[s]
        text = (
            f"{shown}: {len(vs)} values of {s.name} ({', '.join(map(str, vs))}), "
            f"above every constant of the claim ({floor})"
        )
    else:
        grid = "; ".join(
            f"{s.name} in {', '.join(map(str, vs))}"
            for s, vs in sorted(nodes.items(), key=lambda x: x[0].name)
        )
        text = (
            f"{shown}: {count} plans on a lower set of the grid {grid}, on which no nonzero "
            f"polynomial of these degrees vanishes; above every constant of the claim ({floor})"
        )
    if collapsed:
        text += "; a derived size is 1 where the relations allow no other"
    return text
