"""Claims between real numbers: proved by exact simplification, false at a certified point."""

from __future__ import annotations

import pytest
import sympy

from symattn.kernel.proof import prove_equal
from symattn.kernel.witness import certify
from symattn.kernel.witness.reals import decide_reals, is_real_claim

a, b, x = sympy.symbols("a b x", real=True)
n = sympy.Symbol("n", integer=True, positive=True)
sin, cos, exp = sympy.sin, sympy.cos, sympy.exp
#: tanh as exponentials, true and false, takes far longer than the rest here; the fast loop decides
#: the same pair through the checker (tests/check/test_check_scalars.py), which asks this witness.
TANH = pytest.mark.slow


@pytest.mark.parametrize(
    ("lhs", "rhs"),
    [
        (sin(a + b), sin(a) * cos(b) + cos(a) * sin(b)),
        (cos(a + b), cos(a) * cos(b) - sin(a) * sin(b)),
        (cos(x) ** 2 + sin(x) ** 2, sympy.Integer(1)),
        (exp(a) * exp(b), exp(a + b)),
        pytest.param(sympy.tanh(x), (exp(x) - exp(-x)) / (exp(x) + exp(-x)), marks=TANH),
        (sympy.tan(x) ** 2 + 1, 1 / cos(x) ** 2),
        (sympy.Max(a, b) + sympy.Min(a, b), a + b),
        (cos(n * x) ** 2, 1 - sin(n * x) ** 2),
    ],
)
def test_true_identities_are_proved(lhs, rhs):
    assert decide_reals(lhs, rhs).status == "proved"
    assert prove_equal(lhs, rhs).status == "proved"


@pytest.mark.parametrize(
    ("lhs", "rhs"),
    [
        (sin(a + b), sin(a) * cos(b) - cos(a) * sin(b)),
        (cos(x) ** 2 - sin(x) ** 2, sympy.Integer(1)),
        (exp(a + b), exp(a) + exp(b)),
        pytest.param(sympy.tanh(x), (exp(x) + exp(-x)) / (exp(x) - exp(-x)), marks=TANH),
        ((a + b) ** 400, a**400 + b**400),
    ],
)
def test_false_identities_have_a_certified_point_of_positive_integers(lhs, rhs):
    v = decide_reals(lhs, rhs)
    assert v.status == "false"
    point = {sympy.Symbol(k, real=True): int(val) for k, val in v.counterexample.entries}
    assert all(val > 0 for val in point.values())
    # the point really separates the two sides (a certificate of its own)
    assert certify.certify(lhs, rhs, point) is not None
    assert prove_equal(lhs, rhs).status == "false"


def test_true_only_for_positive_values_is_undecided_and_says_so():
    v = decide_reals(sympy.log(a * b), sympy.log(a) + sympy.log(b))
    assert v.status == "unknown" and "positive a, b" in v.reason
    v = decide_reals(sympy.sqrt(x**2), x)
    assert v.status == "unknown" and "positive x" in v.reason


def test_a_name_of_two_kinds_is_never_decided():
    i_real, i_int = sympy.Symbol("i", real=True), sympy.Symbol("i", integer=True, positive=True)
    v = decide_reals(sin(i_real), sin(i_int) + 1)
    assert v.status == "unknown" and "two different kinds" in v.reason


def test_huge_claims_are_answered_without_simplifying():
    v = decide_reals((a + b) ** 10**9, (b + a) ** 10**9 + 1)
    assert v.status in ("false", "unknown")
    tower = exp(exp(exp(exp(exp(x)))))
    assert decide_reals(tower, tower + 1).status == "unknown"


def test_only_claims_of_real_numbers_are_taken():
    assert is_real_claim(sin(a), cos(b))
    assert not is_real_claim(n, n + 1)  # sizes alone: the other witnesses' business
    assert not is_real_claim(sympy.Function("f")(a), a)
