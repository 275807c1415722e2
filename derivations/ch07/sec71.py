"""ALiBi and key padding: additive biases and masks, proved for symbolic sizes.

A script on the public API (symattn, symattn.derive, symattn.latex, the kernel's modern nodes);
must not import the reader, check or cli. Runnable alone: `python derivations/ch07/sec71.py`.
"""

from __future__ import annotations

from symattn.derive import Builder, OnCheck, Section, Text, main
from symattn.kernel.derivation import Derivation
from symattn.kernel.dims import n
from symattn.kernel.expr import (
    CausalMask,
    MatSym,
    Ones,
    Softmax,
)
from symattn.kernel.modern import (
    PadMask,
    PositionBias,
    alibi,
)
from symattn.latex.document import Math as M
from symattn.soundness.identities import ell, lam, p


def content(on_check: OnCheck | None = None) -> Section:
    """Section 7.1, each derivation checked by the kernel as it is added.

    >>> content.__annotations__["return"]
    'Section'
    """
    b = Builder("7.1", Text("ALiBi 与键填充", "ALiBi and key padding"), on_check)
    _biases(b)
    return b.section()


def _biases(b: Builder) -> None:
    s = MatSym("S", n, n)
    b.say(
        [
            "ALiBi 给分数加上 ",
            M(r"\Delta_{ij} = -\lambda(i-j)"),
            "，其中 ",
            M(r"-\lambda i"),
            " 在一行内不变：",
        ],
        [
            "ALiBi adds ",
            M(r"\Delta_{ij} = -\lambda(i-j)"),
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


if __name__ == "__main__":
    raise SystemExit(main(content))
