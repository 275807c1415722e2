"""Canonical forms: equal up to renaming of bound indices, never equal when different."""

from __future__ import annotations

import pytest
import sympy

from symattn.kernel.canon import normal_form
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
