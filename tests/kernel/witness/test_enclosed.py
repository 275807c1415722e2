"""A difference the float64 search finds at explicit sizes is a counterexample only once interval
enclosures of both sides are disjoint; 30 digits are not a certificate.

Made-up claims on one entry of a 2 x 2 matrix: a true one whose large terms cancel (float64 and
30-digit arithmetic both see a difference that is not there), a false near-tie, a false one.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy

from symattn.kernel.leaves import MatSym
from symattn.kernel.witness import enclosed
from symattn.kernel.witness.counterexample import confirmed_counterexample

Q = MatSym("Q", 2, 2)
BIG = sympy.Integer(10) ** 20
E = sympy.exp(Q[1, 1])
CANCELLING = (E + BIG) ** 2 - BIG**2 - 2 * BIG * E  # e^{2 Q_11} exactly


@pytest.mark.parametrize(
    ("rhs", "differ"),
    [
        (sympy.exp(2 * Q[1, 1]), False),  # true: every digit cancels in float64 and 30 digits
        (sympy.exp(2 * Q[1, 1]) + 1, True),
        (sympy.exp(2 * Q[1, 1]) * (1 + sympy.Rational(1, 10**25)), True),  # a near-tie
    ],
)
def test_a_difference_is_certified_by_disjoint_enclosures(rhs, differ):
    cex = confirmed_counterexample(CANCELLING, rhs, ())
    if differ:
        assert cex is not None and cex.certified and not cex.exact
        assert "the two enclosures do not overlap" in str(cex)
    else:
        assert cex is None


def test_the_enclosures_of_a_true_claim_overlap_at_every_entry():
    for v in (-2, 0, 1, 3):
        values = {("Q",): np.array([[float(v), 0.0], [0.0, 0.0]])}
        assert enclosed.separated((CANCELLING, sympy.exp(2 * Q[1, 1])), None, {}, values) is None


def test_separated_values_enclose_both_sides():
    values = {("Q",): np.array([[1.0, 0.0], [0.0, 0.0]])}
    found = enclosed.separated((E, E + sympy.Rational(1, 10**30)), None, {}, values)
    assert found is not None  # 236 bits see a gap of 10^-30
    left, right = found
    assert abs(left - sympy.E.evalf(40)) < 1e-30 and right > left


@pytest.mark.parametrize(
    "rhs",
    [1 / (Q[1, 2] - Q[1, 2] ** 2), sympy.sqrt(Q[1, 1] - 2)],  # 1/0 at 0; a root of -2 at 0
)
def test_a_step_without_an_enclosure_gives_no_certificate(rhs):
    values = {("Q",): np.zeros((2, 2))}
    assert enclosed.separated((E, rhs), None, {}, values) is None
