"""How the output of a gradient is computed, said after the gradient: `$\\partial L/\\partial V =
A^T \\partial L/\\partial O$ where $O = AV$` (the definition is read first).

Imports the reader's syntax, its cached parse and context only; never the resolver (which calls it).
"""

from __future__ import annotations

import re

from symattn.kernel.errors import ParseError
from symattn.reader.claims.context import words_between
from symattn.reader.syntax import ast
from symattn.reader.syntax.gradients import writes_gradient
from symattn.reader.syntax.notes import blank_notes
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.inference import parsed

__all__ = ["defined_after"]

_MARKS = re.compile(r"\\(?:partial|nabla)(?![A-Za-z])|frac\s*\{\s*(?:\\mathrm\s*\{?\s*)?d")
_WHERE = re.compile(r"^[\s,，]*(?:where|with|for|and|here|其中|这里)[\s:：,，]*$", re.IGNORECASE)


def defined_after(span: MathSpan, nxt: MathSpan, text: str) -> bool:
    """A formula with a gradient of the loss, then *where* and the definition of one matrix
    (`O = AV`): the definition is read before the formula it completes."""
    if not _MARKS.search(span.body) or not _WHERE.match(words_between(text, span, nxt)):
        return False
    try:
        here = parsed(blank_notes(span.body), span.env)
        if not any(writes_gradient(x) for x in here.items):
            return False
        there = parsed(blank_notes(nxt.body), nxt.env)
    except (ParseError, RecursionError):
        return False
    claims = [x for x in there.items if isinstance(x, ast.Claim)]
    return (
        len(claims) == 1
        and len(claims[0].subjects) == 1
        and isinstance(claims[0].subjects[0], ast.Symbol)
        and [s.rel for s in claims[0].steps] == ["="]
        and not writes_gradient(claims[0])
    )
