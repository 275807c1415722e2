"""Finds the math of Markdown (every dialect), LaTeX and notebook text: `MathSpan`s with exact
file positions, the document's macros expanded, and `ScanProblem`s where a renderer would fail.

Imports kernel.errors, the reader's dialects, macros and notebook, and the standard library; it
never parses formulas and never raises.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace

from symattn.kernel.errors import ParseError, Position
from symattn.reader.syntax.dialects import Dialect, detect
from symattn.reader.syntax.macros import (
    Macro,
    MacroError,
    Macros,
    config_macros,
    definitions,
    front_matter_macros,
    package_macros,
)
from symattn.reader.syntax.notebook import Notebook, NotebookError, read_notebook

__all__ = ["MathSpan", "Scan", "ScanProblem", "read", "scan"]

ENVIRONMENTS = ("equation", "align", "gather", "multline", "eqnarray", "flalign", "displaymath")
_ENV_BEGIN = re.compile(r"\\begin\{(" + "|".join(ENVIRONMENTS) + r")(\*?)\}")
_WHOLE_ENV = re.compile(
    r"\s*\\begin\{(" + "|".join(ENVIRONMENTS) + r")(\*?)\}(.*)\\end\{\1\2\}\s*\Z", re.DOTALL
)
_VERBATIM = re.compile(r"\\begin\{(verbatim|lstlisting|minted|comment)\}")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*(\{math\}|math\b)?")
_LIST_ITEM = re.compile(r"^( *)([-+*]|\d{1,9}[.)])( +|$)")
_FRONT = re.compile(r"\A---[ \t]*\n.*?\n---[ \t]*(?:\n|\Z)", re.DOTALL)
# What MathJax and KaTeX's auto-render skip: comments, scripts, styles, code; Liquid highlights.
# Each is an opener and its closer, paired by `_paired` (linear even when closers are missing).
_HTML_OPEN = re.compile(
    r"<!--|<(script|style|pre|code|textarea)\b|\{%-?\s*highlight\b", re.IGNORECASE
)


def _html_close(m: re.Match[str]) -> re.Pattern[str]:
    if m.group() == "<!--":
        return re.compile("-->")
    if m.group(1):
        return re.compile(rf"</{m.group(1)}\s*>", re.IGNORECASE)
    return re.compile(r"\{%-?\s*endhighlight\s*-?%\}")


# KaTeX shortcodes: Jekyll's {% katex [display] %}, Zola's {% katex(block=true) %}, Hugo's
# {{< katex [display] >}}, each with its closer; group "display" marks display math.
_SHORTCODES = [
    (
        re.compile(r"\{%-?\s*katex(?P<display>\s+display)?\s*-?%\}"),
        re.compile(r"\{%-?\s*endkatex\s*-?%\}"),
        "{% endkatex %}",
    ),
    (
        re.compile(
            r"\{%\s*katex\s*\(\s*(?:block\s*=\s*(?P<display>true)|block\s*=\s*false)?\s*\)\s*%\}"
        ),
        re.compile(r"\{%\s*end\s*%\}"),
        "{% end %}",
    ),
    (
        re.compile(r"\{\{<\s*katex(?P<display>\s+display)?\s*>\}\}"),
        re.compile(r"\{\{<\s*/katex\s*>\}\}"),
        "{{< /katex >}}",
    ),
]
# Zola's inline {{ katex(body="…", block=true) }}
_ZOLA_KATEX = re.compile(
    r"\{\{\s*katex\s*\(\s*body\s*=\s*\"(?P<body>(?:[^\"\\\n]|\\.)*)\""
    r"(?:\s*,\s*block\s*=\s*(?:(?P<display>true)|false))?\s*\)\s*\}\}"
)
_LABEL_AFTER = re.compile(r"[ \t]*(?:\([\w:.\-]+\)|\{#[\w:.\-]+\})?[ \t]*(?:\n|\Z)")
_MD_PUNCT = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_KATEXMM = re.compile(r"\{%-?\s*(?:end)?katexmm\s*-?%\}")


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

        >>> scan("x $a+b$", filename="c.md")[0].location(2)
        'c.md:1:6'
        """
        return f"{self.filename}:{self.position_at(offset)}"


@dataclass(frozen=True)
class ScanProblem:
    """Something the scanner could not read, such as an unterminated `$$`; never raised.

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


def scan(text: str, filename: str = "<string>", kind: str = "auto") -> list[MathSpan | ScanProblem]:
    """Every formula of a Markdown (`kind="md"`), LaTeX (`"tex"`) or notebook (`"ipynb"`) text,
    in file order. `"auto"` decides from the file suffix, then from the contents. Problems (an
    unterminated display, a macro that calls itself) come back as `ScanProblem`s in the list.

    >>> [(s.body, str(s.start)) for s in scan("Let $Q=XW_Q$ and `$x$`.\\n\\n$$A=QK^T$$")]
    [('Q=XW_Q', '1:6'), ('A=QK^T', '3:3')]
    """
    return read(text, filename, kind).items


def read(
    text: str, filename: str = "<string>", kind: str = "auto", site: Sequence[Macro] = ()
) -> Scan:
    """The scan of a text with the dialect it was read in (see `scan`).

    >>> read("---\\nlayout: post\\n---\\n$$a$$", "p.md").dialect.name
    'kramdown'
    """
    if isinstance(text, bytes | bytearray):
        text = bytes(text).decode("utf-8", errors="replace")
    if not isinstance(text, str):
        problem = ScanProblem(f"cannot scan {type(text).__name__}", Position(1, 1, 0), "", filename)
        return Scan([problem], Dialect("markdown", "not text"), "")
    dialect = detect(text, filename, kind)
    notebook = None
    segments = None
    if dialect.name == "notebook":
        try:
            notebook = read_notebook(text)
        except NotebookError as e:
            return Scan([ScanProblem(str(e), Position(1, 1, 0), "", filename)], dialect, "")
        text = notebook.text
        segments = notebook.segments()
        dialect = replace(dialect, escaped=detect(text, "cells.md", "md").escaped)
    extra: list[_Found] = []
    if dialect.name == "latex":
        masked = _mask_tex(text)
    else:
        masked, extra = _mask_markdown(text)
    items = _Scanner(text, masked, filename, dialect, segments).run(extra)
    return Scan(_with_macros(items, text, masked, dialect, site), dialect, text, notebook)


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


#: A formula found while masking (a `{math}` fence, a KaTeX shortcode): start, end of its body,
#: display, the opener as written.
_Found = tuple[int, int, bool, str]


def _mask_markdown(text: str) -> tuple[str, list[_Found]]:
    chars = list(text)
    extra: list[_Found] = []
    front = _FRONT.match(text)
    if front is not None:
        _blank(chars, 0, front.end())
    _mask_code_blocks(text, chars, extra)
    _mask_code_spans("".join(chars), chars, extra)
    masked = "".join(chars)
    # paired in the text as written (a code block inside <pre> may have blanked its closer);
    # an opener inside code is no opener
    for m, close in _paired(text, _HTML_OPEN, _html_close, lambda k: masked[k] == text[k]):
        if close is not None:
            _blank(chars, m.start(), close.end())
    masked = "".join(chars)
    for opener, closer, name in _SHORTCODES:
        for m, close in _paired(masked, opener, _always(closer)):
            if close is None:  # Liquid, Tera and Hugo stop the build here
                extra.append((m.start(), -1, False, f"{m.group()}\0{name}"))
                _blank(chars, m.start(), m.end())
                continue
            display = m.group("display") is not None
            extra.append((m.end(), close.start(), display, m.group()))
            _blank(chars, m.start(), close.end())
        masked = "".join(chars)
    for m in _ZOLA_KATEX.finditer(masked):
        extra.append((m.start("body"), m.end("body"), m.group("display") is not None, m.group()))
        _blank(chars, m.start(), m.end())
    for m in _KATEXMM.finditer(masked):
        _blank(chars, m.start(), m.end())
    return "".join(chars), extra


def _always(closer: re.Pattern[str]) -> Callable[[re.Match[str]], re.Pattern[str]]:
    return lambda _: closer


def _paired(
    text: str,
    opener: re.Pattern[str],
    closer_for: Callable[[re.Match[str]], re.Pattern[str]],
    accept: Callable[[int], bool] = lambda _: True,
) -> Iterator[tuple[re.Match[str], re.Match[str] | None]]:
    """Each opener (at an offset `accept`s) with the first closer after it (None if there is
    none), left to right, the search resuming after that closer; a closer found missing is never
    searched for again."""
    i = 0
    missing: set[str] = set()
    while (m := opener.search(text, i)) is not None:
        if not accept(m.start()):
            i = m.end()
            continue
        closer = closer_for(m)
        close = None if closer.pattern in missing else closer.search(text, m.end())
        if close is None:
            missing.add(closer.pattern)
            yield m, None
            i = m.end()
        else:
            yield m, close
            i = close.end()


def _mask_code_blocks(text: str, chars: list[str], extra: list[_Found]) -> None:
    fence: str | None = None
    math_fence: list[int] | None = None  # body start, options still allowed (1) or not (0)
    prev_blank = True
    prev_code = False
    in_display = False
    lists: list[int] = []  # the content columns of the open list items, outermost first
    for start, end in _lines(text):
        line = text[start:end]
        blank = not line.strip()
        base = 0
        if fence is None and not in_display and not blank:
            base = _list_base(line, lists, prev_blank)
        if fence is not None:
            stripped = line.strip()
            closing = stripped.startswith(fence) and set(stripped) == {fence[0]}
            if math_fence is not None and not closing:
                if math_fence[1] and re.match(r"\s*:[\w-]+:", line):
                    math_fence[0] = end + 1
                else:
                    math_fence[1] = 0
            if closing:
                fence = None
                if math_fence is not None:
                    body_end = max(math_fence[0], start - 1)
                    extra.append((math_fence[0], body_end, True, "```{math}"))
                    math_fence = None
            _blank(chars, start, end)
        elif not in_display and (m := _FENCE.match(line[min(base, _indent(line)) :])):
            fence = m.group(1)
            if m.group(2):
                math_fence = [min(end + 1, len(text)), 1]
            _blank(chars, start, end)
        elif (
            not in_display and not blank and _indent(line) >= base + 4 and (prev_blank or prev_code)
        ):
            _blank(chars, start, end)
            prev_code = True
            prev_blank = False
            continue
        else:
            # a $$ display block may hold blank lines and indented lines: they are math
            if _unescaped_count(line, "$$") % 2 == 1:
                in_display = not in_display
        prev_code = prev_code and blank
        prev_blank = blank
    if math_fence is not None:
        extra.append((math_fence[0], len(text), True, "```{math}"))


def _list_base(line: str, lists: list[int], prev_blank: bool) -> int:
    """The column a list item's content starts at, for the line (0 outside lists), after
    updating the open items: a line indented less than an item's content after a blank line
    closes it; a list marker opens one. Inside an item, indented code needs 4 more spaces.

    >>> lists = []
    >>> [_list_base(x, lists, True) for x in ["- item", "    more", "1.  next", "text"]]
    [2, 2, 4, 0]
    """
    ind = _indent(line)
    if prev_blank:
        while lists and ind < lists[-1]:
            lists.pop()
    base = lists[-1] if lists else 0
    item = _LIST_ITEM.match(line)
    if item is not None and "\t" not in item.group() and ind < base + 4:
        while lists and ind < lists[-1]:
            lists.pop()
        gap = len(item.group(3))
        lists.append(ind + len(item.group(2)) + (gap if 1 <= gap <= 4 else 1))
    return lists[-1] if lists else 0


def _unescaped_count(line: str, token: str) -> int:
    count = 0
    k = line.find(token)
    while k >= 0:
        if k == 0 or line[k - 1] != "\\":
            count += 1
            k = line.find(token, k + len(token))
        else:
            k = line.find(token, k + 1)
    return count


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


def _mask_code_spans(text: str, chars: list[str], extra: list[_Found]) -> None:
    """CommonMark code spans: a run of n backticks closes at the next run of exactly n. Two are
    math: MyST's role ``{math}`x` `` and GitHub's ``$`x`$``."""
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
        start, end = runs[k][0], runs[close][1]
        body = (runs[k][1], runs[close][0])
        if text.endswith("{math}", 0, start):
            extra.append((*body, False, "{math}`"))
            start -= len("{math}")
        elif start > 0 and text[start - 1] == "$" and text.startswith("$", end):
            extra.append((*body, False, "$`"))
            start, end = start - 1, end + 1
        _blank(chars, start, end)
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


def _unescape_markdown(body: str) -> str:
    """A body as the renderer sees it after Markdown: `\\\\` -> `\\`, `\\_` -> `_`; each
    removed backslash becomes a space before its run of escapes, so offsets still match.

    >>> _unescape_markdown(r"\\\\frac{a}{b}\\_1 \\\\\\\\")
    ' \\\\frac{a}{b} _1   \\\\\\\\'
    """
    out: list[str] = []
    k = 0
    n = len(body)
    while k < n:
        if body[k] == "\\" and k + 1 < n and body[k + 1] in _MD_PUNCT:
            run: list[str] = []
            while k + 1 < n and body[k] == "\\" and body[k + 1] in _MD_PUNCT:
                run.append(body[k + 1])
                k += 2
            out.append(" " * len(run) + "".join(run))
            continue
        out.append(body[k])
        k += 1
    return "".join(out)


#: Markdown escapes that survive in inline `$...$` of a text whose renderer runs Markdown before
#: the math (kramdown and most site generators treat a single `$` as text): `\_` for a subscript,
#: `\\{` and `\\}` for the braces `\{` `\}`. As TeX they would be a literal underscore and a line
#: break, which inline math never means.
_INLINE_ESCAPE = re.compile(r"(?<!\\)(?:\\\\(?=[{}])|\\(?=_))")


def _unescape_inline(body: str) -> str:
    r"""An inline body as the math renderer sees it after Markdown; each removed backslash
    becomes a space, so offsets still match.

    >>> _unescape_inline(r"\rbrace\_{i=1}^t \\{W_a\\} x\\_i")
    '\\rbrace _{i=1}^t  \\{W_a \\} x\\\\_i'
    """
    return _INLINE_ESCAPE.sub(lambda m: " " + m.group()[1:], body)


# --- the scan proper -------------------------------------------------------------------------


class _Scanner:
    """One left-to-right pass over the masked text; each search resumes where the last stopped."""

    def __init__(
        self,
        text: str,
        masked: str,
        filename: str,
        dialect: Dialect,
        segments: list[tuple[int, int]] | None = None,
    ) -> None:
        self.text = text
        self.masked = masked
        self.filename = filename
        self.dialect = dialect
        self.tex = dialect.name == "latex"
        self.segments = segments if segments is not None else [(0, len(text))]
        self.end = len(text)
        self.segment_starts = [start for start, _ in self.segments]
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.paragraph_ends = [m.start() for m in re.finditer(r"\n[ \t]*(?=\n)", masked)]
        self.out: list[tuple[int, MathSpan | ScanProblem]] = []
        # Where a search already failed: a later search with the same goal and limit fails too,
        # which keeps the scan linear on text full of stray delimiters.
        self.failed: dict[str, int] = {}
        # In Markdown, `\[` and `\(` before this offset are brackets (a later one opens).
        self.text_until: dict[str, int] = {}

    def position(self, offset: int) -> Position:
        line = bisect.bisect_right(self.line_starts, offset)
        return Position(line, offset - self.line_starts[line - 1] + 1, offset)

    def paragraph_end(self, offset: int) -> int:
        k = bisect.bisect_left(self.paragraph_ends, offset)
        end = self.paragraph_ends[k] if k < len(self.paragraph_ends) else len(self.masked)
        return min(end, self.end)

    def run(self, extra: list[_Found]) -> list[MathSpan | ScanProblem]:
        for start, end, display, opener in extra:
            if end < 0:
                opener, closer = opener.split("\0")
                self.problem(f"unterminated {opener}: no {closer} after it", start, opener)
            else:
                self.add(start, end, display, opener, None)
        for start, end in self.segments:
            self.end = end
            i = start
            while True:
                i = _next_special(self.masked, i, end)
                if i < 0:
                    break
                i = self.at(i)
        self.out.sort(key=lambda x: x[0])
        return [item for _, item in self.out]

    def at(self, i: int) -> int:
        m = self.masked
        if m.startswith("\\", i):
            nxt = m[i + 1 : i + 2]
            if nxt == "\\" and not self.tex:
                after = m[i + 2 : i + 3]
                if after == "(":
                    return self.closed(i, "\\\\(", "\\\\)", display=False, unescape=True)
                if after == "[":
                    return self.closed(i, "\\\\[", "\\\\]", display=True, unescape=True)
            if nxt == "(":
                return self.closed(i, "\\(", "\\)", display=False, optional=not self.tex)
            if nxt == "[":
                return self.closed(i, "\\[", "\\]", display=True, optional=not self.tex)
            if nxt == "b":
                env = _ENV_BEGIN.match(m, i)
                if env is not None:
                    name = env.group(1) + env.group(2)
                    return self.closed(i, env.group(), f"\\end{{{name}}}", True, name)
            return i + 2  # any other escape, \$ included, is not a delimiter
        if m.startswith("$$", i):
            if self.tex:
                return self.closed(i, "$$", "$$", display=True)
            return self.display_dollars(i)
        return self.inline_dollar(i)

    def closed(
        self,
        i: int,
        opener: str,
        closer: str,
        display: bool,
        env: str | None = None,
        unescape: bool = False,
        optional: bool = False,
    ) -> int:
        """A formula from `opener` at `i` to the next `closer` in its paragraph (in the file,
        for an environment). `optional`: in Markdown `\\[` and `\\(` without a closer are
        escaped brackets (`\\[CLS]`), not math, and no problem."""
        if optional and i < self.text_until.get(opener, -1):
            return i + 2
        body_start = i + len(opener)
        limit = self.paragraph_end(body_start) if env is None else self.end
        key = closer + ("?" if optional else "")
        close = -1 if self.failed.get(key) == limit else self._find(closer, body_start, limit)
        if optional and close >= 0:
            inner = self.masked.rfind(opener, body_start, close)
            if inner >= 0:  # `\[CLS] … \[x\]`: only the last bracket before the closer opens
                self.text_until[opener] = inner
                return i + 2
        if close < 0:
            self.failed[key] = limit
            if optional:
                return i + 2
            where = "the end of the file" if env else "its paragraph"
            self.problem(f"unterminated {opener}: no closing {closer} in {where}", i, opener)
            return body_start
        self.add(body_start, close, display, opener, env, unescape)
        return close + len(closer)

    def _find(self, closer: str, start: int, limit: int) -> int:
        close = self.masked.find(closer, start, limit)
        while closer[0] == "$" and close > 0 and self.masked[close - 1] == "\\":
            close = self.masked.find(closer, close + 1, limit)
        return close

    def display_dollars(self, i: int) -> int:
        """`$$` in Markdown. At the start of a block (after a blank line) it runs to the next
        `$$` that ends its line and a block, blank lines allowed inside (kramdown, MyST's
        `$$ (label)`); otherwise it pairs with the next `$$` of its paragraph. A `$$` that
        pairs with nothing is reported where it is."""
        m = self.masked
        if m.startswith("$", i + 2) or (i > 0 and m[i - 1] == "$"):
            return i + 2 + (m[i + 2 : i + 3] == "$")  # `$$$`: not a delimiter
        body_start = i + 2
        if self.at_block_start(i) and self.failed.get("$$block") != self.end:
            close = self._find("$$", body_start, self.end)
            if close < 0:
                self.failed["$$block"] = self.end
            elif self.ends_block(close + 2):
                self.add(body_start, close, True, "$$", None)
                return close + 2
        limit = self.paragraph_end(body_start)
        close = -1 if self.failed.get("$$") == limit else self._find("$$", body_start, limit)
        if close < 0:
            self.failed["$$"] = limit
            self.problem(
                "unterminated $$: no closing $$ in its paragraph (the renderer shows it as text)",
                i,
                "$$",
            )
            return body_start
        line_start = m.rfind("\n", 0, i) + 1
        inline = self.dialect.name == "kramdown" and bool(m[line_start:i].strip())
        self.add(body_start, close, not inline, "$$", None)
        return close + 2

    def at_block_start(self, i: int) -> bool:
        m = self.masked
        line_start = m.rfind("\n", 0, i) + 1
        if m[line_start:i].strip() or i - line_start > 3:
            return False
        k = bisect.bisect_right(self.segment_starts, i) - 1
        seg_start = self.segment_starts[k] if k >= 0 else 0
        if line_start <= seg_start:
            return True
        prev_start = m.rfind("\n", 0, line_start - 1) + 1
        prev = m[prev_start : line_start - 1]
        return not prev.strip() or prev.lstrip().startswith("#")

    def ends_block(self, k: int) -> bool:
        """Whether the text after a closing `$$` at `k` ends its line (an optional MyST label
        allowed) and then a block (a blank line, a heading, the end)."""
        m = self.masked
        after = _LABEL_AFTER.match(m, k, self.end)
        if after is None:
            return k >= self.end
        nxt = after.end()
        if nxt >= self.end:
            return True
        line_end = m.find("\n", nxt)
        line = m[nxt : len(m) if line_end < 0 else line_end]
        return not line.strip() or line.lstrip().startswith(("#", ":eqlabel:"))

    def inline_dollar(self, i: int) -> int:
        """`$...$`: in Markdown it must close on the same line (pandoc's rules: no space just
        inside, no digit right after the closer), otherwise the `$` is read as currency."""
        m = self.masked
        if self.tex:
            return self.closed(i, "$", "$", display=False)
        line_end = m.find("\n", i, self.end)
        line_end = self.end if line_end < 0 else line_end
        if i + 1 >= line_end or m[i + 1].isspace() or self.failed.get("$") == line_end:
            return i + 1
        k = i + 1
        while True:
            k = _next_dollar(m, k, line_end)
            if k < 0:
                self.failed["$"] = line_end
                return i + 1
            if not m[k - 1].isspace() and not m[k + 1 : k + 2].isdigit():
                self.add(i + 1, k, False, "$", None, inline_escapes=True)
                return k + 1
            k += 1

    def add(
        self,
        start: int,
        end: int,
        display: bool,
        opener: str,
        env: str | None,
        unescape: bool = False,
        inline_escapes: bool = False,
    ) -> None:
        body = self.masked[start:end] if self.tex else self.text[start:end]
        if unescape:
            body = _unescape_markdown(body)
        elif inline_escapes:
            body = _unescape_inline(body)
        if env is None and display and (whole := _WHOLE_ENV.match(body)) is not None:
            env = whole.group(1) + whole.group(2)
            start += whole.start(3)
            body = whole.group(3)
        span = MathSpan(body, self.position(start), display, opener, env, self.filename)
        self.out.append((start, span))

    def problem(self, message: str, i: int, opener: str) -> None:
        self.out.append((i, ScanProblem(message, self.position(i), opener, self.filename)))


_SPECIAL = re.compile(r"[\\$]")


def _next_special(text: str, i: int, end: int) -> int:
    m = _SPECIAL.search(text, i, end)
    return -1 if m is None else m.start()


def _next_dollar(text: str, i: int, end: int) -> int:
    """The next `$` before `end` that is not escaped by a backslash."""
    k = text.find("$", i, end)
    while k > 0 and text[k - 1] == "\\":
        k = text.find("$", k + 1, end)
    return k


# --- the document's own macros -----------------------------------------------------------------


def _with_macros(
    items: list[MathSpan | ScanProblem],
    text: str,
    masked: str,
    dialect: Dialect,
    site: Sequence[Macro] = (),
) -> list[MathSpan | ScanProblem]:
    """The items with the document's macros taken out of the formulas that define them and
    expanded in those that use them, in file order. A formula that only defines macros is no
    longer an item; a macro that cannot be expanded is a problem at its use. The `site`'s
    macros (defined outside the document) come first: the document's own win."""
    macros = Macros()
    for macro in [*site, *package_macros(text), *front_matter_macros(text), *config_macros(text)]:
        macros.add(macro)
    outside = list(definitions(masked)) if dialect.name == "latex" else []
    if (
        not macros
        and not outside
        and "\\" not in "".join(s.body for s in items if isinstance(s, MathSpan))
    ):
        return items
    out: list[MathSpan | ScanProblem] = []
    k = 0
    for item in items:
        if not isinstance(item, MathSpan):
            out.append(item)
            continue
        while k < len(outside) and outside[k].start < item.start.offset:
            macros.add(outside[k].macro, outside[k].renew)
            k += 1
        body = macros.define_in(item.body)
        if body is not item.body and not body.strip():
            continue
        try:
            expanded, origin = macros.expand(body)
        except MacroError as e:
            where = replace(item, body=body).position_at(e.offset)
            out.append(ScanProblem(str(e), where, item.delimiter, item.filename))
            continue
        if expanded == item.body:
            out.append(item)
        elif expanded == body:
            out.append(replace(item, body=body))
        else:
            out.append(replace(item, body=expanded, source=item.body, origin=tuple(origin)))
    return out
