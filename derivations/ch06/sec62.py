"""Section 6.2: general n — shapes, scores as dot products, A = softmax(QK^T/sqrt(d_k)), Z = AV.

A script on the public API (symattn, symattn.derive, symattn.latex); must not import the reader,
check or cli. Every formula shown is checked here.
"""

from __future__ import annotations

import sympy

from symattn import (
    Derivation,
    Dot,
    Entry,
    MatSum,
    Scale,
    Softmax,
    d,
    d_k,
    d_v,
    index,
    n,
    prove_positive,
    single_head,
)
from symattn.derive import Builder, OnCheck, Section, Text, main
from symattn.latex.document import Math as M


def content(on_check: OnCheck | None = None) -> Section:
    """Section 6.2, checked.

    Checking takes seconds; tests/derive runs it. The result is a `Section`:

    >>> content.__annotations__["return"]
    'Section'
    """
    b = Builder(
        "6.2",
        Text(["任意长度 ", M("n"), " 的矩阵形式"], ["The matrix form for any length ", M("n")]),
        on_check,
    )
    s = single_head()
    Q, K, V, A, X, Z = s.Q, s.K, s.V, s.A, s.X, s.Z
    i, j, k = index("i"), index("j"), index("l")
    b.say(
        [
            "现在让输入长度 ",
            M("n"),
            " 保持为符号。",
            M("X"),
            " 的每一行是一个词元的向量，三个投影"
            "矩阵把它们变成查询、键和值；下面每个形状都由内核严格计算：维度必须可证相等，"
            "而不只是“看不出不同”。",
        ],
        [
            "Now let the length ",
            M("n"),
            " stay a symbol. Each row of ",
            M("X"),
            " is one token; "
            "three projection matrices turn the rows into queries, keys and values. The kernel "
            "computes every shape below strictly: dims must be provably equal, not merely not "
            "known to differ.",
        ],
    )
    b.shapes(
        [
            ("X", X, (n, d)),
            ("Q = XW_Q", X @ s.W_Q, (n, d_k)),
            ("K = XW_K", X @ s.W_K, (n, d_k)),
            ("V = XW_V", X @ s.W_V, (n, d_v)),
            ("QK^{\\mathsf T}", s.scores, (n, n)),
            (
                "A = \\operatorname{softmax}\\left(\\frac{QK^{\\mathsf T}}{\\sqrt{d_k}}\\right)",
                s.weights,
                (n, n),
            ),
            ("Z = AV", A @ V, (n, d_v)),
        ]
    )
    b.say(
        [
            "一次矩阵乘法给出所有词元两两之间的分数：",
            M("QK^{\\mathsf T}"),
            " 的 ",
            M("(i,j)"),
            " 元是第 ",
            M("i"),
            " 个查询与第 ",
            M("j"),
            " 个键的点积。",
        ],
        [
            "One matrix product gives the scores of every pair of tokens: entry ",
            M("(i,j)"),
            " of ",
            M("QK^{\\mathsf T}"),
            " is the dot product of query ",
            M("i"),
            " and key ",
            M("j"),
            ".",
        ],
    )
    b.prove(
        Derivation(s.scores[i, j], title="6.2 scores are dot products").step(
            Dot(Q.row(i), K.row(j)), by="mul_transpose_apply_dot"
        )
    )
    b.say(
        ["权重按行做 softmax，每个分数先除以 ", M("\\sqrt{d_k}"), "："],
        ["The weights are a row-wise softmax of the scores divided by ", M("\\sqrt{d_k}"), ":"],
    )
    scaled_dot = [Dot(Q.row(i), K.row(x)) / sympy.sqrt(d_k) for x in (j, k)]
    b.prove(
        Derivation(A[i, j], title="6.2 entries of A", defs={A: s.weights})
        .step(s.weights[i, j], by="def")
        .step(
            sympy.exp(Entry(s.scores, i, j) / sympy.sqrt(d_k))
            / sympy.Sum(sympy.exp(Entry(s.scores, i, k) / sympy.sqrt(d_k)), (k, 1, n)),
            by="softmax_apply",
        )
        .step(
            sympy.exp(scaled_dot[0]) / sympy.Sum(sympy.exp(scaled_dot[1]), (k, 1, n)),
            by="mul_transpose_apply_dot",
        )
    )
    b.say(
        ["把两步合起来就是注意力公式："],
        ["Putting the two products together gives the attention formula:"],
    )
    b.prove(
        Derivation(Z, title="6.2 the attention formula", defs={Z: A @ V, A: s.weights})
        .step(A @ V, by="def")
        .step(Softmax(s.scaled) @ V, by="def")
    )
    b.display(
        "\\operatorname{Attention}(Q,K,V) = "
        "\\operatorname{softmax}\\left(\\frac{QK^{\\mathsf T}}{\\sqrt{d_k}}\\right)V"
    )
    _convex(b, s)
    _input_dependence(b, s)
    return b.section()


def _convex(b: Builder, s) -> None:
    i, j = index("i"), index("j")
    A, V, Z = s.A, s.V, s.Z
    b.say(
        ["softmax 的每个值都是正数除以正数："],
        ["Every softmax value is a positive number divided by a positive number:"],
    )
    b.fact(
        [M("a_{ij} > 0"), " 对所有 ", M("i, j"), " 成立"],
        [M("a_{ij} > 0"), " for all ", M("i, j")],
        prove_positive(s.weights),
    )
    b.prove(
        Derivation(
            sympy.Sum(A[i, j], (j, 1, s.Q.rows)),
            title="6.2 rows of A sum to 1",
            defs={A: s.weights},
        ).step(sympy.Integer(1), by="sum_softmax_apply")
    )
    b.say(
        ["因此 ", M("z_i"), " 是值向量 ", M("v_1,\\ldots,v_n"), " 的凸组合：系数为正且和为 1。"],
        [
            "So ",
            M("z_i"),
            " is a convex combination of the value vectors ",
            M("v_1,\\ldots,v_n"),
            ": the coefficients are positive and sum to 1.",
        ],
    )
    b.prove(
        Derivation(Z.row(i), title="6.2 z_i is a weighted sum of values", defs={Z: A @ V})
        .step((A @ V).row(i), by="def")
        .step(MatSum(Scale(A[i, j], V.row(j)), j, 1, s.Q.rows), by="mul_row")
    )


def _input_dependence(b: Builder, s) -> None:
    i, j = index("i"), index("j")
    X, W_Q, W_K = s.X, s.W_Q, s.W_K
    b.say(
        [
            "训练结束后 ",
            M("W_Q, W_K, W_V"),
            " 是固定的参数，而 ",
            M("A"),
            " 随输入改变：把 ",
            M("Q=XW_Q"),
            "、",
            M("K=XW_K"),
            " 代入，分数直接由输入的两行给出。",
        ],
        [
            M("W_Q, W_K, W_V"),
            " are parameters, fixed once trained; ",
            M("A"),
            " changes with the input. Substituting ",
            M("Q=XW_Q"),
            " and ",
            M("K=XW_K"),
            " shows each score is computed from two rows of the input:",
        ],
    )
    b.prove(
        Derivation(
            s.scores[i, j],
            title="6.2 scores depend on the input",
            defs={s.Q: X @ W_Q, s.K: X @ W_K},
        ).step(Entry(X.row(i) @ W_Q @ W_K.T @ X.row(j).T, 1, 1), by="algebra"),
        witnesses=("symbolic", "numeric"),
    )


if __name__ == "__main__":
    raise SystemExit(main(content))
