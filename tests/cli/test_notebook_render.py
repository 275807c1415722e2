"""Jupyter hooks in-process: LaTeX of expressions and proofs, HTML of verdicts with badges."""

from __future__ import annotations

import sys

import pytest
import sympy

from symattn import Derivation, Dot, index, prove_equal, single_head
from symattn.kernel.proof import Verdict
from symattn.notebook import rendered, tex, verdict_html

S = single_head()
i, j, r = index("i"), index("j"), index("r")


def _proof():
    return (
        Derivation(S.scores[i, j], title="score <entry>")
        .step(sympy.Sum(S.Q[i, r] * S.K[j, r], (r, 1, S.Q.cols)), by="mul_transpose_apply")
        .step(Dot(S.Q.row(i), S.K.row(j)), by="dot_def")
        .prove()
    )


@pytest.mark.parametrize(
    ("expr", "latex"),
    [
        (S.Q, "$Q$"),
        (S.scores, r"$QK^{\mathsf T}$"),
        (S.output, r"$\operatorname{softmax}\left(\frac{QK^{\mathsf T}}{\sqrt{d_k}}\right)V$"),
    ],
)
def test_matrix_expressions_render_as_latex(expr, latex):
    assert expr._repr_latex_() == latex


def test_scalars_render_through_rendered():
    assert rendered(S.scores[i, j])._repr_latex_() == r"$(QK^{\mathsf T})_{ij}$"
    assert repr(rendered(Dot(S.Q.row(i), S.K.row(j)))) == "q_i·k_j"


def test_without_the_printer_the_plain_text_is_shown(monkeypatch):
    monkeypatch.setitem(sys.modules, "symattn.latex.printer", None)
    assert tex(S.scores) == "QK^T"
    assert S.scores._repr_latex_() == "$QK^T$"
    assert tex(Dot(S.Q.row(i), S.K.row(j))) == r"q_i\cdot k_j"


def test_verdict_html_has_status_and_witness_badges():
    html = prove_equal(S.scores[i, j], Dot(S.Q.row(i), S.K.row(j)))._repr_html_()
    for word in (">proved<", ">symbolic<", ">exact<", ">numeric<"):
        assert word in html
    assert "counterexample" not in html


def test_false_verdict_html_shows_the_counterexample():
    html = prove_equal(S.scores[i, j], Dot(S.Q.row(j), S.K.row(i)))._repr_html_()
    assert ">false<" in html and "<b>counterexample</b>: at sizes" in html


def test_verdict_html_escapes_text():
    html = verdict_html(Verdict("unknown", reason="a < b & <script>"))
    assert "<script>" not in html and "a &lt; b &amp; &lt;script&gt;" in html


def test_proof_renders_as_align_and_as_a_table():
    p = _proof()
    latex = p._repr_latex_()
    assert latex.startswith(r"\begin{align*}") and r"\text{(dot\_def)}" in latex
    html = p._repr_html_()
    assert "score &lt;entry&gt;" in html  # the title is escaped
    assert html.count("<tr>") == 3 and "<code>mul_transpose_apply</code>" in html
    assert "for all sizes" in html
