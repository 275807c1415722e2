"""Properties a text states of a matrix it gives no value (`\\sum_t a_{st} = 1`), not identities.

Imports the kernel's expression nodes and the resolved claims only; never the scope.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

import sympy

from symattn.kernel.expr import MatSym, walk
from symattn.reader.claims.resolved import ResolvedClaim

__all__ = ["with_properties"]


def with_properties(claims: Sequence[ResolvedClaim]) -> list[ResolvedClaim]:
    r"""A claim about the entries of one matrix the text gives no value, against a side with
    no matrix (`\sum_t a_{st} = 1`, the weights of a convex combination), holds for some
    matrices and not for others: the text states it of its matrix, so a `false` is undecided
    (`ResolvedClaim.defines`). A claim with two matrices or a defined one is decided as before."""
    out = []
    for c in claims:
        name = _undefined_subject(c) if c.status == "pending" and not c.defines else None
        if name is not None:
            why = (
                f"the text gives {name} no value: a relation between its entries and a number "
                f"is a property it states of {name}, true for some matrices and not for others"
            )
            c = dataclasses.replace(c, defines=why)
        out.append(c)
    return out


def _matrices(term: sympy.Basic) -> set[MatSym]:
    return {x for x in walk(term) if isinstance(x, MatSym)}


def _undefined_subject(c: ResolvedClaim) -> str | None:
    """The one matrix every pair of the claim is about, when no side beside it holds a
    matrix and the claim's definitions give it no value; else None."""
    subjects: set[MatSym] = set()
    defined: Mapping[sympy.Basic, object] = c.defs
    for lhs, rhs in c.pairs:
        left, right = _matrices(lhs), _matrices(rhs)
        if left and right or len(left | right) != 1:
            return None
        subjects |= left | right
    if len(subjects) != 1:
        return None
    (m,) = subjects
    return None if m in defined else str(m.args[0])
