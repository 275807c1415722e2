"""`kernel.orders`: an order between scalars in positive names is proved where every term of
the difference has its sign, refuted at a point where it fails for every value, else unknown."""

from __future__ import annotations

import pytest
import sympy

from symattn.kernel.dims import dim
from symattn.kernel.facts import prove_positive
from symattn.kernel.orders import prove_order

n, d = dim("n"), dim("d")
x = sympy.Symbol("x", positive=True)
a = sympy.Symbol("a", real=True)


@pytest.mark.parametrize(
    ("diff", "strict", "status"),
    [
        (1 - 1 / sympy.sqrt(d), False, "proved"),  # sizes are >= 1
        (1 - 1 / sympy.sqrt(d), True, "unknown"),  # equal at d = 1
        (n**2 - n, False, "proved"),
        (d - sympy.sqrt(d) + 1, True, "proved"),
        ((n + 1) ** 3 - n**3, True, "proved"),
        (n / 2 - n, False, "false"),
        (n - n, True, "false"),
        (n - n, False, "proved"),
        (x - x / 2, True, "proved"),  # a positive number, not a size: > 0 is enough
        (x - 1, False, "unknown"),  # holds for some values only
        (n - 10, True, "unknown"),
        (a**2, False, "unknown"),  # a real name of unknown sign
        (sympy.log(n), False, "unknown"),  # outside sums, products and powers
        (sympy.Integer(24), True, "proved"),
        (sympy.Integer(-1), False, "false"),
    ],
)
def test_an_order_is_decided_by_the_signs_of_its_terms(
    diff: sympy.Expr, strict: bool, status: str
) -> None:
    assert prove_order(diff, strict=strict).status == status


def test_a_refuted_order_names_its_point() -> None:
    v = prove_order(d / 2 - d, strict=True)
    assert v.counterexample is not None
    assert v.counterexample.sizes == (("d", 1),)
    assert v.counterexample.lhs == "-1/2"


def test_a_scalar_sign_fact_is_an_order() -> None:
    assert prove_positive(n + 1, strict=True).status == "proved"
    assert prove_positive(1 - n, strict=True).status == "false"
