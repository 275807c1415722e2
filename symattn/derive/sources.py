"""Where derivations come from: a script, a folder of scripts, or a chapter (folder + chapter.toml).

Scripts are loaded by file path (`importlib.util.spec_from_file_location`), never by eval. Imports
derive.blocks, the kernel and symattn.latex; must not import the reader, check or cli.
"""

from __future__ import annotations

import importlib.util
import sys
import tomllib
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType
from typing import Any

from symattn.derive.blocks import Builder, DerivationError, OnCheck, Section, Text, shown
from symattn.kernel.derivation import Derivation
from symattn.kernel.errors import InputError, SymattnError
from symattn.settings import Notation, load, notation

#: A chapter folder's manifest: its title, section order and output name.
MANIFEST = "chapter.toml"
MANIFEST_KEYS = ("title", "sections", "number", "output", "dims")

_HERE = Path(__file__).resolve().parent
#: Where an installed wheel keeps the bundled chapters (pyproject maps derivations/ here).
PACKAGED = _HERE.parent / "_chapters"
#: Where a source checkout keeps them: derivations/ beside symattn/.
SOURCE = _HERE.parents[1] / "derivations"


class SourceError(InputError):
    """A derivation path cannot be used: missing, not a script, a bad manifest."""


class ScriptError(SymattnError):
    """A derivation script failed while running; the message starts with its file:line."""


@dataclass(frozen=True)
class Unit:
    """One document's sources: section scripts in reading order, its title, its output name.

    >>> u = Unit("notes", Text("笔记", "Notes"), (Path("notes.py"),))
    >>> u.name, u.number
    ('notes', None)
    """

    name: str
    title: Text | None  # None: the script's TITLE, else its section's title (see `titled`)
    scripts: tuple[Path, ...]
    number: str | None = None  # "6": sections are numbered 6.1, 6.2, ... in the standalone
    dims: str | None = None  # the dims the legend names, "n, d, d_k" (None: "every size")
    notation: Notation = Notation()  # [tool.symattn] of the nearest pyproject.toml

    def script(self, stem: str) -> Path:
        for path in self.scripts:
            if path.stem == stem:
                return path
        raise KeyError(stem)

    def module(self, stem: str) -> ModuleType:
        """The script called `stem`, loaded (once) by its file path."""
        return load_script(self.script(stem))

    def sections(self, on_check: OnCheck | None = None) -> list[Section]:
        """Run (and so check) every script, in reading order."""
        return [section_of(path, on_check, self.notation) for path in self.scripts]


_LOADED: dict[tuple[Path, int], ModuleType] = {}


def load_script(path: Path) -> ModuleType:
    """Execute a derivation script from its path (once per version of the file).

    Errors raised while it runs become `ScriptError`/`DerivationError` at its file:line.
    """
    if not path.is_file():
        raise SourceError(f"{path}: no such derivation script")
    key = (path.resolve(), path.stat().st_mtime_ns)
    if key in _LOADED:
        return _LOADED[key]
    name = f"_symattn_derivation_{len(_LOADED)}_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise SourceError(f"{path}: cannot be loaded as a Python script")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses in a script look their module up there
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # a Ctrl-C stays a Ctrl-C
        del sys.modules[name]
        raise located(exc, path) from None
    _LOADED[key] = module
    return module


def script_notation(path: Path, base: Notation) -> Notation:
    """`base` changed by the script's own `NOTATION = {...}`, if it has one."""
    own = getattr(load_script(path), "NOTATION", None)
    if own is None:
        return base
    if not isinstance(own, dict):
        raise SourceError(f"{path}: NOTATION must be a dict of settings")
    return notation(own, f"{path}: NOTATION", base)


def section_of(
    path: Path, on_check: OnCheck | None = None, settings: Notation | None = None
) -> Section:
    """A script's section: `content(on_check)` if it defines one, else its `DERIVATIONS`.

    Its formulas print with `settings` (the defaults when None) and the script's `NOTATION`.
    """
    module = load_script(path)
    style = script_notation(path, settings or Notation()).style()
    try:
        if hasattr(module, "content"):
            section = module.content(on_check)
        elif hasattr(module, "DERIVATIONS"):
            section = _listed(module, path, on_check)
        else:
            raise SourceError(
                f"{path}: defines neither content(on_check) nor DERIVATIONS "
                "(see docs/derive.md, 'Your own derivations')"
            )
    except SourceError:
        raise
    except Exception as exc:  # a Ctrl-C stays a Ctrl-C
        raise located(exc, path) from None
    if not isinstance(section, Section):
        raise SourceError(
            f"{path}: content() returned {type(section).__name__}, not a Section "
            "(end it with `return b.section()`)"
        )
    return replace(section, style=style)


def _listed(module: ModuleType, path: Path, on_check: OnCheck | None) -> Section:
    """The plain form: `DERIVATIONS = [Derivation(...).step(...), ...]`, proved in order."""
    title = _text(getattr(module, "TITLE", path.stem), f"{path}: TITLE")
    b = Builder(path.stem, title, on_check)
    derivations = module.DERIVATIONS
    if not isinstance(derivations, Sequence) or not all(
        isinstance(d, Derivation) for d in derivations
    ):
        raise SourceError(f"{path}: DERIVATIONS must be a list of Derivation objects")
    for d in derivations:
        b.say(d.title, d.title)
        b.prove(d)
    return b.section()


def located(exc: Exception, path: Path) -> SymattnError:
    """`exc` as raised in the script at `path`, with the script's own file:line in front."""
    if isinstance(exc, DerivationError | SourceError):
        return exc
    if isinstance(exc, SyntaxError):
        return ScriptError(f"{shown(str(exc.filename))}:{exc.lineno}: SyntaxError: {exc.msg}")
    site = None
    target = path.resolve()
    for frame, line in traceback.walk_tb(exc.__traceback__):
        if Path(frame.f_code.co_filename).resolve() == target:
            site = (frame.f_code.co_filename, line)
    where = f"{shown(site[0])}:{site[1]}" if site else str(path)
    kind = "" if isinstance(exc, SymattnError) else f"{type(exc).__name__}: "
    return ScriptError(f"{where}: {kind}{exc}")


def _text(value: Any, what: str) -> Text:
    if isinstance(value, Text):
        return value
    if isinstance(value, str):
        return Text(value, value)
    if isinstance(value, dict) and set(value) == {"zh", "en"}:
        return Text(str(value["zh"]), str(value["en"]))
    if isinstance(value, tuple | list) and len(value) == 2:
        return Text(str(value[0]), str(value[1]))
    raise SourceError(f"{what} must be a string, (zh, en) or {{zh = ..., en = ...}}")


def chapter(folder: Path, settings: Notation | None = None) -> Unit:
    """The chapter in `folder`, as its `chapter.toml` orders it; printed with `settings`
    (default: the settings of the pyproject.toml nearest to `folder`).

    >>> ch = chapter(bundled_root() / "ch06")
    >>> ch.name, ch.number, [p.stem for p in ch.scripts][:2]
    ('chapter6', '6', ['sec61', 'sec62'])
    """
    manifest = folder / MANIFEST
    try:
        data = tomllib.loads(manifest.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise SourceError(f"{manifest}: not valid TOML: {exc}") from None
    unknown = sorted(set(data) - set(MANIFEST_KEYS))
    if unknown:
        known = ", ".join(MANIFEST_KEYS)
        raise SourceError(f"{manifest}: unknown key {unknown[0]!r} (known: {known})")
    sections = data.get("sections")
    if not isinstance(sections, list) or not sections:
        raise SourceError(f"{manifest}: `sections` must list the scripts in reading order")
    scripts = []
    for stem in sections:
        path = folder / f"{stem}.py"
        if not path.is_file():
            raise SourceError(f"{manifest}: section {stem!r} has no script {path.name}")
        scripts.append(path)
    number = data.get("number")
    return Unit(
        str(data.get("output", folder.name)),
        _text(data.get("title", folder.name), f"{manifest}: title"),
        tuple(scripts),
        None if number is None else str(number),
        data.get("dims"),
        notation=load(folder) if settings is None else settings,
    )


def unit_for(path: Path) -> Unit:
    """What `symattn derive PATH` builds: a script, a chapter folder, or a folder of scripts."""
    if path.is_file():
        if path.suffix != ".py":
            raise SourceError(f"{path}: a derivation is a Python script (.py)")
        return Unit(path.stem, None, (path,), notation=load(path))
    if path.is_dir():
        if (path / MANIFEST).is_file():
            return chapter(path)
        scripts = tuple(p for p in sorted(path.glob("*.py")) if not p.name.startswith("_"))
        if not scripts:
            raise SourceError(
                f"{path}: no derivation scripts (*.py), no {MANIFEST}, no chapter folders"
            )
        name = path.resolve().name
        return Unit(name, Text(name, name), scripts, notation=load(path))
    raise SourceError(f"{path}: no such file or folder")


def titled(unit: Unit, sections: Sequence[Section]) -> Unit:
    """`unit` with its title: a lone script's `TITLE`, else the title of its first section."""
    if unit.title is not None:
        return unit
    title = getattr(load_script(unit.scripts[0]), "TITLE", None)
    if title is None:
        return replace(unit, title=sections[0].title if sections else Text("", ""))
    return replace(unit, title=_text(title, f"{unit.scripts[0]}: TITLE"))


def units_for(path: Path) -> list[Unit]:
    """`unit_for(path)`, or every chapter of a folder of chapters (`derivations/`)."""
    if path.is_dir() and not (path / MANIFEST).is_file() and not any(path.glob("*.py")):
        chapters = sorted(p for p in path.iterdir() if (p / MANIFEST).is_file())
        if chapters:
            return [chapter(p) for p in chapters]
    return [unit_for(path)]


def bundled_root() -> Path:
    """The bundled chapters: inside the installed package, else derivations/ of the checkout."""
    return PACKAGED if PACKAGED.is_dir() else SOURCE


def bundled() -> list[Unit]:
    """Every bundled chapter (a folder of bundled_root() with a chapter.toml), in name order."""
    root = bundled_root()
    folders = sorted(p for p in root.iterdir() if (p / MANIFEST).is_file()) if root.is_dir() else []
    if not folders:
        raise SourceError(f"no bundled chapters found in {root}")
    settings = load(Path.cwd())  # the user's own settings apply to the bundled chapters too
    return [chapter(f, settings) for f in folders]


__all__ = [
    "MANIFEST",
    "ScriptError",
    "SourceError",
    "Unit",
    "bundled",
    "bundled_root",
    "chapter",
    "load_script",
    "located",
    "script_notation",
    "section_of",
    "titled",
    "unit_for",
    "units_for",
]
