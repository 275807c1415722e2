"""Families a text counts from 0 (`x_0, x_1, \\ldots, x_{n-1}`): their member i is row i + 1.
Imports only the standard library; must not import the kernel, the resolver or the checker."""

from __future__ import annotations

import re
from collections.abc import Iterable

_FONT = (
    r"(?:\\(?:mathbf|boldsymbol|bm|vec|mathit)\s*\{\s*([a-z])\s*\}|\\(?:mathbf|bm|vec)\s+([a-z]))"
)
_LETTER = rf"(?:{_FONT}|(?<![A-Za-z\\])([a-z]))"
#: `x_0`, `x_{0}`, `\mathbf{x}_0`: member 0 of a family.
_MEMBER_0 = re.compile(_LETTER + r"\s*_\s*(?:0(?![\d.])|\{\s*0\s*\})")
#: `x_1`, `x_{1}`: member 1, the first of a family counted from 1.
_MEMBER_1 = re.compile(_LETTER + r"\s*_\s*(?:1(?![\d.])|\{\s*1\s*\})")
#: `\sum_{i=0}`: a sum over an index from 0, for the families of its formula.
_SUM_0 = re.compile(r"\\sum\s*_\s*\{\s*([a-z])\s*=\s*0\s*\}")
#: `i = 0, \ldots`, `i = 0, 1, \dots`: an index the text counts from 0, everywhere.
_LIST_0 = re.compile(r"(?<![A-Za-z\\])([a-z])\s*=\s*0\s*,\s*(?:1\s*,\s*)?\\(?:l|c)?dots")


def _letters(pattern: re.Pattern[str], body: str) -> set[str]:
    return {next(g for g in m.groups() if g) for m in pattern.finditer(body)}


def _subscripted(letter: str, body: str) -> set[str]:
    """The families written with `letter` as their whole subscript (`x_i`, `\\mathbf x_{i}`)."""
    pattern = re.compile(_LETTER + rf"\s*_\s*(?:{letter}(?![A-Za-z\d])|\{{\s*{letter}\s*\}})")
    return _letters(pattern, body)


def zero_based_families(bodies: Iterable[str]) -> set[str]:
    """The lowercase families a text counts from 0: written with member 0 (`x_0`), or summed
    or listed over an index that starts at 0 (`\\sum_{i=0}^{n-1} x_i`, `i = 0, \\ldots, n-1`)
    in a text that never writes member 1 without member 0 (`x_1, \\ldots, x_n` counts from 1).

    >>> sorted(zero_based_families([r"x_0, x_1, \\ldots, x_{n-1}", r"\\sum_{i=0}^{n-1} y_i"]))
    ['x', 'y']
    >>> zero_based_families([r"x_1, \\ldots, x_n", r"\\sum_{i=0}^{n} x_i"])
    set()
    """
    bodies = list(bodies)
    zero: set[str] = set()
    first: set[str] = set()
    counted: set[str] = set()
    for body in bodies:
        zero |= _letters(_MEMBER_0, body)
        first |= _letters(_MEMBER_1, body)
        for letter in _letters(_SUM_0, body):
            counted |= _subscripted(letter, body)
        for letter in _letters(_LIST_0, body):
            for other in bodies:
                counted |= _subscripted(letter, other)
    return zero | (counted - (first - zero))
