"""Claims that use a name a closed worked example defined, and so read it as an unknown matrix.
Imports the kernel's expressions and the reader's claims and scope; never the resolver or check."""

from __future__ import annotations

import dataclasses

import sympy

from symattn.kernel.expr import MatSym, walk
from symattn.reader.claims.context import reached
from symattn.reader.claims.resolved import ResolvedClaim
from symattn.reader.terms.scope import Scope

__all__ = ["with_forgotten"]


def _indexed(claim: ResolvedClaim) -> set[str]:
    """The names of the claim's entries of unknown matrices (`S_{ij}`, S not in force)."""
    out: set[str] = set()
    for pair in claim.pairs:
        for side in pair:
            for x in walk(side):
                if isinstance(x, sympy.Indexed):
                    out.add(str(x.base.label))
                elif isinstance(x, sympy.Symbol):
                    out.add(x.name)
    return out


def with_forgotten(claim: ResolvedClaim, scope: Scope) -> ResolvedClaim:
    """`claim`, marked when it mentions a name that a worked example now closed declared or
    defined (`S = QK^T/8` at d_k = 64) and that nothing in force declares or defines here:
    the claim reads it as a matrix of unknown value, where the text most likely still means
    what it defined, so a counterexample found for it says nothing of the text."""
    if claim.status not in ("pending", "shape") or not scope.forgotten:
        return claim
    known = {k for layer in scope.layers[1:] for k in layer.names}  # the text's own
    used = {x.name for x in reached(claim) if isinstance(x, MatSym)} | _indexed(claim)
    lost = sorted(k for k in used if k in scope.forgotten and k not in known)
    if not lost:
        return claim
    said = ", ".join(f"{k} (line {scope.forgotten[k]})" for k in lost)
    return dataclasses.replace(claim, forgotten=said)
