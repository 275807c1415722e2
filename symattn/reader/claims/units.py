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
            found = [
                x.group() + ("/" if _PER.match(body, x.end()) else "")  # a rate
                for x in _UNIT.finditer(body, c.start, end)
                if x.start() < c.end
            ]
            counted = in_multiples(c, body) or as_counts(c, found)
            if counted is not None:
                out.append(counted)
                continue
            m = _UNIT.search(body, c.start, end)
            if m is not None and m.start() < c.end:
                unit = m.group().lstrip("0123456789").strip(" \\,;:!~{}")
                msg = (
                    f"undecided: a quantity with a unit ({_name(unit)}), not an equation "
                    "between numbers; the checker does not read units"
                )
                c = dataclasses.replace(c, status="unknown", message=msg, pairs=())
        out.append(c)
    return out


def _name(unit: str) -> str:
    return re.sub(r"^(?:text|mathrm|textrm|mbox|rm|mathsf|textsf|operatorname)\s*\{\s*", "", unit)
