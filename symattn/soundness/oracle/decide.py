"""The oracle's verdict: a claim decided at every index point of several size plans.

Imports only numpy, the standard library and the oracle's own modules; nothing else from symattn
(a test checks it).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from symattn.soundness.oracle.claims import ClaimSpec, Dim, Entry, Ix, Row, Sym, nodes
from symattn.soundness.oracle.degrees import bound
from symattn.soundness.oracle.evaluation import RTOL, Evaluator, NotExact, _close, _equal
from symattn.soundness.oracle.grid import grid
from symattn.soundness.oracle.plans import NO_ASSUMPTION, Context, plans, written_values
from symattn.soundness.oracle.shapes import IllFormed, IllTyped, Shapes

MAX_POINTS = 150


# ---- deciding a claim -----------------------------------------------------------------------


@dataclass(frozen=True)
class Decision:
    """The oracle's truth for a claim under a context, and where it was decided."""

    truth: str  # "true", "false", "ill_typed", "ill_formed"
    detail: str = ""
    plans: tuple[tuple[tuple[str, int], ...], ...] = ()
    points: int = 0
    witness: Mapping[str, Any] = field(default_factory=dict)


def points(
    free: Sequence[tuple[str, Dim]],
    plan: Mapping[str, int],
    seed: int,
    low: Mapping[str, int] | None = None,
) -> list[dict]:
    """Every index point (ranges 1..dim), or when too many the corners, every point whose index
    `i` is at most `low[i]` (where a polynomial in the index is decided), and a seeded sample."""
    names = [name for name, _ in free]
    axes = [range(1, dim.value(plan) + 1) for _, dim in free]
    pts = [dict(zip(names, vals, strict=True)) for vals in itertools.product(*axes)]
    if len(pts) > MAX_POINTS:
        low = low or {}
        first = [p for p in pts if all(p[k] <= low.get(k, 1) for k in names)]
        rest = [p for p in pts[1:-1] if p not in first]
        rng = random.Random(seed)
        more = rng.sample(rest, max(0, min(len(rest), MAX_POINTS - len(first) - 1)))
        pts = [*first, *([pts[-1]] if pts[-1] not in first else []), *more]
    return pts


def with_inferred_ranges(c: ClaimSpec, shapes: Shapes) -> ClaimSpec:
    """A free index ranges over the dim it indexes (rows of `M` in `M_{ij}` or `m_i`, cols of
    `M` in `M_{ij}`), as a reader of the claim infers it; the declared range is kept when the
    index indexes nothing, or dims that differ under the context."""
    found: dict[str, list[Dim]] = {}
    for side in (c.lhs, c.rhs):
        for x in nodes(side):
            pairs: list[tuple[Ix, Dim]] = []
            if isinstance(x, Entry):
                rows, cols = shapes.mat(x.m)
                pairs = [(x.i, rows), (x.j, cols)]
            elif isinstance(x, Row):
                pairs = [(x.i, shapes.mat(x.a)[0])]
            for e, dim in pairs:
                if len(e.terms) == 1 and e.terms[0][1] == 1 and e.const == 0:
                    found.setdefault(e.terms[0][0], []).append(dim)
    free = []
    for name, declared in c.free:
        dims = found.get(name, [])
        if dims and all(shapes.eq(dims[0], x) for x in dims[1:]):
            free.append((name, dims[0]))
        else:
            free.append((name, declared))
    return ClaimSpec(c.lhs, c.rhs, tuple(free))


def decide_at(c: ClaimSpec, plan: Mapping[str, int]) -> Decision:
    """Truth of the claim at one plan only (used for the sizes a 'checked' verdict lists)."""
    ctx = Context("at", explicit=dict(plan))
    try:
        shapes = Shapes(ctx)
        shapes.claim(c)
        c = with_inferred_ranges(c, shapes)
    except IllTyped as exc:
        return Decision("ill_typed", str(exc))
    return _evaluate(c, [(dict(plan), (0, 1))])


def decide(c: ClaimSpec, ctx: Context = NO_ASSUMPTION) -> Decision:
    """Truth under a context: ill-typed by the shape logic, else evaluated at every index point
    of three plans (explicit contexts: their one plan, three seeds).

    >>> from symattn.soundness.oracle import D, Dot, I, MatMul, Tr
    >>> Q, K = Sym("Q", D("n"), D("d_k")), Sym("K", D("n"), D("d_k"))
    >>> c = ClaimSpec(Entry(MatMul(Q, Tr(K)), I("i"), I("j")), Dot(Row(Q, I("j")), Row(K, I("i"))),
    ...               (("i", D("n")), ("j", D("n"))))
    >>> decide(c).truth
    'false'
    """
    try:
        shapes = Shapes(ctx)
        shapes.claim(c)
        c = with_inferred_ranges(c, shapes)
    except IllTyped as exc:
        return Decision("ill_typed", str(exc))
    ps = plans(ctx, 3)
    if ctx.kind == "written":  # the claim at the values the worked example writes out
        return _evaluate(c, [(ps[0], (0,))], _written(c, ps[0]))
    if ctx.explicit is not None:
        return _evaluate(c, [(ps[0], (0, 1, 2))])
    # the small plans, then the plans that rule out a coincidence of the sizes (`grid`)
    g = grid(bound(c, shapes, ctx.relation), ctx.relation)
    runs = [(p, (0, 1)) for p in ps] + [(p, (0,)) for p in g.plans if p not in ps]
    return _evaluate(c, runs, low=g.low, why=g.why)


def _written(c: ClaimSpec, plan: Mapping[str, int]) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    for side in (c.lhs, c.rhs):
        for x in nodes(side):
            if isinstance(x, Sym) and x.name not in out:
                rows, cols = x.rows.value(plan), x.cols.value(plan)
                out[x.name] = np.array(written_values(x.name, rows, cols), dtype=float)
    return out


def _evaluate(
    c: ClaimSpec,
    runs: Sequence[tuple[Mapping[str, int], Sequence[int]]],
    written: Mapping[str, np.ndarray] | None = None,
    low: Mapping[str, int] | None = None,
    why: str = "",
) -> Decision:
    """Both sides at every index point of every (plan, seed): exactly (random integers,
    rational arithmetic) where every value is rational there, else in floats within RTOL."""
    total = 0
    for plan, seeds in runs:
        for seed in seeds:
            try:
                found = _at(c, plan, seed, written, low, exact=True)
            except NotExact:
                found = _at(c, plan, seed, written, low, exact=False)
            count, failed = found
            total += count
            if failed is not None:
                truth, detail, witness = failed
                return Decision(truth, detail, (tuple(sorted(plan.items())),), total, witness)
    ps = [p for p, _ in runs]
    return Decision(
        "true", why, tuple(tuple(sorted(p.items())) for p in ps), total, {"plans": len(ps)}
    )


def _at(
    c: ClaimSpec,
    plan: Mapping[str, int],
    seed: int,
    written: Mapping[str, np.ndarray] | None,
    low: Mapping[str, int] | None,
    exact: bool,
) -> tuple[int, tuple[str, str, dict[str, Any]] | None]:
    """(points evaluated, None) when both sides agree at every point of the plan, else the
    points evaluated and (truth, detail, witness) where they do not."""
    ev = Evaluator(plan, seed, written, exact=exact)
    same_at = _equal if exact else _close
    count = 0
    for pt in points(c.free, plan, seed, low):
        try:
            with np.errstate(all="ignore"):
                a, b = ev.value(c.lhs, pt), ev.value(c.rhs, pt)
                same = same_at(a, b)
        except IllFormed as exc:
            return count, ("ill_formed", str(exc), {})
        except IllTyped as exc:
            return count, ("ill_typed", str(exc), {})
        count += 1
        if not same:
            how = "exactly" if exact else f"within rtol {RTOL}"
            shown = f"{_first(a)} vs {_first(b)}"
            detail = f"differ at {plan} {pt} ({how}): {shown}"
            return count, ("false", detail, {"plan": dict(plan), "point": pt, "seed": seed})
    return count, None


def _first(v: Any) -> str:
    return str([str(x) for x in np.ravel(np.asarray(v, dtype=object))[:3]])
