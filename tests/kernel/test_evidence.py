"""Issue 10 through the Python API: verdicts rest on evidence, sizes satisfy the assumptions,
one semantics of sums, orientation kept, bound indices never capture, budgets instead of crashes.
"""

from __future__ import annotations

import re

import pytest
import sympy

from symattn.kernel.attention import single_head
from symattn.kernel.dims import H, assume, d, d_k, d_v, n
from symattn.kernel.expr import CausalMask, Dot, MatSym, Softmax, index
from symattn.kernel.proof import Verdict, prove_equal
from symattn.kernel.witness.evidence import Evidence, WitnessResult
from symattn.kernel.witness.evidence import supported as _supported
from symattn.kernel.witness.exact import exact
from symattn.kernel.witness.numeric import numeric_check
from symattn.kernel.witness.sizes import plans, substitution

i, j, k, r = (index(x) for x in "ijkr")
S = single_head()
Q, K = S.Q, S.K
Sc = MatSym("S", n, n)

RELATIONS = [
    {"d_v": d / H},
    {"d_k": d / H},
    {"d_k": d_v},
    {"d_k": sympy.Integer(64), "d_v": sympy.Integer(64)},
    {"d_k": d_v, "d_v": d / H, "d": sympy.Integer(512), "H": sympy.Integer(8)},
]


@pytest.mark.parametrize("relations", RELATIONS, ids=str)
def test_false_claims_stay_false_under_every_size_relation(relations):
    with assume(**relations):
        v = prove_equal(S.scores[i, j], Dot(Q.row(j), K.row(i)))
        assert v.status == "false", v.summary()
        v = prove_equal(Softmax(2 * Sc), Softmax(Sc))
        assert v.status == "false", v.summary()


@pytest.mark.parametrize("relations", RELATIONS, ids=str)
def test_true_claims_carry_evidence_under_every_size_relation(relations):
    with assume(**relations):
        v = prove_equal(S.scores[i, j], Dot(Q.row(i), K.row(j)))
    assert v.status == "proved", v.summary()
    assert v.evidence and all(e.points > 0 for e in v.evidence), v.summary()


def test_size_plans_satisfy_the_relation_and_keep_dims_apart():
    with assume(d_v=d / H):
        found = plans([n, d, H, d_k])
        assert len(found) == 2
        for plan in found:
            values = substitution(plan)
            assert values[d_v] * values[H] == values[d]
            assert len({values[x] for x in (n, d, H, d_k, d_v)}) == 5, values


def test_no_plan_is_no_evidence_never_a_pass():
    # d_k = d/H with d = 3, H = 2: no size satisfies the assumptions
    with assume(d=sympy.Integer(3), H=sympy.Integer(2), d_k=d / H):
        assert plans([d_k, n]) == []
        v = prove_equal(S.scores[i, j], Dot(Q.row(j), K.row(i)))
    assert v.status == "unknown", v.summary()
    assert "no explicit sizes satisfy the assumptions" in v.reason


def test_zero_evaluations_never_hold():
    empty = Evidence((("n", 1),), "expansion", 0, 0)
    result = _supported([empty], "equal")
    assert result.holds is None and result.detail.startswith("no evidence")
    with pytest.raises(ValueError, match="checked"):
        Verdict("checked")
    assert WitnessResult(True).exhaustive is False


def test_a_claim_false_at_one_index_point_of_64_is_false():
    A = MatSym("A", 8, 8)
    one_cell = sympy.Piecewise((1, sympy.And(sympy.Eq(i, 8), sympy.Eq(j, 8))), (0, True))
    v = prove_equal(A[i, j], A[i, j] + one_cell)
    assert v.status == "false", v.summary()


def test_checked_states_every_index_point_it_evaluated():
    A, B = MatSym("A", 8, 8), MatSym("B", 8, 8)
    v = prove_equal((A @ B)[i, j], sympy.Sum(A[i, r] * B[r, j], (r, 1, 8)), witnesses=("exact",))
    assert v.ok, v.summary()
    (ev,) = v.evidence
    assert ev.exhaustive and ev.points == ev.total == 64, v.summary()
    assert "all 64" in v.summary() or v.status == "proved"
    result = exact((A @ B)[i, j], sympy.Sum(A[i, r] * B[r, j], (r, 1, 8)), {i: (1, 8), j: (1, 8)})
    assert result.holds and result.evidence[0].points == 64


def test_mixed_orientations_are_shape_errors():
    qi, kj = Q.row(i), K.row(j)
    assert prove_equal(qi.T @ kj, kj @ qi.T).status == "shape_error"
    assert prove_equal(qi.T @ qi, qi @ qi.T).status == "shape_error"
    assert prove_equal(qi @ kj.T, kj @ qi.T).status == "proved"
    # a scalar may stand for a 1 x 1 product, as textbooks write q_i k_j^T = q_i . k_j ...
    assert prove_equal(qi @ kj.T, Dot(qi, kj)).status == "proved"
    assert prove_equal(qi @ kj.T, Dot(Q.row(j), K.row(i))).status == "false"
    # ... but never for a d_k x d_k one
    assert prove_equal(qi.T @ kj, Dot(qi, kj)).status == "shape_error"


def test_empty_sums_are_zero_and_reversed_sums_are_ill_formed():
    x = MatSym("x", n, 1)
    upto_i = sympy.Sum(x[j, 1], (j, 1, i))
    before_i = sympy.Sum(x[j, 1], (j, 1, i - 1))
    v = prove_equal(upto_i, before_i + x[i, 1])
    assert v.ok, v.summary()  # at i = 1 the sum up to i - 1 is empty
    y = MatSym("y", 3, 1)
    v = prove_equal(sympy.Sum(y[j, 1], (j, 3, 1)), -y[2, 1])  # Karr's convention would agree
    assert v.status == "shape_error" and "reversed" in v.reason, v.summary()
    v = prove_equal(sympy.Sum(y[j, 1], (j, 3, 1)), sympy.Integer(0))
    assert v.status == "shape_error", v.summary()


def test_a_free_index_named_like_a_canonical_name_is_not_captured():
    A, B = MatSym("A", n, n), MatSym("B", n, n)
    for name in ("_t0", "_b1_0", "t0", "b1_0"):
        t = index(name)
        lhs = sympy.Sum(A[t, r] * B[j, r], (r, 1, n))
        rhs = sympy.Sum(A[r, r] * B[j, r], (r, 1, n))
        v = prove_equal(lhs, rhs)
        assert v.status == "false", (name, v.summary())


@pytest.mark.parametrize(
    "hypothesis",
    [sympy.Gt(j, i), sympy.Lt(i, j), sympy.Ge(j, i + 1), sympy.Le(i + 1, j), sympy.Gt(j - i, 0)],
    ids=str,
)
def test_hypotheses_in_either_direction(hypothesis):
    w = single_head(causal=True).weights
    v = prove_equal(w[i, j], 0, assuming=[hypothesis])
    assert v.status == "proved", v.summary()


@pytest.mark.parametrize("hypothesis", [sympy.Ge(j, i), sympy.Le(i, j)], ids=str)
def test_a_weaker_hypothesis_does_not_prove_the_masked_zero(hypothesis):
    w = single_head(causal=True).weights
    assert prove_equal(w[i, j], 0, assuming=[hypothesis]).status == "false"


def test_double_sum_with_a_dependent_range_and_exp():
    lower = sympy.Sum(sympy.exp(Sc[i, j]), (j, 1, i), (i, 1, n))
    by_columns = sympy.Sum(sympy.exp(Sc[k, j]), (k, j, n), (j, 1, n))
    assert prove_equal(lower, by_columns).ok
    wrong = sympy.Sum(sympy.exp(Sc[k, j]), (k, 1, j), (j, 1, n))
    assert prove_equal(lower, wrong).status == "false"


def test_huge_explicit_sizes_are_refused_by_the_budget_not_a_memory_error():
    big_q, big_k = MatSym("Q", 100_000, 4096), MatSym("K", 100_000, 4096)
    v = prove_equal((big_q @ big_k.T)[i, j], Dot(big_q.row(j), big_k.row(i)))
    assert v.status == "unknown", v.summary()
    assert "limit is 50,000,000 entries" in v.reason


def test_the_mod_p_degree_bound_counts_algebraic_powers():
    from symattn.kernel.witness import field as modp

    deg = modp._Deg(lambda e: int(e))
    assert deg.scalar((1 + sympy.sqrt(2)) ** 5) == (5, 0)
    assert deg.scalar(sympy.sqrt(2)) == (1, 0)


def test_float64_compares_whole_matrices_and_says_how_many_entries():
    causal = CausalMask(S.scores)
    result = numeric_check(Softmax(causal), Softmax(causal), {})
    assert result.holds
    for ev in result.evidence:
        assert ev.method == "float64" and ev.exhaustive
        sizes = dict(ev.sizes)
        assert ev.points == sizes["n"] ** 2
    assert re.search(r"in float64 at d_k=\d, n=\d: all \d+ entries", str(result.evidence[0]))


def test_a_difference_with_no_entry_at_all_has_a_counterexample():
    # found by the differential suite: at i = 1 the left side is an empty sum, so the shrinking
    # of the counterexample starts from no entries at all
    A = MatSym("S", 5, 5)
    v = prove_equal(sympy.Sum(Softmax(2 * A)[i, j], (j, 1, i - 1)), sympy.Integer(1))
    assert v.status == "false", v.summary()
    assert "every entry=0" in str(v.counterexample)


@pytest.mark.parametrize(
    "hypotheses",
    [
        [sympy.Lt(i, j), sympy.Le(j, n)],
        [sympy.Le(1, i), sympy.Lt(i, j), sympy.Le(j, n)],
        [sympy.Ge(j, 2), sympy.Lt(i, j)],
        [sympy.Le(j, n - 1), sympy.Lt(i, j)],  # no index point at n = 2: other plans are used
    ],
    ids=str,
)
def test_hypotheses_that_bound_an_index_by_a_size(hypotheses):
    w = single_head(causal=True).weights
    v = prove_equal(w[i, j], 0, assuming=hypotheses)
    assert v.status == "proved" and set(v.witnesses) == {"symbolic", "exact", "numeric"}, (
        v.summary()
    )


def test_bounds_alone_do_not_prove_the_masked_zero():
    w = single_head(causal=True).weights
    assert prove_equal(w[i, j], 0, assuming=[sympy.Le(j, n - 1)]).status == "false"
    with pytest.raises(Exception, match="not supported"):
        prove_equal(w[i, j], 0, assuming=[sympy.Le(j, 2 * i)])


def test_a_counterexample_names_the_cell_of_a_matrix_claim():
    qi, kj = Q.row(i), K.row(j)
    v = prove_equal(qi.T @ kj, (qi.T @ kj).T)
    assert v.status == "false"
    assert "row=" in str(v.counterexample) and "i1" not in str(v.counterexample)
    assert str(prove_equal(sympy.Integer(64), sympy.Integer(32)).counterexample).startswith(
        "left side = 64"
    )
