"""An equation that writes a declared matrix on both sides (`X = 2X`, `Q = QW`) says something
about that matrix: it is no definition of it, so it is never verified by its shapes alone. As a
claim it is decided by the kernel; where it fails it may still be an update (`X ← 2X`), so the
failure is undecided, naming that reading. True and false uses."""

from __future__ import annotations

import pytest
from claim_helpers import results

DECLARED = r"Let $X \in \mathbb{R}^{n \times d}$ and $W \in \mathbb{R}^{d \times d}$." "\n\n"


@pytest.mark.parametrize("formula", ["X = 2X", "X = XW", "X = X + X", "X = X^T X"])
def test_a_self_reference_that_fails_is_never_verified(formula):
    (r,) = results(DECLARED + f"Then ${formula}$.\n")
    assert r.kind in ("undecided", "shape-error"), (formula, r.kind, r.message)
    if r.kind == "undecided":
        assert "update" in r.message, r.message


@pytest.mark.parametrize("formula", ["X = (X^T)^T", "X = 2X - X", "X = \\frac{1}{2}(X + X)"])
def test_a_self_reference_that_holds_is_verified_as_an_identity(formula):
    (r,) = results(DECLARED + f"Then ${formula}$.\n")
    assert r.kind == "verified", (formula, r.message)
    assert "definition of X" not in r.message, r.message


def test_a_definition_that_does_not_mention_the_name_is_still_a_definition():
    rs = results(DECLARED + r"Let $Q \in \mathbb{R}^{n \times d}$. Then $Q = XW$." "\n")
    assert [r.kind for r in rs] == ["verified"], [(r.kind, r.message) for r in rs]
    assert "definition of Q" in rs[0].message


def test_a_list_after_the_name_is_neither_a_claim_nor_a_self_reference():
    text = (
        r"Let $S \in \mathbb{R}^{n \times n}$. The sequence"
        r" $S = \mathbf{s}_1, \ldots, \mathbf{s}_n$ is shuffled."
        "\n"
    )
    assert not [r for r in results(text) if r.kind in ("false", "shape-error")]


def test_a_name_in_a_subscript_is_not_the_name_written():
    text = (
        r"Let $X \in \mathbb{R}^{n \times d}$, $W_K \in \mathbb{R}^{d \times d_k}$ and"
        r" $K \in \mathbb{R}^{n \times d_k}$. Then $K = XW_K$."
        "\n"
    )
    rs = [r for r in results(text) if r.kind != "declaration"]
    assert [r.kind for r in rs] == ["verified"], [(r.kind, r.message) for r in rs]
    assert "definition of K" in rs[0].message
