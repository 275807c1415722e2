"""Beyond multi-head attention (issue 14): ALiBi and key padding, grouped-query attention, linear
attention, the KV cache, rotary embeddings and the online softmax, as kernel derivations.

Imports the kernel, symattn.latex and derivations.blocks; must not import the reader, check or
cli. Not wired into SECTION_MODULES yet (the lead wires the second chapter in after merging).
"""

from __future__ import annotations

import sympy

from symattn.derivations.blocks import Builder, OnCheck, Section, Text
from symattn.kernel.derivation import Derivation
from symattn.kernel.dims import as_dim, d_k, d_v, dim, n
from symattn.kernel.expr import (
    CausalMask,
    MatExpr,
    MatSum,
    MatSym,
    Ones,
    Row,
    RowBlock,
    Softmax,
    index,
)
from symattn.kernel.identities import ONLINE_BLOCKS, ZH, identities
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
    multiplications,
    pair_sum,
)
from symattn.kernel.proof import prove_equal
from symattn.latex.document import Math as M

G, R, D, ell, p = (dim(s) for s in ("G", "R", "D", "ell", "p"))
lam = sympy.Symbol("lambda", positive=True)


def content(on_check: OnCheck | None = None) -> Section:
    """The second chapter's derivations, each checked by the kernel as it is added.

    >>> content.__annotations__["return"]
    'Section'
    """
    b = Builder("7", Text("多头注意力之外", "Beyond multi-head attention"), on_check)
    _biases(b)
    _grouped(b)
    _linear(b)
    _kv_cache(b)
    _rotary(b)
    _online(b)
    _false_variants(b)
    return b.section()


def _causal(q: MatExpr, k: MatExpr, v: MatExpr) -> MatExpr:
    return Softmax(CausalMask(q @ k.T / sympy.sqrt(d_k))) @ v


def _biases(b: Builder) -> None:
    s = MatSym("S", n, n)
    b.heading("ALiBi 与键填充", "ALiBi and key padding")
    b.say(
        [
            "ALiBi 给分数加上 ",
            M(r"B_{ij} = -\lambda(i-j)"),
            "，其中 ",
            M(r"-\lambda i"),
            " 在一行内不变：",
        ],
        [
            "ALiBi adds ",
            M(r"B_{ij} = -\lambda(i-j)"),
            " to the scores; ",
            M(r"-\lambda i"),
            " is constant along a row:",
        ],
    )
    b.prove(
        Derivation(
            Softmax(CausalMask(s + alibi(n, lam))), title="7.1 ALiBi keeps only lambda j"
        ).step(Softmax(CausalMask(s + PositionBias(n, 0, lam))), by="softmax_add_alibi")
    )
    sp = MatSym("S", n, ell + p)
    b.say(
        ["后 ", M("p"), " 个键是填充，分数为 ", M(r"-\infty"), "；每行权重在有效键上和为 1："],
        [
            "The last ",
            M("p"),
            " keys are padding, scored ",
            M(r"-\infty"),
            "; each row's weights sum to 1 over the valid keys:",
        ],
    )
    b.prove(
        Derivation(
            Softmax(PadMask(sp, ell, p)) @ Ones(ell + p, 1), title="7.1 padded rows sum to 1"
        ).step(Ones(n, 1), by="softmax_pad_rowsum")
    )


def _grouped(b: Builder) -> None:
    k = MatSym("K", n, G * d_k)
    heads = G * R
    b.heading("分组查询注意力", "Grouped-query attention")
    b.say(
        [
            M("H = GR"),
            " 个查询头共用 ",
            M("G"),
            " 个 K/V 头；第 ",
            M("h"),
            " 个查询头读第 ",
            M(r"\lceil h/R\rceil"),
            " 个：",
        ],
        [
            M("H = GR"),
            " query heads share ",
            M("G"),
            " K/V heads; query head ",
            M("h"),
            " reads head ",
            M(r"\lceil h/R\rceil"),
            ":",
        ],
    )
    b.shapes(
        [
            ("K", k, (n, G * d_k)),
            (r"\operatorname{repeat}_R(K)", RepeatKV(k, G, R, d_k), (n, heads * d_k)),
        ]
    )
    b.prove(
        Derivation(
            RowBlock(RepeatKV(k, G, R, d_k).T, index("h"), d_k, heads),
            title="7.2 head h of the repeated keys",
        ).step(RowBlock(k.T, sympy.ceiling(index("h") / R), d_k, G), by="repeat_kv_apply")
    )
    gqa = next(x for x in identities() if x.name == "gqa_output")
    b.say(
        [
            "整个输出：对重复后的 K/V 做多头注意力，等于每组 ",
            M("R"),
            " 个查询头用本组的 K/V 头（在给定维度下精确检查）：",
        ],
        [
            "The whole output: multi-head attention on the repeated K/V equals each group's ",
            M("R"),
            " query heads on the group's K/V head (checked exactly at explicit sizes):",
        ],
    )
    b.prove(
        Derivation(gqa.lhs, title="7.2 GQA is MHA with repeated K/V").step(gqa.rhs, by="algebra"),
        require="exact",
    )


def _linear(b: Builder) -> None:
    q, k, v = MatSym("Q", n, d_k), MatSym("K", n, d_k), MatSym("V", n, d_v)
    fq, fk = FeatureMap("phi", q, D), FeatureMap("phi", k, D)
    b.heading("线性注意力", "Linear attention")
    cost_l, cost_r = multiplications((fq @ fk.T) @ v), multiplications(fq @ (fk.T @ v))
    b.say(
        [
            "去掉 softmax、用特征映射 ",
            M(r"\phi"),
            " 后，乘积可以换个顺序算：左边 ",
            M(sympy.latex(cost_l)),
            " 次乘法，右边 ",
            M(sympy.latex(cost_r)),
            " 次：",
        ],
        [
            "Without the softmax and with a feature map ",
            M(r"\phi"),
            ", the product can be taken in the other order: ",
            M(sympy.latex(cost_l)),
            " multiplications on the left, ",
            M(sympy.latex(cost_r)),
            " on the right:",
        ],
    )
    b.prove(
        Derivation((fq @ fk.T) @ v, title="7.3 linear attention reassociates").step(
            fq @ (fk.T @ v), by="mul_assoc"
        )
    )
    i, j = index("i"), index("j")
    b.say(
        [
            "加上因果掩码，第 ",
            M("i"),
            " 行只用前缀和 ",
            M(r"S_i = \sum_{j\le i}\phi(k_j)^{\mathsf T}v_j"),
            "：",
        ],
        [
            "With the causal mask, row ",
            M("i"),
            " uses only the prefix sum ",
            M(r"S_i = \sum_{j\le i}\phi(k_j)^{\mathsf T}v_j"),
            ":",
        ],
    )
    from_row = Row(CausalZero(fq @ fk.T) @ v, i)
    state = Row(fq, i) @ _prefix(fk, v, j, i)
    b.prove(
        Derivation(from_row, title="7.3 causal linear attention as a prefix sum").step(
            state, by="mul_causal_zero_row"
        )
    )


def _prefix(fk: MatExpr, v: MatExpr, j: sympy.Symbol, i: sympy.Symbol) -> MatExpr:
    return MatSum(Row(fk, j).T @ Row(v, j), j, 1, i)


def _kv_cache(b: Builder) -> None:
    q, k, v = MatSym("Q", n, d_k), MatSym("K", n, d_k), MatSym("V", n, d_v)
    b.heading("KV 缓存", "The KV cache")
    b.say(
        ["解码第 ", M("n"), " 个词元时，用它的查询和缓存的全部键、值即可："],
        ["Decoding token ", M("n"), " needs only its query and every cached key and value:"],
    )
    scores = q @ k.T / sympy.sqrt(d_k)
    b.prove(
        Derivation(
            Row(Softmax(CausalMask(scores)) @ v, n), title="7.4 the newest token from the cache"
        )
        .step(Softmax(Row(scores, n)) @ v, by="softmax_mask_mul_row_last")
        .step(Softmax(Row(q, n) @ k.T / sympy.sqrt(d_k)) @ v, by="algebra")
    )
    q1, k1, v1 = MatSym("Q", n + 1, d_k), MatSym("K", n + 1, d_k), MatSym("V", n + 1, d_v)
    s1 = q1 @ k1.T / sympy.sqrt(d_k)
    first = [FirstRows(x, n) for x in (q1, k1, v1)]
    b.say(
        ["追加第 ", M("n+1"), " 个词元不改变前 ", M("n"), " 行："],
        ["Appending token ", M("n+1"), " leaves rows ", M("1..n"), " unchanged:"],
    )
    b.prove(
        Derivation(FirstRows(Softmax(CausalMask(s1)) @ v1, n), title="7.4 appending a token")
        .step(
            Softmax(CausalMask(FirstRows(FirstRows(s1, n).T, n).T)) @ first[2],
            by="softmax_mask_mul_first_rows",
        )
        .step(_causal(*first), by="algebra")
    )


def _rotary(b: Builder) -> None:
    x, y = MatSym("q", p, 2), MatSym("k", p, 2)
    m, t = sympy.Symbol("m_q", real=True), sympy.Symbol("n_k", real=True)
    b.heading("旋转位置编码", "Rotary position embedding")
    b.say(
        [
            "把 ",
            M("d = 2p"),
            " 维向量看成 ",
            M("p"),
            " 对坐标，第 ",
            M("k"),
            " 对旋转角度 ",
            M(r"m\theta_k"),
            "；分数只依赖位置差：",
        ],
        [
            "Read a ",
            M("d = 2p"),
            " vector as ",
            M("p"),
            " pairs and turn pair ",
            M("k"),
            " by ",
            M(r"m\theta_k"),
            "; the score depends on the positions only through their difference:",
        ],
    )
    b.prove(
        Derivation(pair_sum(PairDots(Rope(x, m), Rope(y, t))), title="7.5 RoPE is relative").step(
            pair_sum(PairDots(x, Rope(y, t - m))), by="rope_pairs_apply"
        )
    )


def _online(b: Builder) -> None:
    b.heading("在线 softmax", "The online softmax")
    b.say(
        [
            "按块处理键，保留运行最大值 ",
            M("m_c"),
            "、归一化量 ",
            M(r"\ell_c"),
            " 与重新缩放的部分输出，结果正是 ",
            M(r"\operatorname{softmax}(S)V"),
            "。对 1 到 4 块、任意块大小（符号 ",
            M("b"),
            "）都有证明；块数本身符号化需要对块做归纳，内核不做归纳：",
        ],
        [
            "Processing the keys block by block with a running maximum ",
            M("m_c"),
            ", a running normaliser ",
            M(r"\ell_c"),
            " and a rescaled partial output gives exactly ",
            M(r"\operatorname{softmax}(S)V"),
            ", proved for 1 to 4 blocks of any size (a symbolic ",
            M("b"),
            "); a symbolic number of blocks needs an induction over blocks, which the kernel "
            "does not do:",
        ],
    )
    for sizes in ONLINE_BLOCKS:
        keys = sympy.Add(*(as_dim(x) for x in sizes))
        s, v = MatSym("S", n, keys), MatSym("V", keys, d_v)
        tag = ", ".join(str(x) for x in sizes)
        b.prove(
            Derivation(OnlineSoftmax(s, v, sizes), title=f"7.6 online softmax, blocks {tag}").step(
                Softmax(s) @ v, by="algebra"
            )
        )


def _false_variants(b: Builder) -> None:
    b.heading("常见错误", "Common mistakes")
    for x in identities():
        if x.holds:
            continue
        verdict = prove_equal(x.lhs, x.rhs, defs=x.defs)
        b.fact([f"错误：{ZH[x.note]}"], [f"Wrong: {x.note}"], verdict, expect="false")
