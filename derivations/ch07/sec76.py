"""The online softmax of FlashAttention: blocks, a running maximum and normaliser.

A script on the public API (symattn, symattn.derive, symattn.latex, the kernel's nodes and
recurrences); must not import the reader, check or cli. Runnable alone: `python sec76.py`.
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
from symattn.kernel.modern import (
    OnlineSoftmax,
)
from symattn.kernel.recurrences import flash_forward
from symattn.latex.document import Math as M
from symattn.soundness.identities import ONLINE_BLOCKS


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
            "）逐块展开都有证明：",
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
            ") by writing the blocks out:",
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
    _any_number(b)


def _any_number(b: Builder) -> None:
    rec = flash_forward()
    lhs, rhs = rec.statement()
    b.say(
        [
            "块数 ",
            M("B"),
            " 本身也可以是符号：对 ",
            M("B"),
            " 归纳。基础情形是从空状态出发的第一块：最大值 ",
            M("m_0"),
            " 为 ",
            M(r"-\infty"),
            "，归一化量 ",
            M(r"\ell_0"),
            " 与输出 ",
            M("o_0"),
            " 为零；归纳步把前 ",
            M("t-1"),
            " 块的结论代入状态，证明第 ",
            M("t"),
            " 块之后的 ",
            M(r"m_t"),
            "、",
            M(r"\ell_t"),
            "、",
            M("o_t"),
            "（块大小是符号，带因果掩码，整块被掩码也成立）；最后 ",
            M(r"o_B / \ell_B"),
            " 就是因果注意力：",
        ],
        [
            "The number of blocks ",
            M("B"),
            " can be symbolic too: by induction on ",
            M("B"),
            ". The base is the first block, from the empty state: the maximum ",
            M("m_0"),
            " is ",
            M(r"-\infty"),
            ", the normaliser ",
            M(r"\ell_0"),
            " and the output ",
            M("o_0"),
            " are zero; the step substitutes the claim for the first ",
            M("t-1"),
            " blocks into the state and proves ",
            M(r"m_t"),
            ", ",
            M(r"\ell_t"),
            " and ",
            M("o_t"),
            " after block ",
            M("t"),
            " (symbolic block sizes, causal mask, fully masked blocks included); at the end ",
            M(r"o_B / \ell_B"),
            " is causal attention:",
        ],
    )
    b.prove(
        Derivation(lhs, title="7.6 online softmax, any number of blocks").step(
            rhs, by="online_softmax_blocks"
        )
    )
    _as_written(b)


_STATE = (r"m^{(0)} = -\infty", r"\ell^{(0)} = 0", "O^{(0)} = 0")
_STEPS = (
    r"m^{(b)} = \max(m^{(b-1)}, \operatorname{rowmax}(S^{(b)}))",
    r"\ell^{(b)} = e^{m^{(b-1)}-m^{(b)}}\ell^{(b-1)} + \operatorname{rowsum}(e^{S^{(b)}-m^{(b)}})",
    r"O^{(b)} = \operatorname{diag}(e^{m^{(b-1)}-m^{(b)}})O^{(b-1)} + e^{S^{(b)}-m^{(b)}}V_b",
)
_CLAIM = r"O^{(B)}/\ell^{(B)} = \operatorname{softmax}(S)V"


def _as_written(b: Builder) -> None:
    """The same recurrence without the mask, in the notation of the papers: the checker reads
    these formulas back and proves the last one by the same induction on B."""

    def listed(items: tuple[str, ...], sep: str) -> list[object]:
        out: list[object] = []
        for k, x in enumerate(items):
            out += [M(x)] if k == 0 else [sep, M(x)]
        return out

    b.say(
        [
            "论文里的写法（不带掩码）：把 ",
            M("S"),
            " 的列分成键块 ",
            M("S^{(b)}"),
            "，",
            M("V_b"),
            " 是 ",
            M("V"),
            " 中对应的行；状态从 ",
            *listed(_STATE, "、"),
            " 开始，第 ",
            M("b"),
            " 块更新为 ",
            *listed(_STEPS, "，"),
            "；最后一块之后 ",
            M(_CLAIM),
            "，同样对 ",
            M("B"),
            " 归纳证明。",
        ],
        [
            "As the papers write it (without the mask): the columns of ",
            M("S"),
            " split into key blocks ",
            M("S^{(b)}"),
            ", with ",
            M("V_b"),
            " the matching rows of ",
            M("V"),
            "; the state starts at ",
            *listed(_STATE, ", "),
            ", and block ",
            M("b"),
            " updates it by ",
            *listed(_STEPS, ", "),
            "; after the last block ",
            M(_CLAIM),
            ", proved by the same induction on ",
            M("B"),
            ".",
        ],
    )


if __name__ == "__main__":
    raise SystemExit(main(content))
