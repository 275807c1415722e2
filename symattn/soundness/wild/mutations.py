"""The wild claims' single-place mutants, and the seeded generator (`generate_wild`).

Imports only numpy, the standard library and the wild classes' own modules; nothing else from
symattn (a test checks it).
"""

from __future__ import annotations

import dataclasses
import functools
import random
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from symattn.soundness.wild.nodes import (
    MT,
    Comp,
    Eye,
    FamVec,
    Fn,
    Had,
    Ix,
    Lit,
    MaskedAttn,
    MEntry,
    Minus,
    MMul,
    Neg,
    Node,
    Norm,
    Num,
    Ones,
    Plus,
    Power,
    Size,
    State,
    Sum,
    Times,
    VComp,
    Vec,
    VSoftmax,
    WildClaim,
    WildSpec,
)
from symattn.soundness.wild.templates import INFERRED, WILD_TEMPLATES, _n

# ---- mutations --------------------------------------------------------------------------------


_OTHER_MASK = {
    "causal": "anti",
    "causal_gt": "strict",
    "anti": "causal",
    "window": "causal",
    "strict": "causal",
}


def _vanishing(x: Node, roots: Sequence[int]) -> Node:
    out: Node = Minus(x, _n(roots[0]))
    for r in roots[1:]:
        out = Times(out, Minus(x, _n(r)))
    return out


def _off_by(x: Node, roots: Sequence[int]) -> Node:
    return Plus(x, _vanishing(x, roots))


def _edits(x: Any) -> list[tuple[str, Callable[[], Node]]]:
    out: list[tuple[str, Callable[[], Node]]] = []
    if isinstance(x, Fn) and x.fn in ("sin", "cos"):
        other = "cos" if x.fn == "sin" else "sin"
        out.append(("sin_cos_swapped", lambda: Fn(other, x.x, x.style)))
    if isinstance(x, Fn) and x.fn == "exp":
        out.append(("exp_argument_negated", lambda: Fn("exp", Neg(x.x), x.style)))
    if isinstance(x, Plus):
        out.append(("plus_to_minus", lambda: Minus(x.a, x.b)))
        out.append(("term_dropped", lambda: x.a))
    if isinstance(x, Minus):
        out.append(("minus_to_plus", lambda: Plus(x.a, x.b)))
    if isinstance(x, Times) and not isinstance(x.a, Num):
        out.append(("product_to_sum", lambda: Plus(x.a, x.b)))
    if isinstance(x, Num) and x.value not in (0,):
        out.append(("constant_changed", lambda: Num(x.value + 1)))
    if isinstance(x, Power):
        out.append(("power_changed", lambda: Power(x.a, x.k + 1)))
    if isinstance(x, Size):
        for roots in ((1, 2), (2, 3), (1,), (1, 2, 3)):
            tag = "".join(f"({x.name}-{r})" for r in roots)
            out.append((f"plus_{tag}", functools.partial(_off_by, x, roots)))
    if isinstance(x, Sum):
        out.append(("bound_minus_one", lambda: dataclasses.replace(x, hi=Minus(x.hi, _n(1)))))
        out.append(("bound_plus_one", lambda: dataclasses.replace(x, hi=Plus(x.hi, _n(1)))))
        out.append(("lower_bound_plus_one", lambda: dataclasses.replace(x, lo=_n(2))))
    if isinstance(x, Comp) and isinstance(x.i, Ix):
        out.append(("component_shifted", lambda: Comp(x.v, Plus(x.i, _n(1)), x.style)))
    if isinstance(x, MEntry):
        out.append(("indices_swapped", lambda: MEntry(x.m, x.j, x.i, x.style)))
    if isinstance(x, Had):
        out.append(("hadamard_to_product", lambda: MMul(x.a, MT(x.b))))
        out.append(("transpose_added", lambda: Had(x.a, MT(x.b))))
    if isinstance(x, MT):
        out.append(("transpose_dropped", lambda: x.a))
    if isinstance(x, MMul):
        out.append(("factors_swapped", lambda: MMul(x.b, x.a)))
    if isinstance(x, Neg):
        out.append(("sign_dropped", lambda: x.a))
    if isinstance(x, FamVec):
        out.append(("time_shifted", lambda: FamVec(x.name, x.t + 1, x.size)))
    if isinstance(x, State) and x.t > 1:
        out.append(("state_index_off", lambda: State(x.t - 1)))
    if isinstance(x, VSoftmax):
        out.append(("softmax_dropped", lambda: x.a))
        out.append(("softmax_scaled", lambda: VSoftmax(Times(_n(2), x.a), x.style)))
    if isinstance(x, Ones):
        out.append(("ones_to_vector", lambda: Vec("w", x.size)))
    if isinstance(x, Eye):
        out.append(("identity_doubled", lambda: Times(Num(Fraction(2)), x)))
    if isinstance(x, VComp) and isinstance(x.i, Ix):
        out.append(("entry_shifted", lambda: VComp(x.v, Plus(x.i, _n(1)))))
    inner: Any = getattr(x, "a", None)
    if isinstance(x, Norm) and isinstance(inner, (Plus, Minus)):
        out.append(("norm_of_sum_split", lambda: Plus(Norm(inner.a), Norm(inner.b))))
    if isinstance(x, Power) and isinstance(x.a, Norm):
        out.append(("square_dropped", lambda: x.a))
    if isinstance(x, MT) and isinstance(inner, MMul):
        out.append(("transpose_kept_order", lambda: MMul(MT(inner.a), MT(inner.b))))
    if isinstance(x, Sum) and not isinstance(x.lo, Num):
        out.append(("lower_bound_shifted", lambda: dataclasses.replace(x, lo=Plus(x.lo, _n(1)))))
    at: Any = getattr(x, "i", None)
    if isinstance(x, Comp) and isinstance(at, (Plus, Minus)) and isinstance(at.b, Num):
        out.append(("component_offset_dropped", lambda: Comp(x.v, at.a, x.style)))
    if isinstance(x, Lit) and len(x.rows) == 2 and len(x.rows[0]) == 2:
        (a, b), (c, d) = x.rows
        out.append(("entries_swapped", lambda: Lit(((a, c), (b, d)))))
    return out


def _positions(x: Any, path: tuple = ()) -> list[tuple[tuple, Any]]:
    out: list[tuple[tuple, Any]] = [(path, x)]
    for f in dataclasses.fields(x):
        v = getattr(x, f.name)
        if isinstance(v, Node):
            out += _positions(v, path + (f.name,))
    return out


def _replace(x: Any, path: tuple, new: Node) -> Any:
    if not path:
        return new
    return dataclasses.replace(x, **{path[0]: _replace(getattr(x, path[0]), path[1:], new)})


def _remask(x: Any) -> Any:
    """Every `MaskedAttn` of `x` under the other mask: one definition in the prose, changed."""
    if isinstance(x, MaskedAttn):
        return MaskedAttn(_OTHER_MASK[x.kind])
    if not isinstance(x, Node):
        return x
    node: Any = x
    return dataclasses.replace(
        node, **{f.name: _remask(getattr(node, f.name)) for f in dataclasses.fields(node)}
    )


def mutate(rng: random.Random, spec: WildSpec) -> tuple[WildSpec, str] | None:
    masked = [y for side in (spec.lhs, spec.rhs) for _, y in _positions(side)]
    if any(isinstance(y, MaskedAttn) for y in masked) and rng.random() < 0.4:
        # the same claim under another mask's definition
        return WildSpec(_remask(spec.lhs), _remask(spec.rhs), spec.free), "mask_changed"
    sides = ["lhs", "rhs"]
    rng.shuffle(sides)
    for side in sides:
        root = getattr(spec, side)
        cands = [(p, op, b) for p, y in _positions(root) for op, b in _edits(y)]
        if cands:
            path, op, build = rng.choice(cands)
            new = _replace(root, path, build())
            if side == "lhs":
                return WildSpec(new, spec.rhs, spec.free), op
            return WildSpec(spec.lhs, new, spec.free), op
    return None


def generate_wild(count: int, seed: int = 0, mutant_share: float = 0.6) -> list[WildClaim]:
    """`count` wild claims, deterministic in `seed`."""
    rng = random.Random(seed * 7919 + 17)
    names = list(WILD_TEMPLATES)
    weights = [WILD_TEMPLATES[k][0] for k in names]
    out: list[WildClaim] = []
    while len(out) < count:
        name = rng.choices(names, weights)[0]
        spec = WILD_TEMPLATES[name][1](rng)
        muts: list[str] = []
        if rng.random() < mutant_share:
            got = mutate(rng, spec)
            if got is not None:
                spec, op = got
                muts.append(op)
        if spec.lhs == spec.rhs:
            continue
        declare = name not in INFERRED or rng.random() < 0.3
        out.append(WildClaim(f"w{seed}-{len(out)}", name, spec, tuple(muts), declare))
    return out
