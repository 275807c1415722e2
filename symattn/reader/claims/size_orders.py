"""An order between sizes (`n \\le d`, `l \\leq n`): with every size a number the text gives (a
worked example), a claim for the kernel's sign check; otherwise a condition the text assumes.

Imports sympy, the kernel's expressions and the reader's AST, spans, claims and scope; never the
resolver, the checker or the CLI (`index_claims.condition` calls this).
"""

from __future__ import annotations

import sympy

from symattn.reader.claims.resolved import ResolvedClaim, new_claim
from symattn.reader.syntax import ast
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.scope import Scope

__all__ = ["size_order"]

_REL = {"le": "\\le", "ge": "\\ge", "<": "<", ">": ">"}


def size_order(
    scope: Scope, span: MathSpan, c: ast.Claim, values: list[sympy.Expr]
) -> ResolvedClaim | None:
    """`n \\le d` between sizes alone. When the worked example in force gives every size a
    number, the claim that `d - n` has the sign the relation says, for the kernel to decide as
    `max(d - n, 0) = d - n` (a contradiction of the numbers the text gave is false). Otherwise
    the text assumes it: a declaration (orders are not used as assumptions). None for a chain
    or a relation that is not an order."""
    if len(c.steps) != 1 or c.steps[0].rel not in _REL:
        return None
    rel = c.steps[0].rel
    a, b = (scope.bind(v) for v in values)
    shown = span.body[c.start : c.end]
    if a.free_symbols or b.free_symbols:
        msg = f"a relation between sizes ({shown}): assumed, not checked (orders are not used)"
        return new_claim(span, c.start, c.end, "declared", msg)
    # sizes are integers: `a < b` is `b - a - 1 >= 0`, and `x >= 0` is `max(x, 0) = x`
    gap = (b - a if rel in ("le", "<") else a - b) - (1 if rel in ("<", ">") else 0)
    return new_claim(span, c.start, c.end, "pending", pairs=((sympy.Max(gap, 0), gap),))
