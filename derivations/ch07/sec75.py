"""Rotary position embedding: the score depends on positions only through their difference.

A script on the public API (symattn, symattn.derive, symattn.latex, the kernel's modern nodes);
must not import the reader, check or cli. Runnable alone: `python derivations/ch07/sec75.py`.
"""

from __future__ import annotations

import sympy

from symattn.derive import Builder, OnCheck, Section, Text, main
from symattn.kernel.derivation import Derivation
from symattn.kernel.dims import P
from symattn.kernel.expr import (
    MatSym,
)
from symattn.kernel.modern import (
    PairDots,
    Rope,
    pair_sum,
)
from symattn.latex.document import Math as M


def content(on_check: OnCheck | None = None) -> Section:
    """Section 7.5, each derivation checked by the kernel as it is added.

    >>> content.__annotations__["return"]
    'Section'
    """
    b = Builder("7.5", Text("旋转位置编码", "Rotary position embedding"), on_check)
    _rotary(b)
    return b.section()


def _rotary(b: Builder) -> None:
    x, y = MatSym("q", P, 2), MatSym("k", P, 2)
    m, t = sympy.Symbol("m_q", real=True), sympy.Symbol("n_k", real=True)
    b.say(
        [
            "把 ",
            M("d = 2P"),
            " 维向量看成 ",
            M("P"),
            " 对坐标，第 ",
            M("k"),
            " 对旋转角度 ",
            M(r"m\theta_k"),
            "；分数只依赖位置差：",
        ],
        [
            "Read a ",
            M("d = 2P"),
            " vector as ",
            M("P"),
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


if __name__ == "__main__":
    raise SystemExit(main(content))
