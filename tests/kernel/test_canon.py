"""Canonical forms: equal up to renaming of bound indices, never equal when different."""

from __future__ import annotations

import pytest
import sympy

from symattn.kernel.canon import _namings, normal_form
from symattn.kernel.dims import d_k, n
from symattn.kernel.expr import MatSym, index
from symattn.kernel.proof import prove_equal

Q, K = MatSym("Q", n, d_k), MatSym("K", n, d_k)
F = sympy.IndexedBase("f")
i, j, k, r, s = (index(x) for x in "ijkrs")


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (sympy.Sum(Q[i, r] * K[j, r], (r, 1, d_k)), sympy.Sum(K[j, s] * Q[i, s], (s, 1, d_k))),
        (sympy.Sum(F[j, k], (j, 1, n), (k, 1, n)), sympy.Sum(F[k, j], (k, 1, n), (j, 1, n))),
        (sympy.Sum(F[j] + F[j], (j, 1, n)), 2 * sympy.Sum(F[k], (k, 1, n))),
        (
            sympy.Sum(F[j], (j, 1, n)) * sympy.Sum(F[k], (k, 1, n)),
            sympy.Sum(F[j] * F[k], (j, 1, n), (k, 1, n)),
        ),
        (sympy.Sum(1, (j, 1, n)), n),
    ],
)
def test_equal_forms(a, b):
    assert normal_form(a) == normal_form(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (sympy.Sum(F[i, j], (j, 1, n)), sympy.Sum(F[j, i], (j, 1, n))),
        (sympy.Sum(F[j], (j, 1, n)), sympy.Sum(F[j], (j, 1, n - 1))),
        (sympy.Sum(F[j] * F[k], (j, 1, n), (k, 1, n)), sympy.Sum(F[j] * F[j], (j, 1, n))),
        (sympy.Sum(Q[i, r] * K[j, r], (r, 1, d_k)), sympy.Sum(Q[j, r] * K[i, r], (r, 1, d_k))),
    ],
)
def test_different_forms(a, b):
    assert normal_form(a) != normal_form(b)


def test_a_free_index_named_like_a_canonical_name_is_not_captured():
    A, B = MatSym("A", n, n), MatSym("B", n, n)
    for name in ("_t0", "_b1_0", "t0", "b1_0"):
        t = index(name)
        lhs = sympy.Sum(A[t, r] * B[j, r], (r, 1, n))
        rhs = sympy.Sum(A[r, r] * B[j, r], (r, 1, n))
        v = prove_equal(lhs, rhs)
        assert v.status == "false", (name, v.summary())


# ---- rewrites for modern attention: each with its true and false variant ----

b_, ell_, p_ = (sympy.Symbol(x, integer=True, positive=True) for x in ("b", "ell", "p"))
X = sympy.IndexedBase("x")


def _mask(value, cond):
    return sympy.Piecewise((value, cond), (0, True))


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # adjacent ranges of the same sum join (the blocks of an online softmax)
        (
            sympy.Sum(F[j], (j, 1, b_)) + sympy.Sum(F[k], (k, b_ + 1, 2 * b_)),
            sympy.Sum(F[j], (j, 1, 2 * b_)),
        ),
        (
            sympy.Sum(F[j], (j, 1, 1))
            + sympy.Sum(F[j], (j, 2, b_ + 1))
            + sympy.Sum(F[j], (j, b_ + 2, 2 * b_ + 1)),
            sympy.Sum(F[k], (k, 1, 2 * b_ + 1)),
        ),
        # exp leaves a mask: [j <= i] e^{a - c_i} = e^{-c_i} [j <= i] e^{a}
        (
            _mask(sympy.exp(F[j] - X[i]), sympy.Le(j, i)),
            sympy.exp(-X[i]) * _mask(sympy.exp(F[j]), sympy.Le(j, i)),
        ),
        # a sum leaves a mask whose condition does not mention its index
        (
            _mask(sympy.Sum(F[k, j], (k, 1, n)), sympy.Le(j, i)),
            sympy.Sum(_mask(F[k, j], sympy.Le(j, i)), (k, 1, n)),
        ),
        # the mask cut with the bound provably at most the range: a dim ell <= ell + p
        (
            sympy.Sum(_mask(F[j], sympy.Le(j, ell_)), (j, 1, ell_ + p_)),
            sympy.Sum(F[j], (j, 1, ell_)),
        ),
    ],
)
def test_modern_rewrites_are_identities(a, b):
    assert normal_form(a) == normal_form(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # a gap between the ranges, or an overlap, is no join
        (
            sympy.Sum(F[j], (j, 1, b_)) + sympy.Sum(F[k], (k, b_ + 2, 2 * b_)),
            sympy.Sum(F[j], (j, 1, 2 * b_)),
        ),
        (
            sympy.Sum(F[j], (j, 1, b_)) + sympy.Sum(F[k], (k, b_, 2 * b_)),
            sympy.Sum(F[j], (j, 1, 2 * b_)),
        ),
        # different bodies do not join
        (
            sympy.Sum(F[j], (j, 1, b_)) + sympy.Sum(X[k], (k, b_ + 1, 2 * b_)),
            sympy.Sum(F[j], (j, 1, 2 * b_)),
        ),
        # the second range may run backwards (n + 1 .. b): not joined
        (sympy.Sum(F[j], (j, 1, n)) + sympy.Sum(F[k], (k, n + 1, b_)), sympy.Sum(F[j], (j, 1, b_))),
        # a mask bound that may exceed the range is not cut: ell + p is not <= ell
        (
            sympy.Sum(_mask(F[j], sympy.Le(j, ell_ + p_)), (j, 1, ell_)),
            sympy.Sum(F[j], (j, 1, ell_ + p_)),
        ),
        # only exp and numbers leave a mask: a factor that may be infinite stays
        (_mask(F[j] / X[i], sympy.Le(j, i)), _mask(F[j], sympy.Le(j, i)) / X[i]),
    ],
)
def test_modern_rewrites_refuse_what_is_not_an_identity(a, b):
    assert normal_form(a) != normal_form(b)


def test_a_dim_used_as_an_index_is_a_size():
    # the newest token's row q_n: a size, so explicit sizes can evaluate it and refute a swap
    v = prove_equal(Q.row(n), K.row(n))
    assert v.status == "false" and v.counterexample is not None


def test_a_guarded_sum_that_may_run_backwards_stays_guarded():
    guarded = _mask(sympy.Sum(F[k], (k, 1, i - 2)), sympy.Ge(i, 2))
    assert normal_form(guarded) != normal_form(
        sympy.Sum(_mask(F[k], sympy.Ge(i, 2)), (k, 1, i - 2))
    )
    safe = _mask(sympy.Sum(F[k], (k, 1, i - 1)), sympy.Ge(i, 2))
    assert normal_form(safe) == normal_form(sympy.Sum(_mask(F[k], sympy.Ge(i, 2)), (k, 1, i - 1)))


def test_ceiling_of_an_index_over_its_own_range_is_one():
    h, big = index("h"), sympy.Symbol("H", integer=True, positive=True)
    at = {h: (sympy.Integer(1), big)}
    head = F[sympy.ceiling(h / big), i]
    assert normal_form(head, at) == normal_form(F[1, i], at)
    # not without the range, not for h + 1, not over a wider range
    assert normal_form(head) != normal_form(F[1, i])
    assert normal_form(F[sympy.ceiling((h + 1) / big), i], at) != normal_form(F[1, i], at)
    wide = {h: (sympy.Integer(1), 2 * big)}
    assert normal_form(head, wide) != normal_form(F[1, i], wide)


def _three_sums(order, names):
    """`sum over a, b in 1..n and c in 1..d_k of f[a, c] f[b, c] g[a, b]`, limits in `order`."""
    a, b, c = names
    g = sympy.IndexedBase("g")
    lims = {"a": (a, 1, n), "b": (b, 1, n), "c": (c, 1, d_k)}
    return sympy.Sum(F[a, c] * F[b, c] * g[a, b], *(lims[x] for x in order))


@pytest.mark.parametrize("order", ["abc", "acb", "bac", "bca", "cab", "cba"])
@pytest.mark.parametrize("names", [(i, j, k), (k, r, s), (s, i, r)])
def test_sums_over_mixed_ranges_have_one_form_in_every_order_and_naming(order, names):
    assert normal_form(_three_sums(order, names)) == normal_form(_three_sums("abc", (i, j, k)))


def test_only_indices_over_the_same_range_trade_names():
    one = sympy.S.One
    lims = [(i, one, n), (j, one, d_k), (k, one, n)]
    assert sorted(_namings(lims)) == [(1, 0, 2), (2, 0, 1)]  # d_k's index: one name only
    dependent = [(i, one, n), (j, one, i)]  # a range that mentions another index: a block
    assert _namings(dependent) == [(0, 1)]
    g = sympy.IndexedBase("g")
    swapped = sympy.Sum(F[i, j] * g[j, i], (i, 1, n), (j, 1, n))
    assert normal_form(swapped) != normal_form(sympy.Sum(F[i, j] * g[i, j], (i, 1, n), (j, 1, n)))


def test_a_sum_over_heads_regroups_by_the_key_head_each_reads():
    # sum_regroup: sum_{h=1}^{G R} f(h, ceil(h/R)) = sum_{g=1}^{G} sum_{t=1}^{R} f((g-1)R + t, g)
    h, g, t = index("h"), index("g"), index("t")
    G_, R_ = (sympy.Symbol(s, integer=True, positive=True) for s in ("G", "R"))
    flat = sympy.Sum(F[sympy.ceiling(h / R_), i] * X[h], (h, 1, G_ * R_))
    grouped = sympy.Sum(F[g, i] * X[(g - 1) * R_ + t], (t, 1, R_), (g, 1, G_))
    assert normal_form(flat) == normal_form(grouped)
    # the other order of the head index, the group's first head, the wrong group count: no
    tiled = sympy.Sum(F[g, i] * X[(t - 1) * G_ + g], (t, 1, R_), (g, 1, G_))
    first = sympy.Sum(F[g, i] * X[(g - 1) * R_ + 1], (t, 1, R_), (g, 1, G_))
    assert normal_form(flat) != normal_form(tiled)
    assert normal_form(flat) != normal_form(first)
    other = sympy.Sum(F[sympy.ceiling(h / R_), i] * X[h], (h, 1, G_ * R_ + 1))
    assert normal_form(other) != normal_form(grouped)  # G R + 1 heads are no whole groups
    # one group (MQA): every head reads key head 1
    mqa = sympy.Sum(F[sympy.ceiling(h / R_), i] * X[h], (h, 1, R_))
    assert normal_form(mqa) == normal_form(F[1, i] * sympy.Sum(X[h], (h, 1, R_)))


def test_ceiling_of_a_group_member_is_its_group():
    # query head t of group g, t in 1..R: ceil(((g-1)R + t)/R) = g
    g, t = index("g"), index("t")
    big = sympy.Symbol("R", integer=True, positive=True)
    at = {t: (sympy.Integer(1), big)}
    member = F[sympy.ceiling(((g - 1) * big + t) / big), i]
    assert normal_form(member, at) == normal_form(F[g, i], at)
    # not past the group (t up to R + 1), not for 2t, not without t's range
    wide = {t: (sympy.Integer(1), big + 1)}
    assert normal_form(member, wide) != normal_form(F[g, i], wide)
    double = F[sympy.ceiling(((g - 1) * big + 2 * t) / big), i]
    assert normal_form(double, at) != normal_form(F[g, i], at)
    assert normal_form(member) != normal_form(F[g, i])
