"""Golden table of the textbook printer: kernel expression -> exact LaTeX, one row each."""

from __future__ import annotations

import pytest
import sympy

from symattn.kernel.attention import multi_head, single_head
from symattn.kernel.dims import H, d, d_k, d_v, n
from symattn.kernel.expr import (
    ColSoftmax,
    Dot,
    Entry,
    FromColumn,
    HeadSym,
    MatSum,
    MatSym,
    Ones,
    Scale,
    Softmax,
    expand_entries,
    index,
)
from symattn.latex.printer import latex, shape_latex, symbol_latex, written_order

i, j, k, r, u, h = (index(x) for x in "ijkruh")
S = single_head()
C = single_head(causal=True)
Q, K, V, A, X, Z = S.Q, S.K, S.V, S.A, S.X, S.Z
MH = multi_head()
SM = MatSym("S", n, n)
SMALL = single_head(n=2, d_k=3)

GOLDEN = [
    (Q @ K.T, r"QK^{\mathsf T}"),
    (S.scaled, r"\frac{QK^{\mathsf T}}{\sqrt{d_k}}"),
    (S.weights, r"\operatorname{softmax}\left(\frac{QK^{\mathsf T}}{\sqrt{d_k}}\right)"),
    (C.weights, r"\operatorname{softmax}\left(\frac{QK^{\mathsf T}}{\sqrt{d_k}} + M\right)"),
    (S.output, r"\operatorname{softmax}\left(\frac{QK^{\mathsf T}}{\sqrt{d_k}}\right)V"),
    (A @ V, "AV"),
    (X @ S.W_Q, "XW_Q"),
    (S.scores[i, j], r"(QK^{\mathsf T})_{ij}"),
    (S.scaled[i, j], r"\left(\frac{QK^{\mathsf T}}{\sqrt{d_k}}\right)_{ij}"),  # tall: sized
    (expand_entries(S.scores[i, j]), r"\sum_{r=1}^{d_k} Q_{ir}K_{jr}"),
    (sympy.Sum(K[j, r] * Q[i, r], (r, 1, d_k)), r"\sum_{r=1}^{d_k} Q_{ir}K_{jr}"),
    (Dot(Q.row(i), K.row(j)), r"q_i\cdot k_j"),
    (sympy.Sum(V[j, u] * A[i, j], (j, 1, n)), r"\sum_{j=1}^{n} a_{ij}V_{ju}"),
    (MatSum(Scale(A[i, j], V.row(j)), j, 1, n), r"\sum_{j=1}^{n} a_{ij}v_j"),
    (MatSum(Scale(A[i, j], V.row(j)), j, 1, i), r"\sum_{j=1}^{i} a_{ij}v_j"),
    (Z.row(i), "z_i"),
    ((A @ V).row(i), "(AV)_{i,:}"),
    (A[i, j], "a_{ij}"),
    (MH.concat, r"\operatorname{Concat}(Z^{(1)},\ldots,Z^{(H)})"),
    (MH.output, r"\operatorname{Concat}(Z^{(1)},\ldots,Z^{(H)})W_O"),
    (MH.blockwise, r"\sum_{h=1}^{H} Z^{(h)}W_O^{(h)}"),
    (MH.residual, r"X + \operatorname{Concat}(Z^{(1)},\ldots,Z^{(H)})W_O"),
    (MH.W_O_block(h), "W_O^{(h)}"),
    (HeadSym("W_Q", h, d, d_k), "W_Q^{(h)}"),
    (HeadSym("Q", h, n, d_k) @ HeadSym("K", h, n, d_k).T, r"Q^{(h)}K^{(h)\mathsf T}"),
    (multi_head(H=2).concat, r"\operatorname{Concat}(Z^{(1)},Z^{(2)})"),
    (
        expand_entries(MH.output[i, j]),
        r"\sum_{g=1}^{H}\sum_{u=1}^{d_v} Z^{(g)}_{iu}(W_O)_{(g-1)d_v+u,j}",
    ),
    (Entry(MH.W_O, (h - 1) * d_v + u, j), "(W_O)_{(h-1)d_v+u,j}"),
    (
        sympy.exp(SM[i, j]) / sympy.Sum(sympy.exp(SM[i, k]), (k, 1, n)),
        r"\frac{\exp(S_{ij})}{\sum_{k=1}^{n} \exp(S_{ik})}",
    ),
    (Softmax(SM)[i, j], r"\operatorname{softmax}(S)_{ij}"),
    (ColSoftmax(SM), r"\operatorname{softmax}_{\mathrm{col}}(S)"),
    (
        Softmax(SM + FromColumn("c", n, n)),
        r"\operatorname{softmax}(S + c\mathbf 1_{n}^{\mathsf T})",
    ),
    (SM @ Ones(n, 1), r"S\mathbf 1_{n}"),
    (
        expand_entries(SMALL.scores[1, 1]).doit(),
        "Q_{11}K_{11} + Q_{12}K_{12} + Q_{13}K_{13}",
    ),
    (
        X.row(i) @ S.W_Q @ S.W_K.T @ X.row(j).T,
        r"x_iW_QW_K^{\mathsf T}x_j^{\mathsf T}",
    ),
    (sympy.Sum(Q[i, r], (r, 1, d_k - 1)), r"\sum_{r=1}^{d_k - 1} Q_{ir}"),
    (H * d_v, "Hd_v"),
    (n**2 * d_k, "n^{2}d_k"),
    (n * d * d_k, r"n\,d\,d_k"),
    (sympy.sqrt(d_k), r"\sqrt{d_k}"),
    (sympy.Rational(3, 10), r"\frac{3}{10}"),
    (-Q, "-Q"),
    (Q - K, "Q - K"),
    (
        sympy.Piecewise((sympy.exp(SM[i, j]), sympy.Le(j, i)), (0, True)),
        "\\begin{cases}\n\\exp(S_{ij}) & j \\le i \\\\\n0 & \\text{otherwise}\n\\end{cases}",
    ),
]


@pytest.mark.parametrize(("expr", "expected"), GOLDEN, ids=[e for _, e in GOLDEN])
def test_golden(expr, expected):
    assert latex(expr) == expected


@pytest.mark.parametrize(
    ("shape", "expected"),
    [
        ((n, d_k), r"\mathbb R^{n\times d_k}"),
        ((n, H * d_v), r"\mathbb R^{n\times Hd_v}"),
        ((H * d_v, d), r"\mathbb R^{Hd_v\times d}"),
        ((5, 64), r"\mathbb R^{5\times 64}"),
        ((n + 1, d_v), r"\mathbb R^{(n + 1)\times d_v}"),
    ],
)
def test_shape_latex(shape, expected):
    assert shape_latex(shape) == expected


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"transpose": r"\top"}, r"QK^{\top}"),
        ({"transpose": "T"}, "QK^{T}"),
        ({"names": {"K": "K'"}}, r"QK'^{\mathsf T}"),
        ({"names": {Q @ K.T: "S"}}, "S"),
    ],
)
def test_options(options, expected):
    assert latex(Q @ K.T, **options) == expected


def test_bold_rows_and_dot():
    assert latex(Dot(Q.row(i), K.row(j)), bold=True) == r"\mathbf q_i\cdot \mathbf k_j"


def test_renamed_bound_index():
    assert latex(expand_entries(S.scores[i, j]), names={"r": "s"}) == (
        r"\sum_{s=1}^{d_k} Q_{is}K_{js}"
    )


def test_factor_order_follows_the_order_argument():
    e = sympy.Sum(Q[i, r] * K[j, r], (r, 1, d_k))
    assert latex(e, order=("K", "Q")) == r"\sum_{r=1}^{d_k} K_{jr}Q_{ir}"
    assert written_order(S.output) == ("Q", "K", "V")


def test_piecewise_otherwise_in_chinese():
    pw = sympy.Piecewise((sympy.exp(SM[i, j]), sympy.Le(j, i)), (0, True))
    assert r"\text{其他}" in latex(pw, lang="zh")


@pytest.mark.parametrize(
    ("name", "expected"),
    [("r", "r"), ("r1", "r'"), ("r2", "r''"), ("W_Q", "W_Q"), ("W_QK", "W_{QK}")],
)
def test_symbol_names(name, expected):
    assert symbol_latex(name) == expected


SYMPY_ISMS = ("i_{1}", "- 1 + d_{k}", "_{0}", "=0}")


@pytest.mark.parametrize(("expr", "expected"), GOLDEN[:20])
def test_no_sympy_isms(expr, expected):
    out = latex(expr)
    assert not any(bad in out for bad in SYMPY_ISMS), out


@pytest.mark.parametrize(
    ("order", "expected"),
    [
        ((), r"\left(\frac{QK^{\mathsf T}}{\sqrt{d_k}}\right)_{ij} + B_{ij}"),
        (("Q", "K", "B"), r"\left(\frac{QK^{\mathsf T}}{\sqrt{d_k}}\right)_{ij} + B_{ij}"),
        (("B",), r"B_{ij} + \left(\frac{QK^{\mathsf T}}{\sqrt{d_k}}\right)_{ij}"),
    ],
)
def test_an_entry_of_a_compound_ranks_by_its_first_written_matrix(order, expected):
    s = single_head()
    i, j = index("i"), index("j")
    B = MatSym("B", n, n)
    assert latex((s.scores / sympy.sqrt(s.Q.cols))[i, j] + B[i, j], order=order) == expected
