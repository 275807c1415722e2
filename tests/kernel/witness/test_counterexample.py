"""Counterexamples: the smallest difference found, shrunk to a few entries and named by cell."""

from __future__ import annotations

import sympy

from symattn.kernel.attention import single_head
from symattn.kernel.expr import MatSym, Softmax, index
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
