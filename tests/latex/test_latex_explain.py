"""The explanation printer: golden LaTeX lines, the parting line, the counterexample as math."""

from __future__ import annotations

import pytest

from symattn.kernel.attention import single_head
from symattn.kernel.explain import explain
from symattn.kernel.expr import Dot, index
from symattn.kernel.witness.evidence import Counterexample
from symattn.latex.document import Math, render_prose
from symattn.latex.explain import counterexample_prose, explanation_document, explanation_lines

i, j = index("i"), index("j")
S = single_head()


def _tex(lines):
    return [tex for tex, _ in lines if not tex.startswith(r"&\qquad")]


def test_golden_lines_of_a_true_claim():
    lines = explanation_lines(explain(S.scores[i, j], Dot(S.Q.row(i), S.K.row(j))))
    assert _tex(lines) == [
        r"(QK^{\mathsf T})_{ij} &= \sum_{r=1}^{d_k} Q_{ir}(K^{\mathsf T})_{rj}",
        r"&= \sum_{r=1}^{d_k} Q_{ir}K_{jr}",
        r"&= q_i\cdot k_j",
    ]


@pytest.mark.parametrize(
    ("lang", "word"), [("en", "the two sides part here"), ("zh", "两边在此分开")]
)
def test_the_parting_line_is_a_neq_with_its_value(lang, word):
    e = explain(S.scores[i, j], Dot(S.Q.row(j), S.K.row(i)))
    text = explanation_document([("x", e)], lang).render_standalone()
    assert r"&\neq \sum_{r=1}^{d_k} Q_{jr}K_{ir}" in text
    assert word in text and r"\texttt{dot\_def}" in text


def test_counterexample_names_and_numbers_are_math_the_relations_text():
    c = Counterexample(
        (("d_k", 2),), (("i", 1),), (("W_O[1,2]", "-1"), ("Q[10,2]", "3/2")), "1", "0.25", True
    )
    pieces = counterexample_prose(c)
    maths = [p.latex for p in pieces if isinstance(p, Math)]
    assert maths == ["d_k", "2", "i", "1", "(W_O)_{12}", "-1", "Q_{10,2}", r"\frac{3}{2}"] + [
        "1",
        r"\approx",
        "0.25",
    ]
    assert " = " in pieces and not any(isinstance(p, Math) and "=" in p.latex for p in pieces)


@pytest.mark.parametrize(
    ("lang", "want"),
    [
        ("en", r"at \(h\) = \(3\), row \(2\), column \(1\), with"),
        (
            "zh",
            r"尺寸 \(n\) = \(2\)，\(d_k\) = \(3\)，位置 \(h\) = \(3\)，第 \(2\) 行第 \(1\) 列，取",
        ),
    ],
)
def test_the_entry_a_counterexample_points_at_is_named_in_the_pages_language(lang, want):
    c = Counterexample(
        (("n", 2), ("d_k", 3)),
        (("h", 3), ("row", 2), ("col", 1)),
        (("Q[2,1]", "1"),),
        "1",
        "0",
        True,
    )
    tex = render_prose(counterexample_prose(c, lang))
    assert want in tex and "text{row}" not in tex and "text{col}" not in tex


@pytest.mark.parametrize(
    ("key", "tex"),
    [
        ("E(S; b, b)[1,1]", r"(E_{S;\,b,b})_{11}"),
        ("E(S; 2, 3)[1,2]", r"(E_{S;\,2,3})_{12}"),
        ("phi(K)[1,2]", r"(\phi(K))_{12}"),
    ],
)
def test_the_running_maxima_of_an_online_softmax_are_named_as_math(key, tex):
    c = Counterexample((("b", 3),), (), ((key, "1"),), "1", "0", True)
    assert f"\\({tex}\\)" in render_prose(counterexample_prose(c))
