"""Common mistakes in the backward pass, each refuted by the kernel with a counterexample.

A script on the public API (symattn, symattn.derive, symattn.latex, the kernel's backward pass);
must not import the reader, check or cli. Runnable alone: `python derivations/ch08/sec87.py`.
"""

from __future__ import annotations

from pathlib import Path

from symattn.derive import Builder, OnCheck, Section, Text, main
from symattn.derive.sources import chapter
from symattn.kernel.backward import attention_backward, prove_gradient
from symattn.kernel.dims import n
from symattn.kernel.expr import Hadamard, MatSym, Scale, Softmax
from symattn.latex.document import Math as M

SEC81 = chapter(Path(__file__).parent).module("sec81")
B = attention_backward()


def content(on_check: OnCheck | None = None) -> Section:
    """Section 8.7, each claim checked by the kernel as it is added.

    >>> content.__annotations__["return"]
    'Section'
    """
    b = Builder("8.7", Text("常见错误", "Common mistakes"), on_check)
    b.say(
        ["下面每一条都是手推反向传播时常见的错误；内核找到一个方向 ", M("E"), " 把两边分开："],
        [
            "Each line below is a mistake often made when the backward pass is derived by hand; "
            "the kernel finds a direction ",
            M("E"),
            " that tells the two sides apart:",
        ],
    )
    _mistakes(b)
    return b.section()


def _mistakes(b: Builder) -> None:
    ds, a, s = MatSym("dS", n, n), MatSym("A", n, n), MatSym("S", n, n)
    wrong = [
        (
            [
                "错误：分数对 ",
                M("Q"),
                " 的梯度取 ",
                M(r"\mathit{dS}\,K"),
                "，漏掉 ",
                M(r"1/\sqrt{d_k}"),
            ],
            [
                "Wrong: the scores' gradient with respect to ",
                M("Q"),
                " taken as ",
                M(r"\mathit{dS}\,K"),
                ", without ",
                M(r"1/\sqrt{d_k}"),
            ],
            prove_gradient(B.S, B.Q, ds, ds @ B.K),
        ),
        (
            ["错误：对 ", M("S"), " 的梯度取 ", M(r"A\circ\mathit{dA}"), "，漏掉行项"],
            [
                "Wrong: the gradient with respect to ",
                M("S"),
                " taken as ",
                M(r"A\circ\mathit{dA}"),
                ", without the row term",
            ],
            prove_gradient(Softmax(s) @ B.V, s, B.dO, Hadamard(Softmax(s), B.dA)),
        ),
        (
            [
                "错误：分数对 ",
                M("K"),
                " 的梯度取 ",
                M(r"\mathit{dS}\,Q/\sqrt{d_k}"),
                "，漏掉转置",
            ],
            [
                "Wrong: the scores' gradient with respect to ",
                M("K"),
                " taken as ",
                M(r"\mathit{dS}\,Q/\sqrt{d_k}"),
                ", the transpose dropped",
            ],
            prove_gradient(B.S, B.K, ds, Scale(B.scale, ds @ B.Q)),
        ),
        (
            ["错误：对 ", M("V"), " 的梯度取 ", M(r"A\,\mathit{dO}"), "，漏掉转置"],
            [
                "Wrong: the gradient with respect to ",
                M("V"),
                " taken as ",
                M(r"A\,\mathit{dO}"),
                ", the transpose dropped",
            ],
            prove_gradient(a @ B.V, B.V, B.dO, a @ B.dO),
        ),
    ]
    for zh, en, verdict in wrong:
        SEC81.gradient(b, zh, en, verdict, expect="false")


if __name__ == "__main__":
    raise SystemExit(main(content))
