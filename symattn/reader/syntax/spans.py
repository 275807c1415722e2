"""What the scanner finds: a `MathSpan` with its file positions, a `ScanProblem`, a `Scan`.
Imports kernel.errors and the standard library; it never parses formulas.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from symattn.kernel.errors import ParseError, Position
from symattn.reader.syntax.dialects import Dialect
from symattn.reader.syntax.notebook import Notebook


@dataclass(frozen=True)
class MathSpan:
    """One formula found in a file.

    `body` is the formula as its renderer sees it: the text between the delimiters, with (in
    LaTeX) comments blanked to spaces, Markdown escapes of `\\\\(…\\\\)` undone, and the
    document's own macros expanded. `start` is the file position of the body's first character;
    `delimiter` is the opening delimiter as written (`"$"`, `"$$"`, `"\\\\("`, `"\\["`,
    `"\\begin{align*}"`, `"{% katex %}"`); `env` is the environment name (`"align*"`) or None;
    `display` says whether it is display math. When macros were expanded, `source` is the body
    as written and `origin` maps each offset of `body` to one of `source`, so positions still
    point into the file.
    """

    body: str
    start: Position
    display: bool
    delimiter: str
    env: str | None = None
    filename: str = "<string>"
    source: str | None = field(default=None, repr=False, compare=False)
    origin: tuple[int, ...] | None = field(default=None, repr=False, compare=False)
    #: the undefined commands read by their use (`reader.syntax.undefined.Guess`)
    guesses: tuple[Any, ...] = field(default=(), repr=False, compare=False)

    @property
    def written(self) -> str:
        """The body as written in the file (before macro expansion)."""
        return self.body if self.source is None else self.source

    @property
    def end(self) -> int:
        """The file offset just past the body as written."""
        return self.start.offset + len(self.written)

    def position_at(self, offset: int) -> Position:
        """The file position of character `offset` of the body (clamped to the body).

        >>> from symattn.reader.syntax.scanner import scan
        >>> span = scan("ab\\n$$x\\n  y$$", kind="md")[0]
        >>> span.position_at(0), span.position_at(4)
        (Position(line=2, column=3, offset=5), Position(line=3, column=3, offset=9))
        """
        if self.origin is not None:
            offset = self.origin[max(0, min(offset, len(self.origin) - 1))]
        body = self.written
        offset = max(0, min(offset, len(body)))
        newlines = body.count("\n", 0, offset)
        if newlines == 0:
            return Position(self.start.line, self.start.column + offset, self.start.offset + offset)
        line_start = body.rfind("\n", 0, offset) + 1
        return Position(
            self.start.line + newlines, offset - line_start + 1, self.start.offset + offset
        )

    def location(self, offset: int = 0) -> str:
        """`file:line:col` of a body offset, for compiler-style diagnostics.

        >>> from symattn.reader.syntax.scanner import scan
        >>> scan("x $a+b$", filename="c.md")[0].location(2)
        'c.md:1:6'
        """
        return f"{self.filename}:{self.position_at(offset)}"


@dataclass(frozen=True)
class ScanProblem:
    """Something the scanner could not read, such as an unterminated `$$`; never raised.

    >>> from symattn.reader.syntax.scanner import scan
    >>> scan("a $$ b", kind="md")[0].message
    'unterminated $$: no closing $$ in its paragraph (the renderer shows it as text)'
    """

    message: str
    position: Position
    delimiter: str
    filename: str = "<string>"

    def to_error(self) -> ParseError:
        """The problem as a ParseError, to raise or report."""
        return ParseError(self.message, self.position)


@dataclass(frozen=True)
class Scan:
    """What a scan found: the items in file order, the dialect assumed, and the text the items'
    offsets point into (a notebook's Markdown cells joined; otherwise the text given)."""

    items: list[MathSpan | ScanProblem]
    dialect: Dialect
    text: str
    notebook: Notebook | None = None
