"""Where a document's site keeps the macros its pages render with: the site's root, the known
files of each generator and a LaTeX document's local files, read within limits, never run.

Imports the standard library and reader.syntax (macros, macro_files); must not import cli.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from symattn.reader.syntax.macro_files import (
    latex_preamble,
    latex_references,
    macros_of_file,
)
from symattn.reader.syntax.macros import Macro

__all__ = ["MARKERS", "MacroSource", "SiteMacros", "SiteFinder", "site_root"]

#: A folder holding one of these is a site's root (the first one found going up).
MARKERS = (
    ".git",
    "_config.yml",
    "mkdocs.yml",
    "docusaurus.config.js",
    "docusaurus.config.ts",
    "docusaurus.config.mjs",
    "_quarto.yml",
    "book.toml",
    "conf.py",
    ".vuepress",
    "hugo.toml",
    "hugo.yaml",
    "hugo.json",
)
MAX_LEVELS = 8  # folders walked up from a document to find its site's root
MAX_BYTES = 256_000  # a larger file is not a macro file (a bundled library): skipped
MAX_FILES = 64  # files read per site
MAX_LATEX_DEPTH = 3  # \input inside \input inside a document's own \input
MAX_LATEX_PARENTS = 40  # .tex files of a fragment's folder looked at for the one loading it

#: The generators' known places, relative to the root: (glob, what it is).
_PLACES = (
    ("_config.yml", "Jekyll / Jupyter Book: a macros map (kramdown, KaTeX, MathJax options)"),
    ("_includes/*.html", "Jekyll includes"),
    ("_includes/*/*.html", "Jekyll includes"),
    ("_includes/*.liquid", "Jekyll includes"),
    ("_layouts/*.html", "Jekyll layouts"),
    ("_layouts/*.liquid", "Jekyll layouts"),
    ("mkdocs.yml", "MkDocs: a macros map"),
    ("docusaurus.config.js", "Docusaurus: rehype-katex options"),
    ("docusaurus.config.ts", "Docusaurus"),
    ("docusaurus.config.mjs", "Docusaurus"),
    (".vuepress/config.js", "VuePress: markdown-it KaTeX/MathJax options"),
    (".vuepress/config.ts", "VuePress"),
    (".vuepress/config.mjs", "VuePress"),
    ("_quarto.yml", "Quarto: a macros map"),
    ("layouts/partials/*.html", "Hugo partials"),
    ("layouts/_default/*.html", "Hugo layouts"),
    ("book.toml", "mdBook"),
    ("conf.py", "Sphinx: mathjax3_config, katex options, LaTeX preamble"),
)


@dataclass(frozen=True)
class MacroSource:
    """One file whose macros apply, as shown (relative to the site's root) and how many."""

    file: str
    count: int


@dataclass(frozen=True)
class SiteMacros:
    """The macros of a document's site, the files they came from and what could not be read.

    >>> SiteMacros("site", (), (MacroSource("_layouts/custom.html", 12),)).summary()
    'macros: _layouts/custom.html (12)'
    """

    root: str | None = None
    macros: tuple[Macro, ...] = ()
    sources: tuple[MacroSource, ...] = ()
    warnings: tuple[str, ...] = ()

    def summary(self) -> str:
        """`macros: FILE (N), ...`, or "" when no file gave a macro."""
        found = [f"{s.file} ({s.count})" for s in self.sources if s.count]
        return f"macros: {', '.join(found)}" if found else ""

    def to_json(self) -> dict[str, object]:
        return {
            "root": self.root,
            "sources": [{"file": s.file, "macros": s.count} for s in self.sources],
            "warnings": list(self.warnings),
        }

    def then(self, other: SiteMacros) -> SiteMacros:
        """These macros, then `other`'s over them."""
        return SiteMacros(
            self.root or other.root,
            (*self.macros, *other.macros),
            (*self.sources, *other.sources),
            (*self.warnings, *other.warnings),
        )


def site_root(document: Path) -> Path | None:
    """The nearest folder at or above the document's that holds a MARKERS entry (or a
    pyproject.toml with a [tool.symattn] table), at most MAX_LEVELS up; None without one.

    >>> site_root(Path("/no/such/site/doc.md")) is None
    True
    """
    folder = document.resolve().parent
    for k, here in enumerate((folder, *folder.parents)):
        if k > MAX_LEVELS:
            return None
        if any((here / m).exists() for m in MARKERS) or _symattn_pyproject(here):
            return here
    return None


def _symattn_pyproject(folder: Path) -> bool:
    path = folder / "pyproject.toml"
    try:
        return path.is_file() and "[tool.symattn" in _read(path)
    except (OSError, UnicodeDecodeError, ValueError):
        return False


def _read(path: Path) -> str:
    if path.stat().st_size > MAX_BYTES:
        raise ValueError(f"larger than {MAX_BYTES} bytes")
    return path.read_text(encoding="utf-8")


@dataclass
class SiteFinder:
    """Finds each document's site macros, reading each site's files once."""

    cache: dict[Path, SiteMacros] = field(default_factory=dict)

    def find(self, document: str | os.PathLike[str], text: str | None = None) -> SiteMacros:
        """The site's macros for `document` (its text, when given, for a LaTeX file's own
        `\\input` and `\\usepackage` of local files), nearest last: the site's files, then the
        LaTeX files it loads or the file that loads it."""
        path = Path(document)
        try:
            root = site_root(path)
            site = SiteMacros()
            if root is not None:
                if root not in self.cache:
                    self.cache[root] = _site(root)
                site = self.cache[root]
            if path.suffix.lower() in (".tex", ".ltx") and text is not None:
                site = site.then(_latex(path, text, root))
        except OSError as e:  # a folder that cannot be listed, a file that cannot be looked at
            where = e.filename or path
            return SiteMacros(warnings=(f"{where}: the site's macros not read ({_reason(e)})",))
        return site


def _site(root: Path) -> SiteMacros:
    files: list[Path] = []
    for pattern, _ in _PLACES:
        files.extend(sorted(p for p in root.glob(pattern) if p.is_file()))
    files.extend(_mkdocs_files(root))
    files.extend(_quarto_files(root))
    files.extend(_mdbook_files(root))
    files = _unique(files)
    site = _read_all(root, files[:MAX_FILES], root)
    if len(files) > MAX_FILES:
        left = ", ".join(_shown(f, root) for f in files[MAX_FILES:][:3])
        more = f"{len(files) - MAX_FILES} more files not read (at most {MAX_FILES} a site): {left}"
        site = site.then(
            SiteMacros(warnings=(more + (", ..." if len(files) > MAX_FILES + 3 else ""),))
        )
    return site


def _unique(files: list[Path]) -> list[Path]:
    seen: set[Path] = set()
    out = []
    for f in files:
        key = f.resolve()
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


def _read_all(root: Path, files: list[Path], shown_from: Path) -> SiteMacros:
    macros: list[Macro] = []
    sources: list[MacroSource] = []
    warnings: list[str] = []
    for f in files:
        shown = _shown(f, shown_from)
        try:
            text = _read(f)
        except (OSError, UnicodeDecodeError, ValueError) as e:
            warnings.append(f"{shown}: not read ({_reason(e)})")
            continue
        got = macros_of_file(text, f.name, shown)
        macros.extend(got.macros)
        warnings.extend(got.warnings)
        if got.macros:
            sources.append(MacroSource(shown, len(got.macros)))
    return SiteMacros(str(root), tuple(macros), tuple(sources), tuple(warnings))


def _shown(path: Path, base: Path) -> str:
    try:
        return path.resolve().relative_to(base.resolve()).as_posix()
    except ValueError:
        return str(path)


def _reason(e: Exception) -> str:
    if isinstance(e, UnicodeDecodeError):
        return "not UTF-8 text"
    if isinstance(e, OSError):
        return e.strerror or str(e)
    return str(e)


def _inside(path: Path, root: Path) -> bool:
    return path.resolve().is_relative_to(root.resolve())


def _yaml_value(text: str, key: str) -> str | None:
    m = re.search(rf"^{re.escape(key)}\s*:\s*['\"]?([^'\"#\n]+?)['\"]?\s*(?:#.*)?$", text, re.M)
    return m.group(1).strip() if m else None


def _yaml_list(text: str, key: str) -> list[str]:
    """The items of a top-level or nested YAML list `key:` (`- item` or `- path: item`), or of
    a flow list `key: [a, b]`, or a single value `key: a`."""
    out: list[str] = []
    lines = text.split("\n")
    for k, line in enumerate(lines):
        head = re.match(rf"^(\s*)-?\s*{re.escape(key)}\s*:\s*(.*?)\s*$", line)
        if head is None:
            continue
        rest = head.group(2)
        if rest.startswith("["):
            out.extend(x.strip().strip("'\"") for x in rest.strip("[]").split(",") if x.strip())
            continue
        if rest and not rest.startswith(("#", "|", ">")):
            out.append(rest.strip("'\""))
            continue
        indent = len(head.group(1))
        for entry in lines[k + 1 :]:
            if not entry.strip():
                continue
            if len(entry) - len(entry.lstrip()) < indent or (
                len(entry) - len(entry.lstrip()) == indent and not entry.lstrip().startswith("-")
            ):
                break
            item = re.match(r"^\s*-\s*(?:(?:path|file)\s*:\s*)?['\"]?([^'\"#:]+?)['\"]?\s*$", entry)
            if item:
                out.append(item.group(1))
    return out


def _local(items: list[str], base: Path, root: Path) -> list[Path]:
    out = []
    for item in items:
        if "://" in item or item.startswith("//"):
            continue
        path = (base / item.lstrip("/")) if item.startswith("/") else base / item
        if path.is_file() and _inside(path, root):
            out.append(path)
    return out


def _mkdocs_files(root: Path) -> list[Path]:
    """MkDocs: the local `extra_javascript` files (relative to `docs_dir`), and the HTML of
    the theme's `custom_dir` (its main.html and partials)."""
    config = root / "mkdocs.yml"
    try:
        text = _read(config) if config.is_file() else ""
    except (OSError, UnicodeDecodeError, ValueError):
        return []
    if not text:
        return []
    docs = root / (_yaml_value(text, "docs_dir") or "docs")
    out = _local(_yaml_list(text, "extra_javascript"), docs, root)
    custom = _yaml_value(text, "custom_dir")
    if custom:
        for pattern in ("*.html", "partials/*.html"):
            out.extend(p for p in sorted((root / custom).glob(pattern)) if _inside(p, root))
    return out


def _quarto_files(root: Path) -> list[Path]:
    """Quarto: the files of `include-in-header` (and `include-before-body`)."""
    config = root / "_quarto.yml"
    try:
        text = _read(config) if config.is_file() else ""
    except (OSError, UnicodeDecodeError, ValueError):
        return []
    items = [*_yaml_list(text, "include-in-header"), *_yaml_list(text, "include-before-body")]
    return _local(items, root, root)


def _mdbook_files(root: Path) -> list[Path]:
    """mdBook: `[output.html] additional-js` and `[preprocessor.katex] macros`."""
    config = root / "book.toml"
    try:
        text = _read(config) if config.is_file() else ""
    except (OSError, UnicodeDecodeError, ValueError):
        return []
    items = re.findall(r"""["']([^"']+\.js)["']""", _toml_value(text, "additional-js"))
    macros = re.search(r"""^\s*macros\s*=\s*["']([^"']+)["']""", text, re.M)
    if macros:
        items.append(macros.group(1))
    return _local(items, root, root)


def _toml_value(text: str, key: str) -> str:
    m = re.search(rf"^\s*{re.escape(key)}\s*=\s*(\[[^\]]*\]|.*)$", text, re.M)
    return m.group(1) if m else ""


# ---- LaTeX -------------------------------------------------------------------------------------

_SUFFIXES = {
    "input": (".tex", ""),
    "include": (".tex",),
    "subfile": (".tex", ""),
    "main": ("", ".tex"),
    "usepackage": (".sty",),
    "RequirePackage": (".sty",),
    "documentclass": (".cls",),
}


def _latex(document: Path, text: str, root: Path | None) -> SiteMacros:
    """A LaTeX document's local files: what it loads (`\\input`, `\\include`, `\\usepackage`
    and `\\documentclass` of a file in its folder, and what those load, MAX_LATEX_DEPTH deep),
    and, for a fragment without `\\documentclass`, the preamble of the file in its folder that
    loads it."""
    folder = document.resolve().parent
    bound = root or folder
    files: list[tuple[Path, bool]] = []  # (file, preamble only)
    seen = {document.resolve()}
    if not re.search(r"\\documentclass\b", text):
        for parent in _parents(document, folder):
            if parent.resolve() not in seen:
                seen.add(parent.resolve())
                files.append((parent, True))
                files.extend(_loaded(parent, folder, bound, seen, 1, preamble=True))
    files.extend(_loaded_from(text, folder, bound, seen, 1))
    macros: list[Macro] = []
    sources: list[MacroSource] = []
    warnings: list[str] = []
    for f, preamble in files:
        shown = _shown(f, bound)
        try:
            body = _read(f)
        except (OSError, UnicodeDecodeError, ValueError) as e:
            warnings.append(f"{shown}: not read ({_reason(e)})")
            continue
        got = macros_of_file(latex_preamble(body) if preamble else body, f.name, shown)
        macros.extend(got.macros)
        warnings.extend(got.warnings)
        if got.macros:
            sources.append(MacroSource(shown, len(got.macros)))
    return SiteMacros(str(root) if root else None, tuple(macros), tuple(sources), tuple(warnings))


def _parents(document: Path, folder: Path) -> list[Path]:
    """The .tex files of the fragment's folder with a `\\documentclass` that load it."""
    names = {document.stem, document.name}
    out = []
    for candidate in sorted(folder.glob("*.tex"))[:MAX_LATEX_PARENTS]:
        if candidate.resolve() == document.resolve():
            continue
        try:
            body = _read(candidate)
        except (OSError, UnicodeDecodeError, ValueError):
            continue
        if not re.search(r"\\documentclass\b", body):
            continue
        loads = latex_references(body)
        if any(k in ("input", "include", "subfile") and n.strip() in names for k, n in loads):
            out.append(candidate)
    return out


def _loaded(
    path: Path, folder: Path, bound: Path, seen: set[Path], depth: int, preamble: bool = False
) -> list[tuple[Path, bool]]:
    try:
        body = _read(path)
    except (OSError, UnicodeDecodeError, ValueError):
        return []
    return _loaded_from(latex_preamble(body) if preamble else body, folder, bound, seen, depth)


def _loaded_from(
    text: str, folder: Path, bound: Path, seen: set[Path], depth: int
) -> list[tuple[Path, bool]]:
    if depth > MAX_LATEX_DEPTH:
        return []
    out: list[tuple[Path, bool]] = []
    for kind, name in latex_references(text):
        for suffix in _SUFFIXES[kind]:
            path = folder / f"{name}{suffix}"
            if not path.is_file() or not _inside(path, bound):
                continue
            if path.resolve() in seen:
                break
            seen.add(path.resolve())
            head = kind == "main"  # a subfile's main file: its preamble
            out.extend(_loaded(path, path.parent, bound, seen, depth + 1, preamble=head))
            out.append((path, head))
            break
    return out
