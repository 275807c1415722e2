"""`symattn derive`: files, exit codes, summary, byte stability, and real PDF builds."""

from __future__ import annotations

import argparse
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from symattn.cli import derive
from symattn.derive import document
from symattn.derive.sources import bundled, bundled_root, chapter
from symattn.kernel.errors import ProofError
from symattn.latex import png_is_blank, render_page_png
from symattn.testing import require_tex

CH06 = chapter(bundled_root() / "ch06")
TOKENS = CH06.module("sec61").TOKENS


@pytest.fixture
def tex() -> None:
    require_tex()


@pytest.fixture(scope="session")
def checked():
    """(built units, progress text) from checking every bundled derivation once."""
    err = io.StringIO()
    built = derive._check_all(bundled(), err)
    assert built is not None, err.getvalue()
    return built, err.getvalue()


def derive_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    derive.add_arguments(parser)
    return parser.parse_args(list(argv))


def run_derive(checked, *argv: str) -> tuple[int, str, str]:
    """Run the command on the already-checked sections; (exit code, stdout, stderr)."""
    built, _ = checked
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(derive, "_check_all", lambda _units, _err: built)
        code = derive.run(derive_args(*argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


SYMPY_ISMS = [
    re.compile(r"i_\{1\}"),
    re.compile(r"- 1 \+ d_\{k\}"),
    re.compile(r"\\sum_\{[^{}]*=0\}"),
    re.compile(r"_\{?\d*i_\d"),
    re.compile(r"Indexed|MatSym|Dummy|IndexedBase|\\operatorname\{Sum\}"),
    re.compile(r"K_\{jr\}Q_\{ir\}"),
]


@pytest.fixture(scope="session")
def built(checked, tmp_path_factory):
    out = tmp_path_factory.mktemp("derive")
    code, stdout, stderr = run_derive(checked, "--out", str(out), "--no-pdf")
    return out, code, stdout, stderr


def test_writes_both_documents_and_the_figures(built):
    out, code, stdout, stderr = built
    assert code == 0, stderr
    for lang in ("zh", "en"):
        assert (out / f"chapter6.{lang}.tex").is_file()
        for ext in ("pdf", "png"):
            assert (out / "figures" / f"fig-6-1-weights.{lang}.{ext}").is_file()
    assert "PDFs built: none" in stdout


def test_summary_names_each_kind_of_evidence(built):
    _, _, stdout, _ = built
    for phrase in (
        "proved for all sizes (symbolic):",
        "proved at the explicit sizes shown (symbolic):",
        "checked exactly at explicit sizes only:",
        "witnesses used",
        "files written:",
    ):
        assert phrase in stdout
    assert re.search(r"derivations: 26 \(\d+ steps\) in 6 sections", stdout)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_no_sympy_isms_in_the_tex(built, lang):
    text = (built[0] / f"chapter6.{lang}.tex").read_text(encoding="utf-8")
    for pattern in SYMPY_ISMS:
        assert not pattern.search(text), pattern.pattern


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_worked_example_is_labelled_and_illustrated(built, lang):
    text = (built[0] / f"chapter6.{lang}.tex").read_text(encoding="utf-8")
    for token in TOKENS:
        assert text.count(rf"\text{{{token}}}") >= 4  # rows and columns of two matrices
    assert f"figures/fig-6-1-weights.{lang}.pdf" in text
    assert r"\frac{9}{20}" in text and r"\sum_{r=1}^{64} Q_{ir}K_{jr}" in text
    assert r"\sum_{r=1}^{d_k} Q_{ir}K_{jr}" in text and r"q_i\cdot k_j" in text
    assert r"\sum_{j=1}^{n} a_{ij}V_{ju}" in text and r"\sum_{j=1}^{n} a_{ij}v_j" in text
    assert r"\operatorname{Concat}(Z^{(1)},\ldots,Z^{(H)})W_O" in text
    assert r"\mathbb R^{n\times Hd_v}" in text and r"\mathbb R^{7\times 7}" in text


def test_chinese_document_speaks_chinese(built):
    zh = (built[0] / "chapter6.zh.tex").read_text(encoding="utf-8")
    assert r"\documentclass[fontset=fandol]{ctexart}" in zh
    assert "矩阵乘法的定义" in zh and "任意维度" in zh and "definition of" not in zh


def test_output_is_byte_stable(checked, built, tmp_path):
    code, _, _ = run_derive(checked, "--out", str(tmp_path), "--no-pdf")
    assert code == 0
    for rel in ("chapter6.zh.tex", "chapter6.en.tex", "figures/fig-6-1-weights.zh.pdf"):
        assert (tmp_path / rel).read_bytes() == (built[0] / rel).read_bytes(), rel


def test_printing_does_not_depend_on_the_hash_seed(checked):
    """Re-check section 6.3 in a fresh interpreter with another hash seed: same LaTeX."""
    here = document([checked[0][0][1][2]], "en", None).render_standalone()
    code = (
        "import sys; from symattn.derive import document;"
        "from symattn.derive.sources import bundled_root, section_of;"
        "sec = section_of(bundled_root() / 'ch06' / 'sec63.py');"
        "sys.stdout.write(document([sec], 'en', None).render_standalone())"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    there = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    ).stdout
    assert there == here


def test_lang_zh_writes_only_chinese(checked, tmp_path):
    code, _, _ = run_derive(checked, "--out", str(tmp_path), "--lang", "zh", "--no-pdf")
    assert code == 0
    assert (tmp_path / "chapter6.zh.tex").exists() and not (tmp_path / "chapter6.en.tex").exists()


def test_unwritable_out_dir_is_a_usage_error(checked, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    code, _, err = run_derive(checked, "--out", str(blocker / "sub"), "--no-pdf")
    assert code == 2
    assert err.startswith("symattn derive: cannot write to output directory")


def test_a_failing_derivation_exits_1(monkeypatch, tmp_path):
    def broken(path, on_check=None):
        raise ProofError("step 1 is false: demo")

    monkeypatch.setattr("symattn.cli.derive.section_of", broken)
    err = io.StringIO()
    code = derive.run(derive_args("--out", str(tmp_path), "--no-pdf"), out=io.StringIO(), err=err)
    assert code == 1
    assert "derivation failed in sec61" in err.getvalue() and "step 1 is false" in err.getvalue()
    assert not (tmp_path / "chapter6.zh.tex").exists()


def test_without_tex_writes_tex_and_says_how_to_install(checked, tmp_path, monkeypatch):
    monkeypatch.setattr("symattn.cli.derive.tex_engine_available", lambda: False)
    code, stdout, err = run_derive(checked, "--out", str(tmp_path))
    assert code == 0
    assert "warning: no TeX engine" in err and "texlive-xetex" in err
    assert (tmp_path / "chapter6.en.tex").exists() and not (tmp_path / "chapter6.en.pdf").exists()
    assert "PDFs built: none" in stdout


def test_builds_both_pdfs_and_page_one_has_ink(checked, tmp_path, tex):
    code, stdout, err = run_derive(checked, "--out", str(tmp_path))
    assert code == 0, err
    for lang in ("zh", "en"):
        pdf = tmp_path / f"chapter6.{lang}.pdf"
        assert pdf.is_file() and str(pdf) in stdout
        log = (tmp_path / f"chapter6.{lang}.log").read_text(errors="replace")
        assert "Missing character" not in log
        assert "Overfull \\hbox" not in log  # fit_lines keeps derivations inside the margins
        assert not png_is_blank(render_page_png(pdf, page=1, dpi=60))


def test_cli_contract_defaults():
    args = derive_args()
    assert (args.paths, args.out, args.lang, args.no_pdf) == ([], "build", "all", False)
    with pytest.raises(SystemExit):
        derive_args("--lang", "fr")
    assert isinstance(Path(args.out), Path)
