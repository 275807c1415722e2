"""Figures written in scientific notation (`... = 16e9`) or with decimals (`\\frac{1}{\\sqrt 2} =
0.707`) as the result of a computation: read as rounded to their last digit. Imports sympy, the
resolved claims and the lexer's table of multiples only."""

from __future__ import annotations

import dataclasses
import re

import sympy

from symattn.kernel.expr import MatExpr
from symattn.reader.claims.resolved import ResolvedClaim
from symattn.reader.syntax.lexer_tables import MULTIPLES

__all__ = ["rounded_figure"]

#: A side that is one number in scientific notation: `16e9`, `1.5E+12`.
_FIGURE = re.compile(r"\s*([0-9]+(?:\.([0-9]+))?)[eE]([+-]?[0-9]+)\s*\Z")
#: A side that is one number written with decimals: `0.707`, `-1.25`.
_DECIMAL = re.compile(r"\s*-?\s*[0-9]+\.([0-9]+)\s*\Z")
#: A side that is one number with a multiple after it: `393K`, `1.5B`, `32\\text{K}`.
_MULTIPLE = re.compile(
    r"\s*([0-9]+(?:\.([0-9]+))?)\s*(?:\\(?:,|text\s*\{|mathrm\s*\{))?\s*([KMB])\}?\s*\Z"
)


def rounded_figure(claim: ResolvedClaim, body: str) -> ResolvedClaim:
    r"""`64 \cdot (3 \cdot 4e3 \cdot 16e3) + ... = 16e9`: an equation between numbers whose one
    side is a figure in scientific notation, or of three digits or more with a multiple after
    it (`393K`, `1.75B`), is read as that figure rounded: within half its last digit (5e8
    here), and says so; any other claim is returned as it is.

    >>> from symattn.reader.syntax.scanner import scan
    >>> from symattn.reader.claims.resolved import new_claim
    >>> span = scan("$2 \\cdot 8.3e9 = 17e9$", kind="md")[0]
    >>> pair = (sympy.Integer(166 * 10**8), sympy.Integer(17 * 10**9))
    >>> claim = new_claim(span, 0, len(span.body), "pending", pairs=(pair,))
    >>> rounded_figure(claim, span.body).tolerance
    500000000
    """
    if claim.status != "pending" or len(claim.pairs) != 1 or claim.split:
        return claim
    if claim.tolerance is not None or claim.negated:
        return claim
    lhs, rhs = claim.pairs[0]
    for side in (lhs, rhs):
        if isinstance(side, MatExpr) or not isinstance(side, sympy.Expr) or side.free_symbols:
            return claim
    if lhs - rhs == 0:
        return claim  # equal as written: nothing is rounded
    source = body[claim.start : claim.end]
    if source.count("=") != 1 or any(x in source for x in ("<", ">", "\\le", "\\ge")):
        return claim
    for side, written in enumerate(source.split("=")):
        decimal = _DECIMAL.match(written)
        if decimal is not None:
            # `\frac{1}{\sqrt 2} = 0.707`: a value no decimal of that many digits writes,
            # given rounded; `0.5 + 0.25 = 0.76` is no rounding (0.75 has those digits)
            digits = len(decimal.group(1))
            value = claim.pairs[0][1 - side] if side < 2 else None
            if value is None or (value * 10**digits).is_integer:
                continue
            unit = sympy.Rational(1, 10**digits) / 2
            context = f"{written.strip()} read as rounded to its last digit, within {unit}"
            if claim.context:
                context = f"{claim.context}; {context}"
            shown = f"{written.strip()} is the value rounded to its last digit"
            return dataclasses.replace(
                claim, tolerance=unit, rounded=True, context=context, decimal=shown
            )
        m = _FIGURE.match(written) or _MULTIPLE.match(written)
        if m is None or (m.re is _MULTIPLE and len(m.group(1).replace(".", "")) < 3):
            continue  # `15\\text{B}`: a count of billions as written; `393K`, `1.75B` rounded
        decimals = len(m.group(2) or "")
        power = int(m.group(3)) if m.re is _FIGURE else MULTIPLES[m.group(3)]
        unit = sympy.Rational(1, 10**decimals) * sympy.Integer(10) ** power / 2
        figure = m.group().strip()
        context = f"{figure} read as rounded to its last digit, within {unit}"
        if claim.context:
            context = f"{claim.context}; {context}"
        return dataclasses.replace(claim, tolerance=unit, rounded=True, context=context)
    return claim
