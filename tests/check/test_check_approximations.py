"""`a \\approx b` whose sides are read as for `=`: verified where they are exactly equal, never
false where they differ (an approximation may hold in a regime the text means and does not
state); a number written with its digits keeps its tolerance of one unit of the last digit."""

from __future__ import annotations

import pytest
from claim_helpers import results

DECLARED = r"Let $P \in \mathbb{R}^{m\times h}$, $R \in \mathbb{R}^{m\times h}$. "


@pytest.mark.parametrize(
    "claim",
    [
        r"u \approx u",
        r"3u^2 + u \approx u(3u + 1)",
        r"(u+w)^2 \approx u^2 + 2uw + w^2",
        r"PR^T \approx (RP^T)^T",
    ],
)
def test_exactly_equal_sides_are_verified(claim):
    (r,) = results(DECLARED + f"${claim}$")
    assert r.kind == "verified" and "exactly equal" in r.message


@pytest.mark.parametrize(
    "claim",
    [
        r"u \approx u + 1",  # close for large u, perhaps: not refuted
        r"(u+w)^2 \approx u^2 + w^2",  # close where uw is small
        r"PR^T \approx RP^T",
        r"PR^T \approx P",  # shapes differ: not refuted either
    ],
)
def test_sides_that_differ_are_undecided_never_false(claim):
    (r,) = results(DECLARED + f"${claim}$")
    assert r.kind == "undecided" and "not exactly equal" in r.message


def test_a_written_number_keeps_its_tolerance():
    got = results(r"$\sqrt{2} \approx 1.414$ and $\sqrt{2} \approx 1.43$")
    assert [r.kind for r in got] == ["verified", "undecided"]
    assert all("exactly equal" not in r.message for r in got)  # within 1/1000, not 1/100


def test_an_approximation_defines_nothing():
    # `z \approx 3` is no definition of z: a later `z = 3` is not verified by it
    got = results(r"$z \approx 3$. Then $z + z = 6$.")
    assert got[0].kind == "undecided" and "verified" not in [r.kind for r in got]
