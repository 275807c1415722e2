"""A condition the text states on a matrix it declares (`with $P^TP = I$`, "be orthogonal") is
used: `P^TP` is the identity in the claims after it. A claim that still needs more of the
condition is undecided, never false; one false for every matrix satisfying it stays false."""

from __future__ import annotations

import pytest
from claim_helpers import kinds, results

DECL = r"Let $X \in \mathbb{R}^{n\times m}$. Let $P \in \mathbb{R}^{n\times n}$"


@pytest.mark.parametrize(
    "condition",
    [
        r" with $P^TP = I$.",
        r" such that $P^TP = I$.",
        r" be orthogonal.",
        r", where $P$ is orthogonal.",
        r". Suppose $P^TP = I$.",
    ],
)
def test_a_condition_on_a_declared_matrix_is_used(condition: str) -> None:
    text = DECL + condition + "\n\n"
    got = results(text + r"$$(PX)^T(PX) = X^TP^TPX = X^TX$$")
    assert [r.kind for r in got] == ["verified", "verified"], [r.message for r in got]
    assert "given P" in got[1].message, got[1].message
    # false for every orthogonal P (P = I among them): false, with a counterexample for X
    assert kinds(text + r"$$(PX)^T(PX) = 2X^TX$$") == ["false"]
    # P left in the claim: false only for some orthogonal P, not shown so: undecided
    assert kinds(text + r"$$PX = X$$") == ["undecided"]


def test_without_the_condition_the_claim_is_false() -> None:
    assert kinds(DECL + ".\n\n" + r"$$(PX)^T(PX) = X^TX$$") == ["false"]
    # declared again in a later section, without it: the condition lapses
    again = DECL + r" with $P^TP = I$." + "\n\n## Later\n\n"
    assert kinds(again + r"Let $P \in \mathbb{R}^{n\times n}$. Then $P^TPX = X$.") == ["false"]
    # P is orthogonal to something else: no condition on P itself
    other = DECL + r" be orthogonal to $X$." + "\n\n"
    assert kinds(other + r"$$(PX)^T(PX) = X^TX$$") == ["false"]


def test_a_condition_that_no_identity_satisfies_is_not_used_for_false() -> None:
    # W has orthonormal columns: W = I is no witness, so a counterexample may break it
    text = r"Let $X \in \mathbb{R}^{m\times m}$ and $W \in \mathbb{R}^{n\times m}$ with $W^TW = I$."
    assert kinds(text + "\n\n" + r"$$(WX)^T(WX) = X^TX$$") == ["verified"]
    assert kinds(text + "\n\n" + r"$$(WX)^T(WX) = 2X^TX$$") == ["undecided"]


def test_where_a_declared_matrix_is_defined_it_is_no_condition() -> None:
    text = (
        r"Let $Q, K \in \mathbb{R}^{n\times d}$ and $S \in \mathbb{R}^{n\times n}$ where "
        r"$S = QK^T$. Then $S^T = KQ^T$ and $S^T = QK^T$."
    )
    assert kinds(text) == ["verified", "verified", "false"]


def test_a_condition_meets_the_products_a_definition_reaches() -> None:
    text = DECL + r" such that $P^TP = I$." + "\n\n" + r"Define $Y = PX$. Then $Y^TY = X^TX$"
    assert kinds(text + "$.") == ["verified"]
    assert kinds(text + r" and $Y^TY = 3X^TX$.") == ["verified", "false"]
    # without the condition: false
    assert kinds(DECL + ".\n\n" + r"Define $Y = PX$. Then $Y^TY = X^TX$.") == ["false"]
