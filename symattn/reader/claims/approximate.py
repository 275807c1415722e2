"""Approximations between numbers (`\\frac{e^{2}}{e + e^{2} + e^{3}} \\approx 0.245`): the value,
the number written and the unit of its last digit, stated for the kernel to decide.
Imports sympy, the reader's AST, claims and translator; never the resolver, the checker or CLI.
"""

from __future__ import annotations

import dataclasses

import sympy

from symattn.kernel.errors import SymattnError
from symattn.kernel.expr import MatExpr
from symattn.reader.claims.resolved import ResolvedClaim, new_claim
from symattn.reader.syntax import ast
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.translator import Terms

__all__ = ["approx_claim", "written_number"]


def approx_claim(
    terms: Terms, span: MathSpan, left: ast.Node, right: ast.Node, start: int, end: int
) -> ResolvedClaim | None:
    """`value \\approx 0.245` (or `0.245 \\approx value`) where the value is a number the formula
    computes (`e` as Euler's number, `\\pi` the constant, unless the text declares them): a
    claim with the unit of the written number's last digit. None for anything else."""
    if _written(right) is not None:
        value, written = left, right
    elif _written(left) is not None:
        value, written = right, left
    else:
        return None
    number, unit = _written(written) or (sympy.Integer(0), sympy.Integer(1))
    terms.scalars = _constants(terms)
    try:
        computed = terms.term(value)
    except (SymattnError, RecursionError):
        return None
    finally:
        terms.scalars = {}
    if isinstance(computed, MatExpr) or not isinstance(computed, sympy.Expr):
        return None
    if computed.free_symbols or computed.is_Rational and computed == number:
        return None  # names the text leaves open, or the number itself
    claim = new_claim(span, start, end, "pending", pairs=((computed, number),))
    context = f"\\approx read as within one unit of the last digit written, {unit}"
    return dataclasses.replace(claim, tolerance=unit, context=context)


def written_number(node: ast.Node) -> tuple[sympy.Rational, sympy.Rational] | None:
    """A number as written (`0.245`, `6.4 \\times 10^9`) and the unit of its last digit; None
    for anything else."""
    return _written(node)


def _written(node: ast.Node) -> tuple[sympy.Rational, sympy.Rational] | None:
    """A number as written (`0.245`, `-1.5`, `22`, `1.5 \\times 10^{12}`) and the unit of its
    last digit."""
    sign = 1
    if isinstance(node, ast.Neg):
        node, sign = node.operand, -1
    scaled = _scientific(node)
    if scaled is not None:
        return sign * scaled[0], scaled[1]
    if not isinstance(node, ast.Number):
        return None
    text = node.text.replace(",", "")
    try:
        value = sympy.Rational(text)
    except (TypeError, ValueError):
        return None
    mantissa, _, power = text.lower().partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return sign * value, sympy.Rational(1, 10**decimals) * 10 ** sympy.Integer(power or 0)


def _scientific(node: ast.Node) -> tuple[sympy.Rational, sympy.Rational] | None:
    """`1.5 \\times 10^{12}`, `3 \\cdot 10^{-4}`: the number and the unit of its last digit."""
    if not (isinstance(node, ast.Mul) and len(node.factors) == 2):
        return None
    if node.ops[0] not in ("times", "cdot"):
        return None
    mantissa, power = node.factors
    if not (isinstance(power, ast.Power) and isinstance(power.base, ast.Number)):
        return None
    if power.base.text != "10" or not isinstance(mantissa, ast.Number):
        return None
    exponent = power.exponent
    sign = 1
    if isinstance(exponent, ast.Neg):
        exponent, sign = exponent.operand, -1
    if not (isinstance(exponent, ast.Number) and exponent.text.isdigit()):
        return None
    written = _written(mantissa)
    if written is None:
        return None
    scale = sympy.Integer(10) ** (sign * int(exponent.text))
    return written[0] * scale, written[1] * scale


def _constants(terms: Terms) -> dict[str, sympy.Expr]:
    out: dict[str, sympy.Expr] = {}
    for name, value in (("e", sympy.E), ("\\pi", sympy.pi)):
        if terms.scope.lookup(name) is None and name not in terms.scope.dims:
            out[name] = value
    return out
