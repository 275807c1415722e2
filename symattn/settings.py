"""Notation settings (transpose mark, renamed letters, operator names, language), read in one place.

Read from `[tool.symattn]` of the nearest pyproject.toml (tomllib) or a script's `NOTATION` dict.
Imports only kernel.errors; must not import the rest of the kernel or anything above it.
"""

from __future__ import annotations

import difflib
import functools
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from symattn.kernel.errors import InputError

#: Spellings of the transpose mark: `K^{\mathsf T}`, `K^{\top}`, `K^{T}`.
TRANSPOSE: dict[str, str] = {"mathsf": r"\mathsf T", "top": r"\top", "T": "T"}
LANGS = ("zh", "en", "all")
OPERATORS: dict[str, str] = {
    "softmax": r"\operatorname{softmax}",
    "concat": r"\operatorname{Concat}",
}
KEYS = ("transpose", "names", "operators", "lang", "vectors", "paths", "exclude", "macros")
VECTORS = ("row", "column")

HELP = f"""\
notation settings: [tool.symattn] in the nearest pyproject.toml, or NOTATION = {{...}} in a script
  transpose = "mathsf" | "top" | "T"     K^{{\\mathsf T}} (default), K^{{\\top}}, K^{{T}}
  names = {{ r = "s", W_O = "W^O" }}       print a letter or matrix name as another
  operators = {{ softmax = "\\\\mathrm{{softmax}}" }}   LaTeX for {", ".join(OPERATORS)}
  lang = "zh" | "en" | "all"             the documents to write when --lang is not given (all)
  vectors = "row" | "column"             what `symattn check` takes vectors in R^d to be, unless a
                                         document says otherwise (the printer writes rows)
  paths = ["chapters", "notes/*.md"]     what `symattn check` with no FILE checks (relative to
                                         the pyproject.toml's folder)
  exclude = ["chapters/drafts/**"]       documents under paths or folders that it skips (globs)
  macros = ["_includes/macros.tex"]      the site's KaTeX/MathJax macros (files: .tex, .md, .html
                                         with \\newcommand or \\gdef, or .json/.yaml maps)
"""


class SettingsError(InputError):
    """A notation setting is unknown or malformed; the message names where it was read."""


@dataclass(frozen=True)
class Notation:
    """How symattn prints, and where that was decided (`source`).

    >>> Notation().style()["transpose"]
    '\\\\mathsf T'
    >>> notation({"transpose": "top"}, "x").style()["transpose"]
    '\\\\top'
    """

    transpose: str = "mathsf"
    names: Mapping[str, str] = field(default_factory=dict)
    operators: Mapping[str, str] = field(default_factory=dict)
    lang: str = "all"
    vectors: str = ""  # "" not stated: each document settles it (symattn check)
    paths: tuple[str, ...] = ()  # what `symattn check` with no FILE checks
    exclude: tuple[str, ...] = ()  # globs of documents that a folder or glob leaves out
    macros: tuple[str, ...] = ()  # files of the site's macros, applied before a document's own
    source: str = "defaults"

    def style(self) -> dict[str, Any]:
        """Keyword arguments for the LaTeX printer (`symattn.latex.printer.latex`)."""
        return {
            "transpose": TRANSPOSE[self.transpose],
            "names": dict(self.names),
            "operators": {**OPERATORS, **self.operators},
        }

    def describe(self) -> str:
        """One line for progress output: what differs from the defaults, and from where."""
        base = Notation()
        parts = [f"transpose={self.transpose}"] if self.transpose != base.transpose else []
        parts += [f"{k}->{v}" for k, v in sorted(self.names.items())]
        parts += [f"{k}={v}" for k, v in sorted(self.operators.items())]
        if self.lang != base.lang:
            parts.append(f"lang={self.lang}")
        if self.vectors:
            parts.append(f"vectors={self.vectors}")
        where = "" if self.source == "defaults" else f" ({self.source})"
        return f"notation: {', '.join(parts) or 'defaults'}{where}"


def notation(data: Mapping[str, Any], where: str, base: Notation | None = None) -> Notation:
    """`base` (the defaults) changed by the settings in `data`; an unknown key is an error.

    >>> notation({"transpos": "top"}, "pyproject.toml")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    symattn.settings.SettingsError: pyproject.toml: unknown setting 'transpos'; did you mean ...
    """
    out = base or Notation()
    for key, value in data.items():
        if key not in KEYS:
            close = difflib.get_close_matches(key, KEYS, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise SettingsError(
                f"{where}: unknown setting {key!r}{hint} (known: {', '.join(KEYS)})"
            )
        out = replace(out, **{key: _value(key, value, where)})
    return replace(out, source=where) if data else out


def _value(key: str, value: Any, where: str) -> Any:
    if key == "transpose":
        if value not in TRANSPOSE:
            known = ", ".join(TRANSPOSE)
            raise SettingsError(f"{where}: transpose = {value!r}; use one of {known}")
        return value
    if key == "vectors":
        if value not in VECTORS:
            raise SettingsError(f"{where}: vectors = {value!r}; use row or column")
        return value
    if key in ("paths", "exclude", "macros"):
        if isinstance(value, str) or not all(isinstance(v, str) for v in value):
            raise SettingsError(f'{where}: {key} must be a list of strings ({key} = ["a", "b"])')
        return tuple(value)
    if key == "lang":
        if value not in LANGS:
            raise SettingsError(f"{where}: lang = {value!r}; use one of {', '.join(LANGS)}")
        return value
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise SettingsError(f'{where}: {key} must be a table of strings ({key} = {{ a = "b" }})')
    if key == "operators":
        unknown = sorted(set(value) - set(OPERATORS))
        if unknown:
            raise SettingsError(
                f"{where}: unknown operator {unknown[0]!r} (known: {', '.join(OPERATORS)})"
            )
    return dict(value)


def pyproject_for(start: Path) -> Path | None:
    """The nearest pyproject.toml in `start` (a folder or a file's folder) or above it."""
    here = start.resolve()
    folder = here if here.is_dir() else here.parent
    for candidate in (folder, *folder.parents):
        if (candidate / "pyproject.toml").is_file():
            return candidate / "pyproject.toml"
    return None


def load(start: Path) -> Notation:
    """The settings `[tool.symattn]` of the nearest pyproject.toml (defaults without one)."""
    path = pyproject_for(start)
    if path is None:
        return Notation()
    return _parsed(str(path), path.read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=64)
def _parsed(path: str, text: str) -> Notation:
    """The settings in the text of the pyproject.toml at `path` (a function of the two: the file
    is read every time, its parse remembered by its text)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path}: not valid TOML: {exc}") from None
    table = data.get("tool", {}).get("symattn", {})
    if not isinstance(table, Mapping):
        raise SettingsError(f"{path}: [tool.symattn] must be a table")
    return notation(table, f"{path} [tool.symattn]")


__all__ = ["HELP", "KEYS", "Notation", "SettingsError", "load", "notation", "pyproject_for"]
