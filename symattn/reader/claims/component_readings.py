"""Shape errors that rest on reading `x_i` as component i of a vector the text declares.
Imports the kernel's dims and the reader's claims and scope; never the resolver, check or CLI."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from symattn.kernel.dims import shape_str
from symattn.reader.claims.resolved import ResolvedClaim
from symattn.reader.terms.scope import Scope

__all__ = ["mark_components", "uncomponent"]

_ILL = ("shape_error", "internal_error")


def uncomponent(
    scope: Scope, claims: list[ResolvedClaim], again: Callable[[], list[ResolvedClaim]]
) -> list[ResolvedClaim]:
    """A shape error where the formula read `x_i` as component i of a vector x the text declares
    (`x \\in \\mathbb R^d`, often in another part of the text) is read `again` with `x_i` as
    row i of X: if that is no shape error, the text may mean the row (`k_i = x_i W_K`), so the
    claim is undecided, naming both readings. With both readings ill-typed it stays an error."""
    read = dict(scope.component_reads)
    if not read:
        return claims
    off, scope.components_off = scope.components_off, True
    confirming, scope.confirming = scope.confirming, False
    try:
        twins = again()
    finally:
        scope.components_off = off
        scope.confirming = confirming
    said = ", ".join(
        f"{key}'s components ({key}: {shape_str(entry.shape)}, line {entry.line})"
        for key, entry in sorted(read.items())
    )
    out = []
    for c in claims:
        twin = next((t for t in twins if (t.start, t.end) == (c.start, c.end)), None)
        if c.status != "shape_error" or twin is None or twin.status in _ILL:
            out.append(c)
            continue
        msg = (
            f"{c.message}; but that reads {said}, and the text may mean rows of a matrix "
            f"there; read so: {twin.message or 'it typechecks'}"
        )
        out.append(dataclasses.replace(c, status="unknown", message=msg, pairs=(), set_aside=True))
    return out


def mark_components(scope: Scope, claims: list[ResolvedClaim]) -> list[ResolvedClaim]:
    """Claims left to the kernel that read `x_i` as a component of a vector declared in an
    earlier section carry that reading (`components`): a shape error the kernel then finds
    may be the text's row i of X, so the verdict is undecided (`check.verdicts`)."""
    earlier = {
        key: entry
        for key, entry in scope.component_reads.items()
        if 0 <= entry.section < scope.section
    }
    if not earlier:
        return claims
    said = ", ".join(
        f"{key}_i as component i of {key} ({shape_str(entry.shape)}, declared at line "
        f"{entry.line}, in an earlier section)"
        for key, entry in sorted(earlier.items())
    )
    return [
        dataclasses.replace(c, components=said) if c.status == "pending" else c for c in claims
    ]
