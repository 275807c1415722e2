"""The identities of modern attention as data: each true claim, its false variants, and the
verdict the kernel gives (proved for all sizes, or checked exactly at explicit sizes).

Corpus data, not part of the trusted kernel: imports only sympy and the kernel's dims, expr and
modern, never the reader or the checker. The soundness corpus, tests, docs and chapter 7 read it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import sympy

from symattn.kernel.dims import D, G, P, R, as_dim, b, d, d_k, d_v, ell, n, p
from symattn.kernel.expr import (
    CausalMask,
    FromColumn,
    MatExpr,
    MatSum,
    MatSym,
    Ones,
    Row,
    RowBlock,
    Scale,
    Softmax,
    index,
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
    alibi,
    pair_sum,
)

lam = sympy.Symbol("lambda", positive=True)
pos_m, pos_n = sympy.Symbol("m_q", real=True), sympy.Symbol("n_k", real=True)
i, j, u, h, t, g = (index(s) for s in "ijuhtg")


@dataclass(frozen=True)
class Identity:
    """`lhs = rhs`; `holds` says whether it is true, `expect` the kernel's verdict on it."""

    topic: str
    name: str
    lhs: sympy.Basic
    rhs: sympy.Basic
    holds: bool
    expect: str  # "proved", "checked" or "false"
    note: str = ""  # formulas between `$` signs are LaTeX, as in the rules' descriptions
    defs: Mapping[MatSym, MatExpr] = field(default_factory=dict)


#: The false variants' notes in Chinese, by the English note (the chapter is zh and en).
ZH: dict[str, str] = {
    "the sign of the key part matters": "键那一部分的符号不能反",
    "a fully masked row does not sum to 1": "全部被掩码的行之和不是 1",
    "tiling (repeat) instead of interleaving (repeat_interleave) the K/V heads": (
        "把 K/V 头平铺（repeat）而不是交错重复（repeat_interleave）"
    ),
    "the whole output with tiled K/V heads": "K/V 头平铺时的整个输出",
    "query head $h$ reading the K/V head of query head $h + 1$": (
        "第 $h$ 个查询头读了第 $h + 1$ 个查询头的 K/V 头"
    ),
    "sharing the query heads of a group as well as its K/V head": "组内的查询头也被共用",
    "the state must include the current token ($j \\le i$, not $j < i$)": (
        "状态必须包含当前词元（$j \\le i$，而不是 $j < i$）"
    ),
    "with a softmax the product does not reassociate": "有 softmax 时乘积不能换结合顺序",
    "the cached keys with the wrong query": "缓存的键配上了错误的查询",
    "without the causal mask the new token changes earlier rows": (
        "没有因果掩码时新词元会改变前面的行"
    ),
    "$\\mathcal R(m-n)$ for $\\mathcal R(n-m)$": "把 $\\mathcal R(n-m)$ 写成 $\\mathcal R(m-n)$",
    "the rotations do not cancel": "旋转不会相互抵消",
    "the old output is not rescaled": "旧的输出没有重新缩放",
}


def _causal(q: MatExpr, k: MatExpr, v: MatExpr) -> MatExpr:
    return Softmax(CausalMask(q @ k.T / sympy.sqrt(d_k))) @ v


def _att(q: MatExpr, k: MatExpr, v: MatExpr) -> MatExpr:
    return Softmax(q @ k.T / sympy.sqrt(d_k)) @ v


def _head(m: MatExpr, k: sympy.Expr, width: sympy.Expr, count: sympy.Expr) -> MatExpr:
    """Head k of a matrix whose columns hold `count` heads of `width` columns."""
    return RowBlock(m.T, k, width, count).T


def biases() -> list[Identity]:
    """(6) ALiBi's shift invariance per row; key padding rows sum to 1 over the valid keys."""
    s = MatSym("S", n, n)
    masked = Softmax(CausalMask(s + alibi(n, lam)))
    sp, s0 = MatSym("S", n, ell + p), MatSym("S", n, p)
    pad = Softmax(PadMask(sp, ell, p))
    empty = Softmax(PadMask(s0, 0, p))
    topic = "biases and masks"
    return [
        Identity(
            topic,
            "alibi_row_shift",
            masked,
            Softmax(CausalMask(s + PositionBias(n, 0, lam))),
            True,
            "proved",
            "B_ij = -λ(i-j) = λj - λi: the row part -λi cancels in the softmax",
        ),
        Identity(
            topic,
            "alibi_row_sign",
            Softmax(CausalMask(s + PositionBias(n, lam, lam))),
            masked,
            True,
            "proved",
            "the sign of the row part does not matter",
        ),
        Identity(
            topic,
            "alibi_add_rowconst",
            Softmax(CausalMask(s + alibi(n, lam) + FromColumn("c", n, n))),
            masked,
            True,
            "proved",
            "any per-row shift c_i cancels",
        ),
        Identity(
            topic,
            "alibi_key_sign",
            Softmax(CausalMask(s + alibi(n, -lam))),
            masked,
            False,
            "false",
            "the sign of the key part matters",
        ),
        Identity(
            topic,
            "pad_rowsum",
            pad @ Ones(ell + p, 1),
            Ones(n, 1),
            True,
            "proved",
            "rows sum to 1 over the valid keys",
        ),
        Identity(
            topic,
            "pad_zero_weight",
            pad[i, ell + p],
            sympy.Integer(0),
            True,
            "proved",
            "the last key, a padding one, gets weight 0",
        ),
        Identity(
            topic,
            "pad_empty_zero",
            empty @ Ones(p, 1),
            Scale(0, Ones(n, 1)),
            True,
            "proved",
            "with no valid key the weights are defined as 0",
        ),
        Identity(
            topic,
            "pad_empty_rowsum",
            empty @ Ones(p, 1),
            Ones(n, 1),
            False,
            "false",
            "a fully masked row does not sum to 1",
        ),
    ]


def grouped() -> list[Identity]:
    """(3) Grouped-query attention: H = G·R query heads, G K/V heads; MQA is G = 1."""
    hq = G * R
    q, k, v = MatSym("Q", n, hq * d_k), MatSym("K", n, G * d_k), MatSym("V", n, G * d_v)
    w = MatSym("W_O", hq * d_v, d)
    rk, rv = RepeatKV(k, G, R, d_k), RepeatKV(v, G, R, d_v)
    tk, tv = RepeatKV(k, G, R, d_k, "tile"), RepeatKV(v, G, R, d_v, "tile")
    grp = sympy.ceiling(h / R)

    def mha(kk: MatExpr, vv: MatExpr) -> MatExpr:
        z = _att(_head(q, h, d_k, hq), _head(kk, h, d_k, hq), _head(vv, h, d_v, hq))
        return MatSum(z @ RowBlock(w, h, d_v, hq), h, 1, hq)

    hh = (g - 1) * R + t
    z = _att(_head(q, hh, d_k, hq), _head(k, g, d_k, G), _head(v, g, d_v, G))
    by_groups = MatSum(MatSum(z @ RowBlock(w, hh, d_v, hq), t, 1, R), g, 1, G)
    k1 = MatSym("K", n, d_k)
    qh = _head(q, h, d_k, hq)
    topic = "grouped-query attention"
    return [
        Identity(
            topic,
            "repeat_kv_head",
            _head(rk, h, d_k, hq),
            _head(k, grp, d_k, G),
            True,
            "proved",
            "head h of the repeated keys is K/V head ceil(h/R)",
        ),
        Identity(
            topic,
            "gqa_scores",
            qh @ _head(rk, h, d_k, hq).T,
            qh @ _head(k, grp, d_k, G).T,
            True,
            "proved",
            "scores of query head h",
        ),
        Identity(
            topic,
            "gqa_output",
            mha(rk, rv),
            by_groups,
            True,
            "proved",
            "multi-head attention on repeated K/V = each group's R query heads on its K/V head",
        ),
        Identity(
            topic,
            "mqa_head",
            _head(RepeatKV(k1, 1, hq, d_k), h, d_k, hq),
            k1,
            True,
            "proved",
            "MQA: G = 1, every query head reads the one K/V head",
        ),
        Identity(
            topic,
            "gqa_tile",
            _head(tk, h, d_k, hq),
            _head(k, grp, d_k, G),
            False,
            "false",
            "tiling (repeat) instead of interleaving (repeat_interleave) the K/V heads",
        ),
        Identity(
            topic,
            "repeat_kv_next_head",
            _head(rk, h + 1, d_k, hq),
            _head(k, grp, d_k, G),
            False,
            "false",
            "query head $h$ reading the K/V head of query head $h + 1$",
        ),
        Identity(
            topic,
            "gqa_output_tile",
            mha(tk, tv),
            by_groups,
            False,
            "false",
            "the whole output with tiled K/V heads",
        ),
        Identity(
            topic,
            "gqa_shared_queries",
            qh @ _head(rk, h, d_k, hq).T,
            _head(q, grp, d_k, hq) @ _head(k, grp, d_k, G).T,
            False,
            "false",
            "sharing the query heads of a group as well as its K/V head",
        ),
    ]


def linear() -> list[Identity]:
    """(4) Linear attention: associativity, and the prefix-sum form of the causal one."""
    q, k, v = MatSym("Q", n, d_k), MatSym("K", n, d_k), MatSym("V", n, d_v)
    fq, fk = FeatureMap("phi", q, D), FeatureMap("phi", k, D)
    row = Row(CausalZero(fq @ fk.T) @ v, i)
    state = MatSum(Row(fk, j).T @ Row(v, j), j, 1, i)
    strict = MatSum(Row(fk, j).T @ Row(v, j), j, 1, i - 1)
    topic = "linear attention"
    return [
        Identity(
            topic,
            "linear_assoc",
            (fq @ fk.T) @ v,
            fq @ (fk.T @ v),
            True,
            "proved",
            "(φ(Q)φ(K)^T)V = φ(Q)(φ(K)^T V): n²(D + d_v) against 2nDd_v multiplications",
        ),
        Identity(
            topic,
            "linear_causal_prefix",
            row,
            Row(fq, i) @ state,
            True,
            "proved",
            "row i of the masked form = φ(q_i) S_i with S_i = Σ_{j≤i} φ(k_j)^T v_j",
        ),
        Identity(
            topic,
            "linear_causal_strict",
            row,
            Row(fq, i) @ strict,
            False,
            "false",
            "the state must include the current token ($j \\le i$, not $j < i$)",
        ),
        Identity(
            topic,
            "linear_softmax_assoc",
            Softmax(fq @ fk.T) @ v,
            fq @ (fk.T @ v),
            False,
            "false",
            "with a softmax the product does not reassociate",
        ),
    ]


def kv_cache() -> list[Identity]:
    """(2) KV-cache decoding: the newest token from the cache; appending leaves rows alone."""
    q, k, v = MatSym("Q", n, d_k), MatSym("K", n, d_k), MatSym("V", n, d_v)
    q1, k1, v1 = MatSym("Q", n + 1, d_k), MatSym("K", n + 1, d_k), MatSym("V", n + 1, d_v)
    q3, k3, v3 = MatSym("Q", 3, d_k), MatSym("K", 3, d_k), MatSym("V", 3, d_v)
    first = [FirstRows(x, n) for x in (q1, k1, v1)]
    topic = "KV cache"
    return [
        Identity(
            topic,
            "kv_newest",
            Row(_causal(q, k, v), n),
            _att(Row(q, n), k, v),
            True,
            "proved",
            "the newest query against all cached keys and values = row n of causal attention",
        ),
        Identity(
            topic,
            "kv_append",
            FirstRows(_causal(q1, k1, v1), n),
            _causal(*first),
            True,
            "proved",
            "appending token n+1 leaves rows 1..n unchanged",
        ),
        Identity(
            topic,
            "kv_newest_first_query",
            Row(_causal(q3, k3, v3), 3),
            _att(Row(q3, 1), k3, v3),
            False,
            "false",
            "the cached keys with the wrong query",
        ),
        Identity(
            topic,
            "kv_append_unmasked",
            FirstRows(_att(q1, k1, v1), n),
            _att(*first),
            False,
            "false",
            "without the causal mask the new token changes earlier rows",
        ),
    ]


def rotary() -> list[Identity]:
    """(5) RoPE: the score depends on the positions only through their difference."""
    q, k = MatSym("q", P, 2), MatSym("k", P, 2)
    q2, k2 = MatSym("q", 2, 2), MatSym("k", 2, 2)
    score = pair_sum(PairDots(Rope(q, pos_m), Rope(k, pos_n)))
    topic = "rotary embedding"
    return [
        Identity(
            topic,
            "rope_relative",
            score,
            pair_sum(PairDots(q, Rope(k, pos_n - pos_m))),
            True,
            "proved",
            "(R(m)q)·(R(n)k) = q·(R(n-m)k) for d = 2p",
        ),
        Identity(
            topic,
            "rope_relative_pairs",
            PairDots(Rope(q, pos_m), Rope(k, pos_n)),
            PairDots(q, Rope(k, pos_n - pos_m)),
            True,
            "proved",
            "pair by pair",
        ),
        Identity(
            topic,
            "rope_relative_d4",
            pair_sum(PairDots(Rope(q2, pos_m), Rope(k2, pos_n))),
            pair_sum(PairDots(q2, Rope(k2, pos_n - pos_m))),
            True,
            "proved",
            "at d = 4",
        ),
        Identity(
            topic,
            "rope_swapped",
            score,
            pair_sum(PairDots(q, Rope(k, pos_m - pos_n))),
            False,
            "false",
            "$\\mathcal R(m-n)$ for $\\mathcal R(n-m)$",
        ),
        Identity(
            topic,
            "rope_no_rotation",
            score,
            pair_sum(PairDots(q, k)),
            False,
            "false",
            "the rotations do not cancel",
        ),
    ]


#: Block sizes of the online softmax: 1 to 4 blocks, equal or not, explicit or a symbolic b.
ONLINE_BLOCKS: tuple[tuple[object, ...], ...] = (
    (1,),
    (b,),
    (2, 3),
    (b, b),
    (1, 2, 3),
    (b, b, b),
    (1, 2, 3, 2),
    (b, b, b, b),
)


def online() -> list[Identity]:
    """(1) Online softmax: block by block with rescaling = softmax(S)V."""
    out = []
    for sizes in ONLINE_BLOCKS:
        keys = sympy.Add(*(as_dim(x) for x in sizes))
        s, v = MatSym("S", n, keys), MatSym("V", keys, d_v)
        tag = "_".join(str(x) for x in sizes)
        expect = "proved"  # for every block size; the number of blocks is explicit
        out.append(
            Identity(
                "online softmax",
                f"online_{tag}",
                OnlineSoftmax(s, v, sizes),
                Softmax(s) @ v,
                True,
                expect,
                f"{len(sizes)} block(s) of sizes {', '.join(map(str, sizes))}",
            )
        )
        if len(sizes) > 1:
            out.append(
                Identity(
                    "online softmax",
                    f"online_{tag}_no_rescale",
                    OnlineSoftmax(s, v, sizes, rescale=False),
                    Softmax(s) @ v,
                    False,
                    "false",
                    "the old output is not rescaled",
                )
            )
    return out


def identities() -> list[Identity]:
    """Every identity of modern attention, true and false, in the order of docs/modern.md.

    >>> len([x for x in identities() if x.holds]) > 20
    True
    """
    return biases() + grouped() + linear() + kv_cache() + rotary() + online()
