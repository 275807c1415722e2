"""What is not math in a document: code blocks and spans, HTML, shortcodes, TeX comments and
verbatim, Markdown escapes. Imports only the standard library; it never parses formulas.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

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


_MD_PUNCT = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


_KATEXMM = re.compile(r"\{%-?\s*(?:end)?katexmm\s*-?%\}")


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
