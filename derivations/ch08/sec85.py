"""dQ and dK: the gradients through the scaled scores, with the scale 1/sqrt(d_k).

A script on the public API (symattn, symattn.derive, symattn.latex, the kernel's backward pass);
must not import the reader, check or cli. Runnable alone: `python derivations/ch08/sec85.py`.
"""

from __future__ import annotations

from pathlib import Path

from symattn.derive import Builder, OnCheck, Section, Text, main
from symattn.derive.sources import chapter
from symattn.kernel.backward import attention_backward, prove_gradient
from symattn.kernel.dims import n
from symattn.kernel.expr import MatSym, Scale
from symattn.latex.document import Math as M

SEC81 = chapter(Path(__file__).parent).module("sec81")
B = attention_backward()
DQ = r"\mathit{dQ} = \mathit{dS}\,K/\sqrt{d_k}"
DK = r"\mathit{dK} = \mathit{dS}^{\mathsf T}Q/\sqrt{d_k}"


def content(on_check: OnCheck | None = None) -> Section:
    """Section 8.5, each claim checked by the kernel as it is added.

    >>> content.__annotations__["return"]
    'Section'
    """
    b = Builder("8.5", Text("dQ、dK 与缩放", "dQ and dK with the scale"), on_check)
    _scores(b)
    _through_softmax(b)
    return b.section()


def _scores(b: Builder) -> None:
    ds = MatSym("dS", n, n)
    b.say(
        [
            "先看分数这一层：上游梯度为任意 ",
            M(r"n\times n"),
            " 矩阵 ",
            M(r"\mathit{dS}"),
            "，",
            M(r"D_E S = EK^{\mathsf T}/\sqrt{d_k}"),
            "（对 ",
            M("Q"),
            "）、",
            M(r"D_E S = QE^{\mathsf T}/\sqrt{d_k}"),
            "（对 ",
            M("K"),
            "）。常数 ",
            M(r"1/\sqrt{d_k}"),
            " 原样留在梯度里；对 ",
            M("K"),
            " 要转置 ",
            M(r"\mathit{dS}"),
            "：",
        ],
        [
            "First the scores alone, with any ",
            M(r"n\times n"),
            " upstream ",
            M(r"\mathit{dS}"),
            ": ",
            M(r"D_E S = EK^{\mathsf T}/\sqrt{d_k}"),
            " for ",
            M("Q"),
            " and ",
            M(r"D_E S = QE^{\mathsf T}/\sqrt{d_k}"),
            " for ",
            M("K"),
            ". The constant ",
            M(r"1/\sqrt{d_k}"),
            " stays in the gradient, and for ",
            M("K"),
            " the matrix ",
            M(r"\mathit{dS}"),
            " is transposed:",
        ],
    )
    SEC81.gradient(
        b,
        ["分数对 ", M("Q"), " 的梯度：", M(DQ)],
        ["the scores' gradient with respect to ", M("Q"), ": ", M(DQ)],
        prove_gradient(B.S, B.Q, ds, Scale(B.scale, ds @ B.K)),
    )
    SEC81.gradient(
        b,
        ["分数对 ", M("K"), " 的梯度：", M(DK)],
        ["the scores' gradient with respect to ", M("K"), ": ", M(DK)],
        prove_gradient(B.S, B.K, ds, Scale(B.scale, ds.T @ B.Q)),
    )


def _through_softmax(b: Builder) -> None:
    b.say(
        [
            "整条链：以 ",
            M(r"\mathit{dS}"),
            " 取 8.3 节的表达式，从输出 ",
            M("O"),
            " 一直求到 ",
            M("Q"),
            " 与 ",
            M("K"),
            "，内核同样对任意维度证明：",
        ],
        [
            "The whole chain: with ",
            M(r"\mathit{dS}"),
            " the expression of section 8.3, from the output ",
            M("O"),
            " back to ",
            M("Q"),
            " and ",
            M("K"),
            ", again proved for all sizes:",
        ],
    )
    SEC81.gradient(
        b,
        ["输出对 ", M("Q"), " 的梯度：", M(DQ)],
        ["the output's gradient with respect to ", M("Q"), ": ", M(DQ)],
        prove_gradient(B.O, B.Q, B.dO, B.dQ),
    )
    SEC81.gradient(
        b,
        ["输出对 ", M("K"), " 的梯度：", M(DK)],
        ["the output's gradient with respect to ", M("K"), ": ", M(DK)],
        prove_gradient(B.O, B.K, B.dO, B.dK),
    )


if __name__ == "__main__":
    raise SystemExit(main(content))
