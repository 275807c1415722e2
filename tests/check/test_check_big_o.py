"""Asymptotic classes: `O(f) = O(g)` is verified where the arguments have a constant ratio,
undecided otherwise (the classes may be equal in a regime the text does not state); never a
product with the output matrix O, never false."""

from __future__ import annotations

import pytest
from claim_helpers import kinds

DECLARED = "Let $Q, K \\in \\mathbb{R}^{n \\times d}$ and $O = QK^T$.\n\n"


@pytest.mark.parametrize(
    "formula",
    [
        "\\mathcal{O}(3n^2) = \\mathcal{O}(n^2)",
        "O(n(d + 1)) = O(nd + n)",
        "2 \\cdot O(n^2 d) = O(n^2 d)",
        "\\Theta(4 n d) = \\Theta(n d)",
    ],
)
def test_classes_with_a_constant_ratio_are_equal(formula: str) -> None:
    assert kinds(f"{DECLARED}The cost is ${formula}$ here.\n")[-1] == "verified"


@pytest.mark.parametrize(
    "formula",
    [
        "O(n^2 d + n d^2) = O(n^2 d)",  # true where d <= n, which the text does not say
        "O(n^2) = O(n)",
        "n d = O(n^2)",
        "O(n) + O(d) = O(n + d)",
        "O(n^2) = \\Theta(n^2)",
    ],
)
def test_other_claims_about_classes_are_undecided(formula: str) -> None:
    assert kinds(f"{DECLARED}The cost is ${formula}$ here.\n")[-1] == "undecided"


def test_a_new_name_given_its_class_is_no_false_claim() -> None:
    got = kinds(f"{DECLARED}The cost is $T = O(n^2)$ here.\n")
    assert "false" not in got and "shape-error" not in got


def test_a_name_defined_by_its_class_is_compared_as_a_class() -> None:
    text = DECLARED + "First $D = O(n)$, then $D = O(REL)$.\n"
    assert kinds(text.replace("REL", "3n"))[-1] == "verified"
    assert kinds(text.replace("REL", "d"))[-1] == "undecided"
