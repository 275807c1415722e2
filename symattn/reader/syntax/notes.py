"""The justification column of an alignment: text the reader blanks before parsing.

Imports only the standard library, reader.syntax.braces and .annotations; it never parses. Blanking
keeps every offset.
"""

from __future__ import annotations

import re

from symattn.reader.syntax.annotations import blank_annotations
from symattn.reader.syntax.braces import group_end

__all__ = ["blank_notes"]

_NOTE = re.compile(r"&&\s*\\text\s*\{")
_PARBOX_ROW = re.compile(r"(?m)^[ \t]*&[ \t]*(?:\\q?quad[ \t]*)?\\parbox\s*(?:\[[^\]\n]*\])?\s*\{")
_ROW_END = re.compile(r"\s*(?:\\\\|\Z)")
#: `lhs &= rhs & \small{\text{; a comment}}`: a third column of text (blogs write it so)
_COMMENT_END = re.compile(r"\s*(?:\\\\|\\end\s*\{|\Z)")
_COMMENT = re.compile(
    r"&[ \t]*(?:\\(?:small|scriptstyle|scriptsize|footnotesize|tiny)\b[ \t]*)?"
    r"(\{)?[ \t]*\\text\s*\{"
)


def blank_notes(body: str) -> str:
    r"""The body with its notes replaced by spaces: `&& \text{(...)}` at the end of a row (the
    printer's justification column), a text column after the equation's own column break
    (`& \small{\text{; comment}}`) and rows that hold only `&\qquad \parbox[t]{w}{...}` (the
    same note on a line of its own, with the row break after it).

    A note is prose that TeX sets beside the equation; it carries no relation of the formula,
    so blanking it changes nothing the formula claims (and only a note that ends its row).

    >>> blank_notes(r"a &= b && \text{(by definition)} \\ &= c").split()
    ['a', '&=', 'b', '\\\\', '&=', 'c']
    >>> blank_notes("a &= b \\\\\n&\\qquad \\parbox[t]{0.5\\linewidth}{(x)} \\\\\n&= c").split()
    ['a', '&=', 'b', '\\\\', '&=', 'c']
    >>> blank_notes(r"c &= b & \small{\text{; comment}} \\ d &= e").split()
    ['c', '&=', 'b', '\\\\', 'd', '&=', 'e']
    """
    body = blank_annotations(body)
    if "&" not in body:
        return body
    chars = list(body)
    for m in _NOTE.finditer(body):
        close = _closing_brace(body, m.end() - 1)
        if close is None:
            continue
        if _ROW_END.match(body, close) is not None:
            _blank(chars, m.start(), close)
    for m in _COMMENT.finditer(body):
        row_start = body.rfind("\\\\", 0, m.start())
        if "&" not in body[row_start + 1 : m.start()]:
            continue  # the first column break of its row: not a comment column
        close = _closing_brace(body, m.end() - 1)
        if close is not None and m.group(1):
            after = re.compile(r"[ \t]*\}").match(body, close)
            close = after.end() if after is not None else None
        if close is not None and _COMMENT_END.match(body, close) is not None:
            _blank(chars, m.start(), close)
    for m in _PARBOX_ROW.finditer(body):
        first = _closing_brace(body, m.end() - 1)
        if first is None or body[first : first + 1] != "{":
            continue
        close = _closing_brace(body, first)
        if close is None:
            continue
        end = _ROW_END.match(body, close)
        if end is not None:
            _blank(chars, m.start(), end.end())
    return "".join(chars)


def _closing_brace(text: str, open_at: int) -> int | None:
    """The offset just past the `}` that closes the `{` at `open_at` (escaped braces skipped)."""
    close = group_end(text, open_at)
    return None if close is None else close + 1


def _blank(chars: list[str], start: int, end: int) -> None:
    for k in range(start, end):
        if chars[k] != "\n":
            chars[k] = " "
