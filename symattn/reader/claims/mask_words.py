"""A claim in a sentence that speaks of a mask (`with a causal mask, $a_{ij} = 0$ for $j > i$`)
about a matrix the text defined without one: the text may mean the masked matrix, so a false is
undecided, naming the words.

Imports the kernel's nodes and the reader's claims; never the resolver, the checker or the CLI.
"""

from __future__ import annotations

import dataclasses
import re

from symattn.kernel.expr import walk
from symattn.kernel.softmax import CausalMask, Softmax
from symattn.kernel.text import plain
from symattn.reader.claims.context import reached
from symattn.reader.claims.resolved import ResolvedClaim

__all__ = ["under_mask_words"]

_MASK = re.compile(
    r"\b(?:causal(?:ly)?|masked|look-ahead|autoregressive)\b|\bmask(?:s|ing)?\b|掩码|因果|遮盖",
    re.IGNORECASE,
)
_END = re.compile(r"[.!?。！？；;]\s|[。！？；]|\n\s*\n")
_DELIMS = re.compile(r"\$[^$]*\$")


def under_mask_words(claim: ResolvedClaim, text: str) -> ResolvedClaim:
    """`claim`, with its `false` undecided when the words of its sentence before it speak of a
    mask and a softmax it reaches is defined without one.

    >>> under_mask_words(None, "")
    """
    if claim is None or claim.status != "pending" or not text:
        return claim
    offset = claim.span.start.offset
    head = text[max(0, offset - 300) : offset]
    ends = list(_END.finditer(head))
    words = head[ends[-1].end() :] if ends else head
    found = _MASK.search(_DELIMS.sub(" ", words))
    names = _unmasked(claim) if found is not None else []
    if found is None or not names:
        return claim
    how = (
        f"{', '.join(names)} as defined, without a mask, while the sentence speaks of one "
        f"('{found.group()}')"
    )
    return dataclasses.replace(claim, entry_guesses=(*claim.entry_guesses, ("mask", how, True)))


def _unmasked(claim: ResolvedClaim) -> list[str]:
    """The matrices the claim reaches whose definition takes a softmax without a causal mask."""
    out = []
    for x in sorted(reached(claim), key=str):
        body = claim.defs.get(x)
        if body is None:
            continue
        nodes = list(walk(body))
        if any(isinstance(y, Softmax) for y in nodes) and not any(
            isinstance(y, CausalMask) for y in nodes
        ):
            out.append(plain(x))
    return out
