"""Compiling a .tex file with latexmk/XeLaTeX and looking at the result (page PNG, blank check).

Runs external tools only (latexmk, xelatex, pdftoppm); imports nothing from symattn but
kernel.errors, and must not import a front end.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import numpy as np

from symattn.kernel.errors import SymattnError

_APT_LINE = (
    "sudo apt-get install -y texlive-xetex texlive-lang-chinese texlive-latex-recommended "
    "latexmk fonts-noto-cjk poppler-utils"
)
_LOG_CONTEXT_LINES = 4


class LatexBuildError(SymattnError):
    """TeX could not turn a .tex file into a PDF (or a page into a PNG); says where and why."""


def install_hint() -> str:
    """How to get the TeX engine and tools this module runs.

    >>> "texlive-lang-chinese" in install_hint()
    True
    """
    return (
        f"on Debian/Ubuntu: {_APT_LINE}\n"
        "elsewhere: install TeX Live (or MacTeX) with XeLaTeX, latexmk, ctex and xeCJK, the "
        "Fandol or Noto CJK fonts, and poppler's pdftoppm; see docs/latex.md"
    )


def tex_engine_available() -> bool:
    """True when both ``latexmk`` and ``xelatex`` are on PATH.

    >>> isinstance(tex_engine_available(), bool)
    True
    """
    return shutil.which("latexmk") is not None and shutil.which("xelatex") is not None


def _require(tool: str) -> str:
    found = shutil.which(tool)
    if found is None:
        raise LatexBuildError(f"{tool} not found on PATH\n  hint: {install_hint()}")
    return found


_FILE_LINE_ERROR = re.compile(r"^(?P<where>\S[^:\n]*:\d+): (?P<what>.+)$")


def first_log_error(log: str) -> str | None:
    """The first error of a ``-file-line-error`` log with a few lines of TeX's context.

    >>> log = "(./a.tex\\n./a.tex:7: Undefined control sequence.\\nl.7 \\\\foo\\n\\n"
    >>> print(first_log_error(log))
    ./a.tex:7: Undefined control sequence.
    l.7 \\foo
    """
    lines = log.splitlines()
    for start, line in enumerate(lines):
        if _FILE_LINE_ERROR.match(line) or line.startswith("! "):
            context = []
            for follow in lines[start + 1 : start + 1 + _LOG_CONTEXT_LINES]:
                if not follow.strip():
                    break
                context.append(follow)
            return "\n".join([line, *context])
    return None


def _run(args: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    """Run in its own process group so a timeout also stops xelatex, not only latexmk."""
    with subprocess.Popen(
        args,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
        start_new_session=True,
    ) as proc:
        try:
            out, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise
        return subprocess.CompletedProcess(args, proc.returncode, out, None)


def _failure_message(tex_path: Path, output: str) -> str:
    log_path = tex_path.with_suffix(".log")
    log = log_path.read_text(errors="replace") if log_path.exists() else ""
    error = first_log_error(log) or first_log_error(output)
    if error is None:
        tail = "\n".join(output.strip().splitlines()[-_LOG_CONTEXT_LINES:])
        error = f"no TeX error line found; latexmk said:\n{tail}"
    indented = "\n".join("  " + line for line in error.splitlines())
    return f"LaTeX failed to build {tex_path.name}:\n{indented}\n  full log: {log_path}"


def compile_pdf(tex_path: Path, *, timeout: float = 180) -> Path:
    """Build ``tex_path`` with ``latexmk -xelatex`` in its own directory; return the PDF path.

    Raises ``LatexBuildError`` quoting the first ``file:line: error`` of the log, on a timeout,
    or when the engine is missing (with ``install_hint()``).
    """
    tex_path = Path(tex_path).resolve()
    if not tex_path.is_file():
        raise LatexBuildError(f"no such .tex file: {tex_path}")
    _require("xelatex")
    args = [_require("latexmk"), "-xelatex", "-interaction=nonstopmode", "-halt-on-error"]
    args += ["-file-line-error", tex_path.name]
    try:
        done = _run(args, tex_path.parent, timeout)
    except subprocess.TimeoutExpired:
        raise LatexBuildError(
            f"LaTeX did not finish {tex_path.name} within {timeout:g} s and was stopped; "
            f"see {tex_path.with_suffix('.log')}"
        ) from None
    pdf = tex_path.with_suffix(".pdf")
    if done.returncode != 0 or not pdf.is_file():
        raise LatexBuildError(_failure_message(tex_path, done.stdout))
    return pdf


def render_page_png(pdf: Path, page: int = 1, dpi: int = 100) -> Path:
    """Render one page to ``<stem>-p<page>.png`` beside the PDF with ``pdftoppm``."""
    pdf = Path(pdf).resolve()
    stem = pdf.with_name(f"{pdf.stem}-p{page}")
    args = [_require("pdftoppm"), "-png", "-r", str(dpi), "-f", str(page), "-l", str(page)]
    done = subprocess.run(
        [*args, "-singlefile", str(pdf), str(stem)],
        capture_output=True,
        text=True,
        errors="replace",
        timeout=120,
        check=False,
    )
    png = stem.with_name(stem.name + ".png")  # the stem may contain dots (chapter6.zh-p1)
    if done.returncode != 0 or not png.is_file():
        raise LatexBuildError(
            f"pdftoppm could not render page {page} of {pdf}: {done.stderr.strip()}"
        )
    return png


def png_is_blank(png: Path, *, min_ink: float = 1e-4) -> bool:
    """True when fewer than ``min_ink`` of the pixels differ clearly from the background.

    Reads the PNG with matplotlib (the ``figures`` extra).
    """
    try:
        from matplotlib.image import imread
    except ImportError:
        raise LatexBuildError(
            "png_is_blank needs matplotlib: pip install 'symattn[figures]'"
        ) from None

    pixels = np.asarray(imread(str(png)), dtype=float)
    if pixels.max() > 1.0:  # integer image types come back as 0..255
        pixels = pixels / 255.0
    gray = pixels[..., :3].mean(axis=-1) if pixels.ndim == 3 else pixels
    ink = np.abs(gray - np.median(gray)) > 0.25
    return bool(ink.mean() < min_ink)


def render_pages_png(pdf: Path, dpi: int = 60) -> list[Path]:
    """Render every page to ``<stem>-page-<k>.png`` beside the PDF with ``pdftoppm``, in order."""
    pdf = Path(pdf).resolve()
    stem = pdf.with_name(f"{pdf.stem}-page")
    done = subprocess.run(
        [_require("pdftoppm"), "-png", "-r", str(dpi), str(pdf), str(stem)],
        capture_output=True,
        text=True,
        errors="replace",
        timeout=300,
        check=False,
    )
    pages = sorted(
        pdf.parent.glob(f"{stem.name}-*.png"), key=lambda p: int(p.stem.rsplit("-", 1)[1])
    )
    if done.returncode != 0 or not pages:
        raise LatexBuildError(f"pdftoppm could not render {pdf}: {done.stderr.strip()}")
    return pages


def ink_lines(png: Path, *, min_ink: float = 0.002) -> int:
    """How many lines of ink a page holds: bands of rows with ink, split by blank rows.

    A line of text, a display line, a header or a page number each make one band; a figure
    makes one tall band. Reads the PNG with matplotlib (the ``figures`` extra).
    """
    try:
        from matplotlib.image import imread
    except ImportError:
        raise LatexBuildError(
            "ink_lines needs matplotlib: pip install 'symattn[figures]'"
        ) from None

    pixels = np.asarray(imread(str(png)), dtype=float)
    if pixels.max() > 1.0:
        pixels = pixels / 255.0
    gray = pixels[..., :3].mean(axis=-1) if pixels.ndim == 3 else pixels
    inked = (np.abs(gray - np.median(gray)) > 0.25).mean(axis=1) > min_ink
    starts = np.flatnonzero(inked[1:] & ~inked[:-1]).size + int(bool(inked[0]))
    return int(starts)
