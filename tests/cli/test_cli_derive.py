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
from tex_text import raw_math

from symattn.cli import derive, main
from symattn.derive import document
from symattn.derive.sources import bundled, bundled_root, chapter
from symattn.kernel.errors import ProofError
from symattn.latex import png_is_blank, render_page_png
from symattn.latex.build import compile_pdf, ink_lines, render_pages_png
from symattn.testing import require_tex

#: every test here shares one check of all the bundled derivations (about 40 s)
pytestmark = pytest.mark.slow

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
    assert not isinstance(built, int), err.getvalue()
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
    # chapters 6 (26 derivations, 6 sections), 7 (18, 7 sections) and 8 (4, 7 sections)
    assert re.search(r"derivations: 48 \(\d+ steps\) in 20 sections", stdout)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_no_sympy_isms_in_the_tex(built, lang):
    text = (built[0] / f"chapter6.{lang}.tex").read_text(encoding="utf-8")
    for pattern in SYMPY_ISMS:
        assert not pattern.search(text), pattern.pattern


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("number", [6, 7, 8])
def test_no_ascii_formula_in_headings_prose_or_justifications(built, number, lang):
    tex = (built[0] / f"chapter{number}.{lang}.tex").read_text(encoding="utf-8")
    assert raw_math(tex) == []


def test_figures_are_set_at_the_end_of_their_section(built):
    """A float set where it was added can land between a derivation and the one continuing it;
    set after the section's last block, it stays between sections."""
    for tex in sorted(built[0].glob("chapter*.tex")):
        text = tex.read_text(encoding="utf-8")
        for m in re.finditer(r"\\end\{figure\}\s*", text):
            rest = text[m.end() :]
            assert rest.startswith(("\\section", "\\begin{figure}", "\\end{document}")) or not (
                rest.strip()
            ), f"{tex.name}: a figure inside a section: {rest[:60]!r}"


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


def test_progress_lines_show_formulas_as_a_terminal_can(checked):
    _, progress = checked
    lines = [x for x in progress.splitlines() if x.lstrip().startswith(("✓", "✗"))]
    assert lines
    # no command with its backslash stripped (`circmathit`, `operatorname{`, `ldots`)
    assert not [x for x in lines if re.search(r"mathit|operatorname|ldots|circ[A-Za-z]|\\", x)]
    assert any("∘" in x for x in lines)


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
    def broken(path, on_check=None, settings=None):
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


@pytest.mark.slow
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
    for lang in ("zh", "en"):
        log = (tmp_path / f"chapter7.{lang}.log").read_text(errors="replace")
        assert "Missing character" not in log  # λ and ℓ are set as math, not as text glyphs
        assert "Overfull \\hbox" not in log  # head blocks print as a text writes them
        tex_source = (tmp_path / f"chapter7.{lang}.tex").read_text(encoding="utf-8")
        for raw in ("ceil(", "..", "d\\_k", "mathit{ell}", "λ"):
            assert raw not in tex_source, f"{raw!r} in chapter7.{lang}.tex"
    for lang in ("zh", "en"):
        log = (tmp_path / f"chapter8.{lang}.log").read_text(errors="replace")
        assert "Missing character" not in log  # the circle of the entrywise product, ∘, is math
        assert "Overfull \\hbox" not in log
        assert not png_is_blank(render_page_png(tmp_path / f"chapter8.{lang}.pdf", page=1, dpi=60))
    for lang, caption in (("zh", "图 1"), ("en", "Figure 1")):
        assert _text_after_figure(tmp_path / f"chapter6.{lang}.pdf", caption, "6.2") == ""
    for pdf in sorted(tmp_path.glob("chapter*.pdf")):
        counts = [ink_lines(png) for png in render_pages_png(pdf, dpi=60)]
        assert counts[-1] >= 2, f"the last page of {pdf.name} is blank"
        thin = [k for k, c in enumerate(counts[:-1], start=1) if c < MIN_LINES_ON_A_PAGE]
        assert not thin, f"{pdf.name}: pages {thin} hold fewer than {MIN_LINES_ON_A_PAGE} lines"


def _page_texts(pdf: Path) -> list[str]:
    """The text of each page of a PDF (poppler's pdftotext, installed with pdftoppm)."""
    done = subprocess.run(
        ["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True
    )
    return done.stdout.split("\f")


def _text_after_figure(pdf: Path, caption: str, next_section: str) -> str:
    """The first line of text below a figure on its page, unless it is the next section's
    heading (or only the page number): "" when the figure is set where its section ends."""
    page = next(p for p in _page_texts(pdf) if caption in p)
    below = page[page.index(caption) :].splitlines()[1:]
    lines = [x.strip() for x in below if x.strip() and not x.strip().isdigit()]
    return "" if not lines or lines[0].startswith(next_section) else lines[0]


#: A page of a chapter (but its last) holds at least this many lines of ink: header, text, page
#: number. A derivation pushed whole to the next page leaves no page this empty.
MIN_LINES_ON_A_PAGE = 8


def test_cli_contract_defaults():
    args = derive_args()
    assert (args.paths, args.out, args.lang, args.no_pdf) == ([], "build", None, False)
    with pytest.raises(SystemExit):
        derive_args("--lang", "fr")
    assert isinstance(Path(args.out), Path)


# ---- your own derivations: `symattn derive PATH` ------------------------------------------

DERIVE_DOC = Path(__file__).resolve().parents[2] / "docs" / "derive.md"


def lecture_source() -> str:
    """The lecturer's script of docs/derive.md, exactly as the page shows it."""
    text = DERIVE_DOC.read_text(encoding="utf-8")
    after = text[text.index("<!-- example: cross_attention.py -->") :]
    return after.split("```python\n", 1)[1].split("\n```\n", 1)[0] + "\n"


def run_paths(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = derive.run(derive_args(*argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def write_script(folder: Path, name: str, source: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(source, encoding="utf-8")
    return path


def line_of(source: str, needle: str) -> int:
    (number,) = [k for k, line in enumerate(source.splitlines(), 1) if needle in line]
    return number


@pytest.fixture(scope="module")
def lecture(tmp_path_factory):
    root = tmp_path_factory.mktemp("lecture")
    script = write_script(root / "notes", "cross_attention.py", lecture_source())
    out = root / "build"
    code, stdout, stderr = run_paths(str(script), "--out", str(out), "--no-pdf")
    return script, out, code, stdout, stderr


def test_a_lecturers_script_builds_fragments_documents_and_figures(lecture):
    script, out, code, stdout, stderr = lecture
    assert code == 0, stderr
    for lang in ("zh", "en"):
        assert (out / f"cross_attention.{lang}.tex").is_file()
        assert (out / f"cross_attention.{lang}.fragment.tex").is_file()
        assert (out / "figures" / f"cross-weights.{lang}.pdf").is_file()
    assert f"checking cross_attention ({script}) ..." in stderr
    assert re.search(r"cross_attention: checked in \d+\.\d s", stderr)
    assert re.search(r"derivations: 4 \(5 steps\) in 1 sections", stdout)
    assert "proved for all sizes (symbolic): 5 steps" in stdout  # the padding step too
    assert "checked exactly at explicit sizes only: 0 steps" in stdout


def test_the_fragment_holds_the_shapes_the_mask_and_each_justification(lecture):
    _, out, _, _, _ = lecture
    frag = (out / "cross_attention.en.fragment.tex").read_text(encoding="utf-8")
    assert "\\documentclass" not in frag and "\\thesection" not in frag
    assert frag.startswith("% symattn fragment: Cross-attention and a padding mask\n")
    for shape in (
        r"K = MW_K &\in \mathbb R^{m\times d_k}",
        r"V = MW_V &\in \mathbb R^{m\times d_v}",
        r"QK^{\mathsf T} &\in \mathbb R^{n\times m}",
        r"A &\in \mathbb R^{n\times m}",
        r"Z = AV &\in \mathbb R^{n\times d_v}",
    ):
        assert shape in frag, shape
    assert (
        r"(QK^{\mathsf T})_{ij} &= \sum_{r=1}^{d_k} Q_{ir}K_{jr} && "
        r"\text{(entry of a product with a transpose; \(\checkmark\) all sizes)}"
    ) in frag
    assert r"\text{(definition of the dot product; \(\checkmark\) all sizes)}" in frag
    assert r"(the weights in a row of a softmax sum to 1; \(\checkmark\) all sizes)" in frag
    assert r"(a row of \(AV\) is a weighted sum of rows of \(V\); \(\checkmark\) all sizes)" in frag
    assert r"\sum_{j=1}^{m} \operatorname{softmax}" in frag
    # the padding mask as cases; proved for all sizes since the kernel cuts a mask [j <= L]
    # inside a sum up to L + P (L <= L + P for every size), so the note says "all sizes"
    assert "\\begin{cases}\n" in frag and r"& j \le L \\" in frag
    assert r"0 & \text{otherwise}" in frag and r"\sum_{j=1}^{L + P}" in frag
    assert r"(algebra; \(\checkmark\) all sizes)" in frag and "exact at" not in frag
    assert r"\includegraphics[width=0.6\linewidth]{figures/cross-weights.en.pdf}" in frag
    zh = (out / "cross_attention.zh.fragment.tex").read_text(encoding="utf-8")
    assert r"\text{其他}" in zh and "与转置相乘的元素" in zh and "填充位置" in zh
    assert "figures/cross-weights.zh.pdf" in zh


@pytest.mark.parametrize(
    ("lang", "documentclass"),
    [("en", r"\documentclass{article}"), ("zh", r"\documentclass[fontset=fandol]{ctexart}")],
)
def test_the_fragment_compiles_inside_a_host_document(lecture, tex, lang, documentclass):
    _, out, _, _, _ = lecture
    host = out / f"host-{lang}.tex"
    host.write_text(
        f"{documentclass}\n\\usepackage{{amsmath,amssymb,mathtools,graphicx,booktabs}}\n"
        "\\begin{document}\nLecture notes.\n"
        f"\\input{{cross_attention.{lang}.fragment.tex}}\n\\end{{document}}\n",
        encoding="utf-8",
    )
    pdf = compile_pdf(host)
    log = (out / f"host-{lang}.log").read_text(errors="replace")
    assert "Undefined control sequence" not in log and "LaTeX Warning: File" not in log
    assert "Missing character" not in log
    assert not png_is_blank(render_page_png(pdf, page=1, dpi=60))


def test_the_standalone_documents_compile(lecture, tex):
    script, _, _, _, _ = lecture
    out = script.parent.parent / "pdf"
    code, stdout, stderr = run_paths(str(script), "--out", str(out), "--lang", "zh")
    assert code == 0, stderr
    assert (out / "cross_attention.zh.pdf").is_file() and not (
        out / "cross_attention.en.tex"
    ).exists()
    assert str(out / "cross_attention.zh.pdf") in stdout


@pytest.mark.parametrize(
    ("right", "wrong", "message"),
    [
        (
            '.step(Dot(Q.row(i), K.row(j)), by="dot_def")',
            '.step(Dot(Q.row(j), K.row(i)), by="dot_def")',
            # (i runs over the n queries, K has m rows: the swapped rows do not exist)
            r"cross: cross score: step 2 does not typecheck: cross score, step 2 \(dot_def\)",
        ),
        (
            '.step(sympy.Integer(1), by="sum_softmax_apply")',
            '.step(sympy.Integer(1), by="softmax_rowsum")',
            r"cross: weights over the memory: step 1 holds but does not follow from "
            r"softmax_rowsum",
        ),
    ],
    ids=["false step", "wrong rule"],
)
def test_a_wrong_step_is_reported_at_the_lecturers_file_and_line(tmp_path, right, wrong, message):
    source = lecture_source()
    assert right in source
    source = source.replace(right, wrong)
    script = write_script(tmp_path / "notes", "cross_attention.py", source)
    code, _, err = run_paths(str(script), "--out", str(tmp_path / "build"), "--no-pdf")
    assert code == 1
    where = f"{script}:{line_of(source, wrong)}: "
    assert re.search(re.escape(where) + message, err), err
    assert "derivation failed in cross_attention" in err
    if "false" in message:
        assert "counterexample: at sizes" in err
    assert not (tmp_path / "build" / "cross_attention.en.tex").exists()


def test_a_script_runs_on_its_own(tmp_path):
    script = write_script(tmp_path, "cross_attention.py", lecture_source())
    env = {**os.environ, "PYTHONPATH": str(Path(derive.__file__).resolve().parents[2])}
    ok = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env)
    assert ok.returncode == 0, ok.stderr
    assert "cross score:\n    (QK^T)_{ij}\n" in ok.stdout and "[dot_def; symbolic" in ok.stdout
    assert "cross: 4 derivations, 5 steps checked (5 for all sizes" in ok.stdout
    bad = lecture_source().replace('by="dot_def")', 'by="mul_apply")')
    script.write_text(bad, encoding="utf-8")
    failed = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env)
    assert failed.returncode == 1
    line = line_of(bad, 'by="mul_apply")')
    assert f"{script}:{line}: cross: cross score: step 2 holds but does not follow" in failed.stderr


def test_a_plain_list_of_derivations_is_a_document(tmp_path):
    script = write_script(
        tmp_path,
        "scores.py",
        "import sympy\n"
        "from symattn import Derivation, Dot, index, single_head\n"
        "s = single_head()\n"
        'i, j = index("i"), index("j")\n'
        'TITLE = ("分数", "Scores")\n'
        "DERIVATIONS = [\n"
        '    Derivation(s.scores[i, j], title="score is a dot product")\n'
        '    .step(Dot(s.Q.row(i), s.K.row(j)), by="mul_transpose_apply_dot"),\n'
        "]\n",
    )
    code, stdout, err = run_paths(str(script), "--out", str(tmp_path / "b"), "--no-pdf")
    assert code == 0, err
    en = (tmp_path / "b" / "scores.en.tex").read_text(encoding="utf-8")
    assert r"\title{Scores}" in en and "score is a dot product" in en
    assert r"(QK^{\mathsf T})_{ij} &= q_i\cdot k_j" in en
    zh = (tmp_path / "b" / "scores.zh.tex").read_text(encoding="utf-8")
    assert r"\title{分数}" in zh
    assert "derivations: 1 (1 steps) in 1 sections" in stdout


def test_a_folder_without_a_manifest_builds_its_scripts_in_name_order(tmp_path):
    folder = tmp_path / "lecture7"
    body = (
        "from symattn import Derivation, index, single_head\n"
        "s = single_head()\n"
        'i, j = index("i"), index("j")\n'
        'TITLE = "{t}"\n'
        'DERIVATIONS = [Derivation(s.scores[i, j], title="{t}")'
        '.step(s.scores[i, j], by="algebra")]\n'
    )
    write_script(folder, "b_second.py", body.replace("{t}", "second part"))
    write_script(folder, "a_first.py", body.replace("{t}", "first part"))
    write_script(folder, "_helpers.py", "raise RuntimeError('not a section')\n")
    code, _, err = run_paths(str(folder), "--out", str(tmp_path / "b"), "--lang", "en", "--no-pdf")
    assert code == 0, err
    en = (tmp_path / "b" / "lecture7.en.tex").read_text(encoding="utf-8")
    assert en.index(r"\section{first part}") < en.index(r"\section{second part}")


@pytest.mark.parametrize(
    ("manifest", "message"),
    [
        ('sections = ["a"]\ncolour = "red"\n', r"chapter.toml: unknown key 'colour' \(known: "),
        ('sections = ["a", "missing"]\n', r"chapter.toml: section 'missing' has no script"),
        ("sections = []\n", r"chapter.toml: `sections` must list the scripts"),
        ('sections = ["a"\n', r"chapter.toml: not valid TOML"),
    ],
    ids=["unknown key", "missing script", "no sections", "bad toml"],
)
def test_a_bad_manifest_is_a_usage_error_naming_the_file(tmp_path, manifest, message):
    folder = tmp_path / "ch"
    write_script(folder, "a.py", "DERIVATIONS = []\n")
    (folder / "chapter.toml").write_text(manifest, encoding="utf-8")
    code, _, err = run_paths(str(folder), "--out", str(tmp_path / "b"), "--no-pdf")
    assert code == 2
    assert re.search(r"^symattn derive: " + re.escape(str(folder)) + "/" + message, err), err


def test_a_chapter_folder_follows_its_manifest(tmp_path):
    folder = tmp_path / "ch7"
    body = (
        "from symattn import Derivation, index, single_head\n"
        "s = single_head()\n"
        'i, j = index("i"), index("j")\n'
        'DERIVATIONS = [Derivation(s.scores[i, j], title="{t}").step(s.scores[i, j], by="def")]\n'
    )
    write_script(folder, "a.py", body.replace("{t}", "part a"))
    write_script(folder, "b.py", body.replace("{t}", "part b"))
    (folder / "chapter.toml").write_text(
        'title = { zh = "第 7 章", en = "Chapter 7" }\nnumber = 7\noutput = "chapter7"\n'
        'sections = ["b", "a"]\n',
        encoding="utf-8",
    )
    code, _, err = run_paths(str(folder), "--out", str(tmp_path / "b"), "--no-pdf")
    assert code == 0, err
    en = (tmp_path / "b" / "chapter7.en.tex").read_text(encoding="utf-8")
    assert r"\title{Chapter 7}" in en and r"\renewcommand{\thesection}{7.\arabic{section}}" in en
    assert en.index(r"\section{b}") < en.index(r"\section{a}")
    frag = (tmp_path / "b" / "chapter7.en.fragment.tex").read_text(encoding="utf-8")
    assert "thesection" not in frag


@pytest.mark.parametrize(
    ("source", "code", "message"),
    [
        ("x = 1\n", 2, r"defines neither content\(on_check\) nor DERIVATIONS"),
        (
            "import sympy\n\nundefined_name + 1\n",
            1,
            r"notes\.py:3: NameError: name 'undefined_name'",
        ),
        (
            "def content(on_check=None):\n    return 42\n",
            2,
            r"content\(\) returned int, not a Section",
        ),
        ("def f(:\n", 1, r"notes\.py:1: SyntaxError"),
    ],
    ids=["not a derivation", "python error", "not a section", "syntax error"],
)
def test_a_script_that_is_not_a_derivation_gets_a_clear_message(tmp_path, source, code, message):
    script = write_script(tmp_path, "notes.py", source)
    got, _, err = run_paths(str(script), "--out", str(tmp_path / "b"), "--no-pdf")
    assert got == code
    assert re.search(message, err), err
    assert "Traceback" not in err


def test_missing_paths_and_clashing_names_are_usage_errors(tmp_path):
    code, _, err = run_paths(str(tmp_path / "nope.py"), "--out", str(tmp_path / "b"))
    assert code == 2 and err.startswith(f"symattn derive: {tmp_path / 'nope.py'}: no such file")
    write_script(tmp_path / "x", "notes.py", "DERIVATIONS = []\n")
    write_script(tmp_path / "y", "notes.py", "DERIVATIONS = []\n")
    paths = (str(tmp_path / "x" / "notes.py"), str(tmp_path / "y" / "notes.py"))
    code, _, err = run_paths(*paths, "--out", str(tmp_path / "b"))
    assert code == 2 and "two documents would both be called 'notes'" in err


# ---- notation settings ----------------------------------------------------------------------


def test_pyproject_settings_change_the_printed_formulas(tmp_path):
    project = tmp_path / "course"
    (project / "notes").mkdir(parents=True)
    (project / "pyproject.toml").write_text(
        '[project]\nname = "course"\n\n[tool.symattn]\ntranspose = "top"\nlang = "en"\n'
        'operators = { softmax = "\\\\mathrm{softmax}" }\n',
        encoding="utf-8",
    )
    script = write_script(project / "notes", "cross_attention.py", lecture_source())
    code, _, err = run_paths(str(script), "--out", str(tmp_path / "b"), "--no-pdf")
    assert code == 0, err
    assert f"notation: transpose=top, softmax=\\mathrm{{softmax}}, lang=en ({project}" in err
    assert not (tmp_path / "b" / "cross_attention.zh.tex").exists()  # lang = "en"
    frag = (tmp_path / "b" / "cross_attention.en.fragment.tex").read_text(encoding="utf-8")
    assert r"(QK^{\top})_{ij} &= \sum_{r=1}^{d_k} Q_{ir}K_{jr}" in frag
    assert r"\mathrm{softmax}\left(\frac{QK^{\top}}{\sqrt{d_k}}\right)" in frag
    assert r"\mathsf T" not in frag.split("\\section", 1)[1].replace("QK^{\\mathsf T} &\\in", "")
    # without the settings, the same script prints the defaults
    code, _, err = run_paths(
        str(write_script(tmp_path / "plain", "cross_attention.py", lecture_source())),
        "--out",
        str(tmp_path / "c"),
        "--no-pdf",
        "--lang",
        "en",
    )
    assert code == 0 and "notation: defaults" in err
    plain = (tmp_path / "c" / "cross_attention.en.fragment.tex").read_text(encoding="utf-8")
    assert r"(QK^{\mathsf T})_{ij} &= \sum_{r=1}^{d_k} Q_{ir}K_{jr}" in plain


def test_a_scripts_notation_renames_letters_and_picks_its_language(tmp_path):
    source = lecture_source().replace(
        'TITLE = ("', 'NOTATION = {"names": {"r": "s"}, "lang": "zh"}\nTITLE = ("', 1
    )
    script = write_script(tmp_path, "cross_attention.py", source)
    code, _, err = run_paths(str(script), "--out", str(tmp_path / "b"), "--no-pdf")
    assert code == 0, err
    assert not (tmp_path / "b" / "cross_attention.en.tex").exists()
    zh = (tmp_path / "b" / "cross_attention.zh.fragment.tex").read_text(encoding="utf-8")
    assert r"\sum_{s=1}^{d_k} Q_{is}K_{js}" in zh and r"Q_{ir}" not in zh
    code, _, _ = run_paths(str(script), "--out", str(tmp_path / "c"), "--no-pdf", "--lang", "en")
    assert code == 0 and (tmp_path / "c" / "cross_attention.en.tex").exists()  # --lang wins


@pytest.mark.parametrize(
    ("where", "text", "message"),
    [
        (
            "pyproject",
            '[tool.symattn]\ntranspos = "top"\n',
            r"pyproject.toml \[tool.symattn\]: unknown setting 'transpos'; "
            r"did you mean 'transpose'",
        ),
        (
            "pyproject",
            '[tool.symattn]\ntranspose = "dagger"\n',
            r"transpose = 'dagger'; use one of mathsf, top, T",
        ),
        (
            "script",
            'NOTATION = {"language": "en"}\n',
            r"cross_attention.py: NOTATION: unknown setting 'language'",
        ),
    ],
    ids=["unknown key", "unknown value", "unknown key in a script"],
)
def test_a_bad_setting_is_a_usage_error_naming_where(tmp_path, where, text, message):
    source = lecture_source()
    if where == "pyproject":
        (tmp_path / "pyproject.toml").write_text(text, encoding="utf-8")
    else:
        source = text + source
    script = write_script(tmp_path, "cross_attention.py", source)
    code, _, err = run_paths(str(script), "--out", str(tmp_path / "b"), "--no-pdf")
    assert code == 2
    assert re.search(message, err), err
    assert not (tmp_path / "b" / "cross_attention.en.tex").exists()


def test_the_settings_are_shown_in_the_help(capsys):
    with pytest.raises(SystemExit):
        main(["derive", "--help"])
    shown = capsys.readouterr().out
    assert "notation settings: [tool.symattn] in the nearest pyproject.toml" in shown
    assert 'transpose = "mathsf" | "top" | "T"' in shown and 'lang = "zh" | "en" | "all"' in shown


def test_a_folder_of_chapters_builds_each(tmp_path):
    body = (
        "from symattn import Derivation, index, single_head\n"
        "s = single_head()\n"
        'i, j = index("i"), index("j")\n'
        'DERIVATIONS = [Derivation(s.scores[i, j], title="t").step(s.scores[i, j], by="def")]\n'
    )
    for name in ("ch1", "ch2"):
        write_script(tmp_path / "book" / name, "a.py", body)
        (tmp_path / "book" / name / "chapter.toml").write_text(
            f'output = "{name}"\nsections = ["a"]\n', encoding="utf-8"
        )
    (tmp_path / "empty").mkdir()
    code, _, err = run_paths(str(tmp_path / "book"), "--out", str(tmp_path / "b"), "--no-pdf")
    assert code == 0, err
    assert (tmp_path / "b" / "ch1.en.tex").is_file() and (tmp_path / "b" / "ch2.zh.tex").is_file()
    code, _, err = run_paths(str(tmp_path / "empty"), "--out", str(tmp_path / "b"))
    assert code == 2 and "no derivation scripts (*.py), no chapter.toml, no chapter folders" in err
