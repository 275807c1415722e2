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
from symattn.soundness.oracle.evaluation import Evaluator, _close
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


def points(free: Sequence[tuple[str, Dim]], plan: Mapping[str, int], seed: int) -> list[dict]:
    """Every index point (ranges 1..dim), or a seeded sample with the corners when too many."""
    names = [name for name, _ in free]
    axes = [range(1, dim.value(plan) + 1) for _, dim in free]
    pts = [dict(zip(names, vals, strict=True)) for vals in itertools.product(*axes)]
    if len(pts) > MAX_POINTS:
        rng = random.Random(seed)
        pts = [pts[0], pts[-1], *rng.sample(pts[1:-1], MAX_POINTS - 2)]
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
    return _evaluate(c, [dict(plan)], (0, 1))


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
        return _evaluate(c, ps, (0,), _written(c, ps[0]))
    seeds = (0, 1, 2) if ctx.explicit is not None else (0, 1)
    return _evaluate(c, ps, seeds)


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
    ps: Sequence[Mapping[str, int]],
    seeds: Sequence[int],
    written: Mapping[str, np.ndarray] | None = None,
) -> Decision:
    total = 0
    for plan in ps:
        for seed in seeds:
            ev = Evaluator(plan, seed, written)
            for pt in points(c.free, plan, seed):
                try:
                    with np.errstate(all="ignore"):
                        a, b = ev.value(c.lhs, pt), ev.value(c.rhs, pt)
                        same = _close(a, b)
                except IllFormed as exc:
                    return Decision("ill_formed", str(exc), (tuple(sorted(plan.items())),), total)
                except IllTyped as exc:
                    return Decision("ill_typed", str(exc), (tuple(sorted(plan.items())),), total)
                total += 1
                if not same:
                    return Decision(
                        "false",
                        f"differ at {plan} {pt}: {np.ravel(a)[:3]} vs {np.ravel(b)[:3]}",
                        (tuple(sorted(plan.items())),),
                        total,
                        {"plan": dict(plan), "point": pt, "seed": seed},
                    )
    return Decision(
        "true", "", tuple(tuple(sorted(p.items())) for p in ps), total, {"plans": len(ps)}
    )
