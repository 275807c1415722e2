"""The all-ones vector written without its length (`A\\mathbf 1`): right after a matrix it is as
long as the matrix is wide, the one length the product allows; elsewhere its length is asked for."""

from __future__ import annotations

import pytest

from symattn.check import check_text

DECL = r"Let $A \in \mathbb{R}^{n\times n}$ and $B \in \mathbb{R}^{n\times m}$." + "\n\n"


def kinds(text: str) -> list[str]:
    return [
        r.kind
        for r in check_text(DECL + text, "ones.md")
        if r.kind not in ("declaration", "not-a-claim")
    ]


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        (r"(B \mathbf 1)_i = \sum_{j=1}^m B_{ij}", "verified"),
        (r"(B \mathbf{1})_i = \sum_{j=1}^m B_{ji}", "shape-error"),
        (r"(A \boldsymbol{1})_i = \sum_{j=1}^n A_{ij}", "verified"),
        (r"(A \boldsymbol{1})_i = \sum_{j=1}^n A_{ji}", "false"),
        # the length follows from the product, never from a guess: a wrong bound stays an error
        (r"(B \mathbf{1})_i = \sum_{j=1}^n B_{ij}", "shape-error"),
    ],
)
def test_the_ones_vector_after_a_matrix_is_as_long_as_the_matrix_is_wide(formula, kind):
    assert kinds(f"$${formula}$$") == [kind]


@pytest.mark.parametrize("formula", [r"\mathbf 1 = \mathbf 1", r"\mathbf 1^T B = B"])
def test_elsewhere_its_length_is_asked_for(formula):
    got = [
        r.message for r in check_text(DECL + f"$${formula}$$", "ones.md") if r.kind != "declaration"
    ]
    assert got and all("length of the all-ones vector" in m for m in got), got
