"""The prime-field evaluator: exact arithmetic without int64 overflow, atoms, bounds, fallbacks."""

from __future__ import annotations

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from symattn.kernel.attention import single_head
from symattn.kernel.compare import matvec
from symattn.kernel.evaluate import Evaluator
from symattn.kernel.expr import (
    CausalMask,
    Dot,
    MatSym,
    Ones,
    Scale,
    Softmax,
    index,
)
from symattn.kernel.proof import prove_equal
from symattn.kernel.witness import field as modp

i, j, r = index("i"), index("j"), index("r")


def exact_matmul(a: np.ndarray, b: np.ndarray, p: int) -> np.ndarray:
    """Python integers: no overflow possible."""
    rows, inner, cols = a.shape[0], a.shape[1], b.shape[1]
    out = [
        [sum(int(a[x, k]) * int(b[k, y]) for k in range(inner)) % p for y in range(cols)]
        for x in range(rows)
    ]
    return np.array(out, dtype=np.int64)


@pytest.mark.parametrize("p", modp.PRIMES)
@pytest.mark.parametrize("shape", [(1, 1, 1), (3, 7, 2), (2, 2048, 3), (2, 2049, 2), (2, 5000, 1)])
def test_matmul_with_every_entry_p_minus_1_does_not_overflow(p, shape):
    m, k, c = shape
    a = np.full((m, k), p - 1, dtype=np.int64)
    b = np.full((k, c), p - 1, dtype=np.int64)
    assert (modp.matmul(a, b, p) == exact_matmul(a, b, p)).all()
    assert int(modp.matmul(a, b, p)[0, 0]) == k % p  # (p-1)^2 = 1 mod p


@settings(max_examples=25, deadline=None)
@given(
    st.integers(1, 4),
    st.integers(1, 40),
    st.integers(1, 4),
    st.sampled_from(modp.PRIMES),
    st.integers(0, 2**32 - 1),
)
def test_matmul_matches_python_integers_on_adversarial_values(m, k, c, p, seed):
    rng = np.random.default_rng(seed)
    pool = np.array([0, 1, 2, p - 2, p - 1, (p - 1) // 2, 1 << 30], dtype=np.int64) % p
    a, b = rng.choice(pool, (m, k)), rng.choice(pool, (k, c))
    assert (modp.matmul(a, b, p) == exact_matmul(a, b, p)).all()
    assert (modp.matmul(b.T, a.T, p) == exact_matmul(a, b, p).T).all()


@pytest.mark.parametrize("p", modp.PRIMES)
def test_power_and_inverse_at_p_minus_1(p):
    x = np.array([p - 1, p - 2, 2, 1], dtype=np.int64)
    assert (modp.power(x, 2, p) == np.array([1, 4, 4, 1])).all()
    assert (modp.inverse(x, p) * x % p == 1).all()


def test_inverse_of_zero_asks_for_a_new_point():
    with pytest.raises(modp.Resample):
        modp.inverse(np.array([3, 0]), modp.PRIMES[0])


def test_field_values_at_p_minus_1_match_exact_rationals():
    """A chain with a rational scale, every leaf entry p - 1 (= -1): the result is exact."""
    p = modp.PRIMES[0]
    Q, K, V = MatSym("Q", 3, 4096), MatSym("K", 3, 4096), MatSym("V", 3, 2)
    term = Scale(sympy.Rational(1, 8), Q @ K.T) @ V

    def minus_one(key, shape, rng):
        return np.full(shape, p - 1, dtype=np.int64)

    f = Evaluator(modp.ModP(p), np.random.default_rng(0), modp.learn_shapes(term), minus_one)
    value = f.mat(term)
    # every entry: sum_k (4096 / 8) * (-1) = -3 * 512
    expected = sympy.Rational(-3 * 4096, 8)
    assert {modp.rational(int(x), p) for x in value.ravel()} == {expected}


def test_softmax_rows_sum_to_one_in_the_field():
    S = MatSym("S", 5, 5)
    f = Evaluator(modp.ModP(modp.PRIMES[1]), np.random.default_rng(3), modp.learn_shapes(S))
    for w in (Softmax(S), Softmax(CausalMask(S))):
        rows = f.mat(w @ Ones(5, 1))
        assert (rows == 1).all()
    assert (np.triu(f.mat(Softmax(CausalMask(S))), 1) == 0).all()


def test_the_same_score_gets_the_same_exp_on_both_sides():
    s = single_head(n=4, d=6, d_k=3, d_v=2)
    # Q K^T written twice as different trees with equal values: consistent exp atoms.
    other = Softmax(Scale(1 / sympy.sqrt(3), (s.K @ s.Q.T).T))
    assert modp.check(s.weights, other, {}).equal


def test_algebraic_scale_is_a_free_value_and_a_wrong_one_is_seen():
    s = single_head(n=3, d=4, d_k=5, d_v=2)
    assert modp.check(s.weights, Softmax(s.scores * (1 / sympy.sqrt(5))), {}).equal
    found = modp.check(s.weights, Softmax(s.scores / sympy.sqrt(2)), {})
    assert not found.equal and found.uses_atoms


def test_verdict_states_the_probability_bound():
    s = single_head(n=7, d=512, d_k=64, d_v=64)
    found = modp.check(s.scores[i, j], Dot(s.Q.row(i), s.K.row(j)), {i: (1, 7), j: (1, 7)})
    assert found.equal and found.trials == 3 and found.points == 49
    assert found.degree == 2
    assert found.bound <= (2 / modp.PRIMES[-1]) ** 3
    assert "chance of a false 'equal' <= " in found.detail()


def test_scalar_sums_written_by_hand_are_vectorised_and_checked():
    s = single_head(n=7, d=512, d_k=64, d_v=64)
    Q, K = s.Q, s.K
    by_hand = sympy.Sum(Q[i, r] * K[j, r], (r, 1, 64))
    assert modp.check(s.scores[i, j], by_hand, {i: (1, 7), j: (1, 7)}).equal
    off_by_one = sympy.Sum(Q[i, r] * K[j, r], (r, 1, 63))
    found = modp.check(s.scores[i, j], off_by_one, {i: (1, 7), j: (1, 7)})
    assert not found.equal and not found.uses_atoms


def test_index_dependent_ranges_and_hypotheses():
    w = single_head(n=6, d=4, d_k=3, d_v=2, causal=True).weights
    t = sympy.Symbol("t", integer=True, positive=True)
    # entries above the diagonal are 0: j = i + t with t in 1..6-i
    found = modp.check(w[i, i + t], sympy.Integer(0), {i: (1, 6), t: (1, 6 - i)})
    assert found.equal and found.points == 15


@pytest.mark.parametrize(
    "value, expected",
    [(3, sympy.Integer(3)), (-5, sympy.Integer(-5)), (sympy.Rational(3, 8), sympy.Rational(3, 8))],
)
def test_rational_reconstruction(value, expected):
    p = modp.PRIMES[2]
    v = sympy.Rational(value)
    x = int(v.p) % p * pow(int(v.q), -1, p) % p
    assert modp.rational(x, p) == expected


def test_field_model_never_calls_a_true_identity_false():
    """Proved identities at explicit sizes: the field model agrees, never refutes."""
    s = single_head(n=5, d=8, d_k=4, d_v=4, causal=True)
    w = s.weights
    v = prove_equal(w @ Ones(5, 1), Ones(5, 1), witnesses=("exact",))
    assert v.status == "checked", v.summary()


def test_free_scalar_is_a_variable_not_an_atom():
    A, B = MatSym("A", 7, 300), MatSym("B", 300, 5)
    c = sympy.Symbol("c")
    assert modp.check(Scale(c, A) @ B, Scale(c, A @ B), {}).equal
    v = prove_equal(Scale(c, A) @ B, Scale(c + 1, A @ B), witnesses=("exact",))
    assert v.status == "false" and v.counterexample is not None, v.summary()


def test_true_identity_the_field_model_cannot_see_is_never_called_false():
    # sqrt(2) is a free element, so sqrt(2) * sqrt(2) = 2 is invisible to the field model
    Q, K = MatSym("Q", 7, 64), MatSym("K", 7, 64)
    r2 = 1 / sympy.sqrt(2)
    v = prove_equal(Scale(r2, Q) @ Scale(r2, K).T, Scale(sympy.Rational(1, 2), Q @ K.T))
    assert v.status == "proved", v.summary()  # by the symbolic witness; exact sees no difference
    small = (MatSym("Q", 2, 2), MatSym("K", 2, 2))
    lhs = Scale(r2, small[0]) @ Scale(r2, small[1]).T
    v = prove_equal(lhs, Scale(sympy.Rational(1, 2), small[0] @ small[1].T), witnesses=("exact",))
    assert v.status == "checked", v.summary()


@pytest.mark.parametrize("p", [*modp.PRIMES, 5, (1 << 31) - 1 - (1 << 29)])
def test_uniform_entries_stay_below_p_and_cover_the_field(p):
    values = modp.uniform(("Q",), (200, 50), np.random.default_rng(1), p)
    assert values.dtype == np.int64 and values.shape == (200, 50)
    assert values.min() >= 0 and values.max() < p
    if p == 5:  # every residue, about equally
        counts = np.bincount(values.ravel(), minlength=5)
        assert counts.min() > 1800 and counts.max() < 2200


def test_row_blocks_share_one_product_per_trial():
    from symattn.kernel.attention import multi_head

    mh = multi_head(n=3, d=8, d_v=2, H=4, d_k=2)
    p = modp.PRIMES[0]
    f = Evaluator(modp.ModP(p), np.random.default_rng(0), modp.learn_shapes(mh.output))
    x = f.probe(8)
    assert np.array_equal(matvec(f, mh.output, x), modp.matmul(f.mat(mh.output), x, p))
    assert np.array_equal(matvec(f, mh.blockwise, x), matvec(f, mh.output, x))
    whole = [k for k in f.products if k[0] == mh.W_O]
    assert len(whole) == 1  # W_O x, computed once; every W_O^(h) x is a slice of it


def test_the_mod_p_degree_bound_counts_algebraic_powers():
    from symattn.kernel.witness import field as modp

    deg = modp._Deg(lambda e: int(e))
    assert deg.scalar((1 + sympy.sqrt(2)) ** 5) == (5, 0)
    assert deg.scalar(sympy.sqrt(2)) == (1, 0)
