"""Claims that read a plain `u_i` as an entry of a vector by a guess (`terms.components`):
which claims those are. Imports the reader's claims only; never the resolver, check or CLI."""

from __future__ import annotations

import dataclasses
import re

from symattn.reader.claims.resolved import ResolvedClaim
from symattn.reader.terms.arrays import ARRAY_GUESS

__all__ = ["with_entry_guesses", "writes_entry"]

_BOLD = re.compile(r"\\(?:mathbf|boldsymbol|bm)\s*(?:\{\s*[A-Za-z]\s*\}|[A-Za-z])")


def writes_entry(letter: str, source: str) -> bool:
    r"""Whether `source` writes the plain letter with an index (`u_i`, `u_{i+1}`, `u[i]`), not
    in bold.

    >>> writes_entry("u", r"\mathbf u^T\mathbf w = \sum_i u_i w_i")
    True
    >>> writes_entry("u", r"\mathbf u_i + \mathbf{u}_j = v_i"), writes_entry("u", "w = u[t]")
    (False, True)
    """
    plain = _BOLD.sub(" ", source)
    return re.search(rf"(?<![A-Za-z\\]){re.escape(letter)}\s*[_\[]", plain) is not None


def with_entry_guesses(
    claims: list[ResolvedClaim], guesses: dict[str, tuple[str, bool]]
) -> list[ResolvedClaim]:
    """Each claim with the guessed entries it writes (letter -> how it was read, and whether a
    `false` verdict rests on the guess too): the checker names them, and an alarm that rests
    on one is undecided (`check.guessed.with_entry_guesses`)."""
    if not guesses:
        return claims
    out = []
    for c in claims:
        got = tuple((k, *how) for k, how in guesses.items() if _writes(k, c.source))
        out.append(dataclasses.replace(c, entry_guesses=got) if got else c)
    return out


def _writes(key: str, source: str) -> bool:
    """Whether `source` writes what the guess `key` is about: an array by its name (`X`), a
    letter with an index (`writes_entry`)."""
    if key.startswith(ARRAY_GUESS):
        name = re.escape(key.removeprefix(ARRAY_GUESS))
        return re.search(rf"(?<![A-Za-z\\]){name}(?![A-Za-z])", source) is not None
    return writes_entry(key, source)
