"""Index ranges: an entry outside its matrix for every size, or only for some sizes."""

from __future__ import annotations

import sympy

from symattn.kernel.dims import d_k, dim, n
from symattn.kernel.expr import MatSym, index
from symattn.kernel.proof import prove_equal
from symattn.kernel.ranges import NOT_PROVABLY, index_range_problem

i, r = index("i"), index("r")
Q = MatSym("Q", n, d_k)
s = dim("s")


def test_a_range_outside_for_every_size_is_said_plainly():
    e = sympy.Sum(Q[i, r], (r, 0, d_k))  # column 0 never exists
    problem = index_range_problem((e, Q), {i: (1, n)})
    assert problem == "Q_{i,r}: index r runs over 0..d_k but Q has d_k cols"


def test_a_range_inside_only_for_some_sizes_says_what_it_needs():
    e = sympy.Sum(Q[r, 1], (r, i - s, i - 1))  # rows i-s..i-1: inside only when i > s
    problem = index_range_problem((e, Q), {i: (1, n)})
    assert problem == (
        f"Q_{{r,1}}: index r runs over i - s..i - 1 but Q has n rows ({NOT_PROVABLY}: "
        "it needs i - s >= 1)"
    )


def test_either_way_the_kernel_does_not_accept_the_claim():
    e = sympy.Sum(Q[r, 1], (r, i - s, i - 1))
    assert prove_equal(e, e + 0).status == "shape_error"


def test_the_row_of_a_dot_product_must_be_a_row_of_its_matrix():
    from symattn.kernel.expr import Dot

    j = index("j")
    outside = sympy.Sum(Dot(Q.row(i), Q.row(j)), (j, 1, n + 1))  # row n + 1 never exists
    v = prove_equal(outside, outside)
    assert v.status == "shape_error" and "row j of Q: index j runs over 1..n + 1" in str(v)
    inside = sympy.Sum(Dot(Q.row(i), Q.row(j)), (j, 1, n))
    assert prove_equal(inside, inside).status == "proved"


def test_an_index_counted_down_a_sum_is_checked_at_both_ends():
    # row n - r at r = n is row 0, which never exists; row n - r + 1 runs over 1..n
    out, inside = sympy.Sum(Q[n - r, 1], (r, 1, n)), sympy.Sum(Q[n - r + 1, 1], (r, 1, n))
    v = prove_equal(out, sympy.Sum(Q[r, 1], (r, 1, n)))
    assert v.status == "shape_error" and "runs over 0..n - 1 but Q has n rows" in str(v)
    assert prove_equal(inside, sympy.Sum(Q[r, 1], (r, 1, n))).status in ("proved", "checked")
    assert prove_equal(inside, sympy.Sum(2 * Q[r, 1], (r, 1, n))).status == "false"
    # a free index is left to the range the text gives it (k_{t-1} for t >= 2, unsaid)
    assert index_range_problem((Q[n - i, 1], Q), {i: (1, n)}) is None
