"""`unknown symbol B` where the text shows B to be a number: the formula was not read as numbers
because of another name; the message names that one. Imports the reader's AST, claims, scope."""

from __future__ import annotations

import dataclasses
import re

from symattn.reader.claims.resolved import ResolvedClaim
from symattn.reader.syntax import ast
from symattn.reader.terms.scope import Scope
from symattn.reader.terms.translator import plain_name

__all__ = ["name_the_unknown"]

_UNKNOWN = re.compile(r"unknown symbol (\S+) \(declare its shape\)")

_WHAT = {
    "convention": "one of the chapter's matrices",
    "inferred": "a matrix by its use in other formulas",
    "declared": "declared a matrix",
    "defined": "defined as a matrix",
}


def name_the_unknown(scope: Scope, claim: ResolvedClaim, node: ast.Claim) -> ResolvedClaim:
    """The claim refused for an unknown `B` that the document shows to be a number (a
    denominator, "the batch size $B$"), with a message that names the capitals of the claim
    that are no numbers by such evidence, and what each is instead: those are why the claim
    is not read as numbers. The claim itself is unchanged otherwise (still not understood)."""
    m = _UNKNOWN.match(claim.message)
    if claim.status != "not_understood" or m is None or m.group(1) not in scope.numbers:
        return claim
    refused = m.group(1)
    others: dict[str, ast.Symbol] = {}
    for x in _capitals(node, claim.start, claim.end):
        label = plain_name(x) or x.name
        if label not in scope.numbers and label not in scope.dims:
            others.setdefault(label, x)
    if not others:
        return claim
    parts = []
    for label in others:
        entry = scope.lookup(label)
        what = _WHAT.get(entry.origin, "a matrix") if entry is not None else "not declared"
        parts.append(f"{label}: {what}")
    shown = ", ".join(others)
    verb = "is" if len(others) == 1 else "are"
    msg = (
        f"not read as numbers: {shown} {verb} not shown to be a number ({'; '.join(parts)}), "
        f"while {refused} is ({scope.numbers[refused]}); declare {shown} or say what "
        f"{'it is' if len(others) == 1 else 'they are'}"
    )
    first = next(iter(others.values()))
    return dataclasses.replace(claim, message=msg, where=(first.start, first.end))


def _capitals(node: ast.Node, start: int, end: int) -> list[ast.Symbol]:
    """The capitals of `node` inside [start, end), in order, not those inside a subscript."""
    out: list[ast.Symbol] = []
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, ast.Symbol):
            if x.name[:1].isupper() and start <= x.start and x.end <= end:
                out.append(x)
            continue
        stack.extend(ast.children(x))
    return sorted(out, key=lambda x: x.start)
