"""Linear attention: a feature map, reassociation, and the causal prefix-sum form.

A script on the public API (symattn, symattn.derive, symattn.latex, the kernel's modern nodes);
must not import the reader, check or cli. Runnable alone: `python derivations/ch07/sec73.py`.
"""

from __future__ import annotations

import sympy

from symattn.derive import Builder, OnCheck, Section, Text, main
from symattn.kernel.derivation import Derivation
from symattn.kernel.dims import d_k, d_v, n
from symattn.kernel.expr import (
    MatExpr,
    MatSum,
    MatSym,
    Row,
    index,
)
from symattn.kernel.modern import (
    CausalZero,
    FeatureMap,
    multiplications,
)
from symattn.latex.document import Math as M
from symattn.soundness.identities import D


def content(on_check: OnCheck | None = None) -> Section:
    """Section 7.3, each derivation checked by the kernel as it is added.

    >>> content.__annotations__["return"]
    'Section'
    """
    b = Builder("7.3", Text("线性注意力", "Linear attention"), on_check)
    _linear(b)
    return b.section()


def _linear(b: Builder) -> None:
    q, k, v = MatSym("Q", n, d_k), MatSym("K", n, d_k), MatSym("V", n, d_v)
    fq, fk = FeatureMap("phi", q, D), FeatureMap("phi", k, D)
    cost_l, cost_r = multiplications((fq @ fk.T) @ v), multiplications(fq @ (fk.T @ v))
    b.say(
        [
            "去掉 softmax、用特征映射 ",
            M(r"\phi"),
            " 后，乘积可以换个顺序算：左边 ",
            M(sympy.latex(cost_l)),
            " 次乘法，右边 ",
            M(sympy.latex(cost_r)),
            " 次：",
        ],
        [
            "Without the softmax and with a feature map ",
            M(r"\phi"),
            ", the product can be taken in the other order: ",
            M(sympy.latex(cost_l)),
            " multiplications on the left, ",
            M(sympy.latex(cost_r)),
            " on the right:",
        ],
    )
    b.prove(
        Derivation((fq @ fk.T) @ v, title="7.3 linear attention reassociates").step(
            fq @ (fk.T @ v), by="mul_assoc"
        )
    )
    i, j = index("i"), index("j")
    b.say(
        [
            "加上因果掩码，第 ",
            M("i"),
            " 行只用前缀和 ",
            M(r"S_i = \sum_{j\le i}\phi(k_j)^{\mathsf T}v_j"),
            "：",
        ],
        [
            "With the causal mask, row ",
            M("i"),
            " uses only the prefix sum ",
            M(r"S_i = \sum_{j\le i}\phi(k_j)^{\mathsf T}v_j"),
            ":",
        ],
    )
    from_row = Row(CausalZero(fq @ fk.T) @ v, i)
    state = Row(fq, i) @ _prefix(fk, v, j, i)
    b.prove(
        Derivation(from_row, title="7.3 causal linear attention as a prefix sum").step(
            state, by="mul_causal_zero_row"
        )
    )


def _prefix(fk: MatExpr, v: MatExpr, j: sympy.Symbol, i: sympy.Symbol) -> MatExpr:
    return MatSum(Row(fk, j).T @ Row(v, j), j, 1, i)


if __name__ == "__main__":
    raise SystemExit(main(content))
