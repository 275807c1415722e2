"""Cases written as a left brace around an alignment (`\\left\\{\\begin{aligned} ...
\\end{aligned}\\right.`), read as `\\begin{cases}`. Imports only the standard library.
"""

from __future__ import annotations

import re

__all__ = ["brace_cases"]

#: `\left\{` (or its Markdown escape `\left\\{`) right before an alignment, an array or a matrix.
_OPEN = re.compile(
    r"\\left\s*\\\\?\{\s*\\begin\{(aligned|array|gathered|matrix)\}(?:\s*\{[lcr|:\s]*\})?"
)
#: The row separators of the alignment, perhaps with a spacing after them.
_ROW = re.compile(r"\\\\(?:\s*\\?\s*)?(?:\[[^\]]*\])?")


def brace_cases(text: str) -> str:
    r"""The text with each brace around an alignment rewritten as a cases environment of the
    same length (offsets still match); a mark `&` that starts a row aligns, and is dropped, so
    the value comes first and the condition after the next `&`, as in cases.

    >>> brace_cases(r"M = \left\{\begin{aligned} &1, &i \ge j \\ &0, &i < j \end{aligned}\right.")
    'M = \\begin{cases}           1, &i \\ge j \\\\  0, &i < j \\end{cases}         '
    >>> brace_cases(r"\left\{ x \right\}")
    '\\left\\{ x \\right\\}'
    """
    out = text
    for m in reversed(list(_OPEN.finditer(text))):
        close = re.compile(r"\\end\{" + m.group(1) + r"\}\s*\\right\s*\.")
        end = close.search(text, m.end())
        if end is None or _OPEN.search(text, m.end(), end.start()) is not None:
            continue
        body = _lead_marks(text[m.end() : end.start()])
        head = _padded("\\begin{cases}", m.end() - m.start())
        tail = _padded("\\end{cases}", end.end() - end.start())
        out = out[: m.start()] + head + body + tail + out[end.end() :]
    return out


def _padded(word: str, width: int) -> str:
    return word + " " * (width - len(word))


def _lead_marks(body: str) -> str:
    """The rows of `body` without the `&` that starts each (spaces in their place)."""
    starts = [0] + [m.end() for m in _ROW.finditer(body)]
    chars = list(body)
    for at in starts:
        k = at
        while k < len(chars) and chars[k] in " \t\n":
            k += 1
        if k < len(chars) and chars[k] == "&":
            chars[k] = " "
    return "".join(chars)
