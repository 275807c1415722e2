"""Equations between matrices the text never declares, whose shapes differ only by the chapter's
conventions (`Q = K = V = WX`: K n × d_k, V n × d_v). Imports the reader's claims and scope."""

from __future__ import annotations

import dataclasses

from symattn.kernel.dims import shape_str
from symattn.kernel.expr import MatSym
from symattn.reader.claims.resolved import ResolvedClaim
from symattn.reader.terms.scope import Name, Scope, Shape, same_shape

__all__ = ["with_conventional_equals"]


def with_conventional_equals(claim: ResolvedClaim, scope: Scope) -> ResolvedClaim:
    """`claim`, undecided when it equates two names the text never declares nor defines,
    whose shapes differ: those shapes are the chapter's conventions
    (queries and keys of width d_k, values of width d_v), and a text that writes `K = V`
    says its K and V have one shape. A name the text declares keeps its shape, so `K = V`
    with K and V declared of other widths stays a shape error."""
    if claim.status != "pending" or claim.supposed:
        return claim
    for lhs, rhs in claim.pairs:
        if not (isinstance(lhs, MatSym) and isinstance(rhs, MatSym)):
            continue  # (`[x_1; x_2] = X` writes its rows: their count is the text's)
        a, b = scope.bind_shape(lhs.shape), scope.bind_shape(rhs.shape)
        if same_shape(a, b):
            continue
        names = [lhs.name, rhs.name]
        if not all(_conventional(scope, k) for k in names):
            continue
        shapes = ", ".join(f"{k} {shape_str(scope.bind_shape(_shape(scope, k)))}" for k in names)
        msg = (
            f"not decided: the sides are {shape_str(a)} and {shape_str(b)} only by the chapter's "
            f"conventional shapes ({shapes}), which the text never declares; the equation says "
            "its matrices have one shape"
        )
        return dataclasses.replace(claim, status="unknown", message=msg, pairs=())
    return claim


def _entry(scope: Scope, name: str) -> Name | None:
    """The name's entry in force, looked up without marking it read."""
    for layer in reversed(scope.layers):
        if name in layer.names:
            return layer.names[name]
    return None


def _conventional(scope: Scope, name: str) -> bool:
    entry = _entry(scope, name)
    return entry is not None and entry.origin == "convention" and entry.definition is None


def _shape(scope: Scope, name: str) -> Shape:
    entry = _entry(scope, name)
    assert entry is not None
    return entry.shape
