"""An order between values with names (`\\frac{1}{\\sqrt{d_k}} \\le 1`, `T_a \\ge T_b` with both
defined): decided where it holds, or fails, for every value; undecided where it depends on a
value the text does not give; after a condition word, a hypothesis."""

from __future__ import annotations

import pytest
from claim_helpers import kinds, results


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        ("\\frac{1}{\\sqrt{d_k}} \\le 1", "verified"),
        ("\\frac{1}{\\sqrt{d_k}} > 1", "false"),
        ("n^2 \\ge n", "verified"),
        ("\\frac{n}{2} \\ge n", "false"),
        ("(d_k + 1)^2 > d_k^2", "verified"),
        ("(d_k + 1)^2 < d_k^2", "false"),
        ("n^2 > 10", "undecided"),  # depends on n, which the text does not give
        ("\\frac{n}{d_k} \\le 1", "undecided"),
    ],
)
def test_an_order_between_sizes_is_decided_for_every_value(formula: str, kind: str) -> None:
    assert kinds(f"For the sizes here, ${formula}$ holds.\n") == [kind]


def test_an_order_between_defined_numbers_is_read_with_their_definitions() -> None:
    text = (
        "The compute time is $T_\\text{math} = 4BD$ and the transfer time is "
        "$T_\\text{comms} = 2BD$, where $B$ is the batch size and $D$ the width. "
        "So $ORDER$ always.\n"
    )
    assert kinds(text.replace("ORDER", "T_\\text{math} \\ge T_\\text{comms}"))[-1] == "verified"
    assert kinds(text.replace("ORDER", "T_\\text{math} < T_\\text{comms}"))[-1] == "false"


def test_an_order_that_depends_on_an_unknown_value_says_so() -> None:
    got = results("For the sizes here, $n^2 > 10$ holds.\n")[0]
    assert got.kind == "undecided"
    assert "for every value of n" in got.message


@pytest.mark.parametrize("word", ["if", "when", "assume", "provided that"])
def test_an_order_after_a_condition_word_is_a_hypothesis(word: str) -> None:
    assert kinds(f"This is fast {word} $\\frac{{n}}{{2}} \\ge n$ here.\n") == []


def test_an_order_of_real_letters_stays_undecided() -> None:
    assert kinds("Here $\\alpha > 1$ and $-\\rho d \\ge -(1-\\rho)d$.\n") == [
        "undecided",
        "undecided",
    ]


def test_an_order_in_a_chain_is_decided_as_a_link() -> None:
    text = "With $d_k = 64$ the scale is $\\frac{1}{\\sqrt{d_k}} = 0.125 REL 1$.\n"
    assert kinds(text.replace("REL", "<")) == ["verified", "verified"]
    assert kinds(text.replace("REL", ">")) == ["verified", "false"]


def test_a_chain_of_orders_is_read_link_by_link() -> None:
    text = (
        "Let $Q, K \\in \\mathbb{R}^{n \\times d_k}$ and $A = \\text{softmax}(QK^T)$. "
        "Each weight has $0 < a_{ij} \\le 1$, and the scale $0 < \\frac{1}{\\sqrt{d_k}} REL 1$.\n"
    )
    got = kinds(text.replace("REL", "\\le"))
    assert got[-4:] == ["verified", "undecided", "verified", "verified"]
    assert kinds(text.replace("REL", ">"))[-1] == "false"
