"""A positive number to a symbolic exponent (`10000^{2j/d}`) is enclosed at a point, so a
false claim about positional frequencies is refuted and a true one is never."""

from __future__ import annotations

import sympy

from symattn.kernel.expr import index
from symattn.kernel.witness import certify
from symattn.kernel.witness.reals import decide_reals

i, j = index("i"), index("j")
d = sympy.Symbol("d", integer=True, positive=True)
delta = sympy.Symbol("delta", real=True)
omega = 1 / sympy.Integer(10000) ** (2 * j / d)


def test_a_wrong_rotation_of_frequencies_is_refuted_at_a_point():
    left = sympy.sin(delta * omega) * sympy.sin(i * omega) + sympy.cos(delta * omega) * sympy.cos(
        i * omega
    )
    verdict = decide_reals(left, sympy.cos((i + delta) * omega))
    assert verdict.status == "false" and verdict.counterexample is not None


def test_the_right_rotation_of_frequencies_is_proved():
    left = sympy.cos(delta * omega) * sympy.cos(i * omega) - sympy.sin(delta * omega) * sympy.sin(
        i * omega
    )
    assert decide_reals(left, sympy.cos((i + delta) * omega)).status == "proved"


def test_a_power_of_a_negative_number_is_not_enclosed():
    x = sympy.Symbol("x", positive=True)
    assert certify.certify(sympy.Integer(-2) ** x, sympy.Integer(5), {x: 1}) is None
