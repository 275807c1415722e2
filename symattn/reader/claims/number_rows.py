"""`x_1 = 0` in a text that never declares X: a number of the text's, not row 1 of the chapter's X.
Imports the kernel's dims and the reader's claims and scope; never the resolver or the checker."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from symattn.kernel.dims import shape_str
from symattn.reader.claims.resolved import ResolvedClaim
from symattn.reader.terms.scope import Scope

__all__ = ["numbered_rows"]

#: `x_1 = 0`, `\mathbf x_{2}=-1.5`: one lower-case letter with an index, set to a number
_VALUE = re.compile(
    r"^\s*(?:\\(?:mathbf|boldsymbol|bm|mathit)\s*\{?\s*)?([a-z])\}?\s*_\s*\{?\s*[0-9a-z]+\s*\}?"
    r"\s*=\s*-?\s*\d+(?:\.\d+)?\s*$"
)
_ILL = ("shape_error", "internal_error")


def numbered_rows(
    scope: Scope, claims: list[ResolvedClaim], again: Callable[[], list[ResolvedClaim]]
) -> list[ResolvedClaim]:
    """A shape error in `x_1 = 0` that rests on reading x_1 as row 1 of a matrix the text never
    declares (the chapter's X, n × d): the text may name a number x_1 (a sample, a scalar
    input). Read `again` without that matrix; if that is no shape error, it is undecided,
    naming the guess. A text that declares X, or uses it as the chapter's X in a formula that
    typechecks, keeps the shape error.

    >>> from symattn.reader.terms.scope import Scope
    >>> numbered_rows(Scope(), [], lambda: [])
    []
    """
    conv = scope.layers[0].names
    guessed = sorted(
        k
        for k in scope.conventional_reads
        if k in conv and k not in scope.confirmed and not scope.document_matrix(k)
    )
    suspects = [id(c) for c in claims if c.status == "shape_error" and _number_value(c, guessed)]
    if not suspects:
        return claims
    taken = {k: conv.pop(k) for k in guessed}
    confirming, scope.confirming = scope.confirming, False
    try:
        twins = again()
    finally:
        conv.update(taken)
        scope.confirming = confirming
    out = []
    for c in claims:
        twin = next((t for t in twins if (t.start, t.end) == (c.start, c.end)), None)
        if id(c) not in suspects or twin is None or twin.status in _ILL:
            out.append(c)
            continue
        letter = _number_value(c, guessed)
        shape = shape_str(taken[letter].shape)
        msg = (
            f"{c.message}; but that reads {letter.lower()} with an index as a row of the "
            f"chapter's {letter} ({shape}), which the text never declares: it may name a "
            f"number of its own; without it: {twin.message or 'it typechecks'}"
        )
        out.append(dataclasses.replace(c, status="unknown", message=msg, pairs=(), set_aside=True))
    return out


def _number_value(c: ResolvedClaim, guessed: list[str]) -> str:
    """The conventional matrix whose row the claim sets to a number, or ""."""
    m = _VALUE.match(c.span.body[c.start : c.end])
    if m is None:
        return ""
    letter = m.group(1).upper()
    return letter if letter in guessed else ""
