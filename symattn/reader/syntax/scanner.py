"""Finds the math in Markdown and LaTeX text: `MathSpan`s with exact file positions, `ScanProblem`s.

Imports only kernel.errors and the standard library; it never parses formulas and never raises.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from symattn.kernel.errors import ParseError, Position

__all__ = ["MathSpan", "ScanProblem", "scan"]

ENVIRONMENTS = ("equation", "align", "gather", "multline")
_ENV_BEGIN = re.compile(r"\\begin\{(" + "|".join(ENVIRONMENTS) + r")(\*?)\}")
_VERBATIM = re.compile(r"\\begin\{(verbatim|lstlisting|minted|comment)\}")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_TEX_SUFFIXES = (".tex", ".ltx", ".sty", ".cls")
_MD_SUFFIXES = (".md", ".markdown", ".mdown", ".txt")


@dataclass(frozen=True)
class MathSpan:
    """One formula found in a file.

    `body` is the text between the delimiters (in LaTeX, comments inside it are blanked to spaces
    so offsets still match the file); `start` is the file position of the body's first character;
    `delimiter` is the opening delimiter as written (`"$"`, `"$$"`, `"\\["`, `"\\begin{align*}"`);
    `env` is the environment name (`"align*"`) or None; `display` says whether it is display math.
    """

    body: str
    start: Position
    display: bool
    delimiter: str
    env: str | None = None
    filename: str = "<string>"

    def position_at(self, offset: int) -> Position:
        """The file position of character `offset` of the body (clamped to the body).

        >>> span = scan("ab\\n$$x\\n  y$$", kind="md")[0]
        >>> span.position_at(0), span.position_at(4)
        (Position(line=2, column=3, offset=5), Position(line=3, column=3, offset=9))
        """
        offset = max(0, min(offset, len(self.body)))
        newlines = self.body.count("\n", 0, offset)
        if newlines == 0:
            return Position(self.start.line, self.start.column + offset, self.start.offset + offset)
        line_start = self.body.rfind("\n", 0, offset) + 1
        return Position(
            self.start.line + newlines, offset - line_start + 1, self.start.offset + offset
        )

    def location(self, offset: int = 0) -> str:
        """`file:line:col` of a body offset, for compiler-style diagnostics.

        >>> scan("x $a+b$", filename="c.md")[0].location(2)
        'c.md:1:6'
        """
        return f"{self.filename}:{self.position_at(offset)}"


@dataclass(frozen=True)
class ScanProblem:
    """Something the scanner could not read, such as an unterminated `$$`; never raised.

    >>> scan("a $$ b", kind="md")[0].message
    'unterminated $$: no closing $$ before the end of the paragraph'
    """

    message: str
    position: Position
    delimiter: str
    filename: str = "<string>"

    def to_error(self) -> ParseError:
        """The problem as a ParseError, to raise or report."""
        return ParseError(self.message, self.position)


def scan(text: str, filename: str = "<string>", kind: str = "auto") -> list[MathSpan | ScanProblem]:
    """Every formula of a Markdown (`kind="md"`) or LaTeX (`"tex"`) text, in file order.

    `"auto"` decides from the file suffix, then from the contents (`\\documentclass`,
    `\\begin{document}`). Unterminated display math comes back as a `ScanProblem` in the list.

    >>> [(s.body, str(s.start)) for s in scan("Let $Q=XW_Q$ and `$x$`.\\n\\n$$A=QK^T$$")]
    [('Q=XW_Q', '1:6'), ('A=QK^T', '3:3')]
    """
    if isinstance(text, bytes | bytearray):
        text = bytes(text).decode("utf-8", errors="replace")
    if not isinstance(text, str):
        return [ScanProblem(f"cannot scan {type(text).__name__}", Position(1, 1, 0), "", filename)]
    kind = _kind(text, filename, kind)
    masked = _mask_tex(text) if kind == "tex" else _mask_markdown(text)
    return _Scanner(text, masked, filename, kind).run()


def _kind(text: str, filename: str, kind: str) -> str:
    if kind in ("md", "tex"):
        return kind
    lower = filename.lower()
    if lower.endswith(_TEX_SUFFIXES):
        return "tex"
    if lower.endswith(_MD_SUFFIXES):
        return "md"
    head = text[:20_000]
    return "tex" if ("\\documentclass" in head or "\\begin{document}" in head) else "md"


# --- masking: code and comments become spaces, so offsets stay those of the file ------------


def _blank(chars: list[str], start: int, end: int) -> None:
    for k in range(start, end):
        if chars[k] != "\n":
            chars[k] = " "


def _lines(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of each line, end excluding the newline."""
    out = []
    pos = 0
    for line in text.split("\n"):
        out.append((pos, pos + len(line)))
        pos += len(line) + 1
    return out


def _mask_markdown(text: str) -> str:
    chars = list(text)
    _mask_code_blocks(text, chars)
    _mask_code_spans("".join(chars), chars)
    return "".join(chars)


def _mask_code_blocks(text: str, chars: list[str]) -> None:
    fence: str | None = None
    prev_blank = True
    prev_code = False
    for start, end in _lines(text):
        line = text[start:end]
        blank = not line.strip()
        if fence is not None:
            _blank(chars, start, end)
            stripped = line.strip()
            if stripped.startswith(fence) and set(stripped) == {fence[0]}:
                fence = None
        elif m := _FENCE.match(line):
            fence = m.group(1)
            _blank(chars, start, end)
        elif not blank and _indent(line) >= 4 and (prev_blank or prev_code):
            _blank(chars, start, end)
            prev_code = True
            prev_blank = False
            continue
        prev_code = prev_code and blank
        prev_blank = blank


def _indent(line: str) -> int:
    width = 0
    for c in line:
        if c == " ":
            width += 1
        elif c == "\t":
            width += 4 - width % 4
        else:
            break
    return width


def _mask_code_spans(text: str, chars: list[str]) -> None:
    """CommonMark code spans: a run of n backticks closes at the next run of exactly n."""
    runs = [(m.start(), m.end()) for m in re.finditer(r"`+", text)]
    next_same: list[int | None] = [None] * len(runs)
    last: dict[int, int] = {}
    for k in range(len(runs) - 1, -1, -1):
        n = runs[k][1] - runs[k][0]
        next_same[k] = last.get(n)
        last[n] = k
    k = 0
    while k < len(runs):
        close = next_same[k]
        if close is None:
            k += 1
            continue
        _blank(chars, runs[k][0], runs[close][1])
        k = close + 1


def _mask_tex(text: str) -> str:
    chars = list(text)
    for start, end in _lines(text):
        cut = _comment_start(text, start, end)
        if cut is not None:
            _blank(chars, cut, end)
    masked = "".join(chars)
    for m in _VERBATIM.finditer(masked):
        close = masked.find(f"\\end{{{m.group(1)}}}", m.end())
        stop = len(masked) if close < 0 else close
        _blank(chars, m.start(), stop)
    return "".join(chars)


def _comment_start(text: str, start: int, end: int) -> int | None:
    k = text.find("%", start, end)
    while k >= 0:
        slashes = 0
        while k - slashes - 1 >= start and text[k - slashes - 1] == "\\":
            slashes += 1
        if slashes % 2 == 0:
            return k
        k = text.find("%", k + 1, end)
    return None


# --- the scan proper -------------------------------------------------------------------------


class _Scanner:
    """One left-to-right pass over the masked text; each search resumes where the last stopped."""

    def __init__(self, text: str, masked: str, filename: str, kind: str) -> None:
        self.text = text
        self.masked = masked
        self.filename = filename
        self.kind = kind
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.paragraph_ends = [m.start() for m in re.finditer(r"\n[ \t]*(?=\n)", masked)]
        self.out: list[MathSpan | ScanProblem] = []
        # Where a search already failed: a later search with the same goal and limit fails too,
        # which keeps the scan linear on text full of stray delimiters.
        self.failed: dict[str, int] = {}

    def position(self, offset: int) -> Position:
        line = bisect.bisect_right(self.line_starts, offset)
        return Position(line, offset - self.line_starts[line - 1] + 1, offset)

    def paragraph_end(self, offset: int) -> int:
        k = bisect.bisect_right(self.paragraph_ends, offset)
        return self.paragraph_ends[k] if k < len(self.paragraph_ends) else len(self.masked)

    def run(self) -> list[MathSpan | ScanProblem]:
        masked = self.masked
        i = 0
        while True:
            i = _next_special(masked, i)
            if i < 0:
                return self.out
            i = self.at(i)

    def at(self, i: int) -> int:
        m = self.masked
        if m.startswith("\\", i):
            nxt = m[i + 1 : i + 2]
            if nxt == "(":
                return self.closed(i, "\\(", "\\)", display=False)
            if nxt == "[":
                return self.closed(i, "\\[", "\\]", display=True)
            if nxt == "b":
                env = _ENV_BEGIN.match(m, i)
                if env is not None:
                    name = env.group(1) + env.group(2)
                    return self.closed(i, env.group(), f"\\end{{{name}}}", True, name)
            return i + 2  # any other escape, \$ included, is not a delimiter
        if m.startswith("$$", i):
            return self.closed(i, "$$", "$$", display=True)
        return self.inline_dollar(i)

    def closed(
        self, i: int, opener: str, closer: str, display: bool, env: str | None = None
    ) -> int:
        body_start = i + len(opener)
        limit = self.paragraph_end(body_start) if env is None else len(self.masked)
        close = -1 if self.failed.get(closer) == limit else self._find(closer, body_start, limit)
        if close < 0:
            self.failed[closer] = limit
            where = "the end of the file" if env else "the end of the paragraph"
            self.problem(f"unterminated {opener}: no closing {closer} before {where}", i, opener)
            return body_start
        self.add(body_start, close, display, opener, env)
        return close + len(closer)

    def _find(self, closer: str, start: int, limit: int) -> int:
        close = self.masked.find(closer, start, limit)
        while closer[0] == "$" and close > 0 and self.masked[close - 1] == "\\":
            close = self.masked.find(closer, close + 1, limit)
        return close

    def inline_dollar(self, i: int) -> int:
        """`$...$`: in Markdown it must close on the same line (pandoc's rules: no space just
        inside, no digit right after the closer), otherwise the `$` is read as currency."""
        m = self.masked
        if self.kind == "tex":
            return self.closed(i, "$", "$", display=False)
        line_end = m.find("\n", i)
        line_end = len(m) if line_end < 0 else line_end
        if i + 1 >= line_end or m[i + 1].isspace() or self.failed.get("$") == line_end:
            return i + 1
        k = i + 1
        while True:
            k = _next_dollar(m, k, line_end)
            if k < 0:
                self.failed["$"] = line_end
                return i + 1
            if not m[k - 1].isspace() and not m[k + 1 : k + 2].isdigit():
                self.add(i + 1, k, False, "$", None)
                return k + 1
            k += 1

    def add(self, start: int, end: int, display: bool, opener: str, env: str | None) -> None:
        body = self.masked[start:end] if self.kind == "tex" else self.text[start:end]
        self.out.append(MathSpan(body, self.position(start), display, opener, env, self.filename))

    def problem(self, message: str, i: int, opener: str) -> None:
        self.out.append(ScanProblem(message, self.position(i), opener, self.filename))


_SPECIAL = re.compile(r"[\\$]")


def _next_special(text: str, i: int) -> int:
    m = _SPECIAL.search(text, i)
    return -1 if m is None else m.start()


def _next_dollar(text: str, i: int, end: int) -> int:
    """The next `$` before `end` that is not escaped by a backslash."""
    k = text.find("$", i, end)
    while k > 0 and text[k - 1] == "\\":
        k = text.find("$", k + 1, end)
    return k
