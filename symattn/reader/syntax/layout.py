"""Layout in math that renders no value: spacing, size switches, boxes around a symbol, CJK prose.

Imports only the standard library, braces.py and glyphs.py; lexer.py calls these, never the reverse.
"""

from __future__ import annotations

import re

from symattn.reader.syntax.braces import group_end
from symattn.reader.syntax.glyphs import FULL_WIDTH, SPACES

__all__ = [
    "BREAKS",
    "TEXT_FONTS",
    "SIZE_SWITCHES",
    "SPACING",
    "SPACING_WITH_ARG",
    "boxed_symbol",
    "environment_alias",
    "placement_end",
    "quantifier_end",
    "unexpected_mark",
    "word_font",
    "cjk_run_end",
    "spacing_arg_end",
]

#: Spaces written as commands: `\space`, `\enspace`, `\thinspace` are `\ ` and `\,`; a strut
#: is an invisible rule that only sets a row's height.
SPACING = frozenset(
    "space enspace thinspace medspace thickspace negthinspace negmedspace negthickspace "
    "nobreakspace nobreak allowbreak strut mathstrut".split()
)
#: Spaces with a length: `\hspace{1em}`, `\hspace*{2pt}`, `\kern3pt`, `\mkern-2mu`, `\mspace{3mu}`,
#: `\phantom{x}`.
SPACING_WITH_ARG = frozenset(
    "hspace kern mkern mskip mspace hskip phantom hphantom vphantom".split()
)
#: Fills that push what follows to the margin: a gap between a formula and its note, as `\quad`.
BREAKS = frozenset("hfill hfil hss".split())
#: Size switches of text (`\tiny S = QK^T`, `\Large`): the formula's size, not its meaning.
SIZE_SWITCHES = frozenset(
    "tiny scriptsize footnotesize small normalsize large Large LARGE huge Huge".split()
)

#: Fonts of text mode without a math twin the lexer reads: `\texttt{x}` is `\mathtt{x}`.
TEXT_FONTS = {"texttt": "mathtt", "textsf": "mathsf"}
#: Fonts that set a word upright as `\mathrm` does: `\mathsf{Attention}`, `\mathtt{scores}`.
_UPRIGHT = frozenset("mathsf textsf mathtt texttt".split())
_WORD = re.compile(r"[A-Za-z]{2,}\Z")


def word_font(name: str, inner: str) -> str:
    r"""The font a word is read in: a word (not a letter) in a sans-serif or typewriter font
    is a name or an operator as in `\mathrm`; anything else keeps its font.

    >>> word_font("mathsf", "Attention"), word_font("mathsf", "T"), word_font("mathbf", "XW")
    ('mathrm', 'mathsf', 'mathbf')
    """
    return "mathrm" if name in _UPRIGHT and _WORD.match(inner) else name


#: A length after `\kern`, `\mkern`, `\hskip` written without braces: `3pt`, `-2mu`, `0.5em`.
_BARE_LENGTH = re.compile(r"\s*-?[0-9]*\.?[0-9]+\s*(?:pt|em|ex|mu|mm|cm|in|bp|sp|pc|dd|cc)")


def spacing_arg_end(text: str, at: int) -> int | None:
    r"""Where the argument of a spacing command that starts at `at` ends: `{1em}` or `*{1em}`
    (for `\hspace`), a bare length `3pt` (for `\kern`); None when there is none to read.

    >>> spacing_arg_end(r"\hspace{1em} x", 7), spacing_arg_end(r"\kern3pt x", 5)
    (12, 8)
    >>> spacing_arg_end(r"\kern x", 5) is None
    True
    """
    k = at
    while k < len(text) and text[k] in " \t\n":
        k += 1
    if text.startswith("*", k):
        k += 1
    if text.startswith("{", k):
        close = group_end(text, k)
        return None if close is None else close + 1
    m = _BARE_LENGTH.match(text, at)
    return m.end() if m is not None else None


#: Boxes that draw their last argument as it is: `\raisebox{0.25ex}{X}`, `\scalebox{0.8}{X}`.
_BOX = re.compile(r"\\(?:raisebox|scalebox|resizebox|mbox|hbox|text|mathrm)\s*")
#: One symbol drawn inside the boxes, in math mode: `$\otimes$`, `\otimes`.
_SYMBOL = re.compile(r"\s*\$?\s*\\([A-Za-z]+)\s*\$?\s*\Z")


def boxed_symbol(text: str, at: int) -> tuple[str, int] | None:
    r"""`\operatorname{\text{\raisebox{0.25ex}{\scalebox{0.8}{$\otimes$}}}}`: an operator drawn
    as one symbol in boxes that raise or scale it. From the `{` at `at`, the symbol's command
    name and the offset after the outer `}`; None when the argument is anything else.

    >>> boxed_symbol(r"{\text{\raisebox{0.25ex}{\scalebox{0.8}{$\otimes$}}}} B", 0)
    ('otimes', 53)
    >>> boxed_symbol(r"{\text{softmax}}", 0) is None
    True
    """
    close = group_end(text, at) if text.startswith("{", at) else None
    if close is None:
        return None
    inner: str | None = text[at + 1 : close]
    for _ in range(8):  # boxes nested this deep are already unusual
        if inner is None:
            return None
        m = _SYMBOL.match(inner)
        if m is not None:
            return m.group(1), close + 1
        inner = _unbox(inner)
    return None


def _unbox(inner: str) -> str | None:
    """The last braced argument of the one box `inner` holds, or None."""
    s = inner.strip()
    m = _BOX.match(s)
    if m is None:
        return None
    k = m.end()
    last = None
    while k < len(s):
        while k < len(s) and s[k] in " \t\n":
            k += 1
        if k == len(s):
            break
        if s[k] != "{":
            return None
        close = group_end(s, k)
        if close is None:
            return None
        last = (k, close)
        k = close + 1
    return s[last[0] + 1 : last[1]] if last is not None else None


#: What a quantifier binds before its colon: `\forall i, j:`, `\forall i \in [n]:`.
_QUANTIFIED = re.compile(r"\s*[A-Za-z0-9_,\s\\\[\]{}()<>=+\-]{0,60}?(?::|\\colon)")


def quantifier_end(text: str, at: int) -> int:
    r"""`orall i: a_i = b_i`: the quantifier and what it binds, up to its colon, are prose
    (a claim's free indices are read for all their values); without a colon, only the word.

    >>> text = r"orall i \in [n]: a_i = b_i"
    >>> text[quantifier_end(text, 7):]
    ' a_i = b_i'
    """
    m = _QUANTIFIED.match(text, at)
    return m.end() if m is not None else at


def unexpected_mark(c: str, before: list[str]) -> str:
    """The message for a character the dialect does not read, naming the notation when it is
    known: `p^*` (a conjugate), `1:` before a row (a numbered step). `before` holds the kinds
    of the tokens since the row began.

    >>> unexpected_mark("*", ["LETTER", "SUP"])
    'a complex conjugate or adjoint (x^*) is not read'
    >>> unexpected_mark(":", ["NUMBER", "MINUS", "NUMBER"])[:40]
    'a numbered step of an algorithm (1:) is '
    """
    if c == "*" and before[-1:] == ["SUP"]:
        return "a complex conjugate or adjoint (x^*) is not read"
    if c == "!" and before[-1:] in (["LETTER"], ["NUMBER"], ["RPAR"], ["RBRACE"]):
        return "a factorial (k!) is not read"
    if c == ":" and before in (["NUMBER"], ["NUMBER", "MINUS", "NUMBER"]):
        return (
            "a numbered step of an algorithm (1:) is not read: its names may take new values "
            "from step to step"
        )
    return f"unexpected character {c!r}"


#: Environments that mean what another one means: `dcases` is `cases` in display style,
#: `matrix` and `smallmatrix` a matrix without delimiters (a determinant, `vmatrix`, is not).
_ALIASES = {
    "dcases": "cases",
    "dcases*": "cases",
    "cases*": "cases",
    "matrix": "bmatrix",
    "smallmatrix": "bmatrix",
    "Bmatrix": "bmatrix",
}


def environment_alias(env: str) -> str:
    """The environment `env` is read as.

    >>> environment_alias("dcases"), environment_alias("vmatrix")
    ('cases', 'vmatrix')
    """
    return _ALIASES.get(env, env)


#: Environments with an optional placement before their body: `\begin{aligned}[t]`.
_PLACED = frozenset("aligned gathered alignedat array smash".split())
_PLACEMENT = re.compile(r"\s*\[\s*[tbc]\s*\]")  # `\smash[b]` too: what it hides


def placement_end(env: str, text: str, at: int) -> int:
    r"""After `\begin{aligned}` at `at`: where its placement `[t]` ends (a layout, not a value).

    >>> placement_end("aligned", r"\begin{aligned}[t] a", 15), placement_end("bmatrix", "[t]", 0)
    (18, 0)
    """
    m = _PLACEMENT.match(text, at) if env in _PLACED else None
    return m.end() if m is not None else at


def _cjk(c: str) -> bool:
    """A character of Chinese, Japanese or Korean writing, or its punctuation."""
    o = ord(c)
    return (
        0x3000 <= o <= 0x303F  # CJK punctuation
        or 0x3040 <= o <= 0x30FF  # kana
        or 0x3400 <= o <= 0x4DBF
        or 0x4E00 <= o <= 0x9FFF  # unified ideographs
        or 0xAC00 <= o <= 0xD7AF  # hangul
        or 0xF900 <= o <= 0xFAFF
        or 0xFF01 <= o <= 0xFF60  # full-width forms
    )


def cjk_run_end(text: str, at: int) -> int | None:
    """Where the run of CJK writing at `at` ends (`n个词,`: after `词`); None when there is none.
    Such words inside math are prose, as `\\text{...}` would be.

    >>> cjk_run_end("n个词, d", 1)
    3
    >>> cjk_run_end("αβ", 0) is None
    True
    """
    k = at
    while k < len(text) and _cjk(text[k]) and text[k] not in FULL_WIDTH and text[k] not in SPACES:
        k += 1
    return k if k > at else None
