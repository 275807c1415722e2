"""Section 6.3: one entry of each product written out; matrix form equals the per-vector form.

A script on the public API (symattn, symattn.derive, symattn.latex); must not import the reader,
check or cli. Every formula shown is checked here.
"""

from __future__ import annotations

import sympy

from symattn import Derivation, Dot, MatSum, Scale, d_k, index, n, prove_equal, single_head
from symattn.derive import Builder, OnCheck, Section, Text, main
from symattn.latex.document import Math as M


def explicit_expansions() -> list[Derivation]:
    """Entries at explicit sizes, summed out term by term (the latex2sympy2 test reads them back).

    >>> [len(d.chain) for d in explicit_expansions()]
    [2, 2]
    """
    r, j = index("r"), index("j")
    s = single_head(n=2, d_k=3)
    one = sympy.Integer(1)
    qk = sum((s.Q[1, c] * s.K[1, c] for c in range(1, 4)), sympy.Integer(0))
    first = (
        Derivation(s.scores[one, one], title="6.3 (QK^T)_11 at d_k = 3")
        .step(sympy.Sum(s.Q[1, r] * s.K[1, r], (r, 1, 3)), by="mul_transpose_apply")
        .step(qk, by="algebra")
    )
    t = single_head(n=3, d_v=2)
    av = sum((t.A[2, c] * t.V[c, 1] for c in range(1, 4)), sympy.Integer(0))
    second = (
        Derivation((t.A @ t.V)[2, 1], title="6.3 (AV)_21 at n = 3")
        .step(sympy.Sum(t.A[2, j] * t.V[j, 1], (j, 1, 3)), by="mul_apply")
        .step(av, by="algebra")
    )
    return [first, second]


def content(on_check: OnCheck | None = None) -> Section:
    """Section 6.3, checked.

    >>> content().key
    '6.3'
    """
    b = Builder(
        "6.3", Text("逐元素核对矩阵写法", "Checking the matrix form entry by entry"), on_check
    )
    s = single_head()
    Q, K, V, A, Z = s.Q, s.K, s.V, s.A, s.Z
    i, j, r, u = index("i"), index("j"), index("r"), index("u")
    b.say(
        [
            "把一个元素按矩阵乘法的定义写开。下标 ",
            M("r"),
            " 走遍向量的 ",
            M("d_k"),
            " 个坐标，",
            M("i"),
            " 和 ",
            M("j"),
            " 走遍输入位置：",
        ],
        [
            "Write one entry out by the definition of the matrix product. The index ",
            M("r"),
            " runs over the ",
            M("d_k"),
            " coordinates of a vector; ",
            M("i"),
            " and ",
            M("j"),
            " run over positions:",
        ],
    )
    b.prove(
        Derivation(s.scores[i, j], title="6.3 score entry")
        .step(sympy.Sum(Q[i, r] * K[j, r], (r, 1, d_k)), by="mul_transpose_apply")
        .step(Dot(Q.row(i), K.row(j)), by="dot_def")
    )
    b.say(
        ["同样写开 ", M("AV"), " 的一个元素，", M("u"), " 是输出向量的一个坐标："],
        [
            "In the same way for an entry of ",
            M("AV"),
            ", where ",
            M("u"),
            " is a coordinate of an output vector:",
        ],
    )
    b.prove(
        Derivation((A @ V)[i, u], title="6.3 entry of AV").step(
            sympy.Sum(A[i, j] * V[j, u], (j, 1, n)), by="mul_apply"
        )
    )
    b.say(
        ["对所有 ", M("u"), " 同时成立，就是整行的等式：矩阵写法与逐向量的加权和完全相同。"],
        [
            "Holding for every ",
            M("u"),
            " at once, this is an equation between whole rows: the "
            "matrix form and the per-vector weighted sum are the same thing.",
        ],
    )
    b.prove(
        Derivation(Z.row(i), title="6.3 rows of Z", defs={Z: A @ V})
        .step((A @ V).row(i), by="def")
        .step(MatSum(Scale(A[i, j], V.row(j)), j, 1, n), by="mul_row")
    )
    b.say(
        ["取小的具体尺寸可以把求和完全展开，例如 ", M("d_k=3"), " 和 ", M("n=3"), "："],
        [
            "At small explicit sizes the sums can be written out in full, e.g. ",
            M("d_k=3"),
            " and ",
            M("n=3"),
            ":",
        ],
    )
    for d in explicit_expansions():
        b.prove(d, require="exact")
    _mistake(b)
    return b.section()


def _mistake(b: Builder) -> None:
    s = single_head()
    i, j, r = index("i"), index("j"), index("r")
    wrong = sympy.Sum(s.Q[r, i] * s.K[r, j], (r, 1, d_k))
    b.say(
        [
            "下标的位置不能随意交换。常见的笔误 ",
            M("\\sum_{r} Q_{ri}K_{rj}"),
            " 让 ",
            M("r"),
            " 去数 ",
            M("Q"),
            " 的行，而 ",
            M("Q"),
            " 只有 ",
            M("n"),
            " 行、",
            M("r"),
            " 却要走到 ",
            M("d_k"),
            "，内核直接拒绝：",
        ],
        [
            "Index positions matter. The common slip ",
            M("\\sum_{r} Q_{ri}K_{rj}"),
            " makes ",
            M("r"),
            " count the rows of ",
            M("Q"),
            ", which has ",
            M("n"),
            " rows while ",
            M("r"),
            " runs to ",
            M("d_k"),
            "; the kernel rejects it:",
        ],
    )
    b.fact(
        [M("(QK^{\\mathsf T})_{ij} \\ne \\sum_{r=1}^{d_k} Q_{ri}K_{rj}")],
        [M("(QK^{\\mathsf T})_{ij} \\ne \\sum_{r=1}^{d_k} Q_{ri}K_{rj}")],
        prove_equal(s.scores[i, j], wrong),
        expect="shape_error",
    )


if __name__ == "__main__":
    raise SystemExit(main(content))
