"""Rule instances: a step fits its cited rule only where it rewrites an instance of it."""

from __future__ import annotations

import pytest
import sympy

from symattn.kernel import rules
from symattn.kernel.attention import multi_head, single_head
from symattn.kernel.dims import d_k, n
from symattn.kernel.expr import CausalMask, Dot, MatSum, MatSym, Ones, Scale, Softmax, index
from symattn.kernel.match import Pattern, unfold

i, j, k, r = (index(x) for x in "ijkr")
S = single_head()
Q, K, V, A = S.Q, S.K, S.V, S.A
X, Y = MatSym("X", 5, 3), MatSym("Y", 5, 3)


def pattern(name: str) -> Pattern:
    lhs, rhs = rules.get(name).sides()
    return Pattern(lhs, rhs, rules.get(name).assuming())


FITS = [
    # (rule, before, after): right rule, any variables, either direction, inside a context
    ("mul_transpose_apply_dot", S.scores[i, j], Dot(Q.row(i), K.row(j))),
    ("mul_transpose_apply_dot", (X @ Y.T)[1, 2], Dot(X.row(1), Y.row(2))),
    ("mul_transpose_apply_dot", Dot(Q.row(i), K.row(j)), S.scores[i, j]),
    ("mul_transpose_apply_dot", 2 + S.scores[i, j] / 3, 2 + Dot(Q.row(i), K.row(j)) / 3),
    ("mul_transpose_apply", S.scores[i, j], sympy.Sum(Q[i, r] * K[j, r], (r, 1, d_k))),
    ("dot_def", sympy.Sum(Q[i, r] * K[j, r], (r, 1, d_k)), Dot(Q.row(i), K.row(j))),
    ("mul_apply", (A @ V)[i, 1], sympy.Sum(A[i, j] * V[j, 1], (j, 1, n))),
    ("row_mul", ((X @ Y.T) @ X).row(i), (X @ Y.T).row(i) @ X),
    ("mul_row", (A @ V).row(i), MatSum(Scale(A[i, j], V.row(j)), j, 1, n)),
    ("softmax_rowsum", Softmax(S.scaled) @ Ones(n, 1), Ones(n, 1)),
    ("concat_mul", multi_head().output, multi_head().blockwise),
]

MISFITS = [
    ("softmax_rowsum", S.scores[i, j], Dot(Q.row(i), K.row(j))),
    ("dot_def", S.scores[i, j], Dot(Q.row(i), K.row(j))),
    ("mul_transpose_apply_dot", S.scores[i, j], Dot(Q.row(j), K.row(i))),  # indices swapped
    ("mul_transpose_apply_dot", S.scores[i, j], S.scores[i, j]),  # nothing rewritten
    ("mul_sum", sympy.Sum(Q[i, j] * K[j, 1], (j, 1, n)), Q[i, j] * sympy.Sum(K[j, 1], (j, 1, n))),
]


@pytest.mark.parametrize(("name", "before", "after"), FITS)
def test_a_step_that_rewrites_an_instance_fits(name, before, after):
    assert pattern(name).mismatch(before, after) is None


@pytest.mark.parametrize(("name", "before", "after"), MISFITS)
def test_a_step_that_does_not_rewrite_an_instance_is_refused(name, before, after):
    reason = pattern(name).mismatch(before, after)
    assert reason is not None and reason.startswith("expected ")


def test_the_rule_may_rewrite_several_places_at_once():
    before = sympy.exp(S.scores[i, j]) / sympy.Sum(sympy.exp(S.scores[i, k]), (k, 1, n))
    after = sympy.exp(Dot(Q.row(i), K.row(j))) / sympy.Sum(
        sympy.exp(Dot(Q.row(i), K.row(k))), (k, 1, n)
    )
    assert pattern("mul_transpose_apply_dot").mismatch(before, after) is None


def test_parts_of_an_instance_may_be_written_in_a_kernel_equal_form():
    scaled = S.scaled  # softmax_apply with S := QK^T / sqrt(d_k), its entry written out
    entry = sympy.exp(S.scores[i, j] / sympy.sqrt(d_k))
    after = entry / sympy.Sum(sympy.exp(S.scores[i, k] / sympy.sqrt(d_k)), (k, 1, n))
    assert pattern("softmax_apply").mismatch(Softmax(scaled)[i, j], after) is None


def test_definitions_are_unfolded_to_find_an_instance():
    defs = {A: S.weights}
    before, after = sympy.Sum(A[i, j], (j, 1, n)), sympy.Integer(1)
    assert pattern("sum_softmax_apply").mismatch(before, after) is not None
    assert pattern("sum_softmax_apply").mismatch(before, after, defs=defs) is None
    assert unfold(A.T, defs) == S.weights.T


def test_a_rule_with_a_hypothesis_needs_it_in_the_proof():
    masked = Softmax(CausalMask(S.scores))
    rule = pattern("softmax_mask_apply_of_gt")
    reason = rule.mismatch(masked[i, j], sympy.Integer(0))
    assert reason is not None and "hypothesis j > i" in reason
    assert rule.mismatch(masked[i, j], 0, assuming=[sympy.Gt(j, i)]) is None
    assert rule.mismatch(masked[i, j], 0, assuming=[sympy.Lt(i, j)]) is None


def test_a_factor_that_mentions_the_index_is_not_pulled_out_of_a_sum():
    c = sympy.Symbol("c")
    ok = (c * sympy.Sum(K[j, 1], (j, 1, n)), sympy.Sum(c * K[j, 1], (j, 1, n)))
    assert pattern("mul_sum").mismatch(*ok) is None


# ---- a rule fits an instance under a substitution of its variables, and only then ----------

Z = MatSym("Z", n, n)
TT = Pattern(Z.T.T, Z)


def test_a_bare_variable_side_binds_one_subterm_not_anything_equal():
    other = (K @ Q.T).T  # equal to QK^T, but not (QK^T)^TT: no instance of Z^TT = Z
    for before, after in ((S.scores, other), (other, S.scores)):
        reason = TT.mismatch(before, after)
        assert reason is not None and reason.startswith("expected "), (before, after)
    assert Pattern(Z, Z.T.T).mismatch(S.scores, other) is not None


def test_a_true_instance_of_a_bare_variable_rule_fits():
    assert TT.mismatch(S.scores.T.T, S.scores) is None
    assert TT.mismatch(S.scores, S.scores.T.T) is None  # the other direction
    assert TT.mismatch(2 * S.scores.T.T[i, j], 2 * S.scores[i, j]) is None  # inside a context


def test_a_users_double_transpose_rule_does_not_justify_other_true_steps():
    from symattn.kernel.derivation import Derivation
    from symattn.kernel.errors import ProofError

    rules.register("transpose_transpose_square", "double transpose", "转置的转置", (Z.T.T, Z))
    try:
        with pytest.raises(ProofError, match="does not follow from transpose_transpose_square"):
            Derivation(S.scores).step((K @ Q.T).T, by="transpose_transpose_square").prove()
        ok = Derivation(S.scores.T.T).step(S.scores, by="transpose_transpose_square").prove()
        assert ok.steps[0].by == "transpose_transpose_square"
    finally:
        rules.unregister("transpose_transpose_square")


def _alibi_step(before_slope, after_slope):
    from symattn.kernel.modern import PositionBias, alibi

    T = MatSym("T", n, n)
    before = Softmax(CausalMask(T + alibi(n, before_slope)))
    after = Softmax(CausalMask(T + PositionBias(n, 0, after_slope)))
    return before, after


def test_a_rule_fits_at_another_slope_than_it_was_stated_for():
    mu = sympy.Symbol("mu", positive=True)
    rule = pattern("softmax_add_alibi")
    for slope in (2 * mu, mu / 2, 3 * mu + 1):
        assert rule.mismatch(*_alibi_step(slope, slope)) is None, slope


def test_a_slope_bound_twice_must_be_the_same_term():
    mu = sympy.Symbol("mu", positive=True)
    reason = pattern("softmax_add_alibi").mismatch(*_alibi_step(2 * mu, 3 * mu))
    assert reason is not None and reason.startswith("expected ")


@pytest.mark.parametrize(
    "hypothesis",
    [sympy.Ge(j, i + 1), sympy.Gt(j, i + 1), sympy.Le(i + 1, j), sympy.Gt(j, i + n)],
)
def test_an_integer_hypothesis_that_implies_the_rules_fits(hypothesis):
    masked = Softmax(CausalMask(S.scores))
    assert (
        pattern("softmax_mask_apply_of_gt").mismatch(masked[i, j], 0, assuming=[hypothesis]) is None
    )


@pytest.mark.parametrize("hypothesis", [sympy.Ge(j, i), sympy.Gt(j, i - 1), sympy.Gt(i, j)])
def test_a_weaker_hypothesis_does_not_fit(hypothesis):
    masked = Softmax(CausalMask(S.scores))
    reason = pattern("softmax_mask_apply_of_gt").mismatch(masked[i, j], 0, assuming=[hypothesis])
    assert reason is not None and "hypothesis j > i" in reason


def test_a_derivation_under_j_at_least_i_plus_one_cites_the_mask_rule():
    from symattn.kernel.derivation import Derivation

    masked = Softmax(CausalMask(S.scores))
    for hypothesis in (sympy.Ge(j, i + 1), sympy.Gt(j, i + 1)):
        proof = (
            Derivation(masked[i, j], title="masked")
            .step(sympy.Integer(0), by="softmax_mask_apply_of_gt")
            .prove(assuming=[hypothesis])
        )
        assert proof.steps[0].verdict.status == "proved"


def test_the_rest_of_the_step_must_stay_as_it_was():
    # one instance rewritten, and elsewhere a change the kernel merely proves equal: two steps
    other = (K @ Q.T).T
    assert TT.mismatch(S.scores.T.T + S.scores, S.scores + other) is not None
    assert TT.mismatch(S.scores.T.T + S.scores, S.scores + S.scores) is None
    before = sympy.exp(S.scores.T.T[i, j]) + S.scores[j, i]
    assert TT.mismatch(before, sympy.exp(S.scores[i, j]) + Dot(Q.row(j), K.row(i))) is not None
    assert TT.mismatch(before, sympy.exp(S.scores[i, j]) + S.scores[j, i]) is None


def test_two_chained_hypotheses_imply_the_rules():
    masked = Softmax(CausalMask(S.scores))
    rule = pattern("softmax_mask_apply_of_gt")
    chained = [sympy.Gt(j, k), sympy.Ge(k, i)]
    assert rule.mismatch(masked[i, j], 0, assuming=chained) is None
    assert rule.mismatch(masked[i, j], 0, assuming=[sympy.Ge(j, k), sympy.Ge(k, i)]) is not None
