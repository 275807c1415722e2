"""Textbook LaTeX of the modern-attention nodes (symattn.kernel.modern): golden strings."""

from __future__ import annotations

import pytest
import sympy

from symattn.kernel.dims import d_k, d_v, dim, n
from symattn.kernel.expr import CausalMask, MatSym, Softmax
from symattn.kernel.modern import (
    CausalZero,
    FeatureMap,
    FirstRows,
    OnlineSoftmax,
    PadMask,
    RepeatKV,
    Rope,
    alibi,
)
from symattn.latex.printer import latex
from symattn.soundness.identities import identities

G, R, D, p = (dim(s) for s in "GRDp")
lam = sympy.Symbol("lambda", positive=True)
S, Q, K, V = MatSym("S", n, n), MatSym("Q", n, d_k), MatSym("K", n, d_k), MatSym("V", n, d_v)

GOLDEN = [
    (
        Softmax(CausalMask(S + alibi(n, lam))),
        r"\operatorname{softmax}(S + \Delta_{\mathrm{ALiBi}}(\lambda) + M)",
    ),
    (Softmax(PadMask(MatSym("S", n, 5), 3, 2)), r"\operatorname{softmax}(S + P_{3})"),
    (
        CausalZero(FeatureMap("phi", Q, D) @ FeatureMap("phi", K, D).T) @ V,
        r"(\phi(Q)\phi(K)^{\mathsf T} \odot L)V",
    ),
    (FirstRows(MatSym("K", n + 1, d_k), n), r"K_{1:n}"),
    ((Q @ K.T) @ V, r"QK^{\mathsf T}V"),
    (Q @ (K.T @ V), r"Q(K^{\mathsf T}V)"),
    (RepeatKV(MatSym("K", n, G * d_k), G, R, d_k), r"\operatorname{repeat}_{R}(K)"),
    (RepeatKV(MatSym("K", n, G * d_k), G, R, d_k, "tile"), r"\operatorname{tile}_{R}(K)"),
    (Rope(MatSym("q", p, 2), sympy.Symbol("m", real=True)), r"\mathcal R(m)q"),
    (
        OnlineSoftmax(MatSym("S", n, 3), MatSym("V", 3, d_v), (1, 2)),
        r"\operatorname{online}_{1,2}(S, V)",
    ),
    (
        OnlineSoftmax(MatSym("S", n, 3), MatSym("V", 3, d_v), (1, 2), rescale=False),
        r"\operatorname{online}^{\times}_{1,2}(S, V)",
    ),
]


@pytest.mark.parametrize(("expr", "expected"), GOLDEN, ids=[g[1] for g in GOLDEN])
def test_golden(expr, expected) -> None:
    assert latex(expr) == expected


@pytest.mark.parametrize("claim", identities(), ids=lambda c: c.name)
def test_every_identity_prints(claim) -> None:
    text = latex(claim.lhs) + latex(claim.rhs)
    assert "MatSym" not in text and "(" in text


def test_a_recurrences_member_prints_as_the_text_writes_it() -> None:
    from symattn.kernel.expr import MatAdd, Row, index
    from symattn.kernel.unfold import member, zeros

    t = index("t")
    K, V = MatSym("K", n, d_k), MatSym("V", n, d_v)
    prev = MatSym("S_before", d_k, d_v)
    s = member("S", t, zeros(d_k, d_v), MatAdd(prev, Row(K, t).T @ Row(V, t)), prev, t)
    assert latex(s) == "S_{t}"
    assert latex(s.at(t - 1)) == "S_{t - 1}"
