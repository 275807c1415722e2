"""Documents in Chinese (ctexart) and English (article): prose, displays, align*, figures.

Pure string building for XeLaTeX; imports nothing from symattn but kernel.errors, and must not
import a front end.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Literal

from symattn.kernel.errors import InputError

Lang = Literal["zh", "en"]
CjkFonts = Literal["fandol", "noto"]

#: Packages every document loads; a host book that ``\input``s a fragment must load them too.
HOST_PACKAGES: tuple[str, ...] = ("amsmath", "amssymb", "mathtools", "graphicx", "booktabs")


class LatexInputError(InputError):
    """A piece handed to the document builder cannot be typeset as asked."""


@dataclass(frozen=True)
class Math:
    """Inline math inside prose: the LaTeX is used as given, wrapped in ``\\( ... \\)``.

    >>> render_prose(["the scores ", Math("QK^{\\\\mathsf T}"), " are 5×5"])
    'the scores \\\\(QK^{\\\\mathsf T}\\\\) are 5×5'
    """

    latex: str


Prose = str | Math | Sequence[str | Math]

_ESCAPES = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "#": r"\#",
    "$": r"\$",
    "%": r"\%",
    "&": r"\&",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "\r": " ",
    "\n": " ",
}
_ESCAPE_TABLE = str.maketrans(_ESCAPES)


def escape_text(text: str) -> str:
    """Escape prose for text mode; line breaks become spaces so a piece never ends a paragraph.

    >>> print(escape_text("50% of W_Q & {x} ~ a^2 # $ \\\\"))
    50\\% of W\\_Q \\& \\{x\\} \\textasciitilde{} a\\textasciicircum{}2 \\# \\$ \\textbackslash{}
    """
    return text.translate(_ESCAPE_TABLE)


def render_prose(prose: Prose) -> str:
    """Join text pieces (escaped) and ``Math`` pieces (as ``\\(...\\)``) into one line.

    >>> render_prose("患者_1")
    '患者\\\\_1'
    """
    if isinstance(prose, str | Math):
        prose = [prose]
    return "".join(
        f"\\({piece.latex}\\)" if isinstance(piece, Math) else escape_text(piece) for piece in prose
    )


_ALIGN_TOKEN = re.compile(r"\\(?:begin|end)\b|\\.|[{}&]", re.DOTALL)


def partition_alignment(tex: str) -> tuple[str, str, str]:
    """``tex.partition("&")`` at the first top-level ``&`` (not one inside a ``cases``).

    >>> partition_alignment(r"\\begin{cases} a & b \\end{cases} &= c")
    ('\\\\begin{cases} a & b \\\\end{cases} ', '&', '= c')
    """
    depth = 0
    for match in _ALIGN_TOKEN.finditer(tex):
        token = match.group()
        if token in ("{", "\\begin"):
            depth += 1
        elif token in ("}", "\\end"):
            depth -= 1
        elif token == "&" and depth == 0:
            return tex[: match.start()], "&", tex[match.end() :]
    return tex, "", ""


def _top_level_ampersands(tex: str) -> int:
    """Count ``&`` outside braces and nested environments (a bmatrix in a line is fine)."""
    depth, count = 0, 0
    for match in _ALIGN_TOKEN.finditer(tex):
        token = match.group()
        if token in ("{", "\\begin"):
            depth += 1
        elif token in ("}", "\\end"):
            depth -= 1
        elif token == "&" and depth == 0:
            count += 1
    return count


def _justification(why: Prose, lang: Lang) -> str:
    left, right = ("（", "）") if lang == "zh" else ("(", ")")
    return f"\\text{{{left}{render_prose(why)}{right}}}"


def _align_row(number: int, tex: str, why: Prose | None, lang: Lang) -> str:
    found = _top_level_ampersands(tex)
    if found != 1:
        raise LatexInputError(
            f"align line {number} must have exactly one alignment point '&', found {found}: "
            f"{tex!r}\n  hint: write 'lhs &= rhs' for the first line and '&= rhs' after it; "
            "the justification column is added by the builder"
        )
    return tex if why is None else f"{tex} && {_justification(why, lang)}"


def render_align(lines: Sequence[tuple[str, Prose | None]], *, lang: Lang = "en") -> str:
    """An ``align*`` block: one line per step, the justification in a column at the right.

    >>> print(render_align([("e_0 &= e_1", "by a"), ("&= e_2", None)]))
    \\begin{align*}
    e_0 &= e_1 && \\text{(by a)} \\\\
    &= e_2
    \\end{align*}
    """
    if not lines:
        raise LatexInputError("an align block needs at least one line")
    rows = [_align_row(k, tex, why, lang) for k, (tex, why) in enumerate(lines, start=1)]
    return "\\begin{align*}\n" + " \\\\\n".join(rows) + "\n\\end{align*}"


def chain_lines(
    lhs: str, steps: Sequence[tuple[str, Prose | None]], *, relation: str = "="
) -> list[tuple[str, Prose | None]]:
    """Lines of ``lhs = e_1 = e_2 ...`` for ``render_align``; each step carries its justification.

    >>> chain_lines("a", [("b", "r1"), ("c", None)])
    [('a &= b', 'r1'), ('&= c', None)]
    """
    if not steps:
        raise LatexInputError(f"the derivation of {lhs!r} has no steps")
    first, *rest = steps
    lines = [(f"{lhs} &{relation} {first[0]}", first[1])]
    return lines + [(f"&{relation} {rhs}", why) for rhs, why in rest]


_BAD_PATH_CHARS = re.compile(r"[\\{}%#$&~^\s]")


def render_figure(path: str | PurePath, caption: Prose, width: float = 0.8) -> str:
    """A centred floating figure; ``width`` is a fraction of ``\\linewidth``.

    >>> print(render_figure("heat.pdf", "注意力权重", 0.6))
    \\begin{figure}[htbp]
    \\centering
    \\includegraphics[width=0.6\\linewidth]{heat.pdf}
    \\caption{注意力权重}
    \\end{figure}
    """
    name = PurePath(path).as_posix()
    if _BAD_PATH_CHARS.search(name):
        raise LatexInputError(f"figure path {name!r} has spaces or TeX special characters")
    if not 0 < width <= 1:
        raise LatexInputError(f"figure width must be a fraction of the line in (0, 1], got {width}")
    return (
        "\\begin{figure}[htbp]\n\\centering\n"
        f"\\includegraphics[width={width:g}\\linewidth]{{{name}}}\n"
        f"\\caption{{{render_prose(caption)}}}\n\\end{{figure}}"
    )


_CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")

_CJK_FONT_LINES: dict[str, tuple[str, ...]] = {
    "noto": (
        r"\setCJKmainfont{Noto Serif CJK SC}",
        r"\setCJKsansfont{Noto Sans CJK SC}",
        r"\setCJKmonofont{Noto Sans Mono CJK SC}",
    ),
    "fandol": (
        r"\setCJKmainfont{FandolSong-Regular}[Extension=.otf, BoldFont=FandolSong-Bold]",
        r"\setCJKsansfont{FandolHei-Regular}[Extension=.otf, BoldFont=FandolHei-Bold]",
        r"\setCJKmonofont{FandolFang-Regular}[Extension=.otf]",
    ),
}


def _class_lines(lang: Lang, cjk_fonts: CjkFonts, needs_cjk: bool) -> list[str]:
    if lang == "zh" and cjk_fonts == "fandol":
        return [r"\documentclass[fontset=fandol]{ctexart}"]
    if lang == "zh":
        return [r"\documentclass[fontset=none]{ctexart}", *_CJK_FONT_LINES[cjk_fonts]]
    if needs_cjk:  # English prose with Chinese token labels
        return [r"\documentclass{article}", r"\usepackage{xeCJK}", *_CJK_FONT_LINES[cjk_fonts]]
    return [r"\documentclass{article}"]


# A display continues the paragraph (or display) before it; a blank line would end it.
_JOINS_DISPLAY = ("paragraph", "display")

#: A display a page break may split, between any two of its lines (inside a group).
BREAKABLE = "\\begingroup\\allowdisplaybreaks\n{}\n\\endgroup"


@dataclass(frozen=True)
class _Block:
    kind: str
    latex: str


class Document:
    """A zh or en document assembled from blocks in order; rendering is byte-stable.

    >>> doc = Document("en", "Scores")
    >>> doc.section("Scores").paragraph(["Let ", Math("S = QK^{\\\\mathsf T}"), "."])
    <Document en 'Scores': 2 blocks>
    >>> print(doc.render_fragment())
    % symattn fragment: Scores
    % host preamble: XeLaTeX with amsmath, amssymb, mathtools, graphicx, booktabs
    \\section{Scores}
    <BLANKLINE>
    Let \\(S = QK^{\\mathsf T}\\).
    """

    def __init__(
        self, lang: Lang, title: str, author: str | None = None, *, cjk_fonts: CjkFonts = "fandol"
    ) -> None:
        if lang not in ("zh", "en"):
            raise LatexInputError(f"unknown document language {lang!r}; expected 'zh' or 'en'")
        if cjk_fonts not in _CJK_FONT_LINES:
            raise LatexInputError(
                f"unknown CJK font set {cjk_fonts!r}; expected 'fandol' or 'noto'"
            )
        self.lang: Lang = lang
        self.title = title
        self.author = author
        self.cjk_fonts: CjkFonts = cjk_fonts
        self._blocks: list[_Block] = []

    def __repr__(self) -> str:
        return f"<Document {self.lang} {self.title!r}: {len(self._blocks)} blocks>"

    def _add(self, kind: str, latex: str) -> Document:
        self._blocks.append(_Block(kind, latex))
        return self

    def section(self, title: Prose) -> Document:
        return self._add("heading", f"\\section{{{render_prose(title)}}}")

    def subsection(self, title: Prose) -> Document:
        return self._add("heading", f"\\subsection{{{render_prose(title)}}}")

    def paragraph(self, text: Prose) -> Document:
        """Prose: ``str`` pieces are escaped, ``Math`` pieces are inline math."""
        return self._add("paragraph", render_prose(text))

    def display(self, latex: str) -> Document:
        return self._add("display", f"\\[\n{latex}\n\\]")

    def align(
        self, lines: Sequence[tuple[str, Prose | None]], *, breakable: bool = False
    ) -> Document:
        """``(line, justification)`` pairs; each line has one ``&`` (see ``render_align``).

        A display stays on one page (amsmath's default); ``breakable``: a page break may fall
        between its lines (a derivation longer than a page).
        """
        tex = render_align(lines, lang=self.lang)
        return self._add("display", BREAKABLE.format(tex) if breakable else tex)

    def subsubsection(self, title: Prose) -> Document:
        """An unnumbered heading below a subsection (an item of a list of mistakes)."""
        return self._add("heading", f"\\subsubsection*{{{render_prose(title)}}}")

    def derivation(self, lhs: str, steps: Sequence[tuple[str, Prose | None]]) -> Document:
        """``lhs = e_1 = e_2 ...`` one step a line, each with its justification."""
        return self.align(chain_lines(lhs, steps))

    def figure(self, path: str | PurePath, caption: Prose, width: float = 0.8) -> Document:
        return self._add("figure", render_figure(path, caption, width))

    def raw(self, latex: str) -> Document:
        return self._add("raw", latex)

    def _body(self) -> str:
        parts: list[str] = []
        previous = ""
        for block in self._blocks:
            glue = "\n" if block.kind == "display" and previous in _JOINS_DISPLAY else "\n\n"
            parts.append((glue if parts else "") + block.latex)
            previous = block.kind
        return "".join(parts)

    def render_fragment(self) -> str:
        """The body alone, for ``\\input`` into a book whose preamble loads ``HOST_PACKAGES``."""
        title = " ".join(self.title.split())
        packages = ", ".join(HOST_PACKAGES)
        head = f"% symattn fragment: {title}\n% host preamble: XeLaTeX with {packages}\n"
        if self.lang == "zh" or _CJK.search(self._body()):
            head += "% and Chinese text: ctexart/ctexbook class, or the ctex or xeCJK package\n"
        return head + self._body() + "\n"

    def render_standalone(self) -> str:
        """A complete XeLaTeX document: ``ctexart`` for zh, ``article`` (+ xeCJK when needed)."""
        body = self._body()
        needs_cjk = bool(_CJK.search(body + self.title + (self.author or "")))
        lines = _class_lines(self.lang, self.cjk_fonts, needs_cjk)
        lines += [f"\\usepackage{{{name}}}" for name in HOST_PACKAGES]
        lines += [
            "",
            f"\\title{{{render_prose(self.title)}}}",
            f"\\author{{{render_prose(self.author or '')}}}",
            "\\date{}",
            "",
            "\\begin{document}",
            "\\setlength{\\emergencystretch}{3em}",  # prose with long inline formulas
            "\\maketitle",
            "",
            body,
            "",
            "\\end{document}",
        ]
        return "\n".join(lines) + "\n"
