"""The FlashAttention row term rowsum(A∘dA) = rowsum(dO∘O): dS needs only O, dO and A.

A script on the public API (symattn, symattn.derive, symattn.latex, the kernel's backward pass);
must not import the reader, check or cli. Runnable alone: `python derivations/ch08/sec84.py`.
"""

from __future__ import annotations

from symattn.derive import Builder, OnCheck, Section, Text, main
from symattn.kernel.backward import attention_backward, prove_row_term, rowsum_rows
from symattn.kernel.derivation import Derivation
from symattn.kernel.dims import n
from symattn.kernel.expr import Hadamard, MatSym, Ones
from symattn.latex.document import Math as M

B, BC = attention_backward(), attention_backward(causal=True)
ROW = r"\operatorname{rowsum}(A\circ\mathit{dA}) = \operatorname{rowsum}(\mathit{dO}\circ O)"


def content(on_check: OnCheck | None = None) -> Section:
    """Section 8.4, each claim checked by the kernel as it is added.

    >>> content.__annotations__["return"]
    'Section'
    """
    b = Builder(
        "8.4",
        Text("FlashAttention 的行项恒等式", "The FlashAttention row-term identity"),
        on_check,
    )
    _identity(b)
    _ds_from_d(b)
    return b.section()


def _identity(b: Builder) -> None:
    a = MatSym("A", n, n)
    b.say(
        [
            M(r"\mathit{dS}"),
            " 的行项 ",
            M(r"\operatorname{rowsum}(A\circ\mathit{dA})"),
            " 看似需要整个 ",
            M(r"n\times n"),
            " 的 ",
            M("A"),
            "。代入 ",
            M(r"\mathit{dA} = \mathit{dO}V^{\mathsf T}"),
            "，第 ",
            M("i"),
            " 行是 ",
            M(r"\sum_j a_{ij}\sum_u \mathit{dO}_{iu}V_{ju} = \sum_u \mathit{dO}_{iu}(AV)_{iu}"),
            "。下式对每个矩阵 ",
            M("A"),
            " 都成立（不用 softmax 的任何性质）：",
        ],
        [
            "The row term ",
            M(r"\operatorname{rowsum}(A\circ\mathit{dA})"),
            " of ",
            M(r"\mathit{dS}"),
            " seems to need all of the ",
            M(r"n\times n"),
            " matrix ",
            M("A"),
            ". With ",
            M(r"\mathit{dA} = \mathit{dO}V^{\mathsf T}"),
            ", row ",
            M("i"),
            " is ",
            M(r"\sum_j a_{ij}\sum_u \mathit{dO}_{iu}V_{ju} = \sum_u \mathit{dO}_{iu}(AV)_{iu}"),
            ". The chain below holds for every matrix ",
            M("A"),
            " (it uses no property of the softmax):",
        ],
    )
    b.prove(
        Derivation(
            Hadamard(a, B.dO @ B.V.T) @ Ones(n, 1), title="8.4 the row term from dO and O"
        ).step(Hadamard(B.dO, a @ B.V) @ Ones(B.V.cols, 1), by="algebra")
    )
    b.say(
        ["所以对 softmax 的 ", M("A"), " 与因果掩码下的 ", M("A"), " 都成立："],
        ["So it holds for the softmax ", M("A"), " and for the causal one:"],
    )
    b.fact(["无掩码：", M(ROW)], ["unmasked: ", M(ROW)], prove_row_term(B))
    b.fact(["因果掩码：", M(ROW)], ["causal: ", M(ROW)], prove_row_term(BC))


def _ds_from_d(b: Builder) -> None:
    a = MatSym("A", n, n)
    da = B.dO @ B.V.T
    d = Hadamard(B.dO, a @ B.V) @ Ones(B.V.cols, 1)
    b.say(
        [
            "于是 FlashAttention 在反向传播前只存 ",
            M(r"D = \operatorname{rowsum}(\mathit{dO}\circ O)"),
            "（每行一个数，",
            M("n"),
            " 个数），之后逐块重算 ",
            M("A"),
            " 时，每块的 ",
            M(r"\mathit{dS}"),
            " 只需该块的 ",
            M("A"),
            "、",
            M(r"\mathit{dA}"),
            " 与 ",
            M("D"),
            "：",
        ],
        [
            "So FlashAttention stores only ",
            M(r"D = \operatorname{rowsum}(\mathit{dO}\circ O)"),
            " before the backward pass (one number per row, ",
            M("n"),
            " in all); when it recomputes ",
            M("A"),
            " block by block, each block's ",
            M(r"\mathit{dS}"),
            " needs only that block of ",
            M("A"),
            ", of ",
            M(r"\mathit{dA}"),
            ", and ",
            M("D"),
            ":",
        ],
    )
    b.prove(
        Derivation(Hadamard(a, da - rowsum_rows(Hadamard(a, da))), title="8.4 dS from D").step(
            Hadamard(a, da - d @ Ones(1, n)), by="algebra"
        )
    )


if __name__ == "__main__":
    raise SystemExit(main(content))
