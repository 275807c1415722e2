"""Counterexamples: the smallest difference found, shrunk to a few entries and named by cell."""

from __future__ import annotations

import sympy

from symattn.kernel.attention import single_head
from symattn.kernel.dims import d_v, n
from symattn.kernel.expr import CausalMask, MatSym, Softmax, index
from symattn.kernel.proof import prove_equal

i, j = index("i"), index("j")
S = single_head()
Q, K = S.Q, S.K


def test_a_difference_with_no_entry_at_all_has_a_counterexample():
    # found by the differential suite: at i = 1 the left side is an empty sum, so the shrinking
    # of the counterexample starts from no entries at all
    A = MatSym("S", 5, 5)
    v = prove_equal(sympy.Sum(Softmax(2 * A)[i, j], (j, 1, i - 1)), sympy.Integer(1))
    assert v.status == "false", v.summary()
    assert "every entry=0" in str(v.counterexample)


def test_a_counterexample_names_the_cell_of_a_matrix_claim():
    qi, kj = Q.row(i), K.row(j)
    v = prove_equal(qi.T @ kj, (qi.T @ kj).T)
    assert v.status == "false"
    assert "row=" in str(v.counterexample) and "i1" not in str(v.counterexample)
    assert str(prove_equal(sympy.Integer(64), sympy.Integer(32)).counterexample).startswith(
        "left side = 64"
    )


def test_a_masked_score_times_values_is_ill_formed_not_a_crash():
    """The masked score -oo times values of both signs sums to oo - oo: outside a softmax a
    masked entry has no arithmetic, so the claim is refused as ill-formed, naming the rule."""
    i, j, u = index("i"), index("j"), index("u")
    A, V = MatSym("A", n, n), MatSym("V", n, d_v)
    lhs = sympy.Sum(CausalMask(A.T)[i, j] * V[j, u], (j, 1, n))
    rhs = sympy.Sum(Softmax(CausalMask(A.T, upper=True))[i, j] * V[j, u], (j, 1, i))
    v = prove_equal(lhs, rhs)
    assert v.status == "shape_error"
    assert "ill-formed" in v.reason and "masked entry" in v.reason
