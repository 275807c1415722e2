"""Strict shapes: products, sums, masks, concatenation, and the messages users see."""

from __future__ import annotations

import pytest
import sympy

from symattn import ShapeError
from symattn.kernel.attention import multi_head, single_head
from symattn.kernel.dims import H, assume, d, d_k, d_v, dims_equal, n
from symattn.kernel.errors import DimError
from symattn.kernel.expr import CausalMask, Dot, MatSym, RowBlock, Softmax, index


def test_scores_are_n_by_n():
    s = single_head()
    assert s.scores.shape == (n, n)
    assert s.output.shape == (n, d_v)
    assert (s.X @ s.W_Q).shape == (n, d_k)


@pytest.mark.parametrize(("tokens", "expected"), [(5, (5, 5)), (7, (7, 7))])
def test_worked_example_sizes(tokens, expected):
    s = single_head(n=tokens, d_k=64)
    assert s.Q.shape == (tokens, 64)
    assert s.scores.shape == expected
    assert s.weights.shape == expected


def test_product_of_same_shapes_is_refused_with_hint():
    s = single_head()
    with pytest.raises(
        ShapeError,
        match=r"^cannot multiply Q \(n × d_k\) by K \(n × d_k\): "
        r"inner dims d_k and n are not provably equal\n  hint: did you mean Q @ K.T\?",
    ):
        s.Q @ s.K


def test_explicit_sizes_mismatch():
    q, k = MatSym("Q", 5, 64), MatSym("K", 5, 32)
    with pytest.raises(ShapeError, match=r"^cannot multiply Q \(5 × 64\) by K\^T \(32 × 5\)"):
        q @ k.T


def test_multi_head_shapes_and_residual():
    mh = multi_head()
    assert dims_equal(mh.concat.cols, H * d_v)
    assert mh.output.shape == (n, d)
    assert mh.residual.shape == (n, d)


def test_w_o_with_one_head_of_rows_is_a_shape_error():
    mh = multi_head()
    wrong = MatSym("W_O", d_v, d)
    with pytest.raises(
        ShapeError,
        match=r"^cannot multiply Concat\(Z\^\(1\),\.\.\.,Z\^\(H\)\) "
        r"\(n × H\*d_v\) by W_O \(d_v × d\): inner dims H\*d_v and d_v",
    ):
        mh.concat @ wrong


def test_residual_needs_matching_width():
    s = single_head()
    with pytest.raises(
        ShapeError, match=r"^cannot add X \(n × d\) and Z \(n × d_v\): cols d and d_v"
    ):
        s.X + s.Z


def test_declared_equality_makes_shapes_agree():
    x = MatSym("X", n, d)
    o = MatSym("O", n, H * d_k)
    with pytest.raises(ShapeError):
        x + o
    with assume(d_k=d / H):
        assert (x + o).shape == (n, d)


def test_mask_needs_square_scores():
    with pytest.raises(ShapeError, match=r"^cannot apply a causal mask to Q \(n × d_k\)"):
        CausalMask(MatSym("Q", n, d_k))


def test_dot_needs_equal_lengths():
    q, v = MatSym("Q", n, d_k), MatSym("V", n, d_v)
    i = index("i")
    with pytest.raises(
        ShapeError, match=r"^cannot take the dot product of q_i \(1 × d_k\) and v_i"
    ):
        Dot(q.row(i), v.row(i))


def test_row_block_must_tile_the_rows():
    with pytest.raises(ShapeError, match=r"^cannot cut W_O \(d_v × d\) into H blocks of d_v rows"):
        RowBlock(MatSym("W_O", d_v, d), 1, d_v, H)


@pytest.mark.parametrize("bad", [0, -3, sympy.Rational(1, 2), True])
def test_dims_are_positive_integers(bad):
    with pytest.raises(DimError, match=r"^a dimension must be"):
        MatSym("Q", bad, 2)


def test_softmax_keeps_shape():
    assert Softmax(MatSym("S", n, n)).shape == (n, n)


def test_a_product_with_the_number_zero_keeps_its_entry_for_the_kernel() -> None:
    from symattn.kernel.proof import prove_equal

    i, j = index("i"), index("j")
    S = MatSym("S", n, n)
    for zero in (0, sympy.Integer(0), sympy.Rational(0)):
        assert S[i, j] in (zero * S[i, j]).args and S[i, j] in (S[i, j] * zero).args
    # the sum runs past the last column: ill-formed although every term is 0
    past = prove_equal(sympy.Sum(0 * S[i, j], (j, 1, n + 1)), 0)
    assert past.status == "shape_error" and "n + 1" in past.reason
    dot = Dot(S.row(i), S.row(j))
    assert dot in (0 * dot).args and dot in (dot * 0).args
    # 0 times a masked (-inf) entry is arithmetic on it outside a softmax
    assert prove_equal(0 * CausalMask(S)[i, j], 0).status == "shape_error"
    # within range, 0 times an entry is 0, and other products are sympy's own
    assert prove_equal(sympy.Sum(0 * S[i, j], (j, 1, n)), 0).status == "proved"
    assert prove_equal(0 * S[i, j] + S[i, j], S[i, j]).status == "proved"
    assert 2 * S[i, j] == sympy.Mul(2, S[i, j]) and S[i, j] * S[i, j] == S[i, j] ** 2
