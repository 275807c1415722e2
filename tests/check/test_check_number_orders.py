"""An order between numbers, or between sizes a worked example gives values, is a claim the
kernel decides; after a condition word, or as an aside in parentheses, it stays a condition."""

from __future__ import annotations

import pytest
from claim_helpers import kinds, results


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        ("2^{10} > 1000", "verified"),
        ("2^{10} < 1000", "false"),
        ("\\frac{3}{4} \\ge 0.75", "verified"),
        ("\\frac{3}{4} > 0.75", "false"),
        ("128 \\cdot (3/4)^2 \\le 72", "verified"),
        ("128 \\cdot (3/4)^2 < 70", "false"),
        ("\\sqrt{128} > 11.3", "verified"),
        ("\\sqrt{128} < 11.3", "false"),
    ],
)
def test_an_order_between_numbers_is_decided(formula: str, kind: str) -> None:
    assert kinds(f"We have ${formula}$ here.\n") == [kind]


def test_an_order_between_sizes_of_a_worked_example_is_decided() -> None:
    example = "Let $n = 5$ and $d = 3$. Then ${}$ holds.\n"
    assert kinds(example.format("n^2 \\le 25")) == ["verified"]
    assert kinds(example.format("n^2 \\le 20")) == ["false"]
    got = results(example.format("n^2 \\le 20"))[0]
    assert "25 \\le 20" in got.message


@pytest.mark.parametrize(
    "words", ["This is cheap when ${}$.", "It is fast for ${}$.", "A short text (${}$) is fast."]
)
def test_an_order_after_a_condition_word_is_not_a_claim(words: str) -> None:
    text = "Let $n = 1024$. " + words.format("n^2 \\le 20") + "\n"
    assert "false" not in kinds(text)


def test_an_order_between_values_without_numbers_stays_undecided() -> None:
    assert kinds("Here $\\gamma_t \\ge 1$ and $b_g > 0$.\n") == ["undecided", "undecided"]
