"""The softmax of a column built from a column vector (`softmax(x + c\\mathbf 1_n)`) is over its
entries, as the softmax of the named vector is: both sides of a claim are read alike."""

from __future__ import annotations

import pytest

from symattn.check import check_text

DECL = r"Let $x \in \mathbb{R}^{n}$ be a column vector."


def kinds(formula: str) -> list[str]:
    got = check_text(f"{DECL}\n\n$${formula}$$\n", "softmax.md")
    return [r.kind for r in got if r.kind not in ("declaration", "not-a-claim")]


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        # the shift invariance of softmax: before, the left side was read row by row (all ones)
        (r"\mathrm{softmax}(x + 3\mathbf{1}_n) = \mathrm{softmax}(x)", "verified"),
        (r"\mathrm{softmax}(x + 3\mathbf{1}_n) = 3\,\mathrm{softmax}(x)", "false"),
        (r"\mathrm{softmax}(2x) = \mathrm{softmax}(x)", "false"),
    ],
)
def test_the_softmax_of_a_column_is_over_its_entries(formula, kind):
    assert kinds(formula) == [kind]
