"""Claims about a sequence the text defined by a formula the checker keeps as a premise
(`p_i = e^{\\alpha s_i}/Z`): it reads the sequence's members as free numbers, so a `false` is
only false for numbers the definition may rule out. Imports the reader's claims and scope only."""

from __future__ import annotations

import dataclasses
import re

from symattn.reader.claims.resolved import ResolvedClaim
from symattn.reader.terms.scope import Scope

__all__ = ["with_premises"]


def with_premises(scope: Scope, claim: ResolvedClaim) -> ResolvedClaim:
    """`claim`, naming the defined sequences it reads (`p_i`, defined at line 31).

    >>> from types import SimpleNamespace
    >>> from symattn.reader.claims.resolved import new_claim
    >>> from symattn.reader.syntax.scanner import read
    >>> span = read("$$\\\\sum_i p_i = 1$$", "a.md").items[0]
    >>> c = new_claim(span, 0, len(span.body), "pending")
    >>> with_premises(SimpleNamespace(defined_sequences={"p": 3}), c).premised
    'p_i (line 3)'
    """
    defined = getattr(scope, "defined_sequences", {})
    if claim.status != "pending" or not defined:
        return claim
    found = [
        f"{k}_i (line {at})"
        for k, at in sorted(defined.items())
        if re.search(rf"(?<![A-Za-z\\\\]){re.escape(k)}_", claim.source)
    ]
    return dataclasses.replace(claim, premised=", ".join(found)) if found else claim
