"""Derivations: a chain of steps, each justified by a named rule, proved step by step."""

from __future__ import annotations

import pytest
import sympy

from symattn import ProofError
from symattn.kernel import rules
from symattn.kernel.attention import single_head
from symattn.kernel.derivation import Derivation
from symattn.kernel.dims import d_k, n
from symattn.kernel.errors import UnknownNameError
from symattn.kernel.expr import (
    Dot,
    MatSym,
    index,
)

i, j, r, u = (index(x) for x in "ijru")
S = single_head()
Q, K, V, A, X = S.Q, S.K, S.V, S.A, S.X


def test_score_entry_is_a_sum_and_a_dot_product():
    proof = (
        Derivation(S.scores[i, j], title="score entry")
        .step(sympy.Sum(Q[i, r] * K[j, r], (r, 1, d_k)), by="mul_transpose_apply")
        .step(Dot(Q.row(i), K.row(j)), by="dot_def")
        .prove()
    )
    assert proof.for_all_sizes
    assert proof.witnesses == ("symbolic", "exact", "numeric")


def test_failed_step_names_the_step_and_gives_a_counterexample():
    d = Derivation(S.scores[i, j], title="score").step(Dot(Q.row(j), K.row(i)), by="dot_def")
    with pytest.raises(ProofError, match=r"^step 1 is false: score, step 1 \(dot_def\)") as exc:
        d.prove()
    assert exc.value.counterexample is not None


def test_unknown_rule_gets_a_suggestion():
    with pytest.raises(UnknownNameError, match=r"^unknown rule 'mul_aply'; did you mean mul_apply"):
        Derivation(S.scores[i, j]).step(S.scores[i, j], by="mul_aply")


def test_a_wrong_rule_is_refused_although_the_step_holds():
    d = (
        Derivation(S.scores[i, j], title="score")
        .step(sympy.Sum(Q[i, r] * K[j, r], (r, 1, d_k)), by="mul_transpose_apply")
        .step(Dot(Q.row(i), K.row(j)), by="softmax_rowsum")
    )
    with pytest.raises(
        ProofError, match=r"^step 2 holds but does not follow from softmax_rowsum: score, step 2"
    ) as exc:
        d.prove()
    assert "expected softmax(S)1_(mx1) on one side where the other has 1_(nx1)" in str(exc.value)
    assert exc.value.step == 2


def test_the_right_rule_inside_a_context_and_reversed():
    proof = (
        Derivation(2 * S.scores[i, j] + 1, title="context")
        .step(2 * Dot(Q.row(i), K.row(j)) + 1, by="mul_transpose_apply_dot")
        .step(2 * S.scores[i, j] + 1, by="mul_transpose_apply_dot")
        .prove()
    )
    assert [s.by for s in proof.steps] == ["mul_transpose_apply_dot"] * 2


def test_phrases_cite_no_rule_and_are_not_matched():
    proof = Derivation(S.scores[i, j]).step(Dot(Q.row(i), K.row(j)), by="algebra").prove()
    assert proof.steps[0].by == "algebra"


def test_a_users_rule_registered_and_cited():
    Y = MatSym("Y", n, d_k)
    rules.register("transpose_transpose", "the transpose of a transpose", "转置的转置", (Y.T.T, Y))
    try:
        proof = (
            Derivation((Q.T.T @ K.T)[i, j], title="tt")
            .step((Q @ K.T)[i, j], by="transpose_transpose")
            .prove()
        )
        assert proof.steps[0].by == "transpose_transpose"
        with pytest.raises(ProofError, match=r"^step 1 holds but does not follow from transpose"):
            Derivation(S.scores[i, j]).step(
                Dot(Q.row(i), K.row(j)), by="transpose_transpose"
            ).prove()
    finally:
        rules.unregister("transpose_transpose")
    with pytest.raises(UnknownNameError):
        rules.get("transpose_transpose")
