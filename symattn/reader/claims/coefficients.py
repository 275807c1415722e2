"""Approximations whose one side writes a rounded coefficient (`\\frac{\\sqrt{128} BD}{W}
\\approx \\frac{11.3 BD}{W}`): the written number against the value that makes the sides equal.
Imports sympy and the kernel's expression nodes and the resolved claims; never the checker."""

from __future__ import annotations

import dataclasses
import re

import sympy

from symattn.kernel.expr import MatExpr
from symattn.reader.claims.resolved import ResolvedClaim

__all__ = ["rounded_coefficient"]

#: A number written with decimals, not part of a longer one (`11.3`, `0.125`).
_DECIMAL = re.compile(r"(?<![0-9.])([0-9]+)\.([0-9]+)(?![0-9.eE])")


def rounded_coefficient(claim: ResolvedClaim, body: str) -> ResolvedClaim | None:
    r"""`c X \approx w X` between sizes and numbers (pending, the sides not exactly equal),
    with one number written in decimals, `w`: the value `t` that puts in place of `w` makes
    the sides equal for every size, when there is one such value; the claim is then `t
    \approx w`, to the last digit of `w`. None when the sides' ratio depends on the sizes (an
    approximation in a regime: `\frac{D}{2 + D/(BS)} \approx 0.5 D`) or `w` is not one
    number of one side.

    >>> from symattn.reader.syntax.scanner import scan
    >>> from symattn.reader.claims.resolved import new_claim
    >>> span = scan(r"$\sqrt{2} n \approx 1.41 n$", kind="md")[0]
    >>> n = sympy.Symbol("n", positive=True)
    >>> pair = (sympy.sqrt(2) * n, sympy.Rational(141, 100) * n)
    >>> claim = new_claim(span, 0, len(span.body), "pending", pairs=(pair,))
    >>> got = rounded_coefficient(dataclasses.replace(claim, approximate=True), span.body)
    >>> got.pairs, got.tolerance
    (((sqrt(2), 141/100),), 1/100)
    """
    if claim.status != "pending" or len(claim.pairs) != 1 or claim.split or claim.negated:
        return None
    lhs, rhs = claim.pairs[0]
    for side in (lhs, rhs):
        if isinstance(side, MatExpr) or not isinstance(side, sympy.Expr):
            return None
        if not side.free_symbols or side.has(sympy.Sum, sympy.Indexed, MatExpr):
            return None
    written = {m.group() for m in _DECIMAL.finditer(body, claim.start, claim.end)}
    if len(written) != 1:
        return None
    (text,) = written
    number = sympy.Rational(text)
    unit = sympy.Rational(1, 10 ** len(text.split(".")[1]))
    sides = [x for x in (lhs, rhs) if number in x.atoms(sympy.Rational)]
    if len(sides) != 1:
        return None
    t = sympy.Dummy("t", positive=True)
    other = rhs if sides[0] is lhs else lhs
    ratio = sympy.cancel(sympy.together(sides[0].xreplace({number: t}) / other))
    if ratio.free_symbols != {t}:
        return None
    try:
        roots = [
            r for r in sympy.solve(sympy.numer(ratio) - sympy.denom(ratio), t) if r.is_positive
        ]
    except (NotImplementedError, TypeError, ValueError):
        return None
    if len(roots) != 1:
        return None
    value = roots[0]
    context = (
        f"{text} read as the coefficient that makes the sides equal, {value}, rounded to its "
        f"last digit ({unit})"
    )
    if claim.context:
        context = f"{claim.context}; {context}"
    return dataclasses.replace(
        claim, pairs=((value, number),), tolerance=unit, approximate=False, context=context
    )
