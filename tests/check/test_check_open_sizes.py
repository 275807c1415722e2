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


# ---- a sequence defined by a formula the checker keeps as a premise ------------------------

SOFTMAX_P = (
    "Let $p_i = e^{\\alpha s_i}/Z$ with the normaliser $Z$.\n\n"
    "Then $$\\sum_{i=1}^n p_i(1-p_i) = \\sum_{i=1}^n p_i - \\sum_{i=1}^n p_i^2$$\n\n"
)


def test_a_claim_that_needs_the_definition_of_a_premised_sequence_is_undecided():
    r = results(
        SOFTMAX_P + "$$\\sum_{i=1}^n p_i - \\sum_{i=1}^n p_i^2 = 1 - \\sum_{i=1}^n p_i^2$$\n"
    )
    assert [x.kind for x in r] == ["verified", "undecided"]
    assert "reading p_i (line 1) as free numbers" in r[1].message


def test_without_a_definition_of_p_the_same_claim_is_not_verified():
    # the same claim without a definition of p_i: free numbers, for which it fails
    r = results("$$\\sum_{i=1}^n p_i - \\sum_{i=1}^n p_i^2 = 1 - \\sum_{i=1}^n p_i^2$$\n")
    assert [x.kind for x in r] != ["verified"]


# ---- the chapter's A in a text that never defines it -----------------------------------------


def test_a_causal_unscaled_weight_against_the_chapters_a_is_undecided():
    text = (
        "The output is $$o_i = \\sum_{j=1}^i a_{i,j}v_j = "
        "\\frac{\\sum_{j=1}^i e^{q_i\\cdot k_j} v_j}{\\sum_{j=1}^i e^{q_i\\cdot k_j}}$$\n"
    )
    kinds = [x.kind for x in results(text)]
    assert "false" not in kinds and "shape-error" not in kinds


def test_the_same_weights_in_a_text_that_declares_the_chapters_names_stay_false():
    text = (
        "Let $Q, K \\in \\mathbb{R}^{n\\times d_k}$ and $V \\in \\mathbb{R}^{n\\times d_v}$, "
        "and $A = \\operatorname{softmax}(QK^T/\\sqrt{d_k})$.\n\n"
        "$$\\sum_{j=1}^n a_{i,j}v_j = "
        "\\frac{\\sum_{j=1}^n e^{q_i\\cdot k_j} v_j}{\\sum_{j=1}^n e^{q_i\\cdot k_j}}$$\n"
    )
    assert [x.kind for x in results(text)][-1] == "false"
