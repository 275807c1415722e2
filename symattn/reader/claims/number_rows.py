"""`x_1 = 0` in a text that never declares X: a number of the text's, not row 1 of the chapter's X.
Imports the kernel's dims and the reader's claims and scope; never the resolver or the checker."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from symattn.kernel.dims import shape_str
from symattn.reader.claims.resolved import ResolvedClaim
from symattn.reader.terms.scope import Scope

__all__ = ["numbered_rows", "row_products"]

#: `x_1 = 0`, `\mathbf x_{2}=-1.5`: one lower-case letter with an index, set to a number
_VALUE = re.compile(
    r"^\s*(?:\\(?:mathbf|boldsymbol|bm|mathit)\s*\{?\s*)?([a-z])\}?\s*_\s*\{?\s*[0-9a-z]+\s*\}?"
    r"\s*=\s*-?\s*\d+(?:\.\d+)?\s*$"
)
_ILL = ("shape_error", "internal_error")
#: a shape error between two operands: `cannot multiply a_1^T (n × 1) by a_2^T (n × 1): ...`
_OPERANDS = re.compile(r"^cannot multiply (\S+) \([^()]*\) by (\S+) \([^()]*\):")
#: a row of a matrix as the kernel writes it: `a_1`, `a_{12}`, `a_i^T`
_ROW = re.compile(r"^([a-z])_(?:[0-9a-z]|\{[0-9a-z+\-]+\})(?:\^T)?$")
#: the arguments of attention keep their conventional shapes (`reader.claims.conventional`)
_ATTENTION = frozenset({"Q", "K", "V"})


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
    taken, twins = _read_without(scope, guessed, again)
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


def row_products(
    scope: Scope, claims: list[ResolvedClaim], again: Callable[[], list[ResolvedClaim]]
) -> list[ResolvedClaim]:
    """A shape error between rows of matrices the text never declares: `a_1a_2 + b_1b_2`, with
    a_1 read as row 1 of the chapter's A (n × n), fails whichever way the rows stand, so the
    text means numbers of its own by a_1 and a_2 (the product of two rows of one width is no
    product at all). Read `again` without those matrices; if that is no shape error, it is
    undecided, naming the guess. Rows of Q, K and V (the arguments of attention), and of a
    matrix the text declares or defines, keep the shape error.

    >>> from symattn.reader.terms.scope import Scope
    >>> row_products(Scope(), [], lambda: [])
    []
    """
    conv = scope.layers[0].names
    # a matrix a formula of the text uses as the chapter's (`confirmed`) still leaves its rows a
    # guess here: no two rows of one width multiply either way round
    guessed = sorted(
        k
        for k in scope.conventional_reads
        if k in conv and k not in _ATTENTION and not scope.document_matrix(k)
    )
    suspects = {id(c): rows for c in claims if (rows := _row_operands(c, guessed))}
    if not suspects:
        return claims
    taken, twins = _read_without(scope, guessed, again)
    out = []
    for c in claims:
        twin = next((t for t in twins if (t.start, t.end) == (c.start, c.end)), None)
        if id(c) not in suspects or twin is None or twin.status in _ILL:
            out.append(c)
            continue
        letters = suspects[id(c)]
        shown = ", ".join(f"{k} ({shape_str(taken[k].shape)})" for k in letters)
        msg = (
            f"{c.message}; but that reads {', '.join(k.lower() for k in letters)} with an index "
            f"as rows of the chapter's {shown}, which the text never declares: it may name "
            f"numbers of its own; without it: {twin.message or 'it typechecks'}"
        )
        out.append(dataclasses.replace(c, status="unknown", message=msg, pairs=(), set_aside=True))
    return out


def _read_without(
    scope: Scope, names: list[str], again: Callable[[], list[ResolvedClaim]]
) -> tuple[dict, list[ResolvedClaim]]:
    """The chapter's conventions `names` taken out (and the claims read `again` without them),
    then put back: (what was taken, the claims read so)."""
    conv = scope.layers[0].names
    taken = {k: conv.pop(k) for k in names}
    confirming, scope.confirming = scope.confirming, False
    try:
        return taken, again()
    finally:
        conv.update(taken)
        scope.confirming = confirming


def _row_operands(c: ResolvedClaim, guessed: list[str]) -> list[str]:
    """The conventional matrices whose rows are both operands of the claim's shape error."""
    m = _OPERANDS.match(c.message) if c.status == "shape_error" else None
    if m is None:
        return []
    rows = [_ROW.match(x) for x in m.groups()]
    letters = sorted({r.group(1).upper() for r in rows if r is not None})
    if None in rows or not set(letters) <= set(guessed):
        return []
    return letters


def _number_value(c: ResolvedClaim, guessed: list[str]) -> str:
    """The conventional matrix whose row the claim sets to a number, or ""."""
    m = _VALUE.match(c.span.body[c.start : c.end])
    if m is None:
        return ""
    letter = m.group(1).upper()
    return letter if letter in guessed else ""
