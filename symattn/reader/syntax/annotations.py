"""Labels a text writes after a factor to say what it counts (`D(input)`, `8192\\ (T)`): blanked
before parsing, keeping every offset. Imports only the standard library; never parses."""

from __future__ import annotations

import re

__all__ = ["blank_annotations"]

#: `D(input)`, `D * D(weight)`: a capital letter, then a word of three lower-case letters or
#: more in parentheses (no product of letters is spelled so).
_WORD = re.compile(r"(?<![A-Za-z\\])[A-Z]\s*(\(\s*[a-z]{3,}(?:[ _-][a-z]+)*\s*\))")
#: `8192\ (T)`, `2\ (\text{bytes})`: a number, an explicit space, then a letter or a word in
#: parentheses (TeX's plain space is no space: `2 (B)` is twice B).
_NUMBER = re.compile(
    r"[0-9](?:\\[ ,;]|~)+(\(\s*(?:[A-Za-z]|\\(?:text|mathrm|textrm)\s*\{[A-Za-z ]+\})\s*\))"
)


def blank_annotations(body: str) -> str:
    r"""The body with its factors' labels blanked.

    >>> blank_annotations(r"2 * B * S * D(input) + D * D(weight)")
    '2 * B * S * D        + D * D         '
    >>> blank_annotations(r"8192\ (T) \times 2\ (\text{bytes})")
    '8192\\     \\times 2\\              '
    >>> blank_annotations(r"f(input) + 2 (B) + W(x)")
    'f(input) + 2 (B) + W(x)'
    """
    if "(" not in body:
        return body
    chars = list(body)
    for pattern in (_WORD, _NUMBER):
        for m in pattern.finditer(body):
            for k in range(m.start(1), m.end(1)):
                chars[k] = " "
    return "".join(chars)
