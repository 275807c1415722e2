"""Labels a text writes after a factor to say what it counts (`D(input)`, `8192\\ (T)`): blanked
before parsing, keeping every offset. Imports only the standard library; never parses."""

from __future__ import annotations

import re

__all__ = ["blank_annotations"]

#: Words that label what a factor counts in cost formulas (`D * D(weight)`).
_LABELS = (
    "input|inputs|output|outputs|weight|weights|activation|activations|bytes?|params|"
    "parameters|cache|tokens?|heads?|layers?|keys?|values?|queries|query|gradients?|grads?|"
    "optimizer|states?|read|write|load|store"
)
#: `B * S * D(input)`: a capital letter after a product sign, then one of those words in
#: parentheses (`P(token)` alone is a function of a token, and stays).
_WORD = re.compile(r"(?:\*|\\cdot|\\times)\s*[A-Z]\s*(\(\s*(?:" + _LABELS + r")\s*\))(?![A-Za-z])")
#: `8192\ (T)`, `2\ (\text{bytes})`: a number, a control space, then a capital letter or a
#: word in parentheses (TeX's plain space is no space: `2 (B)` is twice B).
_NUMBER = re.compile(r"[0-9]\\ +(\(\s*(?:[A-Z]|\\(?:text|mathrm|textrm)\s*\{[A-Za-z ]+\})\s*\))")


def blank_annotations(body: str) -> str:
    r"""The body with its factors' labels blanked.

    >>> blank_annotations(r"2 * B * S * D(input) + D * D(weight)")
    '2 * B * S * D        + D * D         '
    >>> blank_annotations(r"8192\ (T) \times 2\ (\text{bytes})")
    '8192\\     \\times 2\\              '
    >>> blank_annotations(r"f(input) + 2 (B) + W(x) + P(input) + 2\,(n)")
    'f(input) + 2 (B) + W(x) + P(input) + 2\\,(n)'
    """
    if "(" not in body:
        return body
    chars = list(body)
    for pattern in (_WORD, _NUMBER):
        for m in pattern.finditer(body):
            for k in range(m.start(1), m.end(1)):
                chars[k] = " "
    return "".join(chars)
