"""Head families the text writes with its own head letter (`W_q^{(s)}`): definitions read at
that letter, rows defined by the text, definitions of new families by them."""

from __future__ import annotations

import pytest

from symattn.check import check_text

HEADS = "$W_a^{(s)}, W_b^{(s)} \\in \\mathbb R^{d\\times d_k}$\n\n$$Q^{(s)} = X W_a^{(s)}$$\n\n"


def _last(text: str):
    got = [r for r in check_text(text, "t.md") if r.kind not in ("declaration", "prose")]
    return got[-1]


@pytest.mark.parametrize(
    ("claim", "kind"),
    [
        ("$$(Q^{(s)})^T = (W_a^{(s)})^T X^T$$", "verified"),
        ("$$(Q^{(s)})^T = W_a^{(s)} X^T$$", "shape-error"),  # a transpose dropped
        ("$$Q^{(s)} W_b^{(s)T} = X W_b^{(s)} W_a^{(s)T}$$", "false"),  # two factors swapped
    ],
)
def test_a_family_defined_at_its_own_head_letter_is_read_at_that_letter(
    claim: str, kind: str
) -> None:
    got = _last(HEADS + claim + "\n")
    assert got.kind == kind, got.message


def test_rows_of_a_conventional_head_family_read_as_their_definition_not_false() -> None:
    text = "$W_a^{(s)} \\in \\mathbb R^{d\\times d_k}$\n\n$$q^{(s)}_i = x_i W_a^{(s)}$$\n"
    got = _last(text)
    assert got.kind == "undecided", got.message
    assert "definition of the rows of Q^{(h)}" in got.message


# ---- head families the text never declares: a shape inferred for every head ----------------

UNDECLARED = "$X \\in \\mathbb R^{n\\times d}$\n\n$$Q^{(s)} = X W_a^{(s)}$$\n\n"


def test_an_undeclared_head_family_defined_by_is_inferred_and_named() -> None:
    got = [r for r in check_text(UNDECLARED, "t.md") if r.source.startswith("Q^")]
    assert [r.kind for r in got] == ["declaration"], [r.message for r in got]
    assert "W_a^(h): d × d_k inferred from line 3" in got[0].message


@pytest.mark.parametrize(
    ("claim", "kind"),
    [
        ("$$(Q^{(s)})^T = (W_a^{(s)})^T X^T$$", "verified"),
        ("$$(Q^{(s)})^T X = (W_a^{(s)})^T X^T X$$", "verified"),
        ("$$(Q^{(s)})^T X = X^T X W_a^{(s)}$$", "shape-error"),  # order of a product swapped
    ],
)
def test_claims_about_an_undeclared_head_family_are_decided_with_its_inferred_shape(
    claim: str, kind: str
) -> None:
    got = _last(UNDECLARED + claim + "\n")
    if kind == "shape-error":
        assert got.kind in ("shape-error", "undecided", "not-understood"), got.message
        assert got.kind != "verified"
    else:
        assert got.kind == kind, got.message
        assert "W_a^(h)" in got.message and "inferred from line" in got.message


def test_a_claim_true_only_for_the_text_s_heads_is_not_false() -> None:
    got = _last(UNDECLARED + "$$(Q^{(s)})^T = X^T$$\n")
    assert got.kind in ("undecided", "shape-error", "not-understood"), got.message
    assert got.kind != "false"
