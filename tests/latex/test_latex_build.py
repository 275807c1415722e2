"""Real builds: zh and en documents through latexmk/XeLaTeX, page 1 to PNG, build errors."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

import symattn.latex.build as build
from symattn.latex import (
    Document,
    LatexBuildError,
    Math,
    compile_pdf,
    labelled_matrix,
    png_is_blank,
    render_page_png,
)
from symattn.latex.figures import attention_heatmap

TOKENS = ["患者", "服用", "华法林", "后", "出现"]


def causal_weights() -> np.ndarray:
    raw = np.tril(np.arange(1, 26, dtype=float).reshape(5, 5))
    return raw / raw.sum(axis=1, keepdims=True)


def chapter_document(lang: str, fonts: str, figure: Path) -> Document:
    zh = lang == "zh"
    doc = Document(lang, "注意力的矩阵形式" if zh else "Attention as matrices", cjk_fonts=fonts)  # type: ignore[arg-type]
    doc.section("逐元素展开" if zh else "Entries of the scores")
    doc.paragraph(
        [
            "五个词元 患者、服用、华法林、后、出现 给出 " if zh else "The five tokens give ",
            Math("Q, K \\in \\mathbb{R}^{5\\times 64}"),
            "。" if zh else ".",
        ]
    )
    doc.derivation(
        "(QK^{\\mathsf T})_{ij}",
        [
            (
                "\\sum_{r=1}^{d_k} Q_{ir}K_{jr}",
                "矩阵乘法的定义 mul_apply" if zh else "definition, mul_apply",
            ),
            (
                "q_i\\cdot k_j",
                ["行向量 ", Math("q_i"), " 与 ", Math("k_j"), " 的点积"] if zh else "dot product",
            ),
        ],
    )
    cells = [[f"{w:.2f}" for w in row] for row in causal_weights()]
    doc.display(labelled_matrix(cells, TOKENS, TOKENS))
    doc.figure(figure.name, "因果掩码下的注意力权重" if zh else "Causal attention weights", 0.7)
    return doc


@pytest.mark.slow
@pytest.mark.parametrize(
    ("lang", "fonts"), [("zh", "fandol"), ("en", "noto"), ("zh", "noto"), ("en", "fandol")]
)
def test_document_compiles_and_renders(tex: None, tmp_path: Path, lang: str, fonts: str) -> None:
    pdf_fig, _ = attention_heatmap(causal_weights(), TOKENS, TOKENS, tmp_path / "heat", lang=lang)  # type: ignore[arg-type]
    source = chapter_document(lang, fonts, pdf_fig).render_standalone()
    tex_path = tmp_path / f"doc_{lang}.tex"
    tex_path.write_text(source, encoding="utf-8")
    start = time.perf_counter()
    pdf = compile_pdf(tex_path)
    print(f"{lang}/{fonts}: compiled in {time.perf_counter() - start:.1f} s")
    log = tex_path.with_suffix(".log").read_text(errors="replace")
    assert "Missing character" not in log  # a missing glyph would print as tofu
    png = render_page_png(pdf, page=1, dpi=60)
    assert png.name == f"doc_{lang}-p1.png"
    assert not png_is_blank(png)


def test_rendered_source_is_byte_stable(tmp_path: Path) -> None:
    figure = tmp_path / "heat.pdf"
    first = chapter_document("zh", "fandol", figure).render_standalone().encode()
    assert first == chapter_document("zh", "fandol", figure).render_standalone().encode()


def test_latex_error_is_quoted_with_file_and_line(tex: None, tmp_path: Path) -> None:
    doc = Document("en", "Broken").paragraph("fine").raw("\\undefinedmacro")
    tex_path = tmp_path / "broken.tex"
    tex_path.write_text(doc.render_standalone(), encoding="utf-8")
    with pytest.raises(LatexBuildError, match=r"^LaTeX failed to build broken\.tex:") as caught:
        compile_pdf(tex_path)
    message = str(caught.value)
    line = doc.render_standalone().splitlines().index("\\undefinedmacro") + 1
    assert f"broken.tex:{line}: Undefined control sequence." in message
    assert "\\undefinedmacro" in message
    assert len(message.splitlines()) < 10  # the first error, not the whole log


# a TeX run; test_latex_error_is_quoted_with_file_and_line runs TeX in the fast loop
@pytest.mark.slow
def test_timeout_stops_tex(tex: None, tmp_path: Path) -> None:
    tex_path = tmp_path / "loop.tex"
    tex_path.write_text(Document("en", "Loop").raw("\\def\\x{\\x}\\x").render_standalone())
    start = time.perf_counter()
    with pytest.raises(LatexBuildError, match=r"did not finish loop\.tex within 3 s"):
        compile_pdf(tex_path, timeout=3)
    assert time.perf_counter() - start < 30


# a TeX run; test_latex_error_is_quoted_with_file_and_line runs TeX in the fast loop
@pytest.mark.slow
def test_blank_page_is_blank(tex: None, tmp_path: Path) -> None:
    tex_path = tmp_path / "empty.tex"
    tex_path.write_text(
        "\\documentclass{article}\\pagestyle{empty}\\begin{document}\\null\\end{document}\n"
    )
    assert png_is_blank(render_page_png(compile_pdf(tex_path), dpi=40))


# a TeX run; test_latex_error_is_quoted_with_file_and_line runs TeX in the fast loop
@pytest.mark.slow
def test_missing_page_is_a_build_error(tex: None, tmp_path: Path) -> None:
    tex_path = tmp_path / "one.tex"
    tex_path.write_text(Document("en", "One").paragraph("x").render_standalone())
    with pytest.raises(LatexBuildError, match="^pdftoppm could not render page 9"):
        render_page_png(compile_pdf(tex_path), page=9)


def test_missing_engine_gives_install_hint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tex_path = tmp_path / "a.tex"
    tex_path.write_text("x")
    monkeypatch.setattr(build.shutil, "which", lambda name: None)
    assert not build.tex_engine_available()
    with pytest.raises(
        LatexBuildError, match=r"^xelatex not found on PATH\n  hint: on Debian/Ubuntu: sudo apt-get"
    ):
        compile_pdf(tex_path)


def test_missing_tex_file(tmp_path: Path) -> None:
    with pytest.raises(LatexBuildError, match="^no such .tex file"):
        compile_pdf(tmp_path / "nope.tex")


@pytest.mark.parametrize(
    ("env", "outcome"), [("1", pytest.fail.Exception), ("", pytest.skip.Exception)]
)
def test_missing_engine_fails_under_ci(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, env: str, outcome: type
) -> None:
    monkeypatch.setattr(build.shutil, "which", lambda name: None)
    monkeypatch.setenv("SYMATTN_REQUIRE_TEX", env)
    with pytest.raises(outcome, match="no TeX engine"):
        request.getfixturevalue("tex")


@pytest.mark.parametrize(("ink", "blank"), [(0, True), (1, True), (400, False)])
def test_png_is_blank_counts_ink(tmp_path: Path, ink: int, blank: bool) -> None:
    from matplotlib.image import imsave

    page = np.ones((100, 100))
    page.flat[:ink] = 0.0
    imsave(tmp_path / "p.png", page, cmap="gray", vmin=0, vmax=1)
    assert png_is_blank(tmp_path / "p.png", min_ink=1e-3) is blank


@pytest.mark.parametrize("lines", [0, 1, 3, 12])
def test_ink_lines_counts_the_bands_of_ink_on_a_page(tmp_path: Path, lines: int) -> None:
    from matplotlib.image import imsave

    page = np.ones((200, 120))
    for k in range(lines):
        page[10 + 15 * k : 18 + 15 * k, 10:100] = 0.0  # a line of "text" 8 rows high
    imsave(tmp_path / "p.png", page, cmap="gray", vmin=0, vmax=1)
    assert build.ink_lines(tmp_path / "p.png") == lines


# a TeX run; test_latex_error_is_quoted_with_file_and_line runs TeX in the fast loop
@pytest.mark.slow
def test_render_pages_png_renders_every_page_in_order(tmp_path: Path, tex: None) -> None:
    tex_path = tmp_path / "two.tex"
    body = "\\documentclass{article}\\begin{document}one\\newpage two\\newpage\\end{document}\n"
    tex_path.write_text(body, encoding="utf-8")
    pages = build.render_pages_png(compile_pdf(tex_path), dpi=30)
    assert [p.name for p in pages] == ["two-page-1.png", "two-page-2.png"]
    assert all(build.ink_lines(p) >= 1 for p in pages)
