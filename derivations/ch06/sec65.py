"""Section 6.5: why the concatenation is multiplied by W_O (shapes, and the residual X + O).

A script on the public API (symattn, symattn.derive, symattn.latex); must not import the reader,
check or cli. Every shape shown is checked here.
"""

from __future__ import annotations

import sympy

from symattn import Derivation, H, MatAdd, ShapeError, Verdict, assume, d, d_v, index, multi_head, n
from symattn.derive import Builder, OnCheck, Section, Text, main
from symattn.latex.document import Math as M

CONCAT = r"\operatorname{Concat}(Z^{(1)},\ldots,Z^{(H)})"


def content(on_check: OnCheck | None = None) -> Section:
    """Section 6.5, checked.

    >>> content().key
    '6.5'
    """
    b = Builder(
        "6.5",
        Text(
            ["拼接之后为什么还要乘 ", M("W_O")],
            ["Why the concatenation is multiplied by ", M("W_O")],
        ),
        on_check,
    )
    mh = multi_head()
    X = mh.X
    b.say(
        [
            "设有 ",
            M("H"),
            " 个头，每个头输出 ",
            M("Z^{(h)}\\in\\mathbb R^{n\\times d_v}"),
            "。按列拼接后宽度是 ",
            M("Hd_v"),
            "，",
            M("W_O"),
            " 把它映回模型宽度 ",
            M("d"),
            "：",
        ],
        [
            "With ",
            M("H"),
            " heads, each giving ",
            M("Z^{(h)}\\in\\mathbb R^{n\\times d_v}"),
            ", the column-wise concatenation is ",
            M("Hd_v"),
            " wide, and ",
            M("W_O"),
            " maps it back to the model width ",
            M("d"),
            ":",
        ],
    )
    b.shapes(
        [
            ("Z^{(h)}", mh.Z_h, (n, d_v)),
            (CONCAT, mh.concat, (n, H * d_v)),
            ("W_O", mh.W_O, (H * d_v, d)),
            (f"O = {CONCAT}W_O", mh.output, (n, d)),
            ("X + O", mh.residual, (n, d)),
        ]
    )
    b.say(
        [
            "最后一行就是残差连接能成立的原因：",
            M("O"),
            " 与输入 ",
            M("X"),
            " 形状相同。没有 ",
            M("W_O"),
            " 时，两者能否相加取决于 ",
            M("Hd_v"),
            " 是否等于 ",
            M("d"),
            "，而这一点并不能从维度本身推出：",
        ],
        [
            "The last line is what makes the residual connection possible: ",
            M("O"),
            " has the shape of the input ",
            M("X"),
            ". Without ",
            M("W_O"),
            " the sum would need ",
            M("Hd_v = d"),
            ", which does not follow from the dims themselves:",
        ],
    )
    b.fact(
        [M(f"X + {CONCAT}"), " 不能通过形状检查"],
        [M(f"X + {CONCAT}"), " does not typecheck"],
        _try_add(X, mh.concat),
        expect="shape_error",
    )
    b.say(
        [
            "常见的设定 ",
            M("d_v = d/H"),
            " 让拼接本身就是 ",
            M("n\\times d"),
            "；即便如此，",
            M("W_O"),
            " 仍然负责把各头的结果混合起来（见 6.6 的分块恒等式）。",
        ],
        [
            "The common choice ",
            M("d_v = d/H"),
            " makes the concatenation itself ",
            M("n\\times d"),
            "; even then ",
            M("W_O"),
            " is what mixes the heads' results (see the block identity in 6.6).",
        ],
    )
    with assume(d_v=d / H):
        b.shapes([(f"X + {CONCAT}", MatAdd(X, mh.concat), (n, d))])
    i, j, u = index("i"), index("j"), index("u")
    h = mh.h
    b.say(
        ["输出的每个元素都把所有头的所有坐标加在一起："],
        ["Each entry of the output adds up every coordinate of every head:"],
    )
    b.prove(
        Derivation(mh.output[i, j], title="6.5 entries of O").step(
            sympy.Sum(mh.Z_h[i, u] * mh.W_O[(h - 1) * d_v + u, j], (u, 1, d_v), (h, 1, H)),
            by="concat_mul_apply",
        )
    )
    return b.section()


def _try_add(X, concat) -> Verdict:
    try:
        MatAdd(X, concat)
    except ShapeError as exc:
        return Verdict("shape_error", reason=str(exc))
    return Verdict("unknown", reason="X + Concat(...) typechecked")


if __name__ == "__main__":
    raise SystemExit(main(content))
