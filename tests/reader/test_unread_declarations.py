"""A name the text declares in a formula the reader cannot read keeps no conventional shape for
a shape error: the claims resting on it are undecided, and other shape errors stand."""

from __future__ import annotations

import pytest

from symattn.check import check_text

PRE = "Our vectors are column vectors. Let $X \\in \\mathbb{R}^{n \\times t}$.\n\n"
UNREAD = "$$\\{x_i\\} \\frobnicate Q, K, V \\in \\mathbb{R}^{d \\times t}$$\n\n"
READ = "$$Q, K, V \\in \\mathbb{R}^{d \\times t}$$\n\n"
THEN = "Let $a \\in \\mathbb{R}^{t}$. Then $$h = V a \\in \\mathbb{R}^d$$\n"


def kinds(text: str) -> list[str]:
    return [
        r.kind for r in check_text(text, "a.md") if r.kind not in ("declaration", "not-a-claim")
    ]


def test_a_claim_on_an_unread_declaration_is_not_a_shape_error() -> None:
    got = check_text(PRE + UNREAD + THEN, "a.md")
    assert "shape-error" not in [r.kind for r in got]
    soft = [r for r in got if "in a formula that was not read" in r.message]
    assert len(soft) == 2  # h = V a, and V a in R^d
    assert all(r.kind == "undecided" and "V (line 3)" in r.message for r in soft)


def test_without_that_formula_the_shape_error_stands() -> None:
    assert "shape-error" in kinds(PRE + THEN)  # V is the chapter's n x d_v


def test_a_declaration_that_is_read_is_used() -> None:
    assert "shape-error" not in kinds(PRE + READ + THEN)


@pytest.mark.parametrize("unread", ["Q, K", "W"])
def test_a_shape_error_on_other_names_stands(unread: str) -> None:
    """Only the names the unread formula declares lose their conventional shape."""
    text = PRE + UNREAD.replace("Q, K, V", unread) + THEN
    assert "shape-error" in kinds(text)
