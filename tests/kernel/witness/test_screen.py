"""The float64 screen ranks candidates only: what it sees is certified exactly, near-ties included.

Each case is a made-up claim where float64 alone would give the wrong answer: a difference below
its reach (the sides differ, float64 sees a tie) or a cancellation it gets wrong (the sides are
equal, float64 sees them differ).
"""

from __future__ import annotations

import random

import pytest
import sympy

from symattn.kernel.witness import certify, screen
from symattn.kernel.witness.counterexample import _exact_point, _try_point, counterexample
from symattn.kernel.witness.points import scalars_of

x, y = sympy.symbols("x y")
BIG = sympy.Integer(10) ** 20
TINY = sympy.Rational(1, 10**20)


def _cancelling(t: sympy.Expr) -> sympy.Expr:
    """(t + 10^20)^2 - 10^40 - 2·10^20·t, which is t^2 exactly; float64 loses t in the square."""
    return (t + BIG) ** 2 - BIG**2 - 2 * BIG * t


def test_the_screen_sees_the_wrong_thing_in_these_cases():
    # the premise of the tests below: float64 alone is wrong on both
    tie = screen.compile_sides(x * (1 + TINY), x, [x]).run({x: 2}, "float")
    assert screen.near_tie(*tie)
    cancel = screen.compile_sides(_cancelling(x), x**2, [x]).run({x: 2}, "float")
    assert not screen.near_tie(*cancel)


@pytest.mark.parametrize(
    ("lhs", "rhs", "differ"),
    [
        (x * (1 + TINY), x, True),  # a near-tie in float64, different exactly
        (_cancelling(x), x**2, False),  # float64 sees a difference, equal exactly
        (_cancelling(x), x**2 + 1, True),
        ((x + y) ** 2, x**2 + 2 * x * y + y**2, False),
        ((x + y) ** 2, x**2 + y**2, True),
    ],
)
def test_rational_claims_are_decided_exactly(lhs, rhs, differ):
    cex = counterexample(lhs, rhs, {})
    assert (cex is not None) is differ
    if cex is not None:
        assert cex.exact
        at = {sympy.Symbol(k): sympy.Rational(v) for k, v in cex.entries}
        assert lhs.xreplace(at) != rhs.xreplace(at)  # the shown point is a real difference


@pytest.mark.parametrize(
    ("lhs", "rhs", "differ"),
    [
        (sympy.exp(x) * (1 + sympy.Rational(1, 10**12)), sympy.exp(x), True),  # near-tie
        (_cancelling(sympy.exp(x)), sympy.exp(2 * x), False),  # a float64 difference, equal
        (_cancelling(sympy.exp(x)), sympy.exp(2 * x) + sympy.Rational(1, 10**6), True),
        (sympy.exp(x + y), sympy.exp(x) * sympy.exp(y), False),
        (sympy.exp(x + y), sympy.exp(x) + sympy.exp(y), True),
    ],
)
def test_claims_with_exp_are_certified_by_enclosures(lhs, rhs, differ):
    found = certify.separate(lhs, rhs)
    assert (found is not None) is differ
    if found is not None:
        (lo_l, hi_l), (lo_r, hi_r) = found.left, found.right
        assert hi_l < lo_r or hi_r < lo_l
    cex = counterexample(lhs, rhs, {})
    assert (cex is not None) is differ
    if cex is not None:
        assert cex.certified


def test_the_exact_run_gives_what_sympy_substitution_gives():
    # the rational route replaces sympy's substitution: the same counterexample, entry for entry
    rng = random.Random(3)
    atoms = [x, y]
    for _ in range(40):
        a, b = (rng.randint(-3, 3) for _ in range(2))
        lhs = (a * x + y) ** 2 * (x - b) / (1 + x**2)
        rhs = (x**2 + b * y) * (a - y) + sympy.Rational(a, 7)
        program = screen.compile_sides(lhs, rhs, atoms)
        assert program is not None and program.exact
        values = {v: sympy.Integer(rng.choice([-2, -1, 1, 2, 3])) for v in atoms}
        got = _exact_point(program, values, {}, {}, {})
        want = _try_point(lhs, rhs, {}, {}, values, {})
        assert got == want


def test_transcendental_programs_have_no_exact_run():
    program = screen.compile_sides(sympy.exp(x), x, [x])
    assert program is not None and not program.exact
    assert not screen.settled_equal(program, {x: 1})
    with pytest.raises(ValueError, match="no exact run"):
        program.run({x: 1}, "exact")


@pytest.mark.parametrize(
    "side",
    [x * -sympy.oo, x + sympy.pi, sympy.Function("f")(x), x + y],
)
def test_what_the_screen_cannot_run_is_left_to_the_exact_route(side):
    # a masked -oo, a constant it has no step for, an unknown function, an atom not given
    assert screen.compile_sides(side, x, [x]) is None


def test_an_entry_at_a_symbolic_index_is_not_a_point():
    i = sympy.Symbol("i", integer=True, positive=True)
    side = Q[i, 1] - Q[1, 1]  # Q[i,1] is Q[1,1] at i = 1: the two are not independent values
    assert screen.compile_sides(side, sympy.Integer(0), screen.atoms_of(side, side)) is None
    at_one = side.xreplace({i: 1})  # 0: the same entry twice
    assert screen.compile_sides(at_one, sympy.Integer(0), screen.atoms_of(at_one, at_one))


def test_a_step_without_a_value_gives_no_float_opinion():
    program = screen.compile_sides(1 / x, sympy.exp(x**3), [x])
    assert program.run({x: 0}, "float") is None  # 1/0
    assert program.run({x: 10}, "float") is None  # exp(1000) overflows float64
    assert program.run({x: 2}, "float") is not None
    assert not screen.settled_equal(screen.compile_sides(1 / x, 1 / x, [x]), {x: 0})


Q = sympy.IndexedBase("Q")
c = sympy.Symbol("c")
_SIDES = [
    sympy.exp(Q[1, 1] - c * Q[1, 2]) / (1 + sympy.exp(Q[2, 1])),
    sympy.tanh(Q[1, 1]) + sympy.tan(Q[1, 2] / 3) - sympy.Abs(Q[2, 2] - 5),
    sympy.sqrt(Q[1, 1] ** 2 + 1) + (Q[2, 2] ** 2 + 2) ** sympy.Rational(-1, 2),
    sympy.Max(Q[1, 1], Q[2, 1] * c) * sympy.Min(Q[1, 2], 2)
    + (Q[1, 1] ** 2 + 3) ** sympy.Rational(2, 3),
    sympy.log(Q[1, 1] ** 2 + 1) * sympy.cos(Q[2, 2]) - sympy.sin(c) / (Q[1, 2] ** 2 + 1),
]


@pytest.mark.parametrize("side", _SIDES)
def test_a_compiled_program_encloses_as_the_walker_does(side):
    # the certificate from the program is the walker's, endpoint for endpoint
    other = side**2 - Q[2, 2]
    atoms = screen.atoms_of(side, other)
    program = screen.compile_sides(side, other, atoms)
    assert program is not None and not program.exact
    rng = random.Random(5)
    for _ in range(4):
        values = {a: rng.choice([-2, -1, 1, 2, 3]) for a in atoms}
        got = certify.enclose_program(program, values)
        want = (certify.enclose(side, values), certify.enclose(other, values))
        assert [v._mpi_ for v in got] == [v._mpi_ for v in want]


@pytest.mark.parametrize("side", _SIDES)
def test_the_atoms_are_those_a_full_walk_finds(side):
    other = side * Q[3, 1] + c
    entries = sorted(side.atoms(sympy.Indexed) | other.atoms(sympy.Indexed), key=str)
    # what the search used before: sympy's atoms, then every node walked for free scalars
    assert screen.atoms_of(side, other) == entries + scalars_of(side, other)
