"""Certified differences: interval enclosures that separate the sides, never a guess."""

from __future__ import annotations

import time

import sympy

from symattn.kernel.attention import single_head
from symattn.kernel.dims import n
from symattn.kernel.expr import FromColumn, MatSym, Softmax, index
from symattn.kernel.ranges import infer_ranges
from symattn.kernel.witness import certify
from symattn.kernel.witness.exact import exact

i, j, u = index("i"), index("j"), index("u")
x, y = sympy.symbols("x y")


def _disjoint(s: certify.Separation) -> bool:
    return s.left[1] < s.right[0] or s.right[1] < s.left[0]


def test_a_false_identity_with_exp_is_separated_and_minimised():
    s = certify.separate(sympy.exp(x + y), sympy.exp(x) + sympy.exp(y))
    assert s is not None and _disjoint(s)
    assert any(v == 0 for _, v in s.values)  # entries zeroed while the gap stays


def test_true_identities_are_never_separated():
    q = sympy.Rational(1, 3)
    same = [
        (sympy.exp(x + y), sympy.exp(x) * sympy.exp(y)),
        (sympy.exp(x) / (sympy.exp(x) + sympy.exp(y)), 1 / (1 + sympy.exp(y - x))),
        (sympy.sqrt(2) * sympy.sqrt(2), sympy.Integer(2)),
        (sympy.exp(q * x) ** 3, sympy.exp(x)),
    ]
    for left, right in same:
        assert certify.separate(left, right, trials=5) is None, (left, right)


def test_a_gap_below_float64_is_certified_with_more_bits():
    tiny = 1 + sympy.Rational(1, 10**20)
    s = certify.certify(sympy.exp(x) * tiny, sympy.exp(x), {x: 2})
    assert s is not None and s.bits > 53 and _disjoint(s)
    assert certify.certify(sympy.exp(x) * tiny, sympy.exp(x), {x: 2}, precisions=(53,)) is None


def test_infinite_or_undefined_sides_are_no_certificate():
    assert certify.certify(1 / x, sympy.Integer(1), {x: 0}) is None
    assert certify.certify(sympy.log(x), sympy.Integer(1), {x: -1}) is None


def test_unknown_functions_are_refused_not_guessed():
    f = sympy.Function("f")
    assert certify.separate(f(x), f(x) + 1) is None


def test_softmax_claim_is_false_fast_with_a_certified_counterexample():
    s = single_head()
    A = Softmax(s.scores / sympy.sqrt(s.Q.cols))
    wrong = sympy.Sum(A[j, i] * s.V[j, u], (j, 1, n))
    start = time.process_time()
    r = exact((A @ s.V)[i, u], wrong, infer_ranges((A @ s.V)[i, u], wrong))
    cpu = time.process_time() - start
    assert r.holds is False and "interval" in r.detail, r.detail
    assert r.counterexample is not None and r.counterexample.certified
    assert "interval arithmetic" in str(r.counterexample)
    assert cpu < 2, cpu


def test_shift_invariance_still_holds_by_expansion():
    S = MatSym("S", n, n)
    r = exact(Softmax(S + FromColumn("c", n, n)), Softmax(S), {})
    assert r.holds is True, r.detail


def test_cos_and_sin_are_enclosed():
    assert certify.separate(sympy.cos(x) ** 2 + sympy.sin(x) ** 2, sympy.Integer(1)) is None
    s = certify.separate(sympy.cos(x) + sympy.sin(y), sympy.cos(y) + sympy.sin(x))
    assert s is not None and _disjoint(s)


def test_smallest_size_counterexamples_with_exp_are_certified():
    from symattn.kernel.witness.counterexample import counterexample

    T = MatSym("T", n, n)
    cex = counterexample(Softmax(T), Softmax(T.T), {})
    assert cex is not None and cex.certified and not cex.exact
    assert certify.can_enclose(sympy.exp(x) + sympy.pi) and not certify.can_enclose(
        sympy.Function("f")(x)
    )


def test_an_index_left_symbolic_is_not_given_a_value():
    Qb = sympy.IndexedBase("Q")
    assert certify.separate(sympy.exp(Qb[1, 1]) * i, sympy.exp(Qb[1, 1])) is None
    assert certify.separate(sympy.exp(Qb[i, 1]), sympy.exp(Qb[1, 1])) is None
