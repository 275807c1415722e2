"""Capitals the text shows to be numbers beside one it does not: a count over a conventional
letter (`S`) is read with it both as a number and as the chapter's matrix, decided when both
readings agree; a count not read names the capital that kept it from being read, not one the
text shows to be a number."""

from __future__ import annotations

import pytest
from claim_helpers import results


@pytest.mark.parametrize(
    "claim, kind",
    [
        (r"\frac{6BSN}{3BN} = 2S", "verified"),
        (r"\frac{6BSN}{3BN} + S = 3S", "verified"),
        (r"\frac{6BSN}{3BN} = S", "false"),  # false as numbers and as the matrix S
        (r"\frac{5BKN}{5BN} = K", "verified"),
        (r"\frac{5BKN}{5BN} = 5K", "false"),
    ],
)
def test_a_conventional_letter_in_a_count_reads_both_ways(claim, kind):
    (r,) = results(f"${claim}$")
    assert r.kind == kind
    assert "also read as the chapter's matrix" in r.message


def test_readings_that_cannot_both_be_formed_are_undecided():
    # as the matrix S, 2B + 2BS adds a number to a matrix
    (r,) = results(r"$\frac{2B + 2BS}{2B} = 1 + S$")
    assert r.kind == "undecided" and "S is a matrix by the chapter's conventions" in r.message


@pytest.mark.parametrize(
    "text, names",
    [
        (r"The batch size $B$; then $M = 3BE$.", "M, E are"),
        (r"The batch size $B$; then $\frac{2BW_o}{2B} = W_o$.", "W_o is"),
    ],
)
def test_the_message_names_the_capital_that_is_no_number(text, names):
    r = results(text)[-1]
    assert r.kind == "not-understood"
    assert r.message.startswith(f"not read as numbers: {names} not shown to be a number")
    assert "unknown symbol B" not in r.message and "while B is" in r.message


@pytest.mark.parametrize(
    "right, kind",
    [
        (r"\frac{3 E}{\frac{1}{S} + \frac{E}{BS}}", "verified"),
        (r"\frac{3 E}{\frac{1}{S} + \frac{E}{2BS}}", "undecided"),  # false, but S, B, E related
    ],
)
def test_a_conventional_letter_is_a_number_by_one_side_of_a_later_link(right, kind):
    # the formula's first side `RT` holds capitals that are no numbers; the later sides hold
    # S only among numbers (B, E), in denominators: S is read as a number there
    r = results(rf"$$RT = \frac{{3 B S E}}{{B + E}} = {right}$$")[-1]
    assert r.kind == kind
    assert "S: a denominator at line 1" in r.message
