"""The oracle's size plans that rule out a coincidence: a lower set of a grid of distinct sizes.

Imports only the standard library and the oracle's own modules; nothing else from symattn
(a test checks it).

A nonzero polynomial of degree <= D_s in each size s and <= D in all of them does not vanish
at every point of the lower set {a : a_s <= D_s, sum(a) <= D} of a grid that has D_s + 1
distinct values of each s (its monomials span exactly that set, and interpolation there is
unique). With the degree bound of `degrees.bound`, two sides equal at every such plan (and, at
each, at the first D_i + 1 values of each free index i) are equal at every size. The values lie
above every constant of the claim's indices and sizes (below them a sum may be empty or
reversed, a row or a head missing: another function) and the relations are satisfied by
construction (`d = H d_v`).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass

from symattn.soundness.oracle.claims import DIM_NAMES
from symattn.soundness.oracle.degrees import DERIVED, Bound

MAX_PLANS = 120  # past this many plans the lattice is cut to its first plans, and the truth says so


@dataclass(frozen=True)
class Grid:
    """The plans, the first values of each free index to look at, and why they suffice."""

    plans: tuple[dict[str, int], ...]
    low: Mapping[str, int]
    why: str
    settles: bool = True


def grid(b: Bound, relation: str = "") -> Grid:
    """Plans on the lower set of a grid for the bound `b`, satisfying the relation.

    >>> from symattn.soundness.oracle.degrees import Bound
    >>> g = grid(Bound({"n": 2}, 2, {}, frozenset(), 3))
    >>> [p["n"] for p in g.plans], g.why
    ([4, 5, 6], 'degree <= 2 in n: 3 values of n (4, 5, 6), above every constant (3)')
    """
    derived = set(DERIVED.get(relation, {}))
    free = [s for s in DIM_NAMES if s not in derived]
    order = sorted(b.sizes)
    start = max(b.floor, max(b.indices.values(), default=0), 1) + 1
    values = {s: [start + k + m for m in range(b.sizes[s] + 1)] for k, s in enumerate(order)}
    rest = [s for s in free if s not in values]
    fixed = {s: start + k for k, s in enumerate(rest)}
    lattice = [
        a
        for a in itertools.product(*(range(b.sizes[s] + 1) for s in order))
        if sum(a) <= max(b.total, 1)
    ]
    settles = len(lattice) <= MAX_PLANS
    plans = []
    for a in lattice[:MAX_PLANS]:
        plan = dict(fixed) | {s: values[s][k] for s, k in zip(order, a, strict=True)}
        plans.append(_complete(relation, plan))
    low = {name: d + 1 for name, d in b.indices.items()}
    why = _why(b, values, len(plans), start - 1)
    if not settles:
        why += f"; cut to {MAX_PLANS} of the {len(lattice)} plans needed"
    return Grid(tuple(plans), low, why, settles)


def _complete(relation: str, plan: dict[str, int]) -> dict[str, int]:
    for d, parts in DERIVED.get(relation, {}).items():
        v = 1
        for s, e in parts.items():
            v *= plan[s] ** e
        plan[d] = v
    return plan


def _var(s: str, b: Bound) -> str:
    return f"sqrt({s})" if s in b.halves else s


def _why(b: Bound, values: Mapping[str, list[int]], count: int, floor: int) -> str:
    if not values:
        return f"no size enters as a number; above every constant ({floor})"
    shown = ", ".join(f"degree <= {d} in {_var(s, b)}" for s, d in sorted(b.sizes.items()))
    if len(values) == 1:
        ((s, vs),) = values.items()
        listed = ", ".join(map(str, vs))
        return f"{shown}: {len(vs)} values of {s} ({listed}), above every constant ({floor})"
    grid_text = "; ".join(f"{s} in {', '.join(map(str, vs))}" for s, vs in sorted(values.items()))
    return (
        f"{shown}, <= {b.total} in all: {count} plans on a lower set of the grid {grid_text}, "
        f"above every constant ({floor})"
    )
