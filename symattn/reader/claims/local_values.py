"""A number the text gives a member of a sequence it defined, in a parenthesis or after "where",
"with", "let" (`... ($\\theta_0 = 10000^{-1}$)` after `\\theta_i = 10000^{-2i/d}`): a value of
its own there, not a claim about the sequence. Imports the reader's claims, AST and terms."""

from __future__ import annotations

import re

import sympy

from symattn.kernel.errors import SymattnError
from symattn.kernel.expr import MatExpr
from symattn.reader.claims.resolved import ResolvedClaim, new_claim
from symattn.reader.syntax import ast
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.translator import Terms

__all__ = ["LOCAL", "local_value"]

#: The words before a formula that give a name a value for what follows: an opening
#: parenthesis, *where*, *with*, *let*, *set*, *take*, 其中, 设, 令, 取.
LOCAL = re.compile(r"(?:[(（]|\bwhere|\bwith|\blet|\bset|\btake|其中|设|令|取)\s*$", re.IGNORECASE)


def local_value(
    terms: Terms, span: MathSpan, left: ast.Node, right: ast.Node, start: int, end: int
) -> ResolvedClaim | None:
    """`\\theta_0 = 10000^{-1}` where a definition of the text gives every `\\theta_i` a value
    (`\\theta_i = 10000^{-2i/d}`): the member at that number has this value of the text's own
    in the rest of the section, where the checker reads it as an opaque number (claims about
    it are at most undecided), and the equation is a declaration. None unless the left side
    is a member at a number of a sequence defined by a formula and the right side a number."""
    if not (isinstance(left, ast.Symbol) and isinstance(left.sub, ast.Number)):
        return None
    if not left.sub.text.isdigit():
        return None
    defs = terms.defs
    applied = list(defs.applied)
    try:
        value = terms.term(right)
        before = len(defs.applied)
        terms.term(left)
        used = defs.applied[before:]
    except (SymattnError, RecursionError):
        return None
    finally:
        defs.applied[:] = applied
    if isinstance(value, MatExpr) or not isinstance(value, sympy.Expr) or value.free_symbols:
        return None
    rules = [r for rs in defs.rules.values() for r in rs if r.shown() in used]
    if len(rules) != 1:
        return None
    rule = rules[0]
    index = sympy.Integer(int(left.sub.text))
    section = getattr(terms.scope, "section", -1)
    defs.shadowed[(rule.key, (index,))] = section
    text = span.body[left.start : left.end]
    msg = (
        f"defines {text} = {' '.join(span.body[right.start : right.end].split())} here, a value "
        f"of the text's own, not {rule.shown()} (read as a number of unknown value in this "
        "section)"
    )
    return new_claim(span, start, end, "declared", msg)
