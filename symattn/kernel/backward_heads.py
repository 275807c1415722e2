"""The backward pass of grouped-query attention for the whole K and V: the directional rules of a
block of rows and of repeated K/V heads, and dK, dV decided block by block for every G, R.

Imports only sympy and the kernel below it (backward, dims, expr, modern, proof); must not import
anything above the kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy

from symattn.kernel.backward import (
    RULES,
    GradientVerdict,
    NoDerivative,
    _Walk,
    inner,
    reads,
    rule_truth,
    softmax_jvp,
)
from symattn.kernel.dims import d_k, d_v, dim, dims_equal, n, shape_str
from symattn.kernel.dispatch import Dispatcher
from symattn.kernel.errors import ShapeError, UnknownNameError
from symattn.kernel.expr import (
    CausalMask,
    HeadSym,
    MatExpr,
    MatSum,
    MatSym,
    Ones,
    RowBlock,
    Scale,
    Softmax,
    index,
)
from symattn.kernel.modern import RepeatKV
from symattn.kernel.proof import Verdict, prove_equal
from symattn.kernel.text import plain

#: The rules of the directional derivative for head selections, by name (beside
#: `backward.RULES`; only this module's walk uses them).
HEAD_RULES: dict[str, str] = {
    "jvp_rowblock": "D_E X^{(h)} = (D_E X)^{(h)}: a block of rows selects entries of X",
    "jvp_repeat_kv": "D_E repeat_R(X) = repeat_R(D_E X): the repeated K/V heads select entries",
}
_SELECT: Dispatcher = Dispatcher("directional derivative of a head selection")


class _HeadsWalk(_Walk):
    """The directional derivative with the head selections' rules before the others."""

    def d(self, e: MatExpr) -> MatExpr | None:
        f = _SELECT.own(type(e))
        if f is not None and self.wrt.name in reads(e):
            return f(self, e)
        return super().d(e)


@_SELECT.register(RowBlock)
def _jvp_rowblock(w: _Walk, e: RowBlock) -> MatExpr | None:
    w.used.add("jvp_rowblock")
    da = w.d(e.args[0])
    return None if da is None else RowBlock(da, *e.args[1:])


@_SELECT.register(RepeatKV)
def _jvp_repeat_kv(w: _Walk, e: RepeatKV) -> MatExpr | None:
    w.used.add("jvp_repeat_kv")
    da = w.d(e.args[0])
    return None if da is None else RepeatKV(da, *e.args[1:])


def head_rule_truth(name: str) -> Verdict:
    """The kernel's verdict on a head selection's rule: the entry of the node of `X + tE`,
    differentiated by sympy at t = 0, against the entry of the node of E."""
    if name not in HEAD_RULES:
        raise UnknownNameError(f"no head rule named {name!r}; rules: {', '.join(HEAD_RULES)}")
    hit = _TRUTH.get(name)
    if hit is None:
        hit = _TRUTH[name] = _selection_truth(name)
    return hit


_TRUTH: dict[str, Verdict] = {}


def _selection_truth(name: str) -> Verdict:
    t = sympy.Symbol("t", real=True)
    i, j, h = index("i"), index("j"), index("h")
    groups, r = dim("G"), dim("R")
    if name == "jvp_rowblock":
        x, e = MatSym("X", groups * d_k, d_v), MatSym("E", groups * d_k, d_v)
        moved, rule = RowBlock(x + Scale(t, e), h, d_k, groups), RowBlock(e, h, d_k, groups)
    else:
        x, e = MatSym("X", n, groups * d_k), MatSym("E", n, groups * d_k)
        moved, rule = RepeatKV(x + Scale(t, e), groups, r, d_k), RepeatKV(e, groups, r, d_k)
    return prove_equal(sympy.diff(moved.entry(i, j), t).subs(t, 0), rule[i, j])


def _directional(expr: MatExpr, wrt: MatSym, direction: MatSym) -> tuple[MatExpr, set[str]]:
    w = _HeadsWalk(wrt, direction)
    out = w.d(expr)
    return (Scale(0, Ones(*expr.shape)) if out is None else out), w.used


def _head(m: MatExpr, k: sympy.Expr, width: sympy.Expr, count: sympy.Expr) -> MatExpr:
    """Head k of m's columns (`width` each, `count` heads)."""
    return RowBlock(m.T, k, width, count).T


@dataclass(frozen=True)
class GroupedBackward:
    """Grouped-query attention with G K/V heads of K (n × G d_k) and V (n × G d_v), R query heads
    each: query head h (of H = GR) has `Q^{(h)}`, `dO^{(h)}` and reads K/V head ⌈h/R⌉ through
    `repeat_R`. The loss is `sum_h <dO^{(h)}, O^{(h)}>`; the gradient of K has one block of d_k
    columns per key head g, the sum over its query heads `h = (g-1)R + t`, t = 1..R."""

    causal: bool = False
    groups: sympy.Symbol = dim("G")
    per: sympy.Symbol = dim("R")
    h: sympy.Symbol = index("h")
    g: sympy.Symbol = index("g")
    t: sympy.Symbol = index("t")

    @property
    def K(self) -> MatSym:
        return MatSym("K", n, self.groups * d_k)

    @property
    def V(self) -> MatSym:
        return MatSym("V", n, self.groups * d_v)

    def _softmax(self, q: MatExpr, k: MatExpr) -> MatExpr:
        s = Scale(1 / sympy.sqrt(d_k), q @ k.T)
        return Softmax(CausalMask(s) if self.causal else s)

    @property
    def output(self) -> MatExpr:
        """`O^{(h)} = softmax(Q^{(h)} repeat_R(K)^{(h)T}/√d_k) repeat_R(V)^{(h)}`."""
        heads = self.groups * self.per
        k = _head(RepeatKV(self.K, self.groups, self.per, d_k), self.h, d_k, heads)
        v = _head(RepeatKV(self.V, self.groups, self.per, d_v), self.h, d_v, heads)
        return self._softmax(HeadSym("Q", self.h, n, d_k), k) @ v

    @property
    def upstream(self) -> HeadSym:
        return HeadSym("dO", self.h, n, d_v)

    def _member(self) -> tuple[MatExpr, MatExpr, MatExpr, MatExpr]:
        """Query head (g-1)R + t on key head g: Q, dO, A and the key head's V."""
        hh = (self.g - 1) * self.per + self.t
        q, do = HeadSym("Q", hh, n, d_k), HeadSym("dO", hh, n, d_v)
        k, v = _head(self.K, self.g, d_k, self.groups), _head(self.V, self.g, d_v, self.groups)
        return q, do, self._softmax(q, k), v

    @property
    def dV_block(self) -> MatExpr:
        """`dV_g = sum_{t=1}^{R} A^{((g-1)R+t)T} dO^{((g-1)R+t)}`.

        >>> print(GroupedBackward().dV_block)  # doctest: +ELLIPSIS
        sum_{t=1}^{R} softmax(...)^TdO^(R*(g - 1) + t)
        """
        _, do, a, _ = self._member()
        return MatSum(a.T @ do, self.t, 1, self.per)

    @property
    def dK_block(self) -> MatExpr:
        """`dK_g = sum_{t=1}^{R} dS^{((g-1)R+t)T} Q^{((g-1)R+t)}/√d_k`, `dS = A ∘ (dA - rowsum(A ∘
        dA)1^T)`, `dA = dO V_g^T`."""
        q, do, a, v = self._member()
        ds = softmax_jvp(a, do @ v.T)
        return MatSum(Scale(1 / sympy.sqrt(d_k), ds.T @ q), self.t, 1, self.per)


def prove_grouped_gradient(b: GroupedBackward, wrt: MatSym, block: MatExpr) -> GradientVerdict:
    """Decide whether `block` (in the key head g) is block g of the gradient of `sum_h <dO^{(h)},
    O^{(h)}>` with respect to `wrt` (b.K or b.V): for every direction E of wrt's shape,
    `sum_{h=1}^{GR} <dO^{(h)}, D_E O^{(h)}> = sum_{g=1}^{G} <block_g, E_g>`, E_g the columns of
    key head g. The sum over the query heads is regrouped by key head (`sum_regroup`). The status
    is the weakest of that identity's verdict and the rules that built `D_E O^{(h)}`."""
    if wrt not in (b.K, b.V):
        raise ShapeError(f"the variable must be {plain(b.K)} or {plain(b.V)}, not {plain(wrt)}")
    width = d_k if wrt == b.K else d_v
    if not isinstance(block, MatExpr):
        raise ShapeError(f"the claimed block must be a matrix expression, not {plain(block)}")
    if not (dims_equal(block.rows, n) and dims_equal(block.cols, width)):
        return GradientVerdict(
            "shape_error",
            None,
            reason=f"the claimed block {plain(block)} ({shape_str(block.shape)}) is not one key "
            f"head of {plain(wrt)} (n × {width})",
        )
    if b.h in block.free_symbols:
        raise ShapeError(f"the claimed block names the query head {b.h}: it is one per key head")
    try:
        lhs, rhs, used = _identity(b, wrt, block, width)
    except NoDerivative as exc:
        return GradientVerdict("unknown", None, reason=f"undecided: {exc}")
    rules = tuple((r, rule_truth(r)) for r in RULES if r in used)
    rules += tuple((r, head_rule_truth(r)) for r in HEAD_RULES if r in used)
    identity, note = _generic(b, lhs, rhs)
    if identity.status != "proved":
        identity, note = prove_equal(lhs, rhs), ""
    weak = [(r, v) for r, v in rules if v.status not in ("proved", "checked", "agreed")]
    if weak:
        names = ", ".join(f"{r} ({v.status})" for r, v in weak)
        return GradientVerdict("unknown", identity, rules, f"undecided: rule {names} not shown")
    if identity.status == "false":
        return GradientVerdict("false", identity, rules, "a direction E tells the sides apart")
    ranks = {"proved": 0, "checked": 1, "agreed": 2, "unknown": 3}
    if identity.status not in ranks:
        return GradientVerdict(identity.status, identity, rules, identity.reason)
    worst = max([identity.status] + [v.status for _, v in rules], key=ranks.__getitem__)
    how = "block by block over the key heads, the query heads regrouped by key head (sum_regroup)"
    return GradientVerdict(worst, identity, rules, how + (f"; {note}" if note else ""))


def grouped_identity(b: GroupedBackward, wrt: MatSym, block: MatExpr) -> tuple[MatExpr, MatExpr]:
    """The two sides `prove_grouped_gradient` decides, `sum_h <dO^{(h)}, D_E O^{(h)}>` and
    `sum_g <block_g, E_g>` (for the soundness seeds: the truth oracle evaluates them)."""
    lhs, rhs, _ = _identity(b, wrt, block, d_k if wrt == b.K else d_v)
    return lhs, rhs


def _identity(
    b: GroupedBackward, wrt: MatSym, block: MatExpr, width: sympy.Expr
) -> tuple[MatExpr, MatExpr, set[str]]:
    e = MatSym("E", *wrt.shape)
    moved, used = _directional(b.output, wrt, e)
    lhs = MatSum(inner(b.upstream, moved), b.h, 1, b.groups * b.per)
    rhs = MatSum(inner(block, _head(e, b.g, width, b.groups)), b.g, 1, b.groups)
    return lhs, rhs, used


def _generic(b: GroupedBackward, lhs: MatExpr, rhs: MatExpr) -> tuple[Verdict, str]:
    """The identity with query head h's softmax replaced by a family `P^{(h)}` of matrices of
    its own, on both sides: proved for every family, it holds for the softmax, an instance, once
    the member's softmax (query head (g-1)R + t on key head g) is head h's at h = (g-1)R + t
    (`repeat_kv_apply`, shown here for 1 <= t <= R). Unproved, it says nothing."""
    heads = b.groups * b.per
    k = _head(RepeatKV(b.K, b.groups, b.per, d_k), b.h, d_k, heads)
    own = b._softmax(HeadSym("Q", b.h, n, d_k), k)
    q, _, member, _ = b._member()
    hh = q.head
    name = "P"
    while name in {
        x.name
        for x in sympy.preorder_traversal(sympy.Tuple(lhs, rhs))
        if hasattr(x, "name") and isinstance(x, (MatSym, HeadSym))
    }:
        name += "'"
    family = HeadSym(name, b.h, n, n)
    ranges = {b.t: (sympy.Integer(1), b.per), b.g: (sympy.Integer(1), b.groups)}
    # congruence: head (g-1)R + t of the repeated keys is key head g, so the softmaxes agree
    key_at, key_g = k.xreplace({b.h: hh}), _head(b.K, b.g, d_k, b.groups)
    same = prove_equal(key_at, key_g, ranges=ranges)
    if same.status != "proved" or own.xreplace({b.h: hh}).xreplace({key_at: key_g}) != member:
        return Verdict("unknown", reason="the member's softmax is not shown to be head h's"), ""
    general = prove_equal(
        lhs.xreplace({own: family}), rhs.xreplace({member: family.xreplace({b.h: hh})})
    )
    return general, (
        f"the identity is proved for every family {name}^(h) in place of the softmax of query "
        "head h (the softmax of head (g-1)R + t on key head g is head h's at h = (g-1)R + t)"
    )
