"""The causal mask and heads that share keys: the same gradients, summed over the heads.

A script on the public API (symattn, symattn.derive, symattn.latex, the kernel's backward pass);
must not import the reader, check or cli. Runnable alone: `python derivations/ch08/sec86.py`.
"""

from __future__ import annotations

from pathlib import Path

from symattn.derive import Builder, OnCheck, Section, Text, main
from symattn.derive.sources import chapter
from symattn.kernel.backward import (
    attention_backward,
    grouped_kv_backward,
    prove_gradient,
    rule_truth,
    shared_kv_backward,
)
from symattn.kernel.dims import H
from symattn.kernel.expr import MatSum
from symattn.latex.document import Math as M

SEC81 = chapter(Path(__file__).parent).module("sec81")
BC = attention_backward(causal=True)
GRADIENTS = {
    "V": r"\mathit{dV} = A^{\mathsf T}\mathit{dO}",
    "Q": r"\mathit{dQ} = \mathit{dS}\,K/\sqrt{d_k}",
    "K": r"\mathit{dK} = \mathit{dS}^{\mathsf T}Q/\sqrt{d_k}",
}


def content(on_check: OnCheck | None = None) -> Section:
    """Section 8.6, each claim checked by the kernel as it is added.

    >>> content.__annotations__["return"]
    'Section'
    """
    b = Builder("8.6", Text("因果掩码与共享键的多头", "The causal mask and shared heads"), on_check)
    _causal(b)
    _heads(b)
    return b.section()


def _causal(b: Builder) -> None:
    b.say(
        [
            "因果掩码把 ",
            M("j > i"),
            " 的分数设为 ",
            M(r"-\infty"),
            "，只在 softmax 里面：那里这些权重恰为 0，"
            "所以雅可比的形式不变，被掩掉的位置梯度为 0。规则按 ",
            M(r"j \le i"),
            " 与 ",
            M("j > i"),
            " 两种情形证明：",
        ],
        [
            "The causal mask sets the scores with ",
            M("j > i"),
            " to ",
            M(r"-\infty"),
            " inside the softmax only, where those weights are exactly 0; the Jacobian keeps "
            "its form and the masked entries get gradient 0. The rule is "
            "proved by the cases ",
            M(r"j \le i"),
            " and ",
            M("j > i"),
            ":",
        ],
    )
    b.fact(
        ["带掩码的 softmax 雅可比规则"],
        ["the softmax Jacobian rule under the causal mask"],
        rule_truth("softmax_jvp_causal"),
    )
    b.say(
        [
            "于是对 ",
            M(r"A = \operatorname{softmax}(\operatorname{mask}(S))"),
            "，三个梯度的公式与无掩码时相同：",
        ],
        [
            "So with ",
            M(r"A = \operatorname{softmax}(\operatorname{mask}(S))"),
            " the three gradients have the unmasked formulas:",
        ],
    )
    for name, tex in GRADIENTS.items():
        SEC81.gradient(
            b,
            ["因果掩码下，", M(tex)],
            ["under the causal mask, ", M(tex)],
            prove_gradient(BC.O, getattr(BC, name), BC.dO, getattr(BC, f"d{name}")),
        )


def _heads(b: Builder) -> None:
    mq, h = shared_kv_backward()
    b.say(
        [
            "多查询注意力：每个头 ",
            M("h"),
            " 有自己的 ",
            M("Q^{(h)}"),
            " 与 ",
            M(r"\mathit{dO}^{(h)}"),
            "，所有头共用 ",
            M("K"),
            "、",
            M("V"),
            "。损失是各头之和，共用矩阵的梯度就是各头梯度之和（",
            M(r"\mathit{dS}^{(h)}"),
            " 是第 ",
            M("h"),
            " 个头按 8.3 节用 ",
            M("A^{(h)}"),
            " 与 ",
            M(r"\mathit{dO}^{(h)}"),
            " 算出的 ",
            M(r"\mathit{dS}"),
            "）：",
        ],
        [
            "Multi-query attention: each head ",
            M("h"),
            " has its own ",
            M("Q^{(h)}"),
            " and ",
            M(r"\mathit{dO}^{(h)}"),
            ", and all heads share ",
            M("K"),
            " and ",
            M("V"),
            ". The loss is the sum over the heads, so the gradient of a shared matrix is the "
            "sum of the heads' gradients (",
            M(r"\mathit{dS}^{(h)}"),
            " is head ",
            M("h"),
            "'s ",
            M(r"\mathit{dS}"),
            " of section 8.3, from ",
            M("A^{(h)}"),
            " and ",
            M(r"\mathit{dO}^{(h)}"),
            "):",
        ],
    )
    dv_sum = r"\mathit{dV} = \sum_{h=1}^{H} (A^{(h)})^{\mathsf T}\mathit{dO}^{(h)}"
    SEC81.gradient(
        b,
        ["共用的 ", M("V"), "：", M(dv_sum)],
        ["the shared ", M("V"), ": ", M(dv_sum)],
        prove_gradient(mq.O, mq.V, mq.dO, MatSum(mq.dV, h, 1, H), heads=(h, H)),
    )
    dk_sum = r"\mathit{dK} = \sum_{h=1}^{H} (\mathit{dS}^{(h)})^{\mathsf T}Q^{(h)}/\sqrt{d_k}"
    SEC81.gradient(
        b,
        ["共用的 ", M("K"), "：", M(dk_sum)],
        ["the shared ", M("K"), ": ", M(dk_sum)],
        prove_gradient(mq.O, mq.K, mq.dO, MatSum(mq.dK, h, 1, H), heads=(h, H)),
    )
    gq, r, size = grouped_kv_backward()
    b.say(
        [
            "分组查询注意力：第 ",
            M("g"),
            " 个键头服务 ",
            M("R"),
            " 个查询头 ",
            M("h = (g-1)R + r"),
            "；其他组的头不读 ",
            M("K_g"),
            " 与 ",
            M("V_g"),
            "（这是分组的布局，不是内核证明），",
            M("V_g"),
            " 与 ",
            M("K_g"),
            " 的梯度是组内之和：",
        ],
        [
            "Grouped-query attention: key head ",
            M("g"),
            " serves the ",
            M("R"),
            " query heads ",
            M("h = (g-1)R + r"),
            "; the heads of other groups read no entry of ",
            M("K_g"),
            " or ",
            M("V_g"),
            " (the layout of grouped-query attention, not a kernel proof), and the gradients of ",
            M("K_g"),
            " and ",
            M("V_g"),
            " are sums over the group:",
        ],
    )
    dvg = r"\mathit{dV}_g = \sum_{r=1}^{R} (A^{(h)})^{\mathsf T}\mathit{dO}^{(h)}"
    SEC81.gradient(
        b,
        ["组内共用的 ", M("V_g"), "：", M(dvg)],
        ["the group's ", M("V_g"), ": ", M(dvg)],
        prove_gradient(gq.O, gq.V, gq.dO, MatSum(gq.dV, r, 1, size), heads=(r, size)),
    )
    dkg = r"\mathit{dK}_g = \sum_{r=1}^{R} (\mathit{dS}^{(h)})^{\mathsf T}Q^{(h)}/\sqrt{d_k}"
    SEC81.gradient(
        b,
        ["组内共用的 ", M("K_g"), "：", M(dkg)],
        ["the group's ", M("K_g"), ": ", M(dkg)],
        prove_gradient(gq.O, gq.K, gq.dO, MatSum(gq.dK, r, 1, size), heads=(r, size)),
    )


if __name__ == "__main__":
    raise SystemExit(main(content))
