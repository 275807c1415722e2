"""The softmax Jacobian as a rule, and dS, the gradient of the scores.

A script on the public API (symattn, symattn.derive, symattn.latex, the kernel's backward pass);
must not import the reader, check or cli. Runnable alone: `python derivations/ch08/sec83.py`.
"""

from __future__ import annotations

from pathlib import Path

from symattn.derive import Builder, OnCheck, Section, Text, main
from symattn.derive.sources import chapter
from symattn.kernel.backward import attention_backward, prove_gradient, rule_truth, softmax_jvp
from symattn.kernel.dims import n
from symattn.kernel.expr import MatSym, Softmax
from symattn.latex.document import Math as M

SEC81 = chapter(Path(__file__).parent).module("sec81")
B = attention_backward()
JVP = r"D_E A = A\circ\bigl(D_E S - \operatorname{rowsum}(A\circ D_E S)\mathbf 1^{\mathsf T}\bigr)"
DS = (
    r"\mathit{dS} = A\circ\bigl(\mathit{dA}"
    r" - \operatorname{rowsum}(A\circ\mathit{dA})\mathbf 1^{\mathsf T}\bigr)"
)
PARTIAL = r"\partial a_{ij} = a_{ij}\bigl(\partial s_{ij} - \sum_k a_{ik}\,\partial s_{ik}\bigr)"


def content(on_check: OnCheck | None = None) -> Section:
    """Section 8.3, each claim checked by the kernel as it is added.

    >>> content.__annotations__["return"]
    'Section'
    """
    b = Builder("8.3", Text("softmax 的雅可比与 dS", "The softmax Jacobian and dS"), on_check)
    _jacobian(b)
    _ds(b)
    return b.section()


def _jacobian(b: Builder) -> None:
    b.say(
        [
            "对一行 ",
            M(r"a_{ij} = e^{s_{ij}}/\sum_k e^{s_{ik}}"),
            " 求导，",
            M(PARTIAL),
            "；写成矩阵，",
            M(r"\operatorname{rowsum}(X)\mathbf 1^{\mathsf T}"),
            " 的第 ",
            M("i"),
            " 行每个元素都是 ",
            M("X"),
            " 第 ",
            M("i"),
            " 行之和：",
        ],
        [
            "Differentiating one row ",
            M(r"a_{ij} = e^{s_{ij}}/\sum_k e^{s_{ik}}"),
            " gives ",
            M(PARTIAL),
            "; as matrices, every entry of row ",
            M("i"),
            " of ",
            M(r"\operatorname{rowsum}(X)\mathbf 1^{\mathsf T}"),
            " is the sum of row ",
            M("i"),
            " of ",
            M("X"),
            ":",
        ],
    )
    b.fact(
        ["softmax 的雅可比规则 ", M(JVP)],
        ["the softmax Jacobian rule ", M(JVP)],
        rule_truth("softmax_jvp"),
    )


def _ds(b: Builder) -> None:
    s = MatSym("S", n, n)
    b.say(
        [
            "以 ",
            M("S"),
            " 为自变量，",
            M(r"\langle \mathit{dO}, (D_E A)V\rangle = \langle \mathit{dA}, D_E A\rangle"),
            "，再把雅可比搬到另一边：",
        ],
        [
            "With ",
            M("S"),
            " as the variable, ",
            M(r"\langle \mathit{dO}, (D_E A)V\rangle = \langle \mathit{dA}, D_E A\rangle"),
            ", and the Jacobian moves to the other side:",
        ],
    )
    SEC81.gradient(
        b,
        ["对分数 ", M("S"), " 的梯度是 ", M(DS)],
        ["the gradient with respect to the scores ", M("S"), " is ", M(DS)],
        prove_gradient(Softmax(s) @ B.V, s, B.dO, softmax_jvp(Softmax(s), B.dA)),
    )


if __name__ == "__main__":
    raise SystemExit(main(content))
