"""Documents that type their math in Unicode (`Q ∈ ℝ^{n×d_k}`, `QKᵀ/√d_k`) or name quantities
in words (`\\text{scores}`) are checked as their TeX twins are: each with a true and a false use."""

from __future__ import annotations

import pytest
from claim_helpers import kinds, results

QKV = "Let $Q, K ∈ ℝ^{n×d_k}$ and $V ∈ ℝ^{n×d_v}$.\n\n"
QKV_TEX = r"Let $Q, K \in \mathbb{R}^{n\times d_k}$ and $V \in \mathbb{R}^{n\times d_v}$." + "\n\n"

PAIRS = [
    # (true, false)
    (
        r"$$\mathrm{Attention}(Q,K,V) = \mathrm{softmax}(QKᵀ/√d_k)V$$",
        r"$$\mathrm{Attention}(Q,K,V) = \mathrm{softmax}(QKᵀ/√d_v)V$$",
    ),
    (
        "$$(QKᵀ)_{ij} = ∑_{r=1}^{d_k} Q_{ir}K_{jr}$$",
        "$$(QKᵀ)_{ij} = ∑_{r=1}^{d_k} Q_{ir}K_{jr} + 1$$",
    ),
    (
        r"$$∑_{j=1}^{n} \mathrm{softmax}(QKᵀ)_{ij} = 1$$",
        r"$$∑_{j=1}^{n} \mathrm{softmax}(QKᵀ)_{ij} = 2$$",
    ),
]


@pytest.mark.parametrize(("true", "false"), PAIRS)
def test_unicode_claims_are_decided(true: str, false: str) -> None:
    assert kinds(QKV + true) == ["verified"]
    assert kinds(QKV + false) == ["false"]


@pytest.mark.parametrize(("true", "false"), PAIRS)
def test_unicode_reads_as_its_tex_twin(true: str, false: str) -> None:
    for claim in (true, false):
        tex = claim.replace("ᵀ", "^T").replace("√d_k", r"\sqrt{d_k}").replace("√d_v", r"\sqrt{d_v}")
        tex = tex.replace("∑", r"\sum ")
        assert kinds(QKV + claim) == kinds(QKV_TEX + tex)


def test_a_unicode_shape_claim_true_and_false():
    assert kinds(QKV + "$$QKᵀ ∈ ℝ^{n×n}$$") == ["verified"]
    assert kinds(QKV + "$$QKᵀ ∈ ℝ^{n×d_k}$$") == ["shape-error"]


def test_the_caret_is_under_the_glyph():
    (r,) = results("Then $a + ∘ b$ follows.")
    assert r.kind == "not-understood" and "∘" in r.message  # no left operand
    assert (r.line, r.col) == (1, 11)


def test_a_named_quantity_in_words_is_read():
    scores = QKV + "$$\\text{scores} = QK^T$$\n\n"
    assert kinds(scores + "$$\\text{scores}\\, K = Q$$") == ["undecided"]  # shapes agree
    (r,) = results(scores + "$$\\text{scores}\\, Q^T = Q$$")
    # read as one n × n name; a shape resting on a definition is not an error of the text
    assert r.kind == "not-understood"
    assert r.message.startswith("cannot multiply \\text{scores} (n × n) by Q^T (d_k × n)")


def test_a_condition_is_not_a_second_argument():
    # p(a|b) and p(a, b) are different functions: never equal by reading
    for doc in ("$$q = p(a|b) - p(a, b)$$", "$$p(a \\mid b) = p(a, b)$$"):
        assert all(k not in ("verified", "false") for k in kinds(doc))
    assert all("unbalanced" not in r.message for r in results("$$x = p(a \\mid b)$$"))
