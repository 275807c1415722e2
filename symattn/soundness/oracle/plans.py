"""The oracle's contexts and the size plans that satisfy a context's size relations.

Imports only numpy, the standard library and the oracle's own modules; nothing else from symattn
(a test checks it).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping
from dataclasses import dataclass

from symattn.soundness.oracle.claims import DIM_NAMES

# ---- contexts and size plans ---------------------------------------------------------------


@dataclass(frozen=True)
class Context:
    """Size relations in force: `d_v = d/H` (`d` determined), `d_k = d_v`, or explicit sizes;
    and how the front ends are told to read vectors (`column`: the prose of the document says
    "every vector is a column vector", `prove` gets `--conventions vectors=column`, and the
    claim is written for columns: row i of Q is `q_i^\top`). The truth does not change."""

    name: str
    relation: str = ""  # "", "d_v=d/H", "d_k=d/H", "d_k=d_v"
    explicit: Mapping[str, int] | None = None
    kind: str = "symbolic"  # "symbolic", "explicit", "worked", "written"
    vectors: str = "row"  # "row" or "column"


NO_ASSUMPTION = Context("none")


EXPLICIT_SIZES: dict[str, int] = {"n": 5, "d": 7, "d_k": 4, "d_v": 3, "H": 2}


#: A worked example small enough to write every matrix out (`W_O` is 8 × 5), sizes distinct.
WRITTEN_SIZES: dict[str, int] = {"n": 3, "d": 5, "d_k": 2, "d_v": 4, "H": 2}


CONTEXTS: tuple[Context, ...] = (
    NO_ASSUMPTION,
    Context("d_v=d/H", "d_v=d/H"),
    Context("d_k=d/H", "d_k=d/H"),
    Context("d_k=d_v", "d_k=d_v"),
    Context("explicit", explicit=EXPLICIT_SIZES, kind="explicit"),
    Context("worked", explicit=EXPLICIT_SIZES, kind="worked"),
    Context("columns", vectors="column"),
    Context("written", explicit=WRITTEN_SIZES, kind="written"),
)


def written_values(name: str, rows: int, cols: int) -> list[list[int]]:
    """The entries a "written" worked example writes out for a matrix: small integers, the same
    for a name and shape every time (the document shows them, the oracle evaluates with them).

    >>> written_values("Q", 2, 2) == written_values("Q", 2, 2)
    True
    """
    rng = random.Random(f"{name}:{rows}x{cols}")
    return [[rng.randint(-3, 3) for _ in range(cols)] for _ in range(rows)]


def _complete(rel: str, free: dict[str, int]) -> dict[str, int]:
    plan = dict(free)
    if rel == "d_v=d/H":
        plan["d"] = plan["H"] * plan["d_v"]
    elif rel == "d_k=d/H":
        plan["d"] = plan["H"] * plan["d_k"]
    elif rel == "d_k=d_v":
        plan["d_k"] = plan["d_v"]
    return plan


def plans(ctx: Context, count: int = 3, seed: int = 0) -> list[dict[str, int]]:
    """`count` size plans satisfying the context; distinct dims get distinct values where the
    relations allow (so a dim confused for another shows).

    >>> all(p["d"] == p["H"] * p["d_v"] for p in plans(Context("x", "d_v=d/H")))
    True
    """
    if ctx.explicit is not None:
        return [dict(ctx.explicit)]
    # Hand-picked first plans (small, all distinct), then seeded random ones.
    base = [
        {"n": 3, "d": 5, "d_k": 4, "d_v": 6, "H": 2},
        {"n": 4, "d": 7, "d_k": 5, "d_v": 2, "H": 3},
        {"n": 4, "d": 3, "d_k": 5, "d_v": 6, "H": 2},
    ]
    out: list[dict[str, int]] = []
    rng = random.Random(seed)
    candidates = base + [
        {k: rng.randint(2, 6) for k in DIM_NAMES} | {"H": rng.randint(2, 3)} for _ in range(60)
    ]
    for free in candidates:
        plan = _complete(ctx.relation, free)
        if _distinct_enough(plan, ctx.relation) and plan not in out and max(plan.values()) <= 12:
            out.append(plan)
        if len(out) == count:
            break
    return out


def _distinct_enough(plan: Mapping[str, int], rel: str) -> bool:
    tied = {("d_k", "d_v")} if rel == "d_k=d_v" else set()
    for a, b in itertools.combinations(DIM_NAMES, 2):
        if (a, b) in tied or (b, a) in tied:
            continue
        if plan[a] == plan[b]:
            return False
    # Products a dim could be confused with (H*d_v against d, n, d_k) differ as well, unless tied.
    for prod in ("d_v", "d_k"):
        hp = plan["H"] * plan[prod]
        if not (rel in ("d_v=d/H", "d_k=d/H") and rel.startswith(prod)) and hp == plan["d"]:
            return False
        if hp in (plan["n"],):
            return False
    return True


def shape_plans(ctx: Context) -> list[dict[str, int]]:
    """Plans to decide equality of two dims under the context: two monomials are equal under the
    relations iff they agree at many plans that satisfy them (large, random, distinct values)."""
    if ctx.explicit is not None:
        return [dict(ctx.explicit)]
    rng = random.Random(12345)
    primes = [101, 103, 107, 109, 113, 127, 131, 137, 139, 149, 151, 157, 163, 167, 173]
    out = []
    for _ in range(4):
        vals = rng.sample(primes, len(DIM_NAMES))
        out.append(_complete(ctx.relation, dict(zip(DIM_NAMES, vals, strict=True))))
    return out
