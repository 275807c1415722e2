"""Claims that read a family the text counts from 0 (`x_i` as row i + 1 of X) beside another
index of theirs. Imports the reader's claims only; never the resolver, check or CLI."""

from __future__ import annotations

import re

from symattn.reader.claims.resolved import ResolvedClaim, new_claim

__all__ = ["mixed_counts"]

_FONT = r"(?:\\(?:mathbf|boldsymbol|bm|vec|mathit)\s*(?:\{\s*{x}\s*\}|\s{x})|(?<![A-Za-z\\]){x})"
_SUB = r"\s*_\s*(?:\{[^{}]*\}|[A-Za-z0-9])"
#: the bounds of a sum or product: they count, they index nothing
_BOUNDS = re.compile(r"\\(?:sum|prod)\s*_\s*(?:\{[^{}]*\}|[A-Za-z0-9])")
_SUBSCRIPT = re.compile(r"_\s*(?:\{([^{}]*)\}|([A-Za-z0-9]))")


def _letters(sub: str) -> set[str]:
    return set(re.findall(r"(?<![A-Za-z\\])[a-z](?![A-Za-z])", sub))


def mixed_counts(claims: list[ResolvedClaim], families: set[str]) -> list[ResolvedClaim]:
    """Each claim whose formula reads a family counted from 0 and indexes something else with
    one of the same letters (`x_i W = (XW)_{i,:}`), undecided: whether that other index counts
    from 0 too the text does not say, and the claim holds in one reading and not the other."""
    if not families:
        return claims
    return [_mixed(c, families) for c in claims]


def _mixed(claim: ResolvedClaim, families: set[str]) -> ResolvedClaim:
    if claim.status not in ("pending", "proved", "shape_error"):
        return claim  # a definition, a declaration, a formula not read: no verdict to hold
    source = _BOUNDS.sub(" ", claim.source)
    used: set[str] = set()
    for letter in sorted(families):
        member = re.compile(_FONT.replace("{x}", re.escape(letter)) + _SUB)
        for m in member.finditer(source):
            sub = _SUBSCRIPT.search(m.group(0))
            used |= _letters(next(g for g in sub.groups() if g)) if sub else set()
        source = member.sub(" ", source)
    others = set()
    for m in _SUBSCRIPT.finditer(source):
        others |= _letters(next(g for g in m.groups() if g is not None))
    shared = sorted(used & others)
    if not shared:
        return claim
    shown = ", ".join(sorted(families))
    msg = (
        f"not decided: the text counts {shown} from 0 (read as rows 1, 2, ...), and this "
        f"formula also indexes something else with {', '.join(shared)}; whether that index "
        "counts from 0 too is not said"
    )
    return new_claim(claim.span, claim.start, claim.end, "unknown", msg)
