"""The `symattn derive` command: check every derivation, write chapter6.{zh,en}.tex, build PDFs.

Imports symattn.derivations, symattn.latex and kernel.errors; must not import the reader or
check. symattn.cli calls
`add_arguments` and `run`. Exit codes: 0 all proved and built, 1 a derivation or build failed,
2 a usage problem (e.g. the output directory cannot be written).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from symattn.derivations import SECTION_MODULES, document, module, tally
from symattn.derivations.blocks import Section
from symattn.kernel.errors import SymattnError
from symattn.latex.build import LatexBuildError, compile_pdf, install_hint, tex_engine_available
from symattn.latex.document import Lang

DESCRIPTION = "Check every derivation of the chapter, write it as LaTeX (zh, en) and build PDFs."
EPILOG = "example:\n  symattn derive --out build --lang all\n"

LANGS: dict[str, tuple[Lang, ...]] = {"zh": ("zh",), "en": ("en",), "all": ("zh", "en")}
FIGURES_DIR = "figures"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `symattn derive`.

    >>> p = argparse.ArgumentParser(); add_arguments(p)
    >>> a = p.parse_args([]); (a.out, a.lang, a.no_pdf)
    ('build', 'all', False)
    """
    parser.add_argument("--out", default="build", metavar="DIR", help="output directory (build)")
    parser.add_argument(
        "--lang", choices=tuple(LANGS), default="all", help="which documents to write (all)"
    )
    parser.add_argument("--no-pdf", action="store_true", help="write the .tex only")


def run(args: argparse.Namespace, *, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Check the derivations, write the documents, compile them; return the exit code."""
    out = out or sys.stdout
    err = err or sys.stderr
    langs = LANGS.get(getattr(args, "lang", "all"))
    if langs is None:
        print(f"symattn derive: unknown --lang {args.lang!r}; use zh, en or all", file=err)
        return 2
    out_dir = Path(getattr(args, "out", "build"))
    problem = _prepare(out_dir)
    if problem is not None:
        print(f"symattn derive: {problem}", file=err)
        return 2
    started = time.perf_counter()
    secs = _check_all(err)
    if secs is None:
        return 1
    checked = time.perf_counter() - started
    written = _write(secs, langs, out_dir, err)
    pdfs, code = ([], 0) if args.no_pdf else _build(written, err)
    _summary(secs, written, pdfs, checked, time.perf_counter() - started, out)
    return code


def _prepare(out_dir: Path) -> str | None:
    try:
        (out_dir / FIGURES_DIR).mkdir(parents=True, exist_ok=True)
        probe = out_dir / ".symattn-write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        return f"cannot write to output directory {out_dir}: {exc.strerror or exc}"
    return None


def _check_all(err: TextIO) -> list[Section] | None:

    t0 = time.perf_counter()

    def progress(what: str, status: str) -> None:
        mark = "✗" if status == "FAILED" else "✓"
        print(f"  {mark} {what}: {status} ({time.perf_counter() - t0:.1f} s)", file=err)

    secs = []
    for name in SECTION_MODULES:
        mod = module(name)
        print(f"checking {name} ...", file=err, flush=True)
        try:
            secs.append(mod.content(progress))
        except SymattnError as exc:
            print(f"symattn derive: derivation failed in {name}:\n  {exc}", file=err)
            return None
    return secs


def _write(
    secs: Sequence[Section], langs: Sequence[Lang], out_dir: Path, err: TextIO
) -> list[Path]:

    written = []
    for lang in langs:
        doc = document(secs, lang, out_dir / FIGURES_DIR)
        path = out_dir / f"chapter6.{lang}.tex"
        path.write_text(doc.render_standalone(), encoding="utf-8")
        print(f"wrote {path}", file=err)
        written.append(path)
    return written


def _build(written: Sequence[Path], err: TextIO) -> tuple[list[Path], int]:

    if not tex_engine_available():
        print(
            "warning: no TeX engine (latexmk + xelatex) found; the .tex files were written "
            f"but not compiled.\n  to build PDFs: {install_hint()}",
            file=err,
        )
        return [], 0
    pdfs = []
    for tex in written:
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
