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


_GIVEN = "For a model with $d = 4096$ and $L = 32$ layers, it has $12 L d^2 = 6442450944$.\n\n"


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        (r"12 L d^2 \approx 6.4 \times 10^9", "verified"),
        (r"12 L d^2 \approx 4.6 \times 10^9", "false"),
        (r"2 \cdot 12 L d^2 \approx 12.9 \text{ GB}", "verified"),
        (r"2 \cdot 12 L d^2 \approx 1.29 \text{ GB}", "false"),  # a wrong power of ten
    ],
)
def test_an_approximation_at_the_sizes_the_text_gave(formula, kind):
    r = results(f"{_GIVEN}In fp16 that is ${formula}$.\n")[-1]
    assert r.kind == kind, r
    assert "with L = 32 (line 1) as the text defines" in r.message


@pytest.mark.parametrize("rel", [r"\approxeq", r"\simeq", r"\thickapprox"])
@pytest.mark.parametrize(("number", "kind"), [("1.414", "verified"), ("2.414", "false")])
def test_other_signs_of_approximately_equal(rel, number, kind):
    (r,) = results(rf"Here $\sqrt{{2}} {rel} {number}$.")
    assert r.kind == kind, r
