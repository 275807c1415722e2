"""Size plans: explicit sizes that satisfy the declared relations and keep distinct dims apart."""

from __future__ import annotations

import pytest
import sympy

from symattn.kernel.attention import single_head
from symattn.kernel.dims import H, assume, d, d_k, d_v, n
from symattn.kernel.errors import DimError
from symattn.kernel.expr import Dot, index
from symattn.kernel.proof import prove_equal
from symattn.kernel.witness.sizes import plans, substitution

i, j = index("i"), index("j")
S = single_head()
Q, K = S.Q, S.K


def test_size_plans_satisfy_the_relation_and_keep_dims_apart():
    with assume(d_v=d / H):
        found = plans([n, d, H, d_k])
        assert len(found) == 2
        for plan in found:
            values = substitution(plan)
            assert values[d_v] * values[H] == values[d]
            assert len({values[x] for x in (n, d, H, d_k, d_v)}) == 5, values


def test_assumptions_no_size_satisfies_are_an_error_never_a_pass():
    # d_k = d/H with d = 3, H = 2: no size satisfies the assumptions
    with pytest.raises(DimError, match="contradictory assumptions: d_k = d/H makes d_k = 3/2"):
        with assume(d=sympy.Integer(3), H=sympy.Integer(2), d_k=d / H):
            prove_equal(S.scores[i, j], Dot(Q.row(j), K.row(i)))


def test_no_plan_is_no_evidence_never_a_pass():
    # d_k = d/(d + 1) is a positive integer for no d: no plan, so no evidence
    with assume(d_k=d / (d + 1)):
        assert plans([d_k, n]) == []
        v = prove_equal(S.scores[i, j], Dot(Q.row(j), K.row(i)))
    assert v.status == "unknown", v.summary()
    assert "no explicit sizes satisfy the assumptions" in v.reason
