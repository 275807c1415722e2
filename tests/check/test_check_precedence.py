"""A slash whose reach the formula leaves open (`a/bc`, `a/b \\cdot c`): decided only when both
readings, `(a/b)c` and `a/(bc)`, give the same verdict; a reading that does not typecheck
leaves the other as the formula's meaning."""

from __future__ import annotations

import pytest
from claim_helpers import kinds, results

from symattn.check import check_text

DECLARED = r"Let $P \in \mathbb{R}^{m\times h}$, $R \in \mathbb{R}^{m\times h}$. "


@pytest.mark.parametrize(
    "claim",
    [
        r"1/4y = \frac{1}{4y}",  # true as 1/(4y), false as y/4
        r"1/4y = y/4",  # true as (1/4)y, false as 1/(4y)
        r"8/4\cdot 2 = 4",  # true left to right, false as 8/(4·2)
        r"8/4\cdot 2 = 1",  # true as 8/(4·2), false left to right
        r"8/4(1+1) = 4",  # the parentheses after the slash
        r"8/4 \times 2 = 1",
        r"u/3w = \frac{u}{3w}",
        r"8/4\cdot 2 + 1 = 5",  # the chain ends at the sum
    ],
)
def test_an_open_slash_true_under_one_reading_is_undecided(claim):
    (r,) = results(f"${claim}$")
    assert r.kind == "undecided"
    assert "reads two ways" in r.message and "/(" in r.message


@pytest.mark.parametrize(
    "claim, kind",
    [
        (r"8/4\cdot 2 = 7", "false"),  # 4 or 1: false either way
        (r"1/4y = 4y", "false"),
        (r"8/4\cdot 2 \ne 7", "verified"),
        (r"12/3\cdot 1 = 4", "verified"),  # the readings coincide
        (r"6/3 y = 2y + 1", "false"),
    ],
)
def test_an_open_slash_is_decided_when_both_readings_agree(claim, kind):
    assert kinds(f"${claim}$") == [kind]


@pytest.mark.parametrize(
    "claim, kind",
    [
        (r"a/b = \frac{a}{b}", "verified"),
        (r"a/b/c = \frac{a}{bc}", "verified"),
        (r"ab/c = a \cdot b/c", "verified"),
        (r"12/3 = 4", "verified"),
        (r"a/b/c = \frac{ac}{b}", "false"),
        # a product of fractions: the same left to right as fraction by fraction
        (r"2/5 \cdot 3/7 \cdot 1/2 = 3/35", "verified"),
        (r"2/5 \cdot 3/7 \cdot 1/2 = 6/35", "false"),
        (r"2/3\cdot 3/2 = 1", "verified"),
    ],
)
def test_a_closed_slash_is_read_as_before(claim, kind):
    assert kinds(f"${claim}$") == [kind]


def test_the_reading_that_typechecks_is_the_formulas():
    # 1/(\sqrt{h} P R^T) divides by a matrix: the text means (1/\sqrt{h}) P R^T
    define = DECLARED + r"$S = 1/\sqrt{h} PR^T$. "
    got = check_text(define + r"Then $S_{11} = \frac{1}{\sqrt{h}} \sum_{r} P_{1r} R_{1r}$.", "a.md")
    assert [r.kind for r in got][-2:] == ["declaration", "verified"]
    assert "typechecks" in got[-2].message
    wrong = define + r"Then $S_{11} = \sum_{r} P_{1r} R_{1r}$."
    assert kinds(wrong) == ["false"]


def test_a_continued_row_reads_both_ways():
    doc = "$$\n\\begin{aligned}\nu &= 2 + 2 \\\\\n  &= 8/4\\cdot 2\n\\end{aligned}\n$$\n"
    assert kinds(doc)[-1] == "undecided"
    doc = "$$\n\\begin{aligned}\nu &= 2 + 2 \\\\\n  &= 8/2\\cdot 1\n\\end{aligned}\n$$\n"
    assert kinds(doc)[-1] == "verified"
