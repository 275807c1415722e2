"""`\\frac{\\sqrt{128} BD}{W} \\approx \\frac{11.3 BD}{W}`: an approximation between counts whose
one side writes a rounded coefficient is decided on that coefficient, to its last digit; one whose
sides differ by more than a number (a regime) stays undecided."""

from __future__ import annotations

import pytest
from claim_helpers import results

_SIZES = "With the batch size $B$ and the width $D$, a step takes $\\frac{BD}{W}$.\n\n"


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        (r"\frac{\sqrt{128} BD}{\sqrt{N} W} \approx \frac{11.3 BD}{\sqrt{N} W}", "verified"),
        (r"\frac{BD}{\sqrt{2} W} \approx \frac{0.707 BD}{W}", "verified"),
        (r"\frac{BD}{3 W} \approx 0.33 \frac{BD}{W}", "verified"),
        # a slip of the coefficient: false; a coarse one: undecided
        (r"\frac{BD}{\sqrt{2} W} \approx \frac{0.807 BD}{W}", "false"),
        (r"\frac{\sqrt{128} BD}{\sqrt{N} W} \approx \frac{12.3 BD}{\sqrt{N} W}", "undecided"),
        # the sides differ by more than a coefficient: an approximation in a regime
        (r"\frac{BD}{W + 1} \approx \frac{0.5 BD}{W}", "undecided"),
    ],
)
def test_a_rounded_coefficient(formula, kind):
    r = results(f"{_SIZES}$${formula}$$\n")[-1]
    assert r.kind == kind, r
    if kind != "undecided" or "12.3" in formula:
        assert "read as the coefficient that makes the sides equal" in r.message
