"""The chapter's attention (single and multi-head) and its identities, proved by the kernel;
false variants rejected with counterexamples.
"""

from __future__ import annotations

import pytest
import sympy

from symattn.kernel.attention import multi_head, single_head
from symattn.kernel.dims import H, d_k, d_v, n
from symattn.kernel.expr import (
    Concat,
    Dot,
    FromColumn,
    HeadSym,
    MatSum,
    MatSym,
    Ones,
    RowBlock,
    Scale,
    Softmax,
    index,
)
from symattn.kernel.facts import prove_positive
from symattn.kernel.proof import prove_equal

i, j, r, u = (index(x) for x in "ijru")
S = single_head()
Q, K, V, A, X = S.Q, S.K, S.V, S.A, S.X


def proved(v):
    assert v.status == "proved", v.summary()
    assert set(v.witnesses) == {"symbolic", "exact", "numeric"}, v.summary()
    return v


def refuted(v):
    assert v.status == "false", v.summary()
    assert v.counterexample is not None
    return v


def test_av_entry_and_rows_of_z():
    proved(prove_equal((A @ V)[i, u], sympy.Sum(A[i, j] * V[j, u], (j, 1, n))))
    z_i = S.Z.row(i)
    proved(prove_equal(z_i, MatSum(Scale(A[i, j], V.row(j)), j, 1, n), defs={S.Z: A @ V}))


def test_projection_row_by_row():
    proved(prove_equal(Q.row(i), X.row(i) @ S.W_Q, defs={Q: X @ S.W_Q}))


def test_weights_positive_rows_sum_to_one_convex_combination():
    w = S.weights
    assert prove_positive(w).status == "proved"
    proved(prove_equal(w @ Ones(n, 1), Ones(n, 1)))
    # z_i = sum_j a_ij v_j with those weights: a convex combination of the v_j
    proved(prove_equal((w @ V).row(i), MatSum(Scale(w[i, j], V.row(j)), j, 1, n)))


def test_causal_weights_zero_above_diagonal_and_rows_sum_to_one():
    w = single_head(causal=True).weights
    proved(prove_equal(w[i, j], 0, assuming=[sympy.StrictGreaterThan(j, i)]))
    proved(prove_equal(w @ Ones(n, 1), Ones(n, 1)))
    assert prove_positive(w, strict=False).status == "proved"
    assert prove_positive(w).status == "unknown"
    # z_i depends only on v_1..v_i
    proved(prove_equal((w @ V).row(i), MatSum(Scale(w[i, j], V.row(j)), j, 1, i)))


def test_softmax_shift_invariance():
    s = MatSym("S", n, n)
    proved(prove_equal(Softmax(s + FromColumn("c", n, n)), Softmax(s)))


def test_block_identity_for_symbolic_heads():
    mh = multi_head()
    assert mh.output.shape == (n, mh.X.cols)
    proved(prove_equal(mh.output, mh.blockwise))


@pytest.mark.parametrize("heads", [2, 3, 8])
def test_block_identity_exact_at_explicit_heads(heads):
    mh = multi_head(n=2, d=2, d_v=2, H=heads)
    v = prove_equal(mh.output, mh.blockwise, witnesses=("exact",))
    assert v.ok and "exact" in v.witnesses, v.summary()


def test_worked_example_explicit_sizes():
    s5 = single_head(n=5, d=8, d_k=64, d_v=64)
    assert s5.scores.shape == (5, 5)
    v = prove_equal(
        s5.scores[i, j], Dot(s5.Q.row(i), s5.K.row(j)), witnesses=("symbolic", "numeric")
    )
    assert v.status == "proved"
    assert single_head(n=7, d_k=64).scores.shape == (7, 7)


# ---- false variants -------------------------------------------------------------------------


def test_swapped_dot_product_is_false():
    v = refuted(prove_equal(S.scores[i, j], Dot(Q.row(j), K.row(i))))
    assert "i=" in str(v.counterexample) and "j=" in str(v.counterexample)


def test_transposed_indices_in_sum_are_an_index_range_error():
    # Q_{ri} K_{rj}: r would range over positions, so with d_k != n the sum is over the wrong dim
    v = prove_equal(S.scores[i, j], sympy.Sum(Q[r, i] * K[r, j], (r, 1, d_k)))
    assert v.status == "shape_error", v.summary()
    assert v.reason == "Q_{r,i}: index r runs over 1..d_k but Q has n rows"


def test_av_with_swapped_weight_indices_is_false():
    refuted(prove_equal((A @ V)[i, u], sympy.Sum(A[j, i] * V[j, u], (j, 1, n))))


def test_sum_bound_off_by_one_is_false():
    refuted(prove_equal((A @ V)[i, u], sympy.Sum(A[i, j] * V[j, u], (j, 1, n - 1))))


def test_wrong_scale_is_false():
    wrong = Softmax(S.scores / sympy.sqrt(d_v))
    v = refuted(prove_equal(S.weights, wrong))
    assert "d_k=" in str(v.counterexample) and "d_v=" in str(v.counterexample)


def test_w_o_block_with_wrong_offset_is_false():
    mh = multi_head()
    h = mh.h
    WO = mh.W_O
    wrong = MatSum(mh.Z_h @ RowBlock(WO, h + 1, d_v, H), h, 1, H - 1)
    refuted(prove_equal(Concat(HeadSym("Z", h, n, d_v), h, H) @ WO, wrong))
