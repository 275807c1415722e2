"""False alarms of classes seen in texts nobody here wrote: each class with a made-up snippet
that must not raise an alarm, beside a variant whose alarm is real and must stay."""

from __future__ import annotations

import pytest

from symattn.check import check_text

ALARMS = ("false", "shape-error", "malformed")
DECLARED = (
    "Let $Q \\in \\mathbb{R}^{n\\times d_k}$, $K \\in \\mathbb{R}^{n\\times d_k}$ and "
    "$V \\in \\mathbb{R}^{n\\times d_v}$.\n\n"
)


def results(text: str):
    return [r for r in check_text(text, "p.md") if r.kind != "not-a-claim"]


def alarms(text: str):
    return [r for r in results(text) if r.kind in ALARMS]


@pytest.mark.parametrize(
    "sentence",
    [
        "If we set $X = V = K = Q$, then the layer attends to itself.",
        "Instead of saying $V = K = Q = X$, we say that the three are one.",
        "Instead of writing $V = K$, we keep them apart.",
        "Setting $V = K$ gives a symmetric layer.",
        "If we choose $K = V$ the two coincide.",
    ],
)
def test_a_supposition_is_not_an_alarm(sentence):
    assert alarms(DECLARED + sentence + "\n") == []


def test_the_same_identity_asserted_is_still_a_shape_error():
    rs = alarms(DECLARED + "Here $V = K$ holds.\n")
    assert [r.kind for r in rs] == ["shape-error"]


def test_a_definition_after_let_that_does_not_typecheck_stays_a_shape_error():
    rs = alarms(DECLARED + "Let $Y = QK$ be the scores.\n")
    assert [r.kind for r in rs] == ["shape-error"]


@pytest.mark.parametrize(
    "formula",
    [
        "2 \\cdot 1024 \\cdot 64 \\cdot 1024 = 256\\text{MB}",  # MiB, of 2-byte elements
        "2 \\cdot 4 = 8\\,\\mathrm{ms}",
        "3 \\cdot 4 = 12 \\text{ MB}",  # the left side in MB
        "4 \\cdot 1000 = 4\\text{K tokens}",
        "4000 = 4 \\text{ thousand tokens}",
    ],
)
def test_a_number_with_a_unit_is_not_a_number_equation(formula):
    rs = results(f"The cache takes ${formula}$ of memory.\n")
    assert [r.kind for r in rs] == ["undecided"]
    assert "unit" in rs[0].message


def test_a_number_equation_without_a_unit_is_still_decided():
    rs = results("It takes $2 \\cdot 4 = 9$ and $2 \\cdot 4 = 8$ and $2h = 4$ steps.\n")
    assert [r.kind for r in rs][:2] == ["false", "verified"]


@pytest.mark.parametrize(
    "formula",
    [
        "e^{ix} = \\cos(x) + i\\sin(x)",
        "e^{i\\theta} = \\cos\\theta + i\\sin\\theta",
    ],
)
def test_a_bare_i_is_the_imaginary_unit_of_eulers_formula(formula):
    rs = results(f"Recall Euler's formula ${formula}$.\n")
    assert [r.kind for r in rs] == ["verified"]
    assert "i as the imaginary unit" in rs[0].message


def test_a_bare_j_may_be_the_imaginary_unit():
    rs = results("Recall Euler's formula $e^{-j\\omega} = \\cos\\omega - j\\sin\\omega$.\n")
    assert [r.kind for r in rs] == ["undecided"]
    assert "imaginary unit" in rs[0].message


def test_a_false_identity_without_i_is_still_false():
    rs = results("Recall $(a+b)^2 = a^2 + b^2$.\n")
    assert [r.kind for r in rs] == ["false"]


def test_a_dropped_transpose_between_queries_and_keys_stays_a_shape_error():
    text = "$$\\operatorname{Attention}(Q,K,V)=\\operatorname{softmax}(QK/\\sqrt{d_k})V$$\n"
    assert [r.kind for r in alarms(text)] == ["shape-error"]


def test_a_written_vector_sets_the_size_of_a_conventional_one():
    text = "Take $\\boldsymbol{v}_n = \\begin{pmatrix}1 \\\\ 0\\end{pmatrix}$ in the plane.\n"
    assert alarms(text) == []


def test_a_written_vector_against_a_size_the_text_gives_is_a_shape_error():
    text = (
        "Let $V \\in \\mathbb{R}^{n\\times 3}$.\n\n"
        "Then $\\boldsymbol{v}_n = \\begin{pmatrix}1 & 0\\end{pmatrix}$.\n"
    )
    assert [r.kind for r in alarms(text)] == ["shape-error"]


def test_a_written_vector_may_set_a_size_the_text_leaves_symbolic():
    text = (
        "Let $V \\in \\mathbb{R}^{n\\times d_k}$.\n\n"
        "Then $\\boldsymbol{v}_n^T = \\begin{pmatrix}1 \\\\ 0\\end{pmatrix}$.\n"
    )
    assert alarms(text) == []
