"""The macros of a site's files by their kind (HTML layouts, JavaScript, YAML, TOML, Sphinx's
conf.py, mdBook's macro lists, LaTeX preambles and packages), read as data and never run.

Imports only the standard library and syntax.macros; must not import terms or claims, and never
reads a file itself (check.sites does).
"""

from __future__ import annotations

import ast
import re
import tomllib
from dataclasses import dataclass, field

from symattn.reader.syntax.macro_definitions import definitions
from symattn.reader.syntax.macros import (
    Macro,
    MacroFileError,
    front_matter_macros,
    map_macros,
    object_macros,
    site_macros,
    yaml_macros,
)

__all__ = ["FileMacros", "latex_references", "latex_preamble", "macros_of_file"]

#: The TeX definitions a renderer reads in an HTML page: those inside a `<script>` block
#: (KaTeX's auto-render and MathJax read `math/tex` scripts) or inside a math block.
_HTML_MATH = re.compile(
    r"<script\b[^>]*>(.*?)</script\s*>|\$\$(.*?)\$\$|\\\[(.*?)\\\]|\\\((.*?)\\\)",
    re.DOTALL | re.IGNORECASE,
)
_DEFINER = re.compile(r"\\(?:newcommand|renewcommand|providecommand|DeclareMathOperator|g?def)\b")
_TEX_COMMENT = re.compile(r"(?<!\\)%[^\n]*")
#: Sphinx settings whose value holds macros: MathJax 3 and 2 options, sphinxcontrib-katex's
#: options (a JavaScript object in a string) and macros, the LaTeX builder's preamble.
_SPHINX = ("mathjax3_config", "mathjax_config", "katex_options", "katex_macros", "latex_elements")


@dataclass
class FileMacros:
    """What one file defines, and each place in it that looks like a macro but is not read."""

    macros: list[Macro] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def macros_of_file(text: str, name: str, shown: str | None = None) -> FileMacros:
    r"""The macros of the site file `name` (its kind from its name), with a warning naming
    `shown` (default `name`) and the line for each part that cannot be read; never raises.

    >>> got = macros_of_file('<div>$$\\gdef \\vect #1 {\\boldsymbol{#1}}$$</div>', "l.html")
    >>> [(m.name, m.params) for m in got.macros], got.warnings
    ([('vect', 1)], [])
    >>> macros_of_file('{"\\\\R": 3}', "k.json").warnings
    ['k.json: the macro \\R is not a string or [body, arguments]']
    """
    shown = shown or name
    lower = name.lower().rsplit("/", 1)[-1]
    out = FileMacros()
    try:
        if lower.endswith(".json"):
            out.macros = site_macros(text, shown)
        elif lower.endswith((".yml", ".yaml")):
            got, bad = yaml_macros(text)
            out.macros = got
            out.warnings = [f"{shown}:{line}: {why}" for line, why in bad]
        elif lower.endswith((".html", ".htm", ".liquid")):
            return _html(text, shown)
        elif lower.endswith((".js", ".mjs", ".cjs", ".ts")):
            got, problems = object_macros(text)
            out.macros = got
            out.warnings = [f"{shown}:{_line(text, at)}: {why}" for at, why in problems]
        elif lower == "conf.py":
            return _sphinx(text, shown)
        elif lower.endswith(".toml"):
            return _book_toml(text, shown)
        elif lower.endswith(".txt"):
            return _mdbook_list(text, shown)
        elif lower.endswith((".tex", ".sty", ".cls", ".ltx")):
            out.macros = [d.macro for d in definitions(_TEX_COMMENT.sub("", text))]
        else:
            out.macros = site_macros(text, shown)
    except MacroFileError as e:
        out.warnings.append(str(e))
    return out


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _html(text: str, shown: str) -> FileMacros:
    """An HTML layout or partial: front matter, `<script>` configurations, and the TeX
    definitions inside its scripts and math blocks (a definition elsewhere is page text)."""
    got, problems = _script_objects(text)
    out = FileMacros([*front_matter_macros(text), *got])
    out.warnings = [f"{shown}:{_line(text, at)}: {why}" for at, why in problems]
    for block in _HTML_MATH.finditer(text):
        k = next(i for i in range(1, 5) if block.group(i) is not None)
        body, start = block.group(k), block.start(k)
        found = list(definitions(body))
        out.macros.extend(d.macro for d in found)
        read = {d.start for d in found}
        for m in _DEFINER.finditer(body):
            if m.start() not in read:
                at = _line(text, start + m.start())
                out.warnings.append(
                    f"{shown}:{at}: {m.group()} not read (its form is not supported)"
                )
    return out


def _script_objects(text: str) -> tuple[list[Macro], list[tuple[int, str]]]:
    macros: list[Macro] = []
    problems: list[tuple[int, str]] = []
    for script in re.finditer(r"<script\b[^>]*>(.*?)</script\s*>", text, re.DOTALL | re.I):
        got, bad = object_macros(script.group(1))
        macros.extend(got)
        problems.extend((script.start(1) + at, why) for at, why in bad)
    return macros, problems


def _sphinx(text: str, shown: str) -> FileMacros:
    """Sphinx's conf.py, read with `ast`: the literal values of the settings of _SPHINX; a
    setting computed by code is a warning (conf.py is never run)."""
    out = FileMacros()
    try:
        tree = ast.parse(text)
    except SyntaxError as e:
        out.warnings.append(f"{shown}:{e.lineno}: not valid Python ({e.msg})")
        return out
    for node in tree.body:
        if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        names = [t.id for t in targets if isinstance(t, ast.Name) and t.id in _SPHINX]
        if not names:
            continue
        try:
            value = ast.literal_eval(node.value)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            out.warnings.append(f"{shown}:{node.lineno}: {names[0]} is computed, not read")
            continue
        out.macros.extend(_sphinx_value(names[0], value, f"{shown}:{node.lineno}", out))
    return out


def _sphinx_value(name: str, value: object, where: str, out: FileMacros) -> list[Macro]:
    if name == "katex_options" and isinstance(value, str):
        got, bad = object_macros("{" + value + "}")
        out.warnings.extend(f"{where}: {why}" for _, why in bad)
        return got
    if name == "latex_elements" and isinstance(value, dict):
        preamble = value.get("preamble")
        return [d.macro for d in definitions(preamble)] if isinstance(preamble, str) else []
    if name == "katex_macros" and isinstance(value, dict):
        value = {"macros": value}
    macros = _find_macros(value)
    if macros is None:
        return []
    try:
        return map_macros(macros, where)
    except MacroFileError as e:
        out.warnings.append(str(e))
        return []


def _find_macros(value: object, depth: int = 0) -> dict[str, object] | None:
    """The `macros` (MathJax 2: `Macros`) member of a nested options object."""
    if not isinstance(value, dict) or depth > 4:
        return None
    for key in ("macros", "Macros"):
        if isinstance(value.get(key), dict):
            return value[key]
    for inner in value.values():
        found = _find_macros(inner, depth + 1)
        if found is not None:
            return found
    return None


def _book_toml(text: str, shown: str) -> FileMacros:
    """A `book.toml` (mdBook) or another TOML file: a `macros` table anywhere in it."""
    out = FileMacros()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        out.warnings.append(f"{shown}: not valid TOML ({e})")
        return out
    macros = _find_macros(data)
    if macros is not None:
        try:
            out.macros = map_macros(macros, shown)
        except MacroFileError as e:
            out.warnings.append(str(e))
    return out


def _mdbook_list(text: str, shown: str) -> FileMacros:
    r"""mdbook-katex's macros file: one `\name:body` a line.

    >>> [(m.name, m.body, m.params) for m in _mdbook_list("\\R:\\mathbb{R}\n\\v:\\mathbf{#1}\n",
    ...     "m.txt").macros]
    [('R', '\\mathbb{R}', 0), ('v', '\\mathbf{#1}', 1)]
    """
    out = FileMacros()
    entries: dict[str, str] = {}
    for k, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith(("#", "%")):
            continue
        m = re.match(r"^\s*(\\(?:[A-Za-z]+|.))\s*:(.*)$", line)
        if m is None:
            out.warnings.append(f"{shown}:{k}: not a macro (write \\name:body)")
            continue
        entries[m.group(1)] = m.group(2).strip()
    if entries:
        out.macros = map_macros(dict(entries), shown)
    return out


# ---- LaTeX: the files a document loads, and the file that loads it ----------------------------

_LOADS = re.compile(
    r"\\(input|include|subfile|usepackage|RequirePackage|documentclass)\s*(?:\[([^\]]*)\])?"
    r"\s*\{([^{}]*)\}"
)


def latex_references(text: str) -> list[tuple[str, str]]:
    r"""The files a LaTeX text loads by name, as (command, name) in order, comments skipped;
    `\usepackage{a,b}` gives each package, and `\documentclass[main.tex]{subfiles}` its main file.

    >>> latex_references("\\documentclass{pca}\\usepackage{amsmath, notation}% \\input{x}\n"
    ...     "\\input{macros}")  # doctest: +NORMALIZE_WHITESPACE
    [('documentclass', 'pca'), ('usepackage', 'amsmath'), ('usepackage', 'notation'),
     ('input', 'macros')]
    """
    out: list[tuple[str, str]] = []
    for m in _LOADS.finditer(_TEX_COMMENT.sub("", text)):
        kind, option, names = m.group(1), m.group(2), m.group(3)
        if kind == "documentclass" and names.strip() == "subfiles" and option:
            out.append(("main", option.strip()))
            continue
        for name in names.split(","):
            if name.strip():
                out.append((kind, name.strip()))
    return out


def latex_preamble(text: str) -> str:
    r"""The part of a LaTeX file before `\begin{document}` (all of it when it has none).

    >>> latex_preamble("\\newcommand\\a{x}\n\\begin{document}\\newcommand\\b{y}")
    '\\newcommand\\a{x}\n'
    """
    k = text.find("\\begin{document}")
    return text if k < 0 else text[:k]
