"""Section 6.4: several heads, each with its own projections; the heads' outputs are concatenated.

A script on the public API (symattn, symattn.derive, symattn.latex); must not import the reader,
check or cli. Every formula shown is checked here.
"""

from __future__ import annotations

import sympy

from symattn import (
    Derivation,
    Dot,
    HeadSym,
    MatSum,
    Scale,
    Softmax,
    d,
    d_k,
    d_v,
    index,
    multi_head,
    n,
)
from symattn.derive import Builder, OnCheck, Section, Text, main
from symattn.latex.document import Math as M

ATTENTION_H = (
    r"Z^{(h)} = \operatorname{Attention}(Q^{(h)},K^{(h)},V^{(h)}) = "
    r"\operatorname{softmax}\left(\frac{Q^{(h)}(K^{(h)})^{\mathsf T}}{\sqrt{d_k}}\right)V^{(h)}"
)


def content(on_check: OnCheck | None = None) -> Section:
    """Section 6.4, checked.

    Checking takes seconds; tests/derive runs it. The result is a `Section`:

    >>> content.__annotations__["return"]
    'Section'
    """
    b = Builder("6.4", Text("多个注意力头", "Several attention heads"), on_check)
    mh = multi_head()
    h = mh.h
    i, j = index("i"), index("j")
    X = mh.X
    Wq, Wk, Wv = (HeadSym(f"W_{c}", h, d, w) for c, w in (("Q", d_k), ("K", d_k), ("V", d_v)))
    Qh, Kh = HeadSym("Q", h, n, d_k), HeadSym("K", h, n, d_k)
    Vh, Ah, Zh = HeadSym("V", h, n, d_v), HeadSym("A", h, n, n), mh.Z_h
    b.say(
        [
            "一个头只有一组 ",
            M("W_Q, W_K, W_V"),
            "，每个词元因此只有一种方式去匹配和汇总其他词元。多头注意力让 ",
            M("H"),
            " 个头并行工作，第 ",
            M("h"),
            " 个头（",
            M("h=1,\\ldots,H"),
            "）有自己的投影矩阵：",
        ],
        [
            "With one head there is one set of ",
            M("W_Q, W_K, W_V"),
            ", so each token has one "
            "way of matching and gathering the others. Multi-head attention runs ",
            M("H"),
            " heads side by side; head ",
            M("h"),
            " (",
            M("h=1,\\ldots,H"),
            ") has projections of its own:",
        ],
    )
    b.shapes(
        [
            ("Q^{(h)} = XW_Q^{(h)}", X @ Wq, (n, d_k)),
            ("K^{(h)} = XW_K^{(h)}", X @ Wk, (n, d_k)),
            ("V^{(h)} = XW_V^{(h)}", X @ Wv, (n, d_v)),
            ("Z^{(h)}", mh.head_attention(h), (n, d_v)),
        ]
    )
    b.say(
        ["每个头独立地做一次完整的注意力计算："],
        ["Each head computes a complete attention of its own:"],
    )
    b.display(ATTENTION_H)
    b.prove(
        Derivation(Zh, title="6.4 one head", defs={Zh: Ah @ Vh, Ah: _weights(Qh, Kh)})
        .step(Ah @ Vh, by="def")
        .step(_weights(Qh, Kh) @ Vh, by="def")
    )
    b.say(
        ["头内的分数仍是点积，输出的行仍是值向量的加权和，只是都带上了头的编号："],
        [
            "Inside a head the scores are still dot products and the output rows still weighted "
            "sums of values, all carrying the head's number:"
        ],
    )
    b.prove(
        Derivation((Qh @ Kh.T)[i, j], title="6.4 scores of head h").step(
            Dot(Qh.row(i), Kh.row(j)), by="mul_transpose_apply_dot"
        )
    )
    b.prove(
        Derivation(Zh.row(i), title="6.4 rows of Z^(h)", defs={Zh: Ah @ Vh})
        .step((Ah @ Vh).row(i), by="def")
        .step(MatSum(Scale(Ah[i, j], Vh.row(j)), j, 1, n), by="mul_row")
    )
    b.say(
        ["最后把各头的输出按列拼接，再乘输出矩阵 ", M("W_O"), "："],
        [
            "Finally the heads' outputs are concatenated column-wise and multiplied by the "
            "output matrix ",
            M("W_O"),
            ":",
        ],
    )
    b.shapes([("Z = \\operatorname{Concat}(Z^{(1)},\\ldots,Z^{(H)})W_O", mh.output, (n, d))])
    b.say(
        [
            "各头的投影不同，学到的匹配方式也就可以不同；但并没有什么保证某个头恰好对应一种"
            "可解释的关系。"
        ],
        [
            "Different projections let the heads learn different ways of matching; nothing "
            "guarantees that a head corresponds to one interpretable relation."
        ],
    )
    return b.section()


def _weights(Qh: HeadSym, Kh: HeadSym) -> Softmax:
    return Softmax((Qh @ Kh.T) / sympy.sqrt(d_k))


if __name__ == "__main__":
    raise SystemExit(main(content))
