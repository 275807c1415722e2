"""Size plans that rule out a coincidence: claims true at a few small sizes only are refused."""

from __future__ import annotations

import pytest
import sympy

from symattn.kernel.derivation import Derivation
from symattn.kernel.dims import assume, d, d_k, n
from symattn.kernel.errors import DimError, ProofError
from symattn.kernel.expr import MatSym, Scale, Softmax, index
from symattn.kernel.proof import prove_equal
from symattn.kernel.witness.coincidence import choose
from symattn.kernel.witness.sizes import substitution
from symattn.reader.claims.declarations import ParseError, parse_assume

i, j, r = index("i"), index("j"), index("r")
S = MatSym("S", n, n)
Q, K = MatSym("Q", n, d_k), MatSym("K", n, d_k)
ROW = sympy.Sum(Softmax(S)[i, j], (j, 1, n))  # 1 for every n


def test_a_polynomial_in_n_that_is_1_at_n_2_and_3_is_false():
    v = prove_equal(ROW, (n - 2) * (n - 3) + 1)
    assert v.status == "false", v.summary()
    assert v.counterexample is not None and dict(v.counterexample.sizes)["n"] >= 4


def test_a_scale_that_is_1_only_when_a_derived_size_collapses_is_false():
    with assume(d_k=d / 8):
        v = prove_equal(Scale(1 / sympy.sqrt(d_k), Q @ K.T), Q @ K.T)
        assert v.status == "false", v.summary()
        plans = choose(Scale(1 / sympy.sqrt(d_k), Q @ K.T), Q @ K.T, {}).plans
        # beside the smallest plans (d = 8), values of d whose d_k is not 1: degree 1 in sqrt(d)
        assert len({substitution(p)[d_k] for p in plans} - {1}) >= 2


def test_plans_number_degree_plus_one_values_above_every_constant():
    c = choose(ROW, (n - 2) * (n - 3) * (n - 7) + 1, {i: (1, n)})
    assert c.settles
    values = sorted({p[n] for p in c.plans if p[n] > 7})
    assert len(values) == 4  # degree 3: four values of n above 7 (and the smallest plans)
    assert "degree <= 3 in n: 4 values of n" in c.why


def test_a_polynomial_of_higher_degree_than_the_old_plans_is_false():
    # n(n+1)/2 plus a product that vanishes at n = 2..5: plans above 5, as many as the degree needs
    v = prove_equal(
        sympy.Sum(j, (j, 1, n)), n * (n + 1) / 2 + (n - 2) * (n - 3) * (n - 4) * (n - 5)
    )
    assert v.status == "false", v.summary()


@pytest.mark.parametrize(
    ("lhs", "rhs"),
    [
        (sympy.Sum(1, (j, 1, n)), n),
        (sympy.Sum(1, (r, 1, d_k)), d_k),
        (sympy.Sum(j, (j, 1, n)), n * (n + 1) / 2),
        (sympy.Sum(S[i, j] + n, (j, 1, n)), sympy.Sum(S[i, j], (j, 1, n)) + n**2),
    ],
)
def test_true_claims_with_sizes_as_coefficients_are_accepted(lhs, rhs):
    v = prove_equal(lhs, rhs)
    assert v.ok, v.summary()


def test_checked_says_why_its_plans_rule_out_a_coincidence():
    v = prove_equal(sympy.Sum(j, (j, 1, n)), n * (n + 1) / 2, witnesses=("exact",))
    assert v.status == "checked", v.summary()
    assert "rule out a coincidence: degree <= 2 in n: 3 values of n" in v.summary()
    assert len({dict(p)["n"] for p in v.sizes if dict(p)["n"] > 2}) >= 3


def test_a_size_inside_exp_that_no_plan_can_settle_is_never_checked():
    # equal at d_k = 2 and 3 only, and exp of the scale makes the sides no polynomial in d_k
    c = (d_k - 2) * (d_k - 3) + 1
    v = prove_equal(Softmax(Scale(c, S)), Softmax(S))
    assert v.status not in ("proved", "checked"), v.summary()
    assert not v.ok


def test_scaled_softmax_is_still_checked_with_the_scale_a_free_number():
    lhs = Softmax(Scale(1 / sympy.sqrt(d_k), Q @ K.T))
    rhs = Softmax(Scale(1 / sympy.sqrt(d_k), Q) @ K.T)
    v = prove_equal(lhs, rhs, witnesses=("exact",))
    assert v.status == "checked", v.summary()
    assert "taken as a free number" in v.summary()


def test_a_derivation_requiring_exact_refuses_a_coincidence():
    proof = Derivation(ROW, title="row sum").step((n - 2) * (n - 3) + 1, by="algebra")
    with pytest.raises(ProofError, match="false"):
        proof.prove(require="exact")


def test_a_derivation_requiring_exact_accepts_a_true_size_identity():
    proof = Derivation(sympy.Sum(j, (j, 1, n)), title="gauss").step(n * (n + 1) / 2, by="algebra")
    assert proof.prove(require="exact").steps


def test_contradictory_assumptions_are_errors():
    with pytest.raises(DimError, match="contradictory assumptions: d = n/4 makes d = 1/2"):
        with assume(n=2, d=n / 4):
            pass
    with pytest.raises(ParseError, match="contradictory assumptions"):
        parse_assume(["n=2", "n=1"])
    with pytest.raises(ParseError, match="two values"):
        parse_assume(["d_k=d/8", "d_k=d_v"])
    assert parse_assume(["n=2", "n = 2"]) == {"n": 2}


def test_the_smallest_plans_are_evaluated_too():
    # the numeric witness evaluates at the smallest plans: the exact witness does as well, so a
    # difference there is a counterexample of the exact witness, never an alarm between the two
    c = choose(ROW, (n - 2) * (n - 3) + 1, {i: (1, n)})
    assert [p[n] for p in c.plans][:2] == [2, 3]
    v = prove_equal(
        sympy.Sum(S[i, j], (j, 3, n)), sympy.Sum(S[i, j], (j, 1, n)) - S[i, 1] - S[i, 2]
    )
    assert v.ok, v.summary()
