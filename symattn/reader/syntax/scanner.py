"""Finds the math of Markdown (every dialect), LaTeX and notebooks, the document's macros expanded.
Imports kernel.errors and the reader's syntax; it never parses formulas and never raises.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import replace

from symattn.kernel.errors import Position
from symattn.reader.syntax.chains import join_chains
from symattn.reader.syntax.dialects import Dialect, detect
from symattn.reader.syntax.escapes import markdown_escapes, quote_marks
from symattn.reader.syntax.macro_definitions import definitions
from symattn.reader.syntax.macros import (
    Macro,
    MacroError,
    Macros,
    config_macros,
    front_matter_macros,
    package_macros,
)
from symattn.reader.syntax.masking import (
    _Found,
    _mask_markdown,
    _mask_tex,
    _unescape_inline,
    _unescape_markdown,
)
from symattn.reader.syntax.notebook import NotebookError, read_notebook
from symattn.reader.syntax.spans import MathSpan, Scan, ScanProblem
from symattn.reader.syntax.undefined import read_undefined, shared_guesses, trailing_only

__all__ = ["MathSpan", "Scan", "ScanProblem", "read", "scan"]

ENVIRONMENTS = ("equation", "align", "gather", "multline", "eqnarray", "flalign", "displaymath")
_ENV_BEGIN = re.compile(r"\\begin\{(" + "|".join(ENVIRONMENTS) + r")(\*?)\}")
_WHOLE_ENV = re.compile(
    r"\s*\\begin\{(" + "|".join(ENVIRONMENTS) + r")(\*?)\}(.*)\\end\{\1\2\}\s*\Z", re.DOTALL
)


_LABEL_AFTER = re.compile(r"[ \t]*(?:\([\w:.\-]+\)|\{#[\w:.\-]+\})?[ \t]*(?:\n|\Z)")


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
    items = join_chains(_with_macros(items, text, masked, dialect, site), text)
    return Scan(items, dialect, text, notebook)


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
            if m.startswith("\\\\\\\\", i) and not self.tex:
                return i + 4  # `\\\\[4pt]` renders as `\\[4pt]`, a line break: no `\\[` opens
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
        `$$ (label)`); otherwise it pairs with the next `$$` of its paragraph (of its cell in
        a notebook). A `$$` that pairs with nothing is reported where it is."""
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
        # Jupyter takes the math out of a Markdown cell before it reads paragraphs: there a
        # `$$` pairs with the next one of its cell, blank lines between
        cell = self.dialect.name == "notebook"
        limit = self.end if cell else self.paragraph_end(body_start)
        close = -1 if self.failed.get("$$") == limit else self._find("$$", body_start, limit)
        if close < 0:
            self.failed["$$"] = limit
            where = "its cell" if cell else "its paragraph"
            self.problem(
                f"unterminated $$: no closing $$ in {where} (the renderer shows it as text)",
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
            body = markdown_escapes(_unescape_inline(body))
        elif not self.tex:
            line_start = self.text.rfind("\n", 0, start) + 1
            body = markdown_escapes(quote_marks(body, self.text[line_start:start]))
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
    trailing = trailing_only([s.body for s in items if isinstance(s, MathSpan)])
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
        expanded, origin, guesses = read_undefined(expanded, origin, trailing)
        if guesses:
            read_as = replace(item, body=expanded, source=item.body, origin=tuple(origin))
            out.append(replace(read_as, guesses=guesses))
        elif expanded == item.body:
            out.append(item)
        elif expanded == body:
            out.append(replace(item, body=body))
        else:
            out.append(replace(item, body=expanded, source=item.body, origin=tuple(origin)))
    return shared_guesses(out)
