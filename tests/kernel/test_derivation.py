"""Derivations: a chain of steps, each justified by a named rule, proved step by step."""

from __future__ import annotations

import pytest
import sympy

from symattn import ProofError
from symattn.kernel.attention import single_head
from symattn.kernel.derivation import Derivation
from symattn.kernel.dims import d_k
from symattn.kernel.expr import (
    Dot,
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
    from symattn.kernel.errors import UnknownNameError

    with pytest.raises(UnknownNameError, match=r"^unknown rule 'mul_aply'; did you mean mul_apply"):
        Derivation(S.scores[i, j]).step(S.scores[i, j], by="mul_aply")
