"""What the exact witness remembers between calls: only results that are functions of their
arguments (explicit sizes, seeded points), never another claim's."""

from __future__ import annotations

import pytest
import sympy

from symattn.kernel.dims import assume
from symattn.kernel.expr import CausalMask, MatSym, Softmax, index
from symattn.kernel.witness import definitions, points

i, j, r = index("i"), index("j"), index("r")
Q, K = MatSym("Q", 3, 2), MatSym("K", 3, 2)
RANGES = {i: (sympy.Integer(1), sympy.Integer(3)), j: (sympy.Integer(1), sympy.Integer(3))}


def _dot(a: MatSym, b: MatSym, x: sympy.Symbol, y: sympy.Symbol) -> sympy.Expr:
    return sympy.Sum(a[x, r] * b[y, r], (r, 1, 2))


def test_a_remembered_true_claim_does_not_answer_a_different_one() -> None:
    left = (Q @ K.T)[i, j]
    assert definitions.check(left, _dot(Q, K, i, j), RANGES).equal
    assert definitions.check(left, _dot(Q, K, i, j), RANGES).equal  # asked again
    assert not definitions.check(left, _dot(Q, K, j, i), RANGES).equal  # indices swapped
    assert not definitions.check(left, _dot(K, Q, i, j), RANGES).equal  # letters swapped


def test_the_result_is_the_same_in_every_context_and_on_a_second_call() -> None:
    left, right = (Q @ K.T)[i, j], _dot(Q, K, j, i)
    first = definitions.check(left, right, RANGES)
    with assume(d_k=2):
        again = definitions.check(left, right, RANGES)
    assert again == first and not first.equal
    other_seed = definitions.check(left, right, RANGES, seed=5)
    assert not other_seed.equal  # another seed is another key, decided again


def test_an_ill_formed_claim_is_refused_every_time() -> None:
    S = MatSym("S", 3, 3)
    bad = CausalMask(S)[i, j] * S[i, j]  # -inf times a number of either sign, above the diagonal
    for _ in range(2):
        with pytest.raises(definitions.IllFormed):
            definitions.check(bad, bad, RANGES)
    assert definitions.check(Softmax(S)[i, j], Softmax(S)[i, j], RANGES).equal


def test_written_out_sides_and_zero_tests_are_those_of_the_side_given() -> None:
    n3 = {sympy.Symbol("n", integer=True, positive=True): sympy.Integer(3)}
    a = points.instantiate((Q @ K.T)[i, j], n3, {i: 1, j: 2})
    b = points.instantiate((Q @ K.T)[i, j], n3, {i: 2, j: 1})
    assert a != b and a == points.instantiate((Q @ K.T)[i, j], n3, {i: 1, j: 2})
    assert points.is_zero(a - a) and not points.is_zero(a - b)
