"""A family defined by a recurrence and a base case: claims about X_t decided by induction on t."""

from __future__ import annotations

import pytest
import sympy

from symattn.kernel.dims import d_k, d_v, n
from symattn.kernel.errors import ShapeError
from symattn.kernel.expr import Entry, MatAdd, MatSum, MatSym, Row, Scale, index
from symattn.kernel.proof import prove_equal
from symattn.kernel.text import plain
from symattn.kernel.unfold import Unfold, member, zeros

t = sympy.Symbol("t", integer=True, positive=True)
j = index("j")
K, V = MatSym("K", n, d_k), MatSym("V", n, d_v)
PREV = MatSym("S_before", d_k, d_v)


def state(step=None, base=None) -> Unfold:
    """S_0 = 0 (or `base`), S_t = S_{t-1} + k_t^T v_t (or `step`)."""
    step = MatAdd(PREV, Row(K, t).T @ Row(V, t)) if step is None else step
    s = member("S", t, zeros(d_k, d_v) if base is None else base, step, PREV, t)
    assert isinstance(s, Unfold)
    return s


def prefix(hi: sympy.Expr = t) -> MatSum:
    return MatSum(Row(K, j).T @ Row(V, j), j, 1, hi)


def test_linear_state_is_proved_by_induction_on_t() -> None:
    v = prove_equal(state(), prefix())
    assert v.status == "proved", v.summary()
    assert v.reason.startswith("proved by induction on t: base (S_t at t = 1): proved")
    assert "step (t-1 -> t for 2 <= t <= n, the claim at t-1 assumed): proved" in v.reason
    assert "sum_last_term" in v.reason
    assert "written out without the induction: t = 1 (n = 3, d_k = 2, d_v = 3) " in v.reason
    assert "exact" in v.witnesses


@pytest.mark.parametrize(
    ("what", "lhs", "rhs", "at"),
    [
        ("the sum stops one early", state(), prefix(t - 1), "t = 1"),
        (
            "the state not accumulated",
            state(step=Row(K, t).T @ Row(V, t)),
            prefix(),
            "t = 2",
        ),
        ("the base case is not zero", state(base=Row(K, 1).T @ Row(V, 1)), prefix(), "t = 1"),
        (
            "the step adds the first token again",
            state(step=MatAdd(PREV, Row(K, 1).T @ Row(V, t))),
            prefix(),
            "t = 2",
        ),
    ],
)
def test_false_variants_are_refuted_at_an_explicit_t(what, lhs, rhs, at) -> None:
    v = prove_equal(lhs, rhs)
    assert v.status == "false", (what, v.summary())
    assert v.reason.startswith(f"refuted at {at}, n = "), v.reason
    assert v.counterexample is not None  # the data where the two sides differ


def test_a_scaled_count_without_rows_is_proved_for_every_t() -> None:
    a = MatSym("A", d_k, d_v)
    prev = MatSym("X_before", d_k, d_v)
    x = member("X", t, zeros(d_k, d_v), MatAdd(prev, a), prev, t)
    v = prove_equal(x, Scale(t, a))
    assert v.status == "proved", v.summary()
    assert "t <= t_last" in v.reason  # no row bounds t: every t
    wrong = prove_equal(x, Scale(t + 1, a))
    assert wrong.status == "false" and wrong.reason.startswith("refuted at t = 1")


def test_a_step_the_kernel_cannot_show_is_not_proved_and_says_so() -> None:
    # S_t = 2 S_{t-1} + k_t^T v_t against a claim that is true only at t = 1... and false at 2
    lhs = state(step=MatAdd(Scale(2, PREV), Row(K, t).T @ Row(V, t)))
    v = prove_equal(lhs, prefix())
    assert v.status == "false" and v.reason.startswith("refuted at t = 2")


def test_members_at_numbers_are_written_out() -> None:
    s = state()
    two = s.at(2)
    assert not isinstance(two, Unfold)
    assert prove_equal(two, MatAdd(prefix(1), Row(K, 2).T @ Row(V, 2))).ok
    assert prove_equal(two, prefix(1)).status == "false"
    with pytest.raises(ShapeError, match=r"^S_-1 comes before the base case S_0"):
        s.at(-1)


def test_unfold_inside_a_larger_side_or_at_an_expression_is_undecided() -> None:
    s = state()
    w = MatSym("W", d_v, d_v)
    assert prove_equal(s @ w, prefix() @ w).status == "unknown"
    v = prove_equal(s.at(t - 1), prefix(t - 1))
    assert v.status == "unknown" and "needs a letter" in v.reason
    with pytest.raises(NotImplementedError, match="proved by induction"):
        Entry(s, 1, 1).expanded(None)  # type: ignore[arg-type]


def test_a_claimed_side_that_binds_the_index_is_not_inducted_on() -> None:
    v = prove_equal(state(), MatSum(Row(K, t).T @ Row(V, t), t, 1, n))
    assert v.status == "unknown" and "binds t itself" in v.reason


def test_an_index_that_is_a_size_is_not_inducted_on() -> None:
    s = member("S", n, zeros(d_k, d_v), MatAdd(PREV, Row(K, t).T @ Row(V, t)), PREV, t)
    v = prove_equal(s, K.T @ V)
    assert v.status == "unknown" and "also a size" in v.reason


def test_shapes_are_checked_at_construction_and_in_claims() -> None:
    with pytest.raises(ShapeError, match=r"^the step of S_t is d_k × d_k"):
        member("S", t, zeros(d_k, d_v), Row(K, t).T @ Row(K, t), PREV, t)
    with pytest.raises(ShapeError, match="a scalar, not a matrix"):
        member("S", t, sympy.Integer(0), PREV, PREV, t)  # type: ignore[arg-type]
    assert prove_equal(state(), K.T @ K).status == "shape_error"
    assert plain(state()) == "S_t"


def test_the_verdicts_name_the_letter_the_family_is_indexed_by() -> None:
    s_ = sympy.Symbol("s", integer=True, positive=True)
    step = MatAdd(PREV, Row(K, s_).T @ Row(V, s_))
    fam = member("S", s_, zeros(d_k, d_v), step, PREV, s_)
    v = prove_equal(fam, MatSum(Row(K, j).T @ Row(V, j), j, 1, s_))
    assert v.status == "proved", v.summary()
    assert v.reason.startswith("proved by induction on s: base (S_s at s = 1): proved"), v.reason
    assert "step (s-1 -> s for 2 <= s <= n, the claim at s-1 assumed)" in v.reason
    assert "t = " not in v.reason and "t-1" not in v.reason
    wrong = prove_equal(fam, MatSum(Row(K, j).T @ Row(V, j), j, 1, s_ - 1))
    assert wrong.status == "false" and wrong.reason.startswith("refuted at s = 1, n = ")
    with pytest.raises(ShapeError, match=r"^the step of S_s is d_k × d_k"):
        member("S", s_, zeros(d_k, d_v), Row(K, s_).T @ Row(K, s_), PREV, s_)
    with pytest.raises(ShapeError, match="one matrix for every s: write a member at s"):
        member("S", s_, zeros(d_k, d_v), MatAdd(PREV, MatSym("k_s", d_k, d_v)), PREV, s_)
