"""Counterexamples a reader can check by hand: a point, and the few entries that make it fail.

Imports only the kernel below it (canon, evaluate, expr, witness.evidence, .sizes, .points, .field,
.numeric, .certify, .screen, .enclosed); must not import witness.exact, proof or anything above
them.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import mpmath
import numpy as np
import sympy

from symattn.kernel.evaluate import (
    Evaluator,
    Resample,
    learn_shapes,
)
from symattn.kernel.expr import MatExpr
from symattn.kernel.ranges import Range
from symattn.kernel.witness import certify, enclosed, numeric, screen, sizes
from symattn.kernel.witness.evidence import MAX_SAMPLE, Counterexample, Term
from symattn.kernel.witness.field import PRIMES, ModP, rational
from symattn.kernel.witness.points import (
    claim_bounds,
    dims_of,
    free_symbols_of,
    generic_entries,
    index_points,
    instantiate,
    plan_fits,
)


def counterexample(
    lhs: Term,
    rhs: Term,
    ranges: Mapping[sympy.Symbol, Range],
    *,
    assuming: Sequence[sympy.Basic] = (),
    trials: int = 3,
    seed: int = 0,
    plans: Sequence[Mapping[sympy.Symbol, int]] | None = None,
) -> Counterexample | None:
    """The smallest sizes (or the `plans` given), then small integer entries, at which the sides
    differ, if any."""
    ranges = dict(ranges)
    given = set(ranges)
    a, b = generic_entries(lhs, rhs, ranges)
    # the generic entry of a matrix claim is shown as row and col, not as invented indices
    labels = dict(zip([s for s in ranges if s not in given], ("row", "col"), strict=False))
    dims = dims_of(a, b, *claim_bounds(ranges), indices=ranges)
    rng = random.Random(seed)
    for plan in sizes.plans(dims, limit=12) if plans is None else plans:
        if not plan_fits(lhs, rhs, plan):
            continue
        try:
            subs = sizes.substitution(plan)
        except sizes.NoPlan:
            continue
        points, _ = index_points(ranges, subs, assuming, limit=MAX_SAMPLE, seed=seed)
        for point in points:
            left, right = instantiate(a, subs, point), instantiate(b, subs, point)
            cex = _search_point(left, right, plan, point, rng, labels, trials)
            if cex is not None:
                return cex
    return None


def _search_point(left, right, plan, point, rng, labels, trials: int) -> Counterexample | None:
    """The trials at one point, those float64 sees differ first; each is decided exactly.

    The entries of every trial are drawn first (the same draws, in the same order, as one trial
    at a time). A trial whose float64 values differ clearly is a candidate for the exact route;
    a near-tie goes to the exact route after them (float64 decides nothing). Sides compiled to
    a program (`witness.screen`) are decided by its exact run in rationals, or, with
    transcendental steps, by its enclosures; others by sympy's substitution.
    """
    atoms = screen.atoms_of(left, right)  # the same at every trial: computed once a point
    draws = [{x: sympy.Integer(rng.choice(_DRAW)) for x in atoms} for _ in range(trials)]
    program = screen.compile_sides(left, right, atoms)
    ranked = sorted(range(trials), key=lambda t: not _clear(program, draws[t]))
    enclosable = None
    for t in ranked:
        values = draws[t]
        if program is not None and program.exact:
            cex = _exact_point(program, values, plan, point, labels)
        elif program is not None:  # every step of a program has an enclosure
            found = certify.certify(left, right, _ints(values), program=program)
            cex = None if found is None else _certified(found, values, plan, point, labels)
        else:
            if enclosable is None:
                enclosable = certify.can_enclose(left) and certify.can_enclose(right)
            cex = _try_point(left, right, plan, point, values, labels, enclosable)
        if cex is not None:
            return cex
    return None


def _ints(values) -> dict:
    return {k: int(v) for k, v in values.items()}


def _certified(found: certify.Separation, values, plan, point, labels) -> Counterexample:
    """A counterexample whose sides' enclosures do not overlap."""
    return Counterexample(
        sizes=_sizes_shown(plan),
        indices=_shown_point(point, labels or {}),
        entries=tuple((_entry_name(k), str(v)) for k, v in values.items()),
        lhs=found.shown("left"),
        rhs=found.shown("right"),
        exact=False,
        certified=True,
    )


_DRAW = (-2, -1, 1, 2, 3)


def _clear(program: screen.Program | None, values) -> bool:
    """Float64 sees the sides differ clearly at `values` (only an order of trials, never a
    verdict)."""
    floats = None if program is None else program.run(values, "float")
    return floats is not None and not screen.near_tie(*floats)


def _exact_point(program: screen.Program, values, plan, point, labels) -> Counterexample | None:
    """The exact route for sides with no transcendental step: both sides as exact rationals
    (what sympy's substitution would give, without building its trees)."""
    found = program.run(values, "exact")
    if found is None:
        return None  # a side has no value here (a division by 0): nothing to compare
    lv, rv = (sympy.Rational(v.numerator, v.denominator) for v in found)
    if lv == rv:
        return None
    return Counterexample(
        sizes=_sizes_shown(plan),
        indices=_shown_point(point, labels or {}),
        entries=tuple((_entry_name(k), str(v)) for k, v in values.items()),
        lhs=str(lv),
        rhs=str(rv),
        exact=True,
    )


def _sizes_shown(plan) -> tuple[tuple[str, int], ...]:
    return tuple((s.name, v) for s, v in sorted(plan.items(), key=lambda x: x[0].name))


def _try_point(
    left, right, plan, point, values, labels=None, enclosable: bool | None = None
) -> Counterexample | None:
    """The exact route at one trial's entries: sympy's substitution, then the two numbers
    compared exactly when both are rational, else interval enclosures (a proof they differ);
    nothing else makes a counterexample."""
    lv, rv = left.xreplace(values), right.xreplace(values)
    if lv == rv:
        return None
    if lv.free_symbols or rv.free_symbols:
        return None  # something stayed symbolic: no honest counterexample here
    if _undefined(lv) or _undefined(rv):
        return None  # a side has no value here (oo - oo): nothing to compare
    # exp, cos, sin of numbers and roots: sympy cannot always decide their equality, so the
    # difference is certified by enclosures instead (cos²x + sin²x = 1 is not "exact" here)
    if not any(x.has(sympy.sqrt, sympy.exp, sympy.cos, sympy.sin) for x in (lv, rv)):
        lv, rv = sympy.nsimplify(lv), sympy.nsimplify(rv)
        # a rational or a masked entry's -oo (a mask compared as a value): decided exactly
        if _extended_rational(lv) and _extended_rational(rv):
            if lv == rv:
                return None
            return Counterexample(
                sizes=_sizes_shown(plan),
                indices=_shown_point(point, labels or {}),
                entries=tuple((_entry_name(k), str(v)) for k, v in values.items()),
                lhs=str(lv),
                rhs=str(rv),
                exact=True,
            )
    if enclosable is None:
        enclosable = certify.can_enclose(left) and certify.can_enclose(right)
    if not enclosable:
        # a function the enclosures do not know: a difference seen with 30 digits, or a
        # difference sympy cannot simplify to 0, is no certificate: no counterexample
        return None
    found = certify.certify(left, right, _ints(values))
    return None if found is None else _certified(found, values, plan, point, labels)


def _extended_rational(v: sympy.Basic) -> bool:
    return bool(v.is_Rational) or v in (sympy.oo, -sympy.oo)


def _undefined(v: sympy.Basic) -> bool:
    """`nan` or `zoo` anywhere: the value does not exist (a masked `-oo` times entries of both
    signs, summed)."""
    return bool(v.has(sympy.nan, sympy.zoo))


def entry_name(x: sympy.Basic) -> str:
    """How a counterexample names an entry: `Q[1,2]`, `Z^(2)[1,1]`, or a scalar's name."""
    return _entry_name(x)


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


def confirmed_counterexample(lhs: Term, rhs: Term, where) -> Counterexample | None:
    """Explicit sizes with exp: few small entries found in float64, certified by disjoint
    interval enclosures of both sides (`witness.enclosed`)."""
    at = dict(where)
    cell = (at.pop("row"), at.pop("col")) if isinstance(lhs, MatExpr) else None
    names = {s.name: s for t in (lhs, rhs) for s in free_symbols_of(t)}
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
    _minimise(values, differs, budget=400)
    subs = {
        sympy.Indexed(sympy.IndexedBase(_base(k)), *_idx(k, int(i), arr.shape)): int(arr.flat[i])
        for k, arr in values.items()
        for i in np.flatnonzero(arr)
    }
    try:  # the float64 candidate, certified: disjoint interval enclosures of both sides
        found = enclosed.separated((lhs, rhs), cell, point, values)
    except (numeric.EvalError, ValueError, TypeError, ZeroDivisionError):
        return None
    if found is None:
        return None
    lf, rf = found
    shown = [(_entry_name(x), str(v)) for x, v in subs.items()]
    where_shown = tuple(where) if cell is not None else _names(point)
    return Counterexample(
        sizes=(),
        indices=where_shown,
        entries=_sparse_entries(sorted(shown)),
        lhs=mpmath.nstr(lf, 12),
        rhs=mpmath.nstr(rf, 12),
        exact=False,
        certified=True,
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


def sparse_counterexample(lhs: Term, rhs: Term, where) -> Counterexample | None:
    found = shrink(lhs, rhs, where)
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


# ---- a small readable counterexample from the field witness ------------------------------


@dataclass(frozen=True)
class Sparse:
    """Entries (all others 0) at which the two sides differ, with both exact values."""

    entries: tuple[tuple[str, int], ...]
    left: sympy.Rational
    right: sympy.Rational


def shrink(
    lhs: sympy.Basic,
    rhs: sympy.Basic,
    where: Sequence[tuple[str, int]],
    *,
    budget: int = 600,
    seed: int = 0,
) -> Sparse | None:
    """Few small nonzero integer entries at which the sides differ at the point `where`.

    For sides without free atoms (no exp, no algebraic numbers): start from small random
    integers, then zero out blocks of entries (halving the blocks) while the sides still differ,
    then try 1 for what is left. A difference mod p of these small values is a real difference.

    >>> from symattn.kernel.attention import single_head
    >>> from symattn.kernel.expr import Dot, index
    >>> s = single_head(n=7, d=512, d_k=64, d_v=64); i, j = index("i"), index("j")
    >>> shrink(s.scores[i, j], Dot(s.Q.row(j), s.K.row(i)), (("i", 2), ("j", 1)))
    Sparse(entries=(('K[1,4]', 1), ('Q[2,4]', 1)), left=1, right=0)
    """
    shapes = learn_shapes(lhs, rhs)
    names = {s.name: s for t in (lhs, rhs) for s in t.free_symbols if isinstance(s, sympy.Symbol)}
    at = dict(where)
    cell = (at.pop("row") - 1, at.pop("col") - 1) if isinstance(lhs, MatExpr) else ()
    point = {names[k]: v for k, v in at.items() if k in names}
    for attempt in range(5):
        values: dict[tuple, np.ndarray] = {}
        gen = np.random.default_rng([seed, attempt])

        def draw(key, shape, _rng, values=values, gen=gen):
            if key not in values:
                values[key] = gen.integers(-2, 4, size=shape, dtype=np.int64)
            return values[key]

        def differs(draw=draw, primes=PRIMES[:1]):
            # one prime while minimising: a difference mod p is already a real difference
            return _differs(lhs, rhs, point, cell, shapes, draw, primes)

        if differs(primes=PRIMES[:2]) is None:
            continue
        _minimise(values, differs, budget)
        found = differs()
        if found is None:  # pragma: no cover - _minimise keeps the difference
            return None
        left, right, p = found
        entries = tuple(
            (_name(key, int(idx), arr.shape), int(arr.flat[idx]))
            for key, arr in sorted(values.items(), key=lambda kv: str(kv[0]))
            for idx in np.flatnonzero(arr)
        )
        return Sparse(entries, rational(left, p), rational(right, p))
    return None


def _differs(lhs, rhs, point, cell, shapes, draw, primes=PRIMES[:2]):
    for p in primes:
        f = Evaluator(ModP(p), np.random.default_rng(0), shapes, draw)
        f.env.update(point)
        try:
            if cell:
                x, y = int(f.mat(lhs)[cell]), int(f.mat(rhs)[cell])
            else:
                x, y = int(np.asarray(f.scalar(lhs))), int(np.asarray(f.scalar(rhs)))
        except Resample:
            return None
        if x != y:
            return x, y, p
    return None


def _minimise(values: dict[tuple, np.ndarray], differs: Callable, budget: int) -> None:
    """Zero blocks of entries, halving the block size, while `differs()` stays true."""
    keys = list(values)
    if not keys:  # the sides differ with no entry at all (an empty sum against 1)
        return
    sizes = [values[k].size for k in keys]
    flat = np.concatenate([values[k].ravel() for k in keys])
    start = 0
    for k, size in zip(keys, sizes, strict=True):
        values[k] = flat[start : start + size].reshape(values[k].shape)  # a view into flat
        start += size
    items = np.flatnonzero(flat)
    chunk, evals = max(len(items), 1), 0
    while len(items) and evals < budget:
        kept = []
        for s in range(0, len(items), chunk):
            part = items[s : s + chunk]
            old = flat[part].copy()
            flat[part] = 0
            evals += 1
            if evals > budget or differs() is None:
                flat[part] = old
                kept.append(part)
        items = np.concatenate(kept) if kept else items[:0]
        if chunk == 1:
            break
        chunk = max(1, chunk // 2)
    for i in items:
        old = flat[i]
        if old != 1 and evals < budget:
            flat[i] = 1
            evals += 1
            if differs() is None:
                flat[i] = old


def _name(key: tuple, idx: int, shape: tuple[int, ...]) -> str:
    r, c = divmod(idx, shape[1])
    if key[0] == "scalar":
        return str(key[1])
    if len(key) == 2 and key[1] == "column":
        return f"{key[0]}[{r + 1}]"
    if len(key) == 2:
        return f"{key[0]}^({key[1]})[{r + 1},{c + 1}]"
    return f"{key[0]}[{r + 1},{c + 1}]"
