"""The `symattn derive` command: check derivation scripts, write LaTeX (zh, en), build PDFs.

Imports symattn.derive, symattn.latex and kernel.errors; must not import the reader or check.
symattn.cli calls `add_arguments` and `run`. Exit codes: 0 all proved and built, 1 a derivation
or build failed, 2 a usage problem (no such path, a bad manifest, an unwritable output directory).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from symattn.derive import document, tally
from symattn.derive.blocks import Section
from symattn.derive.sources import (
    SourceError,
    Unit,
    bundled,
    script_notation,
    section_of,
    titled,
    units_for,
)
from symattn.kernel.errors import SymattnError
from symattn.latex.build import LatexBuildError, compile_pdf, install_hint, tex_engine_available
from symattn.latex.document import HOST_PACKAGES, Lang
from symattn.settings import HELP, SettingsError

DESCRIPTION = (
    "Check derivation scripts and write them as LaTeX (zh, en): a standalone document and an "
    "\\input-able fragment each, and PDFs. With no PATH: the bundled chapter."
)
EPILOG = (
    """\
examples:
  symattn derive --out build                 the bundled chapter (build/chapter6.{zh,en}.tex)
  symattn derive notes/cross.py --lang en    your own script: build/cross.en.tex and
                                             build/cross.en.fragment.tex (+ cross.en.pdf)
  symattn derive lectures/                   a folder: every *.py in it, or the order its
                                             chapter.toml gives, as one document

A script defines content(on_check) returning a Section (symattn.derive.Builder), or a list
DERIVATIONS of Derivation objects; see docs/derive.md. A fragment needs a XeLaTeX host loading
"""
    + ", ".join(HOST_PACKAGES)
    + "\n\n"
    + HELP
)

LANGS: dict[str, tuple[Lang, ...]] = {"zh": ("zh",), "en": ("en",), "all": ("zh", "en")}
FIGURES_DIR = "figures"
FRAGMENT = "fragment"

Built = list[tuple[Unit, list[Section]]]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `symattn derive`.

    >>> p = argparse.ArgumentParser(); add_arguments(p)
    >>> a = p.parse_args([]); (a.paths, a.out, a.lang, a.no_pdf)
    ([], 'build', None, False)
    """
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="derivation scripts (.py) or folders (default: the bundled chapter)",
    )
    parser.add_argument("--out", default="build", metavar="DIR", help="output directory (build)")
    parser.add_argument(
        "--lang",
        choices=tuple(LANGS),
        default=None,
        help="which documents to write (the lang setting, else all)",
    )
    parser.add_argument("--no-pdf", action="store_true", help="write the .tex only")


def run(args: argparse.Namespace, *, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Check the derivations, write the documents, compile them; return the exit code."""
    out = out or sys.stdout
    err = err or sys.stderr
    lang = getattr(args, "lang", None)
    if lang is not None and lang not in LANGS:
        print(f"symattn derive: unknown --lang {lang!r}; use zh, en or all", file=err)
        return 2
    out_dir = Path(getattr(args, "out", "build"))
    try:
        units = _units([Path(p) for p in getattr(args, "paths", [])])
    except SymattnError as exc:
        print(f"symattn derive: {exc}", file=err)
        return 2
    problem = _prepare(out_dir)
    if problem is not None:
        print(f"symattn derive: {problem}", file=err)
        return 2
    started = time.perf_counter()
    built = _check_all(units, err)
    if isinstance(built, int):
        return built
    checked = time.perf_counter() - started
    written, standalone = _write(built, lang, out_dir, err)
    pdfs, code = ([], 0) if args.no_pdf else _build(standalone, err)
    secs = [s for _, unit_secs in built for s in unit_secs]
    _summary(secs, written, pdfs, checked, time.perf_counter() - started, out)
    return code


def _units(paths: Sequence[Path]) -> list[Unit]:
    """What to build: each PATH, or the bundled chapters; two documents may not share a name."""
    units = [u for p in paths for u in units_for(p)] if paths else bundled()
    seen: dict[str, Unit] = {}
    for u in units:
        if u.name in seen:
            a, b = seen[u.name].scripts[0].parent, u.scripts[0].parent
            raise SourceError(f"two documents would both be called {u.name!r} ({a}, {b})")
        seen[u.name] = u
    return units


def _prepare(out_dir: Path) -> str | None:
    try:
        (out_dir / FIGURES_DIR).mkdir(parents=True, exist_ok=True)
        probe = out_dir / ".symattn-write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        return f"cannot write to output directory {out_dir}: {exc.strerror or exc}"
    return None


def _check_all(units: Sequence[Unit], err: TextIO) -> Built | int:
    """Run every script (the kernel checks each claim); progress on `err`.

    On a failure, the exit code: 1 a claim failed or the script raised, 2 the script is not a
    derivation (neither `content` nor `DERIVATIONS`).
    """
    t0 = time.perf_counter()

    def progress(what: str, status: str) -> None:
        mark = "✗" if status == "FAILED" else "✓"
        print(f"  {mark} {what}: {status} ({time.perf_counter() - t0:.1f} s)", file=err)

    built: Built = []
    for unit in units:
        if len(unit.scripts) == 1:  # a lone script's NOTATION may choose its languages too
            try:
                unit = replace(unit, notation=script_notation(unit.scripts[0], unit.notation))
            except SymattnError as exc:
                print(f"symattn derive: {exc}", file=err)
                return 2 if isinstance(exc, SourceError | SettingsError) else 1
        print(f"{unit.name}: {unit.notation.describe()}", file=err)
        secs = []
        for path in unit.scripts:
            print(f"checking {path.stem} ({path}) ...", file=err, flush=True)
            t1 = time.perf_counter()
            try:
                secs.append(section_of(path, progress, unit.notation))
            except (SourceError, SettingsError) as exc:
                print(f"symattn derive: {exc}", file=err)
                return 2
            except SymattnError as exc:
                print(f"symattn derive: derivation failed in {path.stem} ({path}):", file=err)
                print(f"  {exc}", file=err)
                return 1
            print(f"  {path.stem}: checked in {time.perf_counter() - t1:.1f} s", file=err)
        built.append((titled(unit, secs), secs))
    return built


def _write(
    built: Built, choice: str | None, out_dir: Path, err: TextIO
) -> tuple[list[Path], list[Path]]:
    """Write `<name>.<lang>.tex` (standalone) and `<name>.<lang>.fragment.tex` for each unit.

    The languages: `--lang` if given, else each unit's `lang` setting.
    """
    written, standalone = [], []
    for unit, secs in built:
        for lang in LANGS[choice or unit.notation.lang]:
            doc = document(secs, lang, out_dir / FIGURES_DIR, unit)
            path = out_dir / f"{unit.name}.{lang}.tex"
            path.write_text(doc.render_standalone(), encoding="utf-8")
            # The same blocks for a host to \input; it numbers the sections (figures redrawn
            # identically: they are byte-stable).
            part = document(secs, lang, out_dir / FIGURES_DIR, unit, fragment=True)
            frag = out_dir / f"{unit.name}.{lang}.{FRAGMENT}.tex"
            frag.write_text(part.render_fragment(), encoding="utf-8")
            print(f"wrote {path} and {frag.name}", file=err)
            written += [path, frag]
            standalone.append(path)
    return written, standalone


def _build(standalone: Sequence[Path], err: TextIO) -> tuple[list[Path], int]:
    if not tex_engine_available():
        print(
            "warning: no TeX engine (latexmk + xelatex) found; the .tex files were written "
            f"but not compiled.\n  to build PDFs: {install_hint()}",
            file=err,
        )
        return [], 0
    pdfs = []
    for tex in standalone:
        print(f"compiling {tex.name} with latexmk -xelatex ...", file=err, flush=True)
        try:
            pdfs.append(compile_pdf(tex))
        except LatexBuildError as exc:
            print(f"symattn derive: {exc}", file=err)
            return pdfs, 1
    return pdfs, 0


def _summary(
    secs: Sequence[Section],
    written: Sequence[Path],
    pdfs: Sequence[Path],
    checked: float,
    total: float,
    out: TextIO,
) -> None:
    t = tally(secs)
    w = ", ".join(f"{k} {v}" for k, v in sorted(t.witnesses.items())) or "none"
    lines = [
        f"derivations: {t.derivations} ({t.steps} steps) in {len(secs)} sections, "
        f"checked in {checked:.1f} s",
        f"  proved for all sizes (symbolic): {t.steps_all_sizes} steps",
        f"  proved at the explicit sizes shown (symbolic): {t.steps_explicit} steps",
        f"  checked exactly at explicit sizes only: {t.steps_checked} steps",
        f"  shapes typechecked: {t.shapes}; facts decided: {t.facts}; "
        f"exact checks by code: {t.exact_checks}; sympy computations outside the kernel: "
        f"{t.computations}",
        f"  witnesses used (per step or fact): {w}",
        "files written: " + ", ".join(str(p) for p in written),
        "PDFs built: " + (", ".join(str(p) for p in pdfs) if pdfs else "none"),
        f"total time: {total:.1f} s",
    ]
    print("\n".join(lines), file=out)
