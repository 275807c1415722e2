"""The tokenizer's tokens, positions and shared state: a `Tok`, line and column of an offset.
Imports kernel.errors and the tokenizer's tables and glyphs; it must not import lark.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from symattn.kernel.errors import ParseError, Position

MAX_LENGTH = 20_000


MAX_NESTING = 200


@dataclass(frozen=True)
class Tok:
    """One token: grammar terminal `kind`, a normalized `value`, and offsets [start, end)."""

    kind: str
    value: str
    start: int
    end: int


def position_in(text: str, offset: int) -> Position:
    """The 1-based line:column of `offset` in `text` (clamped to the text).

    >>> position_in("ab\\ncd", 4)
    Position(line=2, column=2, offset=4)
    """
    offset = max(0, min(offset, len(text)))
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return Position(line, column, offset)


class LineIndex:
    """Positions of many offsets in one text, each in O(log lines).

    >>> LineIndex("ab\\ncd").position(4)
    Position(line=2, column=2, offset=4)
    """

    def __init__(self, text: str) -> None:
        self.size = len(text)
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def position(self, offset: int) -> Position:
        offset = max(0, min(offset, self.size))
        line = bisect.bisect_right(self.starts, offset)
        return Position(line, offset - self.starts[line - 1] + 1, offset)


class LexerBase:
    """The tokenizer's state: the text, the tokens so far, open braces and environments."""

    def __init__(self, text: str, env: str | None = None) -> None:
        self.text = text
        self.env = env  # the environment around the whole body, if any
        self.i = 0
        self.out: list[Tok] = []
        self.opens: list[tuple[str, int]] = []  # ('{' | '(' | '[' | env name, offset)
        self.matrix_depth = 0
        self.amps = 0  # alignment marks so far in this row of an aligning environment
        self.continued = -1  # where a row that goes on from the one above starts
        self.skips: dict[int, int] = {}  # offsets of notes to skip -> where they end
        self.closes: dict[int, int] = {}  # where the invisible braces after a `√` close

    def fail(self, message: str, offset: int) -> ParseError:
        return ParseError(message, position_in(self.text, offset))

    def emit(self, kind: str, value: str, start: int, end: int) -> None:
        out = self.out
        if kind == "REL" and len(out) > 1 and out[-1].kind == "LBRACE" and out[-2].kind == "SUB":
            raise self.fail(
                "a subscript that starts with a relation (x_{<t}, x_{\\le t}: the terms before t "
                "or up to it) is not read: write x_1, \\ldots, x_{t-1}",
                start,
            )
        out.append(Tok(kind, value, start, end))

    def push(self, what: str, offset: int) -> None:
        self.opens.append((what, offset))
        if len(self.opens) > MAX_NESTING:
            raise self.fail(f"nesting deeper than {MAX_NESTING} levels", offset)

    if TYPE_CHECKING:
        # what the other parts define
        def bar(self, kind: str, start: int, end: int) -> None: ...

        def bar_ahead(self, at: int) -> bool: ...

        def braced_note(self, name: str, start: int) -> None: ...

        def braced_raw(self, name: str, start: int) -> str: ...

        def call_head(self, paren: int) -> int | None: ...

        def cjk_prose(self, i: int) -> bool: ...

        def continues_row(self) -> bool: ...

        def defining_equals(self) -> bool: ...

        def delimiter(self, c: str, start: int, end: int) -> None: ...

        def environment(self, which: str, start: int) -> None: ...

        def font(self, name: str, start: int) -> None: ...

        def font_body(self, name: str, inner: str, start: int) -> None: ...

        def font_scripted(self, name: str, m: re.Match[str], start: int) -> bool: ...

        def given(self, start: int, end: int) -> bool: ...

        def in_list(self) -> bool: ...

        def in_script(self) -> bool: ...

        def layout(self, name: str, start: int) -> bool: ...

        def matching(self, at: int) -> int | None: ...

        def named(self, name: str, start: int) -> None: ...

        def operand_name(self, inner: str) -> bool: ...

        def operand_text(self, inner: str) -> bool: ...

        def placeholder(self) -> bool: ...

        def root_glyph(self, i: int) -> None: ...

        def script_arg(self) -> bool: ...

        def script_glyphs(self, i: int, table: dict[str, str]) -> None: ...

        def scripted_next(self) -> bool: ...

        def set_brace(self, c: str, start: int) -> None: ...

        def sized(self, name: str, start: int) -> None: ...

        def skip_condition(self) -> None: ...

        def skip_space(self) -> None: ...

        def step(self, c: str) -> None: ...

        def styled(self, i: int, font: str, letter: str) -> None: ...

        def text_command(self, name: str, start: int) -> None: ...

        def word_name(self, word: str) -> bool: ...
