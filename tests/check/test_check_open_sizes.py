"""A false verdict that rests only on a size the shape inference left open for names the text
never declares (a width of its own for Q_R, where the text means d_k) is undecided, saying
which size would make the claim hold; a claim false for every such size stays false."""

from __future__ import annotations

from claim_helpers import results

ROTATED = "The rotated queries $Q_R$ and keys $K_R$ replace $Q$ and $K$:\n\n"


def one(text: str):
    (r,) = results(text)
    return r


def test_the_scaled_attention_of_rotated_names_is_no_false_alarm():
    r = one(
        ROTATED + "$$\\text{Attention}(Q_R, K_R, V) = "
        "\\text{softmax}\\left(\\frac{Q_R K_R^T}{\\sqrt{d_k}}\\right) V$$\n"
    )
    assert r.kind == "undecided"
    assert "it holds with cols(Q_R) = d_k" in r.message


def test_a_dropped_transpose_stays_false_whatever_the_open_sizes():
    r = one(
        ROTATED + "$$\\text{Attention}(Q_R, K_R, V) = "
        "\\text{softmax}\\left(\\frac{K_R Q_R^T}{\\sqrt{d_k}}\\right) V$$\n"
    )
    assert r.kind in ("false", "shape-error")


def test_a_declared_width_decides_the_same_claim():
    text = (
        "Let $Q_R, K_R \\in \\mathbb{R}^{n \\times d_k}$.\n\n$$\\text{Attention}(Q_R, K_R, V) = "
        "\\text{softmax}\\left(\\frac{Q_R K_R^T}{\\sqrt{d_k}}\\right) V$$\n"
    )
    assert [r.kind for r in results(text)][-1] == "verified"
