"""The differential generator's mutations: one place of a claim changed (`mutate`).

Imports only the standard library, the suite's own AST (`symattn.soundness.oracle`) and the
templates' sizes and leaves (`symattn.soundness.templates`); nothing from the kernel.
"""

from __future__ import annotations

import dataclasses
import functools
import random
from collections.abc import Callable
from fractions import Fraction

from symattn.soundness.oracle import (
    Add,
    Block,
    ClaimSpec,
    ColSoftmax,
    Concat,
    Dim,
    Dot,
    Entry,
    HeadMat,
    I,
    Ix,
    Mask,
    MatMul,
    MSum,
    Node,
    Num,
    Row,
    SAdd,
    Scale,
    SMul,
    Softmax,
    Sqrt,
    SSum,
    Sym,
    Tr,
)
from symattn.soundness.templates import (
    LEAVES,
    SIZE_DIMS,
    SMALL_ROOTS,
    d_k,
    d_v,
    n,
    vanishing,
)


def positions(x: Node) -> list[tuple[tuple[str, ...], Node]]:
    """Every node with its path of field names."""
    out: list[tuple[tuple[str, ...], Node]] = []
    stack: list[tuple[tuple[str, ...], Node]] = [((), x)]
    while stack:
        path, y = stack.pop()
        out.append((path, y))
        for fld in dataclasses.fields(y):
            v = getattr(y, fld.name)
            if dataclasses.is_dataclass(v) and not isinstance(v, (Dim, Ix, type)):
                stack.append((path + (fld.name,), v))
    return out


def replace_at(x: Node, path: tuple[str, ...], new: Node) -> Node:
    if not path:
        return new
    child = getattr(x, path[0])
    return dataclasses.replace(x, **{path[0]: replace_at(child, path[1:], new)})


# ---- mutations ------------------------------------------------------------------------------

Edit = tuple[str, Callable[[], Node]]


def _edits(x: Node, free: tuple[tuple[str, Dim], ...]) -> list[Edit]:
    out: list[Edit] = []
    if isinstance(x, Entry) and x.i != x.j:
        out.append(("indices_swapped", lambda: Entry(x.m, x.j, x.i)))
    if isinstance(x, Dot):
        u, v = x.u, x.v
        if isinstance(u, Row) and isinstance(v, Row) and u.i != v.i:
            out.append(("dot_rows_swapped", lambda: Dot(Row(u.a, v.i), Row(v.a, u.i))))
        out.append(("dot_to_outer", lambda: MatMul(Tr(u), v)))
    if isinstance(x, Row):
        same = [name for name, _ in free if I(name) != x.i and dict(free)[name] == n]
        if same:
            out.append(("row_index_changed", lambda: Row(x.a, I(same[0]))))
    if isinstance(x, Tr):
        out.append(("transpose_dropped", lambda: x.a))
    if isinstance(x, (Sym, HeadMat)):
        out.append(("transpose_added", lambda: Tr(x)))
        if isinstance(x, Sym):
            twins = [k for k, s in LEAVES.items() if s == (x.rows, x.cols) and k != x.name]
            if twins:
                out.append(("letter_swapped", lambda: Sym(twins[0], x.rows, x.cols)))
    if isinstance(x, (SSum, MSum)):
        hi, lo = x.hi, x.lo
        names = {name for name, _ in free}
        alts = {hi.shifted(1), hi.shifted(-1), I("n")} - {hi}
        if "i" in names:
            alts |= {I("i"), I("i", -1)} - {hi}
        for alt in sorted(alts, key=str):
            out.append((f"bound_{hi}_to_{alt}", functools.partial(dataclasses.replace, x, hi=alt)))
        out.append(("lower_bound_plus_one", lambda: dataclasses.replace(x, lo=lo.shifted(1))))
        if len(hi.terms) == 1 and hi.terms[0][0] in ("d_k", "d_v", "d", "n") and not hi.const:
            for other in ("d_k", "d_v", "d", "n"):
                if other != hi.terms[0][0]:
                    out.append(
                        (
                            "sum_over_wrong_dim",
                            functools.partial(dataclasses.replace, x, hi=I(other)),
                        )
                    )
    if isinstance(x, Sqrt):
        for od in (d_v, n, d_k):
            if od != x.dim:
                out.append((f"scale_sqrt_{od}", functools.partial(Sqrt, od, x.power)))
        out.append(("scale_power_flipped", lambda: Sqrt(x.dim, -x.power)))
    if isinstance(x, Num) and x.value not in (0, 1):
        out.append(("scale_num_changed", lambda: Num(1 / x.value)))
    if isinstance(x, Num) or (isinstance(x, Sqrt) and x.power % 2 == 0):
        # off by a polynomial in a size that vanishes at small sizes only
        for dim in SIZE_DIMS:
            for roots in SMALL_ROOTS:
                name = "plus_" + "".join(f"({dim}-{a})" for a in roots)
                out.append((name, functools.partial(SAdd, x, vanishing(dim, roots))))
    if isinstance(x, Sqrt) and x.power == 2:
        out.append(("size_squared", lambda: Sqrt(x.dim, 4)))
    if isinstance(x, Scale):
        out.append(("scale_dropped", lambda: x.a))
        out.append(("scale_zeroed", lambda: Scale(Num(Fraction(0)), x.a)))  # 0 · (-inf) if masked
        out.append(("scale_negated", lambda: Scale(Num(Fraction(-1)), x.a)))
    if isinstance(x, Add):
        # (-inf) - (-inf) when the operand is masked; a zero matrix otherwise
        out.append(("minus_itself", lambda: Add(x.a, Scale(Num(Fraction(-1)), x.a))))
    if isinstance(x, Softmax):
        out.append(("softmax_over_columns", lambda: ColSoftmax(x.a)))
        out.append(("softmax_dropped", lambda: x.a))
    if isinstance(x, Mask):
        out.append(("mask_wrong_triangle", lambda: Mask(x.a, not x.upper)))
        out.append(("mask_dropped", lambda: x.a))
    if isinstance(x, Block):
        out.append(("block_plus_one", lambda: Block(x.a, x.head.shifted(1), x.m, x.count)))
        out.append(("block_minus_one", lambda: Block(x.a, x.head.shifted(-1), x.m, x.count)))
        out.append(("block_size_d_k", lambda: Block(x.a, x.head, d_k, x.count)))
    if isinstance(x, MatMul):
        out.append(("factors_swapped", lambda: MatMul(x.b, x.a)))
    if isinstance(x, SMul):
        out.append(("scalar_factor_dropped", lambda: x.a))
    if isinstance(x, Concat):
        out.append(("concat_one_head_less", lambda: Concat(x.body, x.var, x.count)))
    return out


def mutate(rng: random.Random, spec: ClaimSpec) -> tuple[ClaimSpec, str] | None:
    """One random single-place change of one side; None if nothing applies."""
    sides = ["lhs", "rhs"]
    rng.shuffle(sides)
    for side in sides:
        root = getattr(spec, side)
        cands = [
            (path, op, build) for path, y in positions(root) for op, build in _edits(y, spec.free)
        ]
        cands = [c for c in cands if c[1] != "concat_one_head_less"]
        if not cands:
            continue
        path, op, build = rng.choice(cands)
        new = replace_at(root, path, build())
        return dataclasses.replace(spec, **{side: new}), op
    return None
