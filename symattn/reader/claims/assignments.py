"""Assignments of algorithms: `\\mathbf S \\leftarrow \\mathbf S + \\mathbf v\\mathbf k^\\top` is a
step, not a claim; its right side must typecheck.

Imports the kernel and the reader's AST, spans, claims and translator; never the resolver (which
calls `assignment`), the checker or the CLI.
"""

from __future__ import annotations

from symattn.kernel.dims import shape_str
from symattn.kernel.errors import ShapeError
from symattn.kernel.expr import MatExpr
from symattn.kernel.text import plain
from symattn.reader.claims.resolved import ResolvedClaim, new_claim
from symattn.reader.syntax import ast
from symattn.reader.syntax.gradients import writes_gradient
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.translator import UNREAD, Problem, Terms

__all__ = ["assignment"]


def assignment(
    terms: Terms, span: MathSpan, left: ast.Node, right: ast.Node, start: int, end: int
) -> ResolvedClaim:
    """`x \\leftarrow e`: the value of `e` is given to `x` (a step of an algorithm, which claims
    nothing). `e` is read: a product that does not typecheck is a shape error; names the text
    never declares leave it unread. Raises `Problem` for a shape error."""
    target = span.body[left.start : left.end]
    if writes_gradient(right):
        msg = (
            f"an update rule for {target} by the gradient of the loss (a step of training, "
            "not a claim)"
        )
        return new_claim(span, start, end, "prose", msg)
    try:
        value = terms.term(right)
    except UNREAD:
        msg = f"an assignment to {target} (a step of an algorithm, not a claim; not read)"
        return new_claim(span, start, end, "declared", msg)
    except ShapeError as e:
        raise Problem("shape_error", str(e).splitlines()[0], right) from None
    shape = shape_str(value.shape) if isinstance(value, MatExpr) else "a scalar"
    msg = f"an assignment {target} ← {plain(value)} ({shape}): a step of an algorithm, not a claim"
    return new_claim(span, start, end, "declared", msg)
