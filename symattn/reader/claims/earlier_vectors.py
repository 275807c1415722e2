"""Claims that read `x_i` as an entry of the vector `x \\in \\mathbb R^d` an earlier section
declares. Imports the kernel's expressions and the reader's claims and scope; never check."""

from __future__ import annotations

import dataclasses
import re

from symattn.kernel.dims import shape_str
from symattn.kernel.expr import MatSym
from symattn.reader.claims.context import reached
from symattn.reader.claims.resolved import ResolvedClaim
from symattn.reader.terms.scope import Scope

__all__ = ["earlier_vector_note", "with_earlier_vectors"]


def with_earlier_vectors(claim: ResolvedClaim, scope: Scope) -> ResolvedClaim:
    """`claim`, marked when it reads `x_i` as entry i of a vector x that the text declared in
    an earlier section (`x \\in \\mathbb R^d` of a layer norm) and nothing in this section
    declares: a later section may write `x_i` for the i-th token's row instead, so a shape
    error the kernel finds on that reading is the reader's guess, not the text's.

    A claim that is neither pending nor about a shape is left as it is:

    >>> from types import SimpleNamespace
    >>> c = SimpleNamespace(status="declared")
    >>> with_earlier_vectors(c, Scope()) is c  # type: ignore[arg-type]
    True
    """
    if claim.status not in ("pending", "shape"):
        return claim
    used = {x.name for x in reached(claim) if isinstance(x, MatSym)}
    found = []
    for layer in scope.layers[1:]:
        for name, e in layer.names.items():
            if name not in used or len(name) != 1 or not name.islower():
                continue
            if e.origin != "declared" or e.line <= 0 or not 0 <= e.section < scope.section:
                continue
            if 1 not in e.shape or not re.search(rf"(?<![A-Za-z\\]){name}\s*_", claim.source):
                continue
            found.append(
                f"{name}_i as entry i of the vector {name} ({shape_str(e.shape)}) declared on "
                f"line {e.line}, in an earlier section"
            )
    if not found:
        return claim
    return dataclasses.replace(claim, earlier_vector="; ".join(found))


def earlier_vector_note(claim: ResolvedClaim, message: str) -> str:
    """The verdict's message for a shape error found on such a reading: undecided, and why.

    >>> from types import SimpleNamespace
    >>> c = SimpleNamespace(earlier_vector="x_i as entry i of the vector x")
    >>> earlier_vector_note(c, "shapes differ")[:47]  # type: ignore[arg-type]
    'undecided: shapes differ; but that reads x_i as'
    """
    return (
        f"undecided: {message}; but that reads {claim.earlier_vector}, and this section may "
        "mean another thing by it (a token's row)"
    )
