"""A head family's definition at the head letter a claim writes (`Q^{(s)} = XW_q^{(s)}`, then
`(Q^{(s)})^T`): the definition is kept at the letter h, the claim's members are at s.
Imports sympy, the kernel's nodes and the reader's claims; never the resolver or the checker."""

from __future__ import annotations

import dataclasses

import sympy

from symattn.kernel.expr import HeadSym, MatExpr, walk
from symattn.reader.claims.resolved import ResolvedClaim
from symattn.reader.terms.scope import HEAD

__all__ = ["with_head_letters"]


def with_head_letters(claim: ResolvedClaim) -> ResolvedClaim:
    """`claim` with the definitions of the head families it uses at another letter than h
    (`Q^{(s)}`, member s of the family the text defined as `Q^{(s)} = XW_q^{(s)}`): each is
    the family's definition with h replaced by that letter, so a claim about member s reads
    its definition as one about member h would."""
    if not claim.defs or not claim.pairs:
        return claim
    families = {
        (k.name, k.shape): v
        for k, v in claim.defs.items()
        if isinstance(k, HeadSym) and k.head == HEAD
    }
    if not families:
        return claim
    added: dict[sympy.Basic, MatExpr] = {}
    todo: list[sympy.Basic] = [e for pair in claim.pairs for e in pair]
    while todo:
        for x in walk(todo.pop()):
            if not isinstance(x, HeadSym) or x.head == HEAD or x in added or x in claim.defs:
                continue
            value = families.get((x.name, x.shape))
            if value is None or not x.head.free_symbols or HEAD in x.head.free_symbols:
                continue  # `Q^{(1)}`: a member at a number is no renaming of the family's h
            at = value.xreplace({HEAD: x.head})
            added[x] = at
            todo.append(at)
    if not added:
        return claim
    return dataclasses.replace(claim, defs={**claim.defs, **added})
