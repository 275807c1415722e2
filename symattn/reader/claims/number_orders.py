"""An order between numbers (`2^{10} > 1000`, `128 \\cdot (3/4)^2 < 81`): both sides numbers,
or sizes a worked example gives a value, a claim for the kernel; after a condition word
(`when $n \\le 512$`) it is a condition, never decided. Imports sympy, the kernel's expressions
and the reader's AST, spans, claims and terms; never the resolver, the checker or the CLI.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import sympy

from symattn.kernel.expr import MatExpr
from symattn.reader.claims.resolved import ResolvedClaim, new_claim
from symattn.reader.syntax import ast
from symattn.reader.syntax.scanner import MathSpan

__all__ = ["aside", "condition_word", "number_order"]

_FLIP = {"<": ">", "le": "ge", ">": ">", "ge": "ge"}
_SIGN = {"<": "<", "le": "\\le", ">": ">", "ge": "\\ge"}
#: The words before an order that make it a condition, not a claim: `when $n \le 512$`.
_CONDITION = re.compile(
    r"(?:\b(?:when|whenever|if|unless|until|for|provided(?:\s+that)?|as\s+long\s+as|once|while"
    r"|assum\w*|suppos\w*|given|only|iff|where)|当|若|如果|假设|只要|除非|对于)[\s:：,，]*$",
    re.IGNORECASE,
)


def number_order(terms: Any, span: MathSpan, c: ast.Claim, text: str) -> ResolvedClaim | None:
    """`a > b` (also `<`, `\\ge`, `\\le`) with both sides numbers once the sizes of the worked
    example in force have their values: the claim that the sign of `a - b` is the one the
    relation says, for the kernel to decide (`sign(a - b) = 1`, or `max(sign(a - b), 0) =
    sign(a - b)` for `\\ge`). None when a side has a name without a value, the sign is not
    exactly known, or the words before it make it a condition."""
    if len(c.steps) != 1 or len(c.subjects) != 1 or c.steps[0].rel not in _FLIP:
        return None
    if text and condition_word(text, span):
        return None
    if text and aside(text, span):
        return None  # `($n \le 512$)`: an aside, which may be a condition
    rel = c.steps[0].rel
    try:
        left, right = (terms.scope.bind(terms.term(x)) for x in (c.subjects[0], c.steps[0].rhs))
    except Exception:  # noqa: BLE001 - a side that is not read keeps the claim undecided
        return None
    if not all(_number(x) for x in (left, right)):
        return None
    a, b = (left, right) if rel in (">", "ge") else (right, left)
    sign = sympy.sign(sympy.nsimplify(a - b) if _has_float(a - b) else a - b)
    if sign not in (sympy.Integer(-1), sympy.Integer(0), sympy.Integer(1)):
        return None
    strict = _FLIP[rel] == ">"
    pair = (sign, sympy.Integer(1)) if strict else (sympy.Max(sign, 0), sign)
    claim = new_claim(span, c.start, c.end, "pending", pairs=(pair,))
    shown = f"{sympy.sstr(left)} {_SIGN[rel]} {sympy.sstr(right)}"
    why = "sign(a - b) = 1" if strict else "max(sign(a - b), 0) = sign(a - b)"
    return dataclasses.replace(claim, context=f"the order {shown} read as {why}")


def aside(text: str, span: MathSpan) -> bool:
    """The formula opens a parenthesis of the prose (`($n \\le 512$)`): it may be a condition."""
    return text[: span.start.offset - len(span.delimiter)].rstrip().endswith(("(", "（"))


def condition_word(text: str, span: MathSpan) -> str:
    """The condition word just before the formula (`when`, `if`, `for`, `当`), or ''."""
    found = _CONDITION.search(_words_before(text, span))
    return " ".join(found.group().split()).rstrip(":：,，") if found else ""


def _number(x: Any) -> bool:
    return (
        isinstance(x, sympy.Expr)
        and not isinstance(x, MatExpr)
        and not x.free_symbols
        and bool(x.is_real)
    )


def _has_float(x: sympy.Expr) -> bool:
    return any(isinstance(f, sympy.Float) for f in x.atoms(sympy.Float))


def _words_before(text: str, span: MathSpan) -> str:
    begin = span.start.offset - len(span.delimiter)
    line = text.rfind("\n", 0, max(0, begin)) + 1
    return " ".join(text[max(line, begin - 60) : max(0, begin)].split())
