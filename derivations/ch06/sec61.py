"""Section 6.1: the five-token worked example (n = 5, d_k = 64), with a hypothetical causal A.

A script on the public API (symattn, symattn.derive, symattn.latex); must not import the reader,
check or cli. Every formula shown is checked here.
"""

from __future__ import annotations

import sympy
from sympy import Rational as R

from symattn import Derivation, Dot, MatSum, Scale, d, d_v, index, single_head
from symattn.derive import Builder, OnCheck, Section, Text, exact_matrix, main
from symattn.latex.document import Math as M
from symattn.latex.matrix import labelled_matrix
from symattn.latex.printer import latex

TOKENS: tuple[str, ...] = ("患者", "服用", "华法林", "后", "出现")

#: A made-up causal attention matrix for the five tokens: row i is how token i spreads its
#: attention over tokens 1..i. Exact rationals so the checks below are exact.
WEIGHTS = sympy.Matrix(
    [
        [1, 0, 0, 0, 0],
        [R(2, 5), R(3, 5), 0, 0, 0],
        [R(1, 10), R(3, 10), R(3, 5), 0, 0],
        [R(1, 10), R(1, 5), R(1, 2), R(1, 5), 0],
        [R(1, 5), R(1, 10), R(9, 20), R(1, 20), R(1, 5)],
    ]
)


def lower_triangular(w: sympy.Matrix) -> bool:
    """Every entry above the diagonal is exactly 0.

    >>> lower_triangular(WEIGHTS)
    True
    """
    return all(w[i, j] == 0 for i in range(w.rows) for j in range(i + 1, w.cols))


def rows_sum_to_one(w: sympy.Matrix) -> bool:
    """Each row sums to exactly 1.

    >>> rows_sum_to_one(WEIGHTS)
    True
    """
    return all(sum(w.row(i)) == 1 for i in range(w.rows))


def positive_on_and_below_diagonal(w: sympy.Matrix) -> bool:
    """What a masked softmax gives: exp(...) > 0 wherever the mask keeps the score."""
    return all(w[i, j] > 0 for i in range(w.rows) for j in range(i + 1))


def content(on_check: OnCheck | None = None) -> Section:
    """The worked example of 6.1, checked.

    Checking takes seconds; tests/derive runs it. The result is a `Section`:
    >>> content.__annotations__["return"]
    'Section'
    """
    b = Builder("6.1", Text("五个词元的算例", "A worked example with five tokens"), on_check)
    s5 = single_head(n=5, d_k=64)
    n7 = single_head(n=7, d_k=64)
    i, j, r = index("i"), index("j"), index("r")
    tokens = "、".join(TOKENS)
    b.say(
        [
            f"取句子开头的五个词元 {tokens} 作为输入，每个词元对应 ",
            M("X"),
            " 的一行，于是 ",
            M("n=5"),
            "；再设每个头的查询与键都是 ",
            M("d_k=64"),
            " 维。嵌入维度 ",
            M("d"),
            " 与值的维度 ",
            M("d_v"),
            " 保持为符号，它们不影响下面的结论。",
        ],
        [
            f"Take the first five tokens of the sentence, {', '.join(TOKENS)}, as the input: one "
            "row of ",
            M("X"),
            " per token, so ",
            M("n=5"),
            ". Let queries and keys of a head have ",
            M("d_k=64"),
            " coordinates. The embedding width ",
            M("d"),
            " and the value width ",
            M("d_v"),
            " stay symbols; nothing below depends on their values.",
        ],
    )
    b.shapes(
        [
            ("X", s5.X, (5, d)),
            ("Q = XW_Q", s5.X @ s5.W_Q, (5, 64)),
            ("K = XW_K", s5.X @ s5.W_K, (5, 64)),
            ("V = XW_V", s5.X @ s5.W_V, (5, d_v)),
            ("QK^{\\mathsf T}", s5.scores, (5, 5)),
            ("A", s5.A, (5, 5)),
            ("Z = AV", s5.A @ s5.V, (5, d_v)),
        ]
    )
    b.say(
        [
            "每个词元各自投影：",
            M("Q"),
            " 的第 ",
            M("i"),
            " 行只由 ",
            M("X"),
            " 的第 ",
            M("i"),
            " 行决定。",
        ],
        [
            "Each token is projected on its own: row ",
            M("i"),
            " of ",
            M("Q"),
            " depends only on row ",
            M("i"),
            " of ",
            M("X"),
            ".",
        ],
    )
    b.prove(
        Derivation(s5.Q.row(i), title="6.1 q_i = x_i W_Q", defs={s5.Q: s5.X @ s5.W_Q})
        .step((s5.X @ s5.W_Q).row(i), by="def")
        .step(s5.X.row(i) @ s5.W_Q, by="row_mul"),
        witnesses=("symbolic", "numeric"),
    )
    b.say(
        [
            "分数矩阵 ",
            M("QK^{\\mathsf T}"),
            " 是 ",
            M("5\\times 5"),
            " 的：第 ",
            M("i"),
            " 行第 ",
            M("j"),
            " 列是第 ",
            M("i"),
            " 个词元的查询与第 ",
            M("j"),
            " 个词元的键的点积，共 64 项之和。",
        ],
        [
            "The score matrix ",
            M("QK^{\\mathsf T}"),
            " is ",
            M("5\\times 5"),
            ": its entry ",
            M("(i,j)"),
            " is the dot product of the query of token ",
            M("i"),
            " with the key of token ",
            M("j"),
            ", a sum of 64 products.",
        ],
    )
    b.prove(
        Derivation(s5.scores[i, j], title="6.1 score entry at d_k = 64")
        .step(sympy.Sum(s5.Q[i, r] * s5.K[j, r], (r, 1, 64)), by="mul_transpose_apply")
        .step(Dot(s5.Q.row(i), s5.K.row(j)), by="dot_def"),
        witnesses=("symbolic", "numeric"),
    )
    cells = [[f"q_{a}\\cdot k_{c}" for c in range(1, 6)] for a in range(1, 6)]
    b.display("QK^{\\mathsf T} = " + _labelled(cells))
    _weights(b)
    _outputs(b, s5)
    b.say(
        ["句子更长时只有行数和列数改变。完整的句子有七块，", M("n=7"), " 时："],
        [
            "A longer input changes only the numbers of rows and columns. The whole sentence has "
            "seven chunks; with ",
            M("n=7"),
            ":",
        ],
    )
    b.shapes(
        [
            ("QK^{\\mathsf T}", n7.scores, (7, 7)),
            ("A", n7.A, (7, 7)),
            ("Z = AV", n7.A @ n7.V, (7, d_v)),
        ]
    )
    return b.section()


def _labelled(cells: list[list[str]]) -> str:

    return labelled_matrix(cells, list(TOKENS), list(TOKENS))


def _weights(b: Builder) -> None:
    b.say(
        [
            "缩放、因果掩码和逐行 softmax 之后得到权重矩阵 ",
            M("A"),
            "。下面是一个假设的权重矩阵，只用来展示结构（数值是编造的）：行是发出注意的词元，"
            "列是被注意的词元。",
        ],
        [
            "Scaling, the causal mask and a row-wise softmax turn the scores into the weight "
            "matrix ",
            M("A"),
            ". Below is a hypothetical weight matrix, made up only to show "
            "the structure: rows are the attending tokens, columns the attended ones.",
        ],
    )
    b.display("A = " + exact_matrix(WEIGHTS, TOKENS))
    b.check(
        ["对角线以上的元素都是 0：每个词元只看它自己和它前面的词元"],
        ["every entry above the diagonal is 0: each token sees only itself and earlier tokens"],
        lower_triangular(WEIGHTS),
    )
    b.check(["每一行的和恰好为 1"], ["each row sums to exactly 1"], rows_sum_to_one(WEIGHTS))
    b.check(
        ["对角线及其以下的元素都为正，与掩码后的 softmax 一致"],
        ["entries on and below the diagonal are positive, as a masked softmax makes them"],
        positive_on_and_below_diagonal(WEIGHTS),
    )
    b.figure(
        "fig-6-1-weights",
        WEIGHTS,
        TOKENS,
        Text(
            "假设的因果注意力权重（行：查询，列：键）",
            "Hypothetical causal attention weights (rows: queries, columns: keys)",
        ),
    )


def _outputs(b: Builder, s5) -> None:
    i, j = index("i"), index("j")
    causal = single_head(n=5, d_k=64, causal=True)
    A = s5.A
    b.say(
        [
            "输出 ",
            M("Z=AV"),
            " 的第 ",
            M("i"),
            " 行是各值向量的加权和，权重取自 ",
            M("A"),
            " 的第 ",
            M("i"),
            " 行：",
        ],
        [
            "Row ",
            M("i"),
            " of the output ",
            M("Z=AV"),
            " is a weighted sum of the value vectors, with the weights of row ",
            M("i"),
            " of ",
            M("A"),
            ":",
        ],
    )
    b.prove(
        Derivation(s5.Z.row(i), title="6.1 z_i at n = 5", defs={s5.Z: A @ s5.V})
        .step((A @ s5.V).row(i), by="def")
        .step(MatSum(Scale(A[i, j], s5.V.row(j)), j, 1, 5), by="mul_row"),
        witnesses=("symbolic", "numeric"),
    )
    b.say(
        ["因果掩码下求和只到 ", M("j=i"), "（这一步对 ", M("n=5"), " 的符号权重证明）："],
        [
            "Under the causal mask the sum stops at ",
            M("j=i"),
            " (proved here for symbolic weights at ",
            M("n=5"),
            "):",
        ],
    )
    Ac = causal.A
    b.prove(
        Derivation(
            causal.Z.row(i),
            title="6.1 causal z_i at n = 5",
            defs={causal.Z: Ac @ causal.V, Ac: causal.weights},
        )
        .step((Ac @ causal.V).row(i), by="def")
        .step(MatSum(Scale(Ac[i, j], causal.V.row(j)), j, 1, i), by="softmax_mask_mul_row"),
        witnesses=("symbolic", "numeric"),
    )
    rows = []
    for a in range(1, 6):
        terms = [
            (WEIGHTS[a - 1, c - 1], causal.V.row(c))
            for c in range(1, 6)
            if WEIGHTS[a - 1, c - 1] != 0
        ]
        rhs = " + ".join((latex(w) if w != 1 else "") + latex(v) for w, v in terms)
        rows.append((f"z_{a} &= {rhs}", None))
    b.say(
        ["代入上面假设的权重，五个输出向量是："],
        ["With the hypothetical weights above, the five outputs are:"],
    )
    b.display(
        "Z = \\begin{bmatrix} z_1\\\\ z_2\\\\ z_3\\\\ z_4\\\\ z_5 \\end{bmatrix},\\qquad "
        "\\begin{aligned}\n" + " \\\\\n".join(t for t, _ in rows) + "\n\\end{aligned}"
    )


if __name__ == "__main__":
    raise SystemExit(main(content))
