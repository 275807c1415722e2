"""Claims with the imaginary unit between expressions of real numbers: proved when the
difference simplifies to 0, false where the real or imaginary parts certainly differ."""

from __future__ import annotations

import pytest
import sympy

from symattn.kernel.witness.reals import decide_reals, is_real_claim

a, b, c, d, x = sympy.symbols("a b c d x", real=True)
J, exp, sin, cos = sympy.I, sympy.exp, sympy.sin, sympy.cos  # J: the imaginary unit

TRUE_AND_FALSE = [
    (exp(J * x), cos(x) + J * sin(x), cos(x) - J * sin(x)),
    ((a + b * J) * (c + d * J), a * c - b * d + (a * d + b * c) * J, a * c + b * d + a * d * J),
    (exp(J * a) * exp(J * b), exp(J * (a + b)), exp(J * (a - b))),
    (sympy.Abs(a + b * J) ** 2, a**2 + b**2, a**2 - b**2),
    (sympy.conjugate(a + b * J) * (a + b * J), a**2 + b**2, a**2 + b**2 + 2 * a * b * J),
]


@pytest.mark.parametrize(("lhs", "true", "false"), TRUE_AND_FALSE)
def test_a_claim_with_the_imaginary_unit_is_decided(lhs, true, false):
    assert is_real_claim(lhs, true) and is_real_claim(lhs, false)
    assert decide_reals(lhs, true).status == "proved"
    verdict = decide_reals(lhs, false)
    assert verdict.status == "false"
    assert "two sides differ" in verdict.reason
    assert verdict.counterexample is not None


def test_a_complex_counterexample_shows_both_values():
    verdict = decide_reals((a + b * J) * (c + d * J), a * c + b * d + (a * d + b * c) * J)
    assert verdict.counterexample is not None
    assert "left side = 2i, right side = 2 + 2i" in str(verdict.counterexample)


def test_the_unit_alone_is_a_claim_between_numbers():
    assert is_real_claim(exp(J * sympy.pi) * x, -x)
    assert decide_reals(exp(J * sympy.pi) * x, -x).status == "proved"
