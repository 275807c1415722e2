"""A matrix whose entries the text defines, by cases (`M_{ij}=0` for `j\\le i-1`, `-\\infty`
otherwise) or by a formula of the indices (`M_{ij}=-|i-j|`), used whole by a claim (`A =
\\mathrm{softmax}(S + M)`, then `A_{ij} = 0` for `j>i`): the checker reads such entries only where
a claim writes them, so for the matrix whole it knows the shape only. An identity for every
matrix of that shape holds for the text's (verified), but one that fails for some may hold for
the text's: a `false` is then undecided, naming the definition. Entries of -inf (a mask the
checker did not read as the causal one) are no real matrix's: then a verified claim is undecided
too (`unbounded`), for a row masked out entirely makes the softmax 0/0.

Imports the kernel's expressions and the reader's claims and scope; must not import the
resolver, the checker or the CLI.
"""

from __future__ import annotations

import dataclasses

import sympy

from symattn.kernel.expr import MatSym, walk
from symattn.reader.claims.resolved import ResolvedClaim
from symattn.reader.terms.scope import Name, Scope

__all__ = ["note_entries", "over_defined_entries"]


def note_entries(
    entry: Name | None, name: str, line: int, how: str, infinite: bool = False
) -> None:
    """Note on `entry`, the declared matrix `name`, that the text defines its entries at `line`
    (some of them -inf: `infinite`)."""
    if entry is None or entry.mask:
        return
    entry.infinite = entry.infinite or infinite
    if entry.entries:
        return
    entry.entries = (
        f"the text defines the entries of {name} ({how}, line {line}), which the checker reads "
        "only where a claim writes them"
    )


def over_defined_entries(scope: Scope, claim: ResolvedClaim) -> ResolvedClaim:
    """The claim, with a `false` made undecided when it reaches (through the text's definitions)
    a matrix whose entries the text defines; unchanged otherwise."""
    if claim.status != "pending" or claim.defines or not claim.pairs:
        return claim
    defs = {k.name: v for k, v in claim.defs.items() if isinstance(k, MatSym)}
    found = [scope.lookup(name) for name in sorted(_reached(claim.pairs, defs))]
    entries = [e for e in found if e is not None and e.entries and not e.mask]
    if not entries:
        return claim
    first = entries[0]
    claim = dataclasses.replace(claim, defines=f"{first.entries}, not for the matrix whole")
    infinite = [e for e in entries if e.infinite]
    if infinite:
        # -inf entries: a verdict for every real matrix of that shape says nothing of the
        # text's (a row masked out entirely is 0/0), so a verified claim is undecided as well
        why = f"{infinite[0].entries}, and some of them are -∞, which no real matrix has"
        claim = dataclasses.replace(claim, unbounded=why)
    return claim


def _reached(pairs: tuple[tuple[sympy.Basic, sympy.Basic], ...], defs: dict) -> set[str]:
    out: set[str] = set()
    todo: list[sympy.Basic] = [side for pair in pairs for side in pair]
    while todo:
        e = todo.pop()
        if not isinstance(e, sympy.Basic):
            continue
        for x in walk(e):
            if isinstance(x, MatSym) and x.name not in out:
                out.add(x.name)
                if x.name in defs:
                    todo.append(defs[x.name])
    return out
