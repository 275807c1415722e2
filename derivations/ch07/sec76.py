"""The online softmax of FlashAttention: blocks, a running maximum and normaliser.

A script on the public API (symattn, symattn.derive, symattn.latex, the kernel's modern nodes);
must not import the reader, check or cli. Runnable alone: `python derivations/ch07/sec76.py`.
"""

from __future__ import annotations

import sympy

from symattn.derive import Builder, OnCheck, Section, Text, main
from symattn.kernel.derivation import Derivation
from symattn.kernel.dims import as_dim, d_v, n
from symattn.kernel.expr import (
    MatSym,
    Softmax,
)
from symattn.kernel.identities import ONLINE_BLOCKS
from symattn.kernel.modern import (
    OnlineSoftmax,
)
from symattn.latex.document import Math as M


def content(on_check: OnCheck | None = None) -> Section:
    """Section 7.6, each derivation checked by the kernel as it is added.

    >>> content.__annotations__["return"]
    'Section'
    """
    b = Builder("7.6", Text("在线 softmax", "The online softmax"), on_check)
    _online(b)
    return b.section()


def _online(b: Builder) -> None:
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


if __name__ == "__main__":
    raise SystemExit(main(content))
