"""A shape claim with a number where the shape has a size the worked example gives no value
(`\\mathrm{Concat}(\\ldots) \\in \\mathbb R^{n\\times 512}` with H = 8 and d_v not given here):
it holds for one value of that size, which the text may have given elsewhere.

Imports sympy and the reader's scope; never the parser, the checker or the CLI.
"""

from __future__ import annotations

import sympy

from symattn.kernel.dims import dims_equal
from symattn.reader.terms.scope import Scope, Shape

__all__ = ["unsettled_size"]


def unsettled_size(scope: Scope, got: Shape, want: Shape) -> str | None:
    """Why a shape `got` that differs from the claimed `want` may still be it: each clash is a
    number against a polynomial in one size without a value here, solved by a positive integer
    above 1 (the same for every clash). None when some clash is not of that kind.

    >>> from symattn.kernel.dims import H, d_v, n
    >>> w = (n, sympy.Integer(512))
    >>> unsettled_size(Scope(), (n, H * d_v), w) is None  # two sizes without a value
    True
    >>> unsettled_size(Scope(), (n, 8 * d_v), w)
    'only if d_v = 64, a value the text does not give here'
    """
    bound = scope.bindings
    values: dict[sympy.Symbol, sympy.Expr] = {}
    for a, b in zip(got, want, strict=True):
        a, b = sympy.sympify(a, strict=True), sympy.sympify(b, strict=True)
        if dims_equal(a, b):
            continue
        have, number = (a, b) if b.is_number else (b, a)
        if not number.is_number or have.is_number or number == 1:
            return None  # a row, a column or a scalar against a size: kept apart
        free = have.free_symbols
        if len(free) != 1 or free & set(bound):
            return None
        (size,) = free
        roots = [r for r in sympy.solve(sympy.Eq(have, number), size) if r.is_integer and r > 1]
        if len(roots) != 1 or values.get(size, roots[0]) != roots[0]:
            return None
        values[size] = roots[0]
    if not values:
        return None
    said = ", ".join(f"{k} = {v}" for k, v in values.items())
    earlier = [k for k, v in values.items() if scope.earlier.get(k) == v]
    where = (
        " (its value in a worked example before)"
        if earlier
        else ", a value the text does not give here"
    )
    return f"only if {said}{where}"
