"""Families a text counts from 0 (`y_0, \\ldots, y_{n-1}`, or a sum from 0 to n - 1 over them):
member k is row k + 1, so a sum from 0 is no index out of range; a text that counts from 1 and
sums from 0 is still flagged. True, false and ill-formed uses of each."""

from __future__ import annotations

import pytest
from claim_helpers import kinds, results

from symattn.check import check_text

SHAPE = "Let $Y \\in \\mathbb{R}^{n \\times d}$"
FROM_0 = SHAPE + " have the rows $y_0, y_1, \\ldots, y_{n-1}$.\n\n"
FROM_1 = SHAPE + " have the rows $y_1, y_2, \\ldots, y_n$.\n\n"
UNSAID = SHAPE + ".\n\n"


def test_a_mean_over_a_family_counted_from_zero_is_no_shape_error():
    text = FROM_0 + "$$\\bar{y} = \\frac{1}{n}\\sum_{k=0}^{n-1} y_k$$\n"
    assert [r.kind for r in check_text(text, "m.md")][-1] == "declaration"


@pytest.mark.parametrize("shape", [FROM_0, UNSAID], ids=["member 0 written", "sum from 0"])
def test_a_sum_from_zero_over_all_n_members_is_the_sum_of_the_rows(shape):
    assert kinds(shape + "$$\\sum_{k=0}^{n-1} y_k = \\mathbf{1}_n^T Y$$\n") == ["verified"]
    assert kinds(shape + "$$\\sum_{k=0}^{n-1} y_k = \\sum_{k=1}^{n-1} y_k$$\n") == ["false"]


def test_past_the_last_member_counted_from_zero_is_a_shape_error():
    (r,) = results(FROM_0 + "$$\\sum_{k=0}^{n} y_k = \\mathbf{1}_n^T Y$$\n")
    assert r.kind == "shape-error" and "the text counts y from 0" in r.message, r.message
    assert kinds(FROM_0 + "$$\\sum_{k=1}^{n} y_k = \\mathbf{1}_n^T Y$$\n") == ["shape-error"]


def test_a_text_counting_from_one_that_sums_from_zero_is_still_flagged():
    assert kinds(FROM_1 + "$$\\sum_{k=1}^{n} y_k = \\mathbf{1}_n^T Y$$\n") == ["verified"]
    assert kinds(FROM_1 + "$$\\sum_{k=0}^{n} y_k = \\mathbf{1}_n^T Y$$\n") == ["shape-error"]
    assert kinds(FROM_1 + "$$\\sum_{k=0}^{n-1} y_k = \\mathbf{1}_n^T Y$$\n") == ["shape-error"]
    # a shifted member past the end at every size: outside whatever n is
    assert kinds(FROM_1 + "$$\\sum_{k=1}^{n} y_{k+1} = \\mathbf{1}_n^T Y$$\n") == ["shape-error"]


def test_a_member_counted_from_zero_beside_another_index_is_undecided():
    # whether (YW)_{k,:} counts from 0 too the text does not say: true one way, false the other
    (r,) = results(FROM_0 + "Let $W \\in \\mathbb{R}^{d \\times d}$.\n\n$$y_k W = (YW)_{k,:}$$\n")
    assert r.kind == "undecided" and "counts y from 0" in r.message, r.message


def test_a_member_at_a_size_past_the_members_counted_from_zero_is_not_read():
    # y_n is row n + 1 when y counts from 0, unless n is only a position there: no alarm
    (r,) = results(FROM_0 + "$$y_m + y_n = y_n + y_m$$\n")
    assert r.kind == "not-understood" and "unless n is a position" in r.message, r.message
    assert kinds(FROM_0 + "$$y_{n-1} + y_0 = y_0 + y_{n-1}$$\n") == ["verified"]


@pytest.mark.parametrize(
    ("shape", "out", "inside", "whole"),
    [
        # counted from 0: y_{n-k} at k = 0 is y_n, one past the last member
        (FROM_0, "y_{n-k}", "y_{n-1-k}", "\\sum_{k=0}^{n-1}"),
        # counted from 1: y_{n-k} at k = n is y_0, before the first
        (FROM_1, "y_{n-k}", "y_{n-k+1}", "\\sum_{k=1}^{n}"),
    ],
    ids=["from 0", "from 1"],
)
def test_a_member_counted_down_past_either_end_is_a_shape_error(shape, out, inside, whole):
    (r,) = results(shape + f"$${whole} {out} = {whole} y_k$$\n")
    assert r.kind == "shape-error" and "runs over" in r.message, r.message
    assert kinds(shape + f"$${whole} {inside} = {whole} y_k$$\n") == ["verified"]
    assert kinds(shape + f"$${whole} {inside} = {whole} 2y_k$$\n") == ["false"]
