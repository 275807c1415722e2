"""`exp_of` builds the very expression `sympy.exp` builds, on the forms it takes a short cut for
and on the forms where sympy's rules change the argument."""

from __future__ import annotations

import random

import pytest
import sympy

from symattn.kernel.exp_built import _unchanged_by_exp, exp_of
from symattn.kernel.witness.points import write_out

Q, K = sympy.IndexedBase("Q"), sympy.IndexedBase("K")
R = sympy.IndexedBase("R", real=True)
n, q = sympy.Symbol("n", integer=True, positive=True), sympy.Symbol("q", integer=True)


def _same(x: sympy.Basic) -> None:
    got, want = exp_of(x), sympy.exp(x)
    assert got == want and type(got) is type(want) and got.args == want.args, x


def _random_entry_polynomial(rng: random.Random) -> sympy.Expr:
    coefs = [sympy.Integer(2), sympy.Rational(1, 3), -1, sympy.sqrt(2) / 2, 1 / sympy.sqrt(3)]
    terms = []
    for _ in range(rng.randint(1, 4)):
        factors = [rng.choice(coefs)]
        for _ in range(rng.randint(1, 3)):
            base = rng.choice((Q, K))
            factors.append(base[rng.randint(1, 3), rng.randint(1, 3)] ** rng.choice((1, 1, 2)))
        terms.append(sympy.Mul(*factors))
    if rng.random() < 0.3:
        terms.append(sympy.Integer(rng.randint(-3, 3)))
    return sympy.Add(*terms)


def test_the_same_expression_as_sympy_on_random_polynomials_in_entries():
    rng = random.Random(7)
    fast = 0
    for _ in range(300):
        x = _random_entry_polynomial(rng)
        fast += _unchanged_by_exp(x)
        _same(x)
        _same(sympy.Rational(1, 2) * x)
        _same(sympy.expand(x))
    assert fast > 200  # the short cut is taken on these forms


@pytest.mark.parametrize(
    "x",
    [
        sympy.log(Q[1, 1]) + Q[1, 2],  # exp(log y) = y
        2 * sympy.log(Q[1, 1]),
        sympy.I * sympy.pi * Q[1, 1],
        sympy.I * sympy.pi,
        sympy.Float(0.5) * Q[1, 1],  # evaluated as a float
        Q[1, 1] - Q[1, 1],  # 0
        sympy.Integer(0),
        -sympy.oo * Q[1, 1],
        sympy.Sum(Q[1, q], (q, 1, 0)),  # an empty sum is zero: exp of it is 1
        sympy.Sum(Q[1, q] * (n - n + 1), (q, 3, 2)),
        sympy.Sum(0 * Q[1, q], (q, 1, n)),
        sympy.Sum(Q[1, q] * K[1, q], (q, 1, n)),
        sympy.Sum(sympy.sqrt(2) * Q[1, q] / 2, (q, 1, 2)),
        sympy.Sum(Q[1, q], (q, 1, n - 1)),  # may be empty: sympy is asked
        R[1, 1] + R[1, 2],  # entries with an assumption: sympy is asked
        R[1, 1] ** 2 + 1,
        sympy.exp(Q[1, 1]) + Q[1, 2],
        2 * sympy.Sum(Q[1, q], (q, 1, 3)),
        sympy.Piecewise((Q[1, 1], n > 2), (0, True)) + Q[1, 2],
    ],
)
def test_the_same_expression_as_sympy_where_its_rules_apply(x):
    _same(x)


def test_no_short_cut_where_a_rule_could_apply():
    for x in (
        sympy.log(Q[1, 1]) + Q[1, 2],
        sympy.I * sympy.pi * Q[1, 1],
        sympy.Float(0.5) * Q[1, 1],
        sympy.Sum(Q[1, q], (q, 1, 0)),
        sympy.Sum(Q[1, q], (q, 1, n - 1)),
        R[1, 1] + R[1, 2],
        sympy.exp(Q[1, 1]) + Q[1, 2],
    ):
        assert not _unchanged_by_exp(x), x
    assert exp_of(sympy.Sum(Q[1, q], (q, 1, 0))) == 1
    assert exp_of(sympy.log(Q[1, 1])) == Q[1, 1]


def test_a_softmax_entry_written_out_is_the_same_as_with_sympy_exp():
    j = sympy.Symbol("j", integer=True)
    score = sympy.Sum(Q[1, q] * K[j, q], (q, 1, 3)) / sympy.sqrt(3)
    entry = sympy.exp(score.subs(j, 1)) / sympy.Sum(sympy.exp(score), (j, 1, 2))
    got = write_out(entry)
    want = sympy.exp(write_out(score.subs(j, 1))) / sympy.Add(
        *(sympy.exp(write_out(score.subs(j, k))) for k in (1, 2))
    )
    assert got == want
