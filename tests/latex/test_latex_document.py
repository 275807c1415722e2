"""Golden strings: escaping, align* derivations, figure blocks, document rendering."""

from __future__ import annotations

import pytest

from symattn.latex import (
    Document,
    LatexInputError,
    Math,
    chain_lines,
    escape_text,
    render_align,
)
from symattn.latex.document import render_figure, render_prose

TOKENS = ["患者", "服用", "华法林", "后", "出现"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain", "plain"),
        ("W_Q", r"W\_Q"),
        ("50%", r"50\%"),
        ("a & b", r"a \& b"),
        ("#1", r"\#1"),
        ("$5", r"\$5"),
        ("{x}", r"\{x\}"),
        ("~", r"\textasciitilde{}"),
        ("x^2", r"x\textasciicircum{}2"),
        ("\\", r"\textbackslash{}"),
        ("\\{}", r"\textbackslash{}\{\}"),
        ("a\nb", "a b"),
        ("a\n\nb", "a  b"),
        ("由 mul_apply 得", r"由 mul\_apply 得"),
        ("患者、服用", "患者、服用"),
    ],
)
def test_escape_text(text: str, expected: str) -> None:
    assert escape_text(text) == expected


@pytest.mark.parametrize(
    ("prose", "expected"),
    [
        ("a_b", r"a\_b"),
        (Math("a_b"), r"\(a_b\)"),
        (
            ["设 ", Math("Q\\in\\mathbb{R}^{5\\times 64}"), "。"],
            r"设 \(Q\in\mathbb{R}^{5\times 64}\)。",
        ),
        ([], ""),
    ],
)
def test_render_prose(prose: object, expected: str) -> None:
    assert render_prose(prose) == expected  # type: ignore[arg-type]


ALIGN_CASES = [
    (
        [
            ("(QK^{\\mathsf T})_{ij} &= \\sum_{r=1}^{d_k} Q_{ir}K_{jr}", "mul_apply"),
            ("&= q_i\\cdot k_j", None),
        ],
        "en",
        "\\begin{align*}\n"
        "(QK^{\\mathsf T})_{ij} &= \\sum_{r=1}^{d_k} Q_{ir}K_{jr} && \\text{(mul\\_apply)} \\\\\n"
        "&= q_i\\cdot k_j\n"
        "\\end{align*}",
    ),
    (
        [("e_0 &= e_1", "矩阵乘法的定义"), ("&= e_2", ["行向量 ", Math("q_i"), " 的点积"])],
        "zh",
        "\\begin{align*}\n"
        "e_0 &= e_1 && \\text{（矩阵乘法的定义）} \\\\\n"
        "&= e_2 && \\text{（行向量 \\(q_i\\) 的点积）}\n"
        "\\end{align*}",
    ),
    (
        [("A &= \\begin{bmatrix} 1 & 0 \\end{bmatrix}", "50% & more")],
        "en",
        "\\begin{align*}\n"
        "A &= \\begin{bmatrix} 1 & 0 \\end{bmatrix} && \\text{(50\\% \\& more)}\n"
        "\\end{align*}",
    ),
    (
        [("a \\& b &= c", None)],
        "en",
        "\\begin{align*}\na \\& b &= c\n\\end{align*}",
    ),
]


@pytest.mark.parametrize(("lines", "lang", "expected"), ALIGN_CASES)
def test_render_align(lines: list, lang: str, expected: str) -> None:
    assert render_align(lines, lang=lang) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("line", "found"),
    [("e_0 = e_1", 0), ("a &= b && c", 3), ("a &= b & c", 2)],
)
def test_align_line_needs_one_alignment_point(line: str, found: int) -> None:
    with pytest.raises(
        LatexInputError, match=rf"^align line 1 must have exactly one .* found {found}"
    ):
        render_align([(line, None)])


def test_align_needs_lines() -> None:
    with pytest.raises(LatexInputError, match="^an align block needs at least one line"):
        render_align([])


def test_chain_lines_one_step_a_line() -> None:
    lines = chain_lines("z_i", [("\\sum_j a_{ij} v_j", "mul_apply"), ("w", None)], relation="\\le")
    assert lines == [("z_i &\\le \\sum_j a_{ij} v_j", "mul_apply"), ("&\\le w", None)]


def test_chain_lines_needs_steps() -> None:
    with pytest.raises(LatexInputError, match="has no steps"):
        chain_lines("a", [])


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("my heat.pdf", "spaces or TeX special"),
        ("a%b.pdf", "spaces or TeX special"),
        ("a.pdf", None),
    ],
)
def test_figure_path(path: str, message: str | None) -> None:
    if message is None:
        assert "{a.pdf}" in render_figure(path, "c")
    else:
        with pytest.raises(LatexInputError, match=message):
            render_figure(path, "c")


def test_figure_width_is_a_fraction() -> None:
    with pytest.raises(LatexInputError, match=r"in \(0, 1\], got 80"):
        render_figure("a.pdf", "c", 80)


def _small(lang: str, **kwargs: object) -> Document:
    doc = Document(lang, "注意力 & 矩阵" if lang == "zh" else "Attention", "A_B", **kwargs)  # type: ignore[arg-type]
    doc.section("一").paragraph(["设 ", Math("x"), "。"]).display("x^2").align([("a &= b", "定义")])
    return doc


ZH_STANDALONE = r"""\documentclass[fontset=fandol]{ctexart}
\usepackage{amsmath}
\usepackage{amssymb}
\usepackage{mathtools}
\usepackage{graphicx}
\usepackage{booktabs}

\title{注意力 \& 矩阵}
\author{A\_B}
\date{}

\begin{document}
\setlength{\emergencystretch}{3em}
\maketitle

\section{一}

设 \(x\)。
\[
x^2
\]
\begin{align*}
a &= b && \text{（定义）}
\end{align*}

\end{document}
"""


def test_zh_standalone_golden() -> None:
    assert _small("zh").render_standalone() == ZH_STANDALONE


@pytest.mark.parametrize(
    ("lang", "fonts", "head"),
    [
        ("zh", "fandol", ["\\documentclass[fontset=fandol]{ctexart}"]),
        (
            "zh",
            "noto",
            ["\\documentclass[fontset=none]{ctexart}", "\\setCJKmainfont{Noto Serif CJK SC}"],
        ),
        (
            "en",
            "noto",
            [
                "\\documentclass{article}",
                "\\usepackage{xeCJK}",
                "\\setCJKmainfont{Noto Serif CJK SC}",
            ],
        ),
        (
            "en",
            "fandol",
            [
                "\\documentclass{article}",
                "\\usepackage{xeCJK}",
                "\\setCJKmainfont{FandolSong-Regular}",
            ],
        ),
    ],
)
def test_preamble_per_language_and_fonts(lang: str, fonts: str, head: list[str]) -> None:
    lines = _small(lang, cjk_fonts=fonts).render_standalone().splitlines()
    assert [
        line.split("[")[0] if line.startswith("\\setCJK") else line for line in lines[: len(head)]
    ] == head


def test_english_without_chinese_needs_no_xecjk() -> None:
    doc = Document("en", "Scores").paragraph("plain English")
    assert "xeCJK" not in doc.render_standalone()


def test_fragment_has_no_preamble() -> None:
    fragment = _small("zh").render_fragment()
    assert fragment.splitlines()[:3] == [
        "% symattn fragment: 注意力 & 矩阵",
        "% host preamble: XeLaTeX with amsmath, amssymb, mathtools, graphicx, booktabs",
        "% and Chinese text: ctexart/ctexbook class, or the ctex or xeCJK package",
    ]
    assert "\\documentclass" not in fragment and "\\begin{document}" not in fragment


def test_rendering_is_byte_stable() -> None:
    assert _small("zh").render_standalone() == _small("zh").render_standalone()
    doc = _small("en")
    assert doc.render_standalone() == doc.render_standalone()
    assert doc.render_fragment() == doc.render_fragment()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"lang": "fr"}, "unknown document language 'fr'"),
        ({"lang": "zh", "cjk_fonts": "x"}, "unknown CJK font set"),
    ],
)
def test_document_rejects_unknown_options(kwargs: dict, message: str) -> None:
    with pytest.raises(LatexInputError, match=message):
        Document(title="t", **kwargs)


def test_an_unnumbered_heading_and_a_long_display_that_may_break():
    doc = Document("en", "T")
    doc.subsubsection("Mistake").align([("a &= b", None), ("&= c", None)])
    assert doc.render_fragment().endswith(
        "\\subsubsection*{Mistake}\n\n\\begin{align*}\na &= b \\\\\n&= c\n\\end{align*}\n"
    )
    long = Document("en", "T").align([("a &= b", None)], breakable=True).render_fragment()
    assert "\\begingroup\\allowdisplaybreaks\n\\begin{align*}" in long
    assert long.endswith("\\end{align*}\n\\endgroup\n")
