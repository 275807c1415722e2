"""Jupyter hooks in-process: LaTeX of expressions and proofs, HTML of verdicts with badges."""

from __future__ import annotations

import pytest
import sympy

from symattn import Derivation, Dot, index, prove_equal, single_head
from symattn.kernel.proof import Verdict
from symattn.notebook import register, rendered, verdict_html

IPython = pytest.importorskip("IPython")  # a test dependency (pyproject [test]); not our module

S = single_head()
i, j, r = index("i"), index("j"), index("r")


class _Shell:
    """What `register` needs of an IPython shell: its display formatter."""

    def __init__(self):
        from IPython.core.formatters import DisplayFormatter

        self.display_formatter = DisplayFormatter()


def shown(obj):
    """{mime: text} as a registered IPython shell would show `obj`."""
    shell = _Shell()
    register(shell)
    data, _ = shell.display_formatter.format(obj)
    return data


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
    assert shown(expr)["text/latex"] == latex


def test_scalars_render_through_rendered():
    assert rendered(S.scores[i, j])._repr_latex_() == r"$(QK^{\mathsf T})_{ij}$"
    assert repr(rendered(Dot(S.Q.row(i), S.K.row(j)))) == "q_i·k_j"


def test_verdict_html_has_status_and_witness_badges():
    html = shown(prove_equal(S.scores[i, j], Dot(S.Q.row(i), S.K.row(j))))["text/html"]
    for word in (">proved<", ">symbolic<", ">exact<", ">numeric<"):
        assert word in html
    assert "counterexample" not in html


def test_false_verdict_html_shows_the_counterexample():
    html = shown(prove_equal(S.scores[i, j], Dot(S.Q.row(j), S.K.row(i))))["text/html"]
    assert ">false<" in html and "<b>counterexample</b>: at sizes" in html


def test_verdict_html_escapes_text():
    html = verdict_html(Verdict("unknown", reason="a < b & <script>"))
    assert "<script>" not in html and "a &lt; b &amp; &lt;script&gt;" in html


def test_proof_renders_as_align_and_as_a_table():
    p = _proof()
    data = shown(p)
    latex = data["text/latex"]
    assert latex.startswith(r"\begin{align*}") and r"\text{(dot\_def)}" in latex
    html = data["text/html"]
    assert "score &lt;entry&gt;" in html  # the title is escaped
    assert html.count("<tr>") == 3 and "<code>mul_transpose_apply</code>" in html
    assert "for all sizes" in html


def test_an_unregistered_shell_shows_plain_text_only():
    from IPython.core.formatters import DisplayFormatter

    for expr, text in ((S.Q, "Q"), (S.scores, "QK^T")):
        data, _ = DisplayFormatter().format(expr)
        assert data == {"text/plain": text}


def test_import_registers_with_a_running_ipython(monkeypatch):
    import symattn

    shell = _Shell()
    monkeypatch.setattr(IPython, "get_ipython", lambda: shell)
    symattn._register_with_a_running_ipython()
    assert shell.display_formatter.format(S.scores)[0]["text/latex"] == r"$QK^{\mathsf T}$"
