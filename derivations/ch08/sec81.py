"""The forward pass, the directional derivative and its rules, and the gradient-fact helper.

A script on the public API (symattn, symattn.derive, symattn.latex, the kernel's backward pass);
must not import the reader, check or cli. Runnable alone: `python derivations/ch08/sec81.py`.
"""

from __future__ import annotations

from symattn.derive import Builder, DerivationError, OnCheck, Section, Text, main
from symattn.kernel.backward import GradientVerdict, attention_backward, rule_truth
from symattn.kernel.dims import d_v, n
from symattn.latex.document import Math as M
from symattn.latex.document import Prose

B = attention_backward()

# the rules of the directional derivative D_E, as a text writes them
RULE_TEX = {
    "jvp_matmul": r"D_E(XY) = (D_E X)Y + X(D_E Y)",
    "jvp_add": r"D_E(X + Y) = D_E X + D_E Y",
    "jvp_scale": r"D_E(cX) = c\,D_E X",
    "jvp_transpose": r"D_E(X^{\mathsf T}) = (D_E X)^{\mathsf T}",
    "jvp_hadamard": r"D_E(X\circ Y) = (D_E X)\circ Y + X\circ(D_E Y)",
}


def gradient(
    b: Builder, zh: Prose, en: Prose, verdict: GradientVerdict, *, expect: str = "proved"
) -> None:
    """A gradient claim as a fact: the kernel's verdict on the vector–Jacobian identity, kept
    only when the whole gradient verdict (identity and every rule it used) is `expect`."""
    if verdict.status != expect:
        raise DerivationError(f"{b.key}: expected {expect}, got {verdict.summary()}", site=None)
    assert verdict.identity is not None  # a decided gradient has its identity's verdict
    b.fact(zh, en, verdict.identity, expect=expect)


def content(on_check: OnCheck | None = None) -> Section:
    """Section 8.1, each claim checked by the kernel as it is added.

    >>> content.__annotations__["return"]
    'Section'
    """
    b = Builder(
        "8.1",
        Text("前向传播与方向导数", "The forward pass and the directional derivative"),
        on_check,
    )
    _forward(b)
    _rules(b)
    return b.section()


def _forward(b: Builder) -> None:
    b.say(
        [
            "前向传播：",
            M(r"S = QK^{\mathsf T}/\sqrt{d_k}"),
            "，",
            M(r"A = \operatorname{softmax}(S)"),
            "（按行），",
            M("O = AV"),
            "。上游梯度 ",
            M(r"\mathit{dO}"),
            " 与 ",
            M("O"),
            " 同形。内核算出的形状：",
        ],
        [
            "The forward pass: ",
            M(r"S = QK^{\mathsf T}/\sqrt{d_k}"),
            ", ",
            M(r"A = \operatorname{softmax}(S)"),
            " (row-wise), ",
            M("O = AV"),
            ". The upstream gradient ",
            M(r"\mathit{dO}"),
            " has the shape of ",
            M("O"),
            ". The shapes, as the kernel computes them:",
        ],
    )
    b.shapes(
        [
            ("S", B.S, (n, n)),
            ("A", B.A, (n, n)),
            ("O", B.O, (n, d_v)),
            (r"\mathit{dO}", B.dO, (n, d_v)),
        ]
    )
    b.say(
        [
            "把损失写成 ",
            M(r"\langle \mathit{dO}, O\rangle = \sum_{i,u}\mathit{dO}_{iu}O_{iu}"),
            "。矩阵 ",
            M("G"),
            " 是它对 ",
            M("X"),
            " 的梯度，当且仅当对每个方向 ",
            M("E"),
            "（与 ",
            M("X"),
            " 同形、元素互相独立）都有向量–雅可比恒等式 ",
            M(r"\langle \mathit{dO}, D_E O\rangle = \langle G, E\rangle"),
            "，其中 ",
            M("D_E O"),
            " 是 ",
            M("O"),
            " 沿 ",
            M("E"),
            " 的方向导数。内核按下列规则计算 ",
            M("D_E O"),
            "，再对任意维度证明这个恒等式。",
        ],
        [
            "Write the loss as ",
            M(r"\langle \mathit{dO}, O\rangle = \sum_{i,u}\mathit{dO}_{iu}O_{iu}"),
            ". A matrix ",
            M("G"),
            " is its gradient with respect to ",
            M("X"),
            " exactly when, for every direction ",
            M("E"),
            " (of the shape of ",
            M("X"),
            ", with independent entries), the vector–Jacobian identity ",
            M(r"\langle \mathit{dO}, D_E O\rangle = \langle G, E\rangle"),
            " holds, where ",
            M("D_E O"),
            " is the derivative of ",
            M("O"),
            " along ",
            M("E"),
            ". The kernel computes ",
            M("D_E O"),
            " by the rules below and proves the identity for all sizes.",
        ],
    )


def _rules(b: Builder) -> None:
    b.say(
        [
            "每条规则本身也由内核证明：把每个操作数 ",
            M("X"),
            " 换成 ",
            M("X + tE_X"),
            "，对元素求 ",
            M("t"),
            " 的导数并取 ",
            M("t = 0"),
            "，与规则给出的元素比较。",
        ],
        [
            "Each rule is itself proved by the kernel: every operand ",
            M("X"),
            " is replaced by ",
            M("X + tE_X"),
            ", the entry is differentiated in ",
            M("t"),
            " at ",
            M("t = 0"),
            ", and compared with the rule's entry.",
        ],
    )
    for name, tex in RULE_TEX.items():
        b.fact(["规则 ", M(tex)], ["The rule ", M(tex)], rule_truth(name))


if __name__ == "__main__":
    raise SystemExit(main(content))
