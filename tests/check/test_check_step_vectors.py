"""Vectors indexed by a step: with `h \\in \\mathbb R^d` declared, `h_t` and `h_{t-1}` are members
of a sequence of vectors of h's shape, never entries of h (a false alarm if they were)."""

from __future__ import annotations

import pytest
from claim_helpers import kinds, results

from symattn.check import check_text

COLUMNS = "---\nsymattn:\n  vectors: column\n---\n"
SQUARE = r"and $W \in \mathbb{R}^{d \times d}$." + "\n\n"
WIDE = r"and $W \in \mathbb{R}^{d \times k}$." + "\n\n"


def messages(text: str) -> list[str]:
    return [r.message for r in check_text(text, "doc.md")]


@pytest.mark.parametrize(
    "declared",
    [r"$h \in \mathbb{R}^d$", r"$h_t \in \mathbb{R}^d$", r"$\mathbf h \in \mathbb{R}^d$"],
)
@pytest.mark.parametrize("settled", [True, False])
def test_a_recurrence_of_declared_vectors_defines_them(declared: str, settled: bool) -> None:
    bold = r"\mathbf " if "mathbf" in declared else ""
    text = (COLUMNS if settled else "") + f"Let {declared} be the state, " + SQUARE
    text += f"$${bold}h_t = W {bold}h_{{t-1}}$$" + "\n\n"
    got = results(text)
    assert [r.kind for r in got] == (["verified"] if settled else []), [r.message for r in got]
    assert any("defines the vectors" in m and "one per step" in m for m in messages(text))


def test_claims_about_the_members_are_decided_as_vectors() -> None:
    text = COLUMNS + r"Let $h \in \mathbb{R}^d$ " + SQUARE
    text += r"$$(W h_{t-1})^\top = h_{t-1}^\top W^\top$$" + "\n\n"
    text += r"$$h_{t-1}^\top W h_t = h_t^\top W h_{t-1}$$" + "\n\n"
    text += r"$$W h_{t-1} + W h_t = W (h_{t-1} + h_t)$$" + "\n"
    assert kinds(text) == ["verified", "false", "verified"]


def test_a_claim_after_the_definition_is_never_false() -> None:
    text = COLUMNS + r"Let $h \in \mathbb{R}^d$ " + SQUARE
    text += r"The update is $h_t = W h_{t-1}$, so $W h_{t-1} = h_t$." + "\n\n"
    text += r"$$h_{t+1} = W h_t$$" + "\n\n" + r"$$h_{\tau+1} = W h_\tau$$" + "\n"
    assert kinds(text) == ["verified", "undecided", "undecided", "undecided"]


def test_scaled_sequences() -> None:
    text = r"Let $x \in \mathbb{R}^d$ and $y \in \mathbb{R}^d$." + "\n\n"
    text += r"$$y_t = 3 x_t$$" + "\n\n" + r"$$3 x_t = y_t$$" + "\n"
    assert not {"false", "shape-error"} & set(kinds(text))
    assert not {"false", "shape-error"} & set(kinds(COLUMNS + text))


@pytest.mark.parametrize("settled", [True, False])
def test_a_matrix_of_another_width_is_still_a_shape_error(settled: bool) -> None:
    text = (COLUMNS if settled else "") + r"Let $h_t \in \mathbb{R}^d$ " + WIDE
    text += r"$$h_t = W h_{t-1}$$" + "\n"
    assert kinds(text) == ["shape-error"]
    (r,) = results(text)
    assert "cannot multiply W (d × k)" in r.message


def test_a_right_side_of_another_shape_is_a_shape_error() -> None:
    text = COLUMNS + r"Let $h \in \mathbb{R}^d$ and $x \in \mathbb{R}^k$." + "\n\n"
    text += r"$$h_t = x_t$$" + "\n"
    assert kinds(text) == ["shape-error"]


def test_a_sum_up_to_the_length_still_takes_components() -> None:
    text = COLUMNS + r"Let $x \in \mathbb{R}^d$ and $y \in \mathbb{R}^d$." + "\n\n"
    text += r"$$\sum_{t=1}^{d} x_t y_t = x^\top y$$" + "\n"
    assert kinds(text) == ["verified"]
