"""Quantities with a unit (`8\\text{GiB}`, `5\\,\\mathrm{ms}`): not equations between numbers.

Imports only the standard library and the resolved claims; never the scope or the kernel.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from symattn.reader.claims.count_words import as_counts
from symattn.reader.claims.multiples import in_multiples
from symattn.reader.claims.resolved import ResolvedClaim
from symattn.reader.claims.rounded import rounded_figure
from symattn.reader.syntax.lexer_tables import MULTIPLES
from symattn.reader.syntax.lexer_tokens import BARE_MULTIPLE

__all__ = ["with_units"]

_UNIT_WORDS = (
    r"[KMGTPE]i?B|[KMGTPE]i?b|[kKMGTP]?bytes?|[kKMGTP]?bits?|[kMGT]?FLOPS?|FLOPs?|flops?"
    r"|[munpµ]?s|ms|secs?|seconds?|minutes?|mins?|hours?|hrs?|h|days?|[kMG]?Hz|W|kW"
    r"|tokens?|words?|params?|parameters?|layers?|heads?|steps?|epochs?|samples?|GPUs?|%"
)
_SPACE = r"\d\}?(?:\s|\\[,;:! ]|~|\\q?quad)*"
#: Multiples of a unit or of one, written after a number (`5\text{ GFLOPs}`, `3\,\text{T}`).
_MULTIPLES = r"[kKMGTPE]FLOPs?|thousand|million|billion|trillion"
_WRAP = r"\\(?:text|mathrm|textrm|mbox|rm|mathsf|textsf|operatorname)\s*\{\s*(?:\\,\s*)?"
#: A word of CJK writing after a number (`64维`, `1.75亿`, `\\text{ 个}`): a unit or a multiplier.
_CJK_UNIT = r"|(?:" + _WRAP + r")?[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]"
#: a number, then spacing, then a unit in \text / \mathrm / \mbox / ..., or a bare unit of
#: two letters or more (a bare `2h` or `2W` is a product)
_UNIT = re.compile(
    _SPACE
    + r"(?:"
    + _WRAP
    + r"(?:"
    + _UNIT_WORDS
    + r"|"
    + _MULTIPLES
    + r"|[KMBT])(?![A-Za-z])|(?=[A-Za-z%\\]{2})(?:"
    + _UNIT_WORDS
    + r"|"
    + _MULTIPLES
    + r")(?![A-Za-z])"
    + _CJK_UNIT
    + r")"
)


#: A multiple written after a number in `\\text` (`7\\text{B}`, `32\\text{K}`), which the lexer
#: reads as part of the number (7e9, 32e3): no unit.
_FOLDED = re.compile(
    r"\d\}?(?:\s|\\[,;: ])*\\(?:text|textrm|textit|mbox|operatorname)\s*\{([KkMBT])\}"
    + "|"
    + BARE_MULTIPLE.pattern
)
_RELATION = re.compile(r"\\approx(?![A-Za-z])|(?<![<>!\\])=")
#: What each such multiple may also mean, where a claim that fails may rest on it.
_DOUBT = {
    "K": "K read as 1000, while it may mean 1024",
    "k": "k read as 1000, while it may mean 1024",
    "M": "M read as 10^6, while it may mean 2^20",
    "B": "B read as 10^9 (billion), while it may mean bytes",
}


#: After a unit: `/s`, `}/\\text{s}`, ` per second`, 每秒: a rate.
_PER = re.compile(r"\}?\s*(?:/|per\b|每)")


def with_units(claims: Sequence[ResolvedClaim], body: str) -> list[ResolvedClaim]:
    r"""A claim to check in which a number carries a unit (`2 \cdot 2^{32} = 8\text{GiB}`) is
    an equation between quantities, which the checker does not read: undecided, naming the
    unit, rather than `= 8` decided between bare numbers."""
    out = []
    for c in claims:
        c = rounded_figure(c, body)
        if c.status in ("pending", "not_understood"):
            end = min(len(body), c.end + 40)
            units = [
                x
                for x in _UNIT.finditer(body, c.start, end)
                if x.start() < c.end and not _FOLDED.match(body, x.start())
            ]
            found = [x.group() + ("/" if _PER.match(body, x.end()) else "") for x in units]
            counted = in_multiples(c, body) or as_counts(c, found)
            if counted is not None:
                out.append(counted)
                continue
            c = _suffixed(c, body)
            m = units[0] if units else None
            if m is not None:
                unit = m.group().lstrip("0123456789").strip(" \\,;:!~{}")
                msg = (
                    f"undecided: a quantity with a unit ({_name(unit)}), not an equation "
                    "between numbers; the checker does not read units"
                )
                c = dataclasses.replace(c, status="unknown", message=msg, pairs=())
        out.append(c)
    return out


def _multiple(m: re.Match[str]) -> str:
    """The multiple `_FOLDED` found: in `\\text{K}` or straight after the number."""
    return m.group(1) or m.group(2)


def _name(unit: str) -> str:
    return re.sub(r"^(?:text|mathrm|textrm|mbox|rm|mathsf|textsf|operatorname)\s*\{\s*", "", unit)


def _suffixed(claim: ResolvedClaim, body: str) -> ResolvedClaim:
    """A claim with numbers written with a multiple after them (`7\\text{B}`): said so, and
    where a multiple may mean another (K as 1024, B as bytes) a false is undecided."""
    folded = [_multiple(m) for m in _FOLDED.finditer(body, claim.start, claim.end)]
    if not folded or claim.status != "pending":
        return claim
    rel = _RELATION.search(body, claim.start, claim.end)
    at = rel.start() if rel is not None else claim.end
    both = {_multiple(m) for m in _FOLDED.finditer(body, claim.start, at)} & {
        _multiple(m) for m in _FOLDED.finditer(body, at, claim.end)
    }
    # B on both sides (`7\text{B} \times 2 = 14\text{B}`) is read alike as billions or bytes
    doubts = [
        _DOUBT[x] for x in dict.fromkeys(folded) if x in _DOUBT and not (x == "B" and x in both)
    ]
    shown = ", ".join(f"{x} = 10^{MULTIPLES[x]}" for x in dict.fromkeys(folded))
    read = f"a multiple written after a number read as its power of ten ({shown})"
    context = f"{claim.context}; {read}" if claim.context else read
    claim = dataclasses.replace(claim, context=context)
    if doubts and not claim.defines:
        why = "; ".join(doubts)
        claim = dataclasses.replace(claim, defines=why, free=why)
    return claim
