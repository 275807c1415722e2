r"""A unit written in the prose straight after an inline formula (`$2 \times 10^6 \times 2 =
4$ MB`): the number that ends the formula is a quantity in that unit, as if the unit stood
inside it (`= 4\text{ MB}`), not a bare number. Imports only the standard library."""

from __future__ import annotations

import re
from collections.abc import Sequence

from symattn.reader.syntax.spans import MathSpan

__all__ = ["units_after", "with_unit"]

#: A multiple of a unit (of bytes, FLOPs, seconds, or of one): a number in it is not the count
#: of the base unit the formula may compute. A base unit (`bytes`, `s`, `tokens`) leaves the
#: bare numbers compared, as both sides count it.
_UNIT = re.compile(
    r"(?:[KMGTPE]i?B|kB|[KMGTPE]FLOPs?|[KMGTPE]FLOPS|ms|μs|µs|ns"
    r"|thousand|million|billion|trillion)(?![A-Za-z0-9])"
)
#: The closing delimiter of an inline formula, then spacing that keeps a word with its number
#: (a space, a no-break space, `~`), on the same line.
_CLOSE = re.compile(r"(?:\$|\\{1,2}\))(?:[ \t\u00a0~]|&nbsp;)*")
#: A number at the very end of a formula (digits, a decimal point, a group of thousands).
_LAST_NUMBER = re.compile(r"[0-9](?:\s|\\[,;:! ]|~)*\}?\s*\Z")


def units_after(items: Sequence[object], text: str) -> dict[int, str]:
    """The unit after each inline formula that ends in a number, by the file offset of the
    formula's body."""
    out: dict[int, str] = {}
    if not text:
        return out
    for item in items:
        if not isinstance(item, MathSpan) or item.display:
            continue
        if not _LAST_NUMBER.search(item.body):
            continue
        close = _CLOSE.match(text, item.end)
        if close is None:
            continue
        unit = _UNIT.match(text, close.end())
        if unit is not None:
            out[item.start.offset] = unit.group()
    return out


def with_unit(body: str, unit: str) -> str:
    r"""The formula's body as if the unit were written inside it, after its last number:
    `2 \times 2 = 4` and MB give `2 \times 2 = 4\text{ MB}`."""
    return f"{body.rstrip()}\\text{{ {unit}}}" if unit else body
