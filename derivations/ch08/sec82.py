"""dV and dA: the gradients of O = AV, proved by the vector–Jacobian identity for all sizes.

A script on the public API (symattn, symattn.derive, symattn.latex, the kernel's backward pass);
must not import the reader, check or cli. Runnable alone: `python derivations/ch08/sec82.py`.
"""

from __future__ import annotations

from pathlib import Path

from symattn.derive import Builder, OnCheck, Section, Text, main
from symattn.derive.sources import chapter
from symattn.kernel.backward import attention_backward, inner, prove_gradient
from symattn.kernel.derivation import Derivation
from symattn.kernel.dims import d_v, n
from symattn.kernel.expr import MatSym
from symattn.latex.document import Math as M

SEC81 = chapter(Path(__file__).parent).module("sec81")
B = attention_backward()


def content(on_check: OnCheck | None = None) -> Section:
    """Section 8.2, each claim checked by the kernel as it is added.

    >>> content.__annotations__["return"]
    'Section'
    """
    b = Builder("8.2", Text(r"dV 与 dA", "dV and dA"), on_check)
    _dv(b)
    _da(b)
    return b.section()


def _dv(b: Builder) -> None:
    b.say(
        [
            M("O = AV"),
            " 对 ",
            M("V"),
            " 是线性的，",
            M("A"),
            " 不读 ",
            M("V"),
            " 的任何元素，所以 ",
            M("D_E O = AE"),
            "，而 ",
            M(r"\langle \mathit{dO}, AE\rangle = \langle A^{\mathsf T}\mathit{dO}, E\rangle"),
            "：",
        ],
        [
            M("O = AV"),
            " is linear in ",
            M("V"),
            ", and ",
            M("A"),
            " reads no entry of ",
            M("V"),
            ", so ",
            M("D_E O = AE"),
            " and ",
            M(r"\langle \mathit{dO}, AE\rangle = \langle A^{\mathsf T}\mathit{dO}, E\rangle"),
            ":",
        ],
    )
    a, e = MatSym("A", n, n), MatSym("E", n, d_v)
    b.prove(
        Derivation(inner(B.dO, a @ e), title="8.2 the identity for dV").step(
            inner(a.T @ B.dO, e), by="algebra"
        )
    )
    SEC81.gradient(
        b,
        ["对 ", M("V"), " 的梯度是 ", M(r"\mathit{dV} = A^{\mathsf T}\mathit{dO}")],
        [
            "the gradient with respect to ",
            M("V"),
            " is ",
            M(r"\mathit{dV} = A^{\mathsf T}\mathit{dO}"),
        ],
        prove_gradient(B.O, B.V, B.dO, B.dV),
    )


def _da(b: Builder) -> None:
    a = MatSym("A", n, n)
    b.say(
        [
            "把 ",
            M("A"),
            " 看作自变量（任意 ",
            M(r"n\times n"),
            " 矩阵），",
            M("D_E O = EV"),
            "，",
            M(r"\langle \mathit{dO}, EV\rangle = \langle \mathit{dO}V^{\mathsf T}, E\rangle"),
            "：",
        ],
        [
            "Taking ",
            M("A"),
            " as the variable (any ",
            M(r"n\times n"),
            " matrix), ",
            M("D_E O = EV"),
            " and ",
            M(r"\langle \mathit{dO}, EV\rangle = \langle \mathit{dO}V^{\mathsf T}, E\rangle"),
            ":",
        ],
    )
    e = MatSym("E", n, n)
    b.prove(
        Derivation(inner(B.dO, e @ B.V), title="8.2 the identity for dA").step(
            inner(B.dO @ B.V.T, e), by="algebra"
        )
    )
    SEC81.gradient(
        b,
        ["对 ", M("A"), " 的梯度是 ", M(r"\mathit{dA} = \mathit{dO}V^{\mathsf T}")],
        [
            "the gradient with respect to ",
            M("A"),
            " is ",
            M(r"\mathit{dA} = \mathit{dO}V^{\mathsf T}"),
        ],
        prove_gradient(a @ B.V, a, B.dO, B.dA),
    )


if __name__ == "__main__":
    raise SystemExit(main(content))
