"""`\\sim` that claims nothing: a name drawn from a distribution is a declaration, a range of
numbers (`0.6 \\sim 0.8`) is no claim; an order of growth (`\\ell \\sim \\sqrt n`) stays
undecided."""

from __future__ import annotations

import pytest
from claim_helpers import kinds

from symattn.check import check_text


@pytest.mark.parametrize(
    "formula",
    [
        "s_i \\sim \\mathcal{N}(0, 1)",
        "\\boldsymbol{\\omega} \\sim \\mathcal{N}(0, \\boldsymbol{I})",
        "X \\sim p(x \\mid \\theta)",
        "u \\sim \\text{Uniform}(0, 1)",
    ],
)
def test_a_name_drawn_from_a_distribution_is_declared(formula: str) -> None:
    got = [r for r in check_text(f"Let ${formula}$ be drawn.\n", "doc.md")]
    assert [r.kind for r in got] == ["declaration"]
    assert "drawn from" in got[0].message


@pytest.mark.parametrize("formula", ["0.6 \\sim 0.8", "25 \\sim 35", "7\\% \\sim 64\\%"])
def test_a_range_of_numbers_is_no_claim(formula: str) -> None:
    assert kinds(f"It is about ${formula}$ here.\n") == []


@pytest.mark.parametrize("formula", ["\\ell \\sim \\sqrt{n}", "0.8 \\sim 0.6", "x \\sim y^2"])
def test_other_uses_of_sim_stay_undecided(formula: str) -> None:
    assert kinds(f"It is about ${formula}$ here.\n") == ["undecided"]
