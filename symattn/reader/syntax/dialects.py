"""Which dialect a document's math is written in (LaTeX, a notebook, kramdown, MyST, Markdown).

Imports only the standard library; it never scans the math itself (that is the scanner's work).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Dialect", "detect", "is_notebook_name"]

TEX_SUFFIXES = (".tex", ".ltx", ".sty", ".cls")
NOTEBOOK_SUFFIXES = (".ipynb",)
MD_SUFFIXES = (".md", ".markdown", ".mdown", ".txt", ".qmd", ".rmd")

_LABELS = {
    "latex": "LaTeX",
    "notebook": "Jupyter notebook (Markdown cells)",
    "kramdown": "kramdown (Jekyll)",
    "myst": "MyST Markdown",
    "markdown": "Markdown (CommonMark/pandoc)",
}

_FRONT = re.compile(r"\A---[ \t]*\n(.*?)\n---[ \t]*(?:\n|\Z)", re.DOTALL)
_ESCAPED = re.compile(r"(?<!\\)\\\\[(\[]")
_LIQUID = re.compile(r"\{%-?\s*(?:raw|endraw|include|highlight|katex|assign|if|for)\b")
_IAL = re.compile(r"^\{:\s*[#.a-z]", re.MULTILINE)
_MYST = re.compile(
    r"^ {0,3}(?:`{3,}|~{3,}|:{3,})\s*\{[a-z-]+\}"
    r"|^\$\$.*\$\$\s*\([\w:.-]+\)\s*$|\{(?:eq|math)\}`",
    re.MULTILINE,
)
_SHORTCODE = re.compile(r"\{\{<\s*/?katex|\{%\s*katex\s*\(|\{\{\s*katex\s*\(")


@dataclass(frozen=True)
class Dialect:
    """The dialect a document was read in, and why the scanner assumed it.

    `name` is `latex`, `notebook`, `kramdown`, `myst` or `markdown`; `escaped` says that the text
    writes Markdown-escaped `\\\\(` and `\\\\[` (the Hugging Face blog and Zola convention);
    `shortcodes` that it uses KaTeX shortcodes (Jekyll, Hugo, Zola).
    """

    name: str
    reason: str
    escaped: bool = False
    shortcodes: bool = False

    @property
    def markdown(self) -> bool:
        return self.name != "latex"

    @property
    def default(self) -> bool:
        """Plain Markdown, assumed for want of any sign of another dialect."""
        return self.name == "markdown" and not self.escaped and not self.shortcodes

    def describe(self) -> str:
        """One line for the check summary.

        >>> detect("---\\nlayout: post\\n---\\n$$x$$", "a.md").describe()
        'kramdown (Jekyll): front matter sets a layout'
        """
        extras = [
            *(["Markdown-escaped \\\\( \\\\["] if self.escaped else []),
            *(["KaTeX shortcodes"] if self.shortcodes else []),
        ]
        more = f", with {' and '.join(extras)}" if extras else ""
        return f"{_LABELS[self.name]}{more}: {self.reason}"


def is_notebook_name(filename: str) -> bool:
    return filename.lower().endswith(NOTEBOOK_SUFFIXES)


def detect(text: str, filename: str = "<string>", kind: str = "auto") -> Dialect:
    """The dialect of a text, from `kind` (`md`, `tex`, `ipynb`), the file suffix, then its
    contents.

    >>> detect("\\\\documentclass{article}").name, detect("see \\\\\\\\(x\\\\\\\\)").escaped
    ('latex', True)
    """
    lower = filename.lower()
    if kind == "tex":
        return Dialect("latex", "asked for")
    if kind == "ipynb" or (kind == "auto" and is_notebook_name(filename)):
        return Dialect("notebook", "a .ipynb file", bool(_ESCAPED.search(text)))
    if kind == "auto":
        if lower.endswith(TEX_SUFFIXES):
            return Dialect("latex", f"a {lower[lower.rfind('.') :]} file")
        head = "" if lower.endswith(MD_SUFFIXES) else text[:20_000]
        if "\\documentclass" in head or "\\begin{document}" in head:
            return Dialect("latex", "\\documentclass or \\begin{document}")
    escaped = bool(_ESCAPED.search(text))
    shortcodes = bool(_SHORTCODE.search(text))
    front = _FRONT.match(text)
    if front is not None and re.search(r"^layout:", front.group(1), re.MULTILINE):
        return Dialect("kramdown", "front matter sets a layout", escaped, shortcodes)
    if "/_posts/" in filename.replace("\\", "/") or filename.startswith("_posts/"):
        return Dialect("kramdown", "a Jekyll _posts file", escaped, shortcodes)
    if _LIQUID.search(text) or _IAL.search(text):
        return Dialect("kramdown", "Liquid tags or kramdown attributes", escaped, shortcodes)
    if _MYST.search(text):
        return Dialect("myst", "MyST directives or labelled $$", escaped, shortcodes)
    why = "Markdown-escaped delimiters" if escaped else "the default for Markdown"
    return Dialect("markdown", why, escaped, shortcodes)
