"""A document's own macros: expanded before reading, with limits, positions kept in the file."""

from __future__ import annotations

import time

import pytest

from symattn.check import check_text
from symattn.reader.syntax.macro_definitions import definitions
from symattn.reader.syntax.macros import Macro, Macros, front_matter_macros
from symattn.reader.syntax.scanner import MathSpan, ScanProblem, scan


def bodies(text: str, name: str = "a.md") -> list[str]:
    return [s.body.strip() for s in scan(text, name) if isinstance(s, MathSpan)]


def guessed(text: str, name: str = "a.md") -> list[list[str]]:
    """Per formula, the commands it uses that nothing defines (read by their use)."""
    return [
        [g.name for g in s.guesses if g.start >= 0]
        for s in scan(text, name)
        if isinstance(s, MathSpan)
    ]


def problems(text: str, name: str = "a.md") -> list[ScanProblem]:
    return [s for s in scan(text, name) if isinstance(s, ScanProblem)]


@pytest.mark.parametrize(
    ("defs", "use", "expanded"),
    [
        ("\\newcommand{\\v}[1]{\\mathbf{#1}}", "\\v{q}+\\v k", "\\mathbf{q}+\\mathbf{k}"),
        ("\\newcommand\\R{\\mathbb{R}}", "x\\in\\R^{n}", "x\\in\\mathbb{R}^{n}"),
        ("\\newcommand{\\s}[2][n]{#1\\times #2}", "\\s{d}, \\s[m]{d}", "n\\times d, m\\times d"),
        ("\\def\\T{^\\top}", "K\\T", "K^\\top"),
        ("\\def\\p#1#2{#1+#2}", "\\p{a}{b}", "a+b"),
        ("\\DeclareMathOperator{\\softmax}{softmax}", "\\softmax(x)", "\\operatorname{softmax}(x)"),
        ("\\newcommand{\\a}{x}\\renewcommand{\\a}{y}", "\\a", "y"),
        ("\\newcommand{\\a}{x}\\providecommand{\\a}{y}", "\\a", "x"),
    ],
)
def test_definitions_expand_in_later_formulas(defs: str, use: str, expanded: str) -> None:
    assert bodies(f"$${defs}$$\n\nThen ${use}$.") == [expanded]


def test_a_macro_name_is_not_a_prefix_of_a_longer_command() -> None:
    assert bodies("$\\newcommand{\\v}{V}$ $\\vec{x} \\v$") == ["\\vec{x} V"]


def test_a_macro_used_before_its_definition_is_left_as_written() -> None:
    text = "$\\v{q}$ then $\\newcommand{\\v}[1]{\\mathbf{#1}}$"
    assert guessed(text) == [["v"]]  # undefined there: only read by its use, and named


def test_a_formula_that_only_defines_is_not_an_item() -> None:
    assert bodies("$$\\newcommand{\\R}{\\mathbb{R}}\\def\\T{^\\top}$$\n\n$x$") == ["x"]


def test_front_matter_macros() -> None:
    text = (
        '---\nmath:\n  macros:\n    "\\\\RR": "\\\\mathbb{R}"\n    v: ["\\\\mathbf{#1}", 1]\n'
        "    bad entry without colon\n---\n$\\v{x}\\in\\RR$"
    )
    assert bodies(text) == ["\\mathbf{x}\\in\\mathbb{R}"]
    assert front_matter_macros("no front matter $x$") == []


def test_tex_preamble_definitions() -> None:
    text = "\\documentclass{article}\n\\newcommand{\\T}{^\\top}\n\\begin{document}$K\\T$\n"
    assert bodies(text, "n.tex") == ["K^\\top"]


def test_positions_point_into_the_original_text() -> None:
    text = "$\\newcommand{\\v}[1]{\\mathbf{#1}}$\nLet $\\v{Q}=X$."
    [span] = [s for s in scan(text) if isinstance(s, MathSpan)]
    assert span.body == "\\mathbf{Q}=X" and span.written == "\\v{Q}=X"
    assert str(span.position_at(span.body.index("="))) == "2:11"
    assert str(span.position_at(0)) == "2:6"
    assert span.end == text.index("$.")


@pytest.mark.parametrize(
    ("defs", "use"),
    [
        ("\\def\\x{\\x}", "\\x"),
        ("\\newcommand{\\a}{\\b}\\newcommand{\\b}{\\a}", "\\a"),
        ("\\def\\x{a\\x}", "\\x"),
        (
            "\\def\\a{\\b\\b}\\def\\b{\\c\\c}\\def\\c{\\d\\d}\\def\\d{\\e\\e}\\def\\e{\\f\\f}"
            "\\def\\f{\\g\\g}\\def\\g{\\h\\h}\\def\\h{\\i\\i}\\def\\i{\\j\\j}"
            "\\def\\j{\\k\\k}\\def\\k{\\l\\l}\\def\\l{\\o\\o}\\def\\o{xxxxxxxxxxxxxxxxxxxxxxxx}",
            "\\a",
        ),
    ],
)
def test_a_macro_that_cannot_be_expanded_is_a_clear_problem_not_a_hang(defs: str, use: str) -> None:
    text = f"$${defs}$$\n\nThen $y = {use}$ here."
    started = time.perf_counter()
    found = problems(text * 3)
    assert time.perf_counter() - started < 5.0
    assert found and ("itself" in found[0].message or "size limit" in found[0].message)
    assert found[0].position.line == 3


def test_a_normal_deep_chain_expands() -> None:
    defs = "".join(f"\\def\\m{chr(97 + k)}{{\\m{chr(98 + k)}}}" for k in range(10)) + "\\def\\mk{z}"
    assert bodies(f"${defs}$ $\\ma$") == ["z"]


def test_definitions_parse_what_they_can() -> None:
    found = [d.macro for d in definitions("\\def\\y#2{} \\def\\z{ok} \\newcommand{\\x}")]
    assert found == [Macro("z", 0, "ok")]


def test_expand_keeps_letters_apart() -> None:
    m = Macros()
    m.add(Macro("T", 0, "\\top"))
    assert m.expand("\\T x")[0] == "\\top x"
    assert m.expand("a\\T{}b")[0] == "a\\top{}b"


def test_macros_let_the_checker_read_the_formula() -> None:
    defs = "$\\newcommand{\\T}{^\\top}\\DeclareMathOperator{\\sm}{softmax}$\n"
    good = defs + "Let $Q=XW_Q$. Then $(QK\\T)_{ij}=q_i\\cdot k_j$."
    assert [r.kind for r in check_text(good, "a.md")] == ["verified", "verified"]
    bad = good.replace("q_i\\cdot k_j", "q_j\\cdot k_i")
    results = check_text(bad, "a.md")
    assert results[-1].kind == "false"
    assert (results[-1].line, results[-1].col) == (2, 21)


def test_macros_of_a_mathjax_configuration_in_the_document() -> None:
    text = (
        '<script>window.MathJax = {tex: {macros: {RR: "\\\\mathbb{R}", '
        'bold: [\'\\\\mathbf{#1}\', 1], "sm": "\\\\operatorname{softmax}"}}};</script>\n\n'
        "$x\\in\\RR^{n}$ and $\\bold{q}$ and $\\sm(x)$"
    )
    assert bodies(text) == ["x\\in\\mathbb{R}^{n}", "\\mathbf{q}", "\\operatorname{softmax}(x)"]


def test_a_macros_map_outside_a_script_or_in_code_defines_nothing() -> None:
    text = 'Write `macros: {RR: "\\\\mathbb{R}"}` in your config.\n\n$\\RR$'
    assert guessed(text) == [["RR"]]  # undefined: only read by its customary meaning
    broken = '<script>MathJax = {tex: {macros: {RR: "\\\\mathbb{R}"</script>\n\n$\\RR$'
    assert guessed(broken) == [["RR"]]


@pytest.mark.parametrize(
    ("defs", "use", "expanded"),
    [
        ("\\gdef \\vect #1 {\\boldsymbol{#1}}", "\\vect{a}", "\\boldsymbol{a}"),
        ("\\def\\p #1 #2 {#1+#2}", "\\p{a}{b}", "a+b"),
        ("\\gdef\\vb{\\vect{b}}\\gdef \\vect #1 {\\mathbf{#1}}", "\\vb", "\\mathbf{b}"),
    ],
)
def test_def_with_spaces_around_its_parameters(defs: str, use: str, expanded: str) -> None:
    """KaTeX's `\\gdef \\name #1 {...}`: the spaces are layout, not delimiters."""
    assert bodies(f"$${defs}$$\n\nThen ${use}$.") == [expanded]


def test_a_delimited_parameter_is_still_refused() -> None:
    assert guessed("$$\\def\\p#1.{#1}$$\n\n$\\p a.$")[-1] == ["p"]  # undefined


@pytest.mark.parametrize(
    ("use", "expanded"),
    [
        ("\\mathbold a + \\mathbold{W}", "\\boldsymbol{a} + \\boldsymbol{W}"),
        ("\\pmb{x}^T \\pmb y", "\\boldsymbol{x}^T \\boldsymbol{y}"),
    ],
)
def test_package_bold_commands_read_as_boldsymbol(use: str, expanded: str) -> None:
    assert bodies(f"Text ${use}$.") == [expanded]
    assert bodies(f"\\documentclass{{book}}\\begin{{document}}${use}$", "a.tex") == [expanded]


def test_a_document_definition_of_a_package_command_wins() -> None:
    text = "$$\\newcommand{\\pmb}[1]{\\mathcal{#1}}$$\n\n$\\pmb{x}$"
    assert bodies(text) == ["\\mathcal{x}"]


def test_package_bold_lets_the_checker_read_the_formula() -> None:
    decl = "Let $\\mathbold Q\\in\\mathbb{R}^{n\\times d}$, so "
    good = decl + "$\\mathbold Q^T\\in\\mathbb{R}^{d\\times n}$."
    assert [r.kind for r in check_text(good, "a.md")][-1] == "verified"
    bad = decl + "$\\mathbold Q^T\\in\\mathbb{R}^{n\\times d}$."
    assert [r.kind for r in check_text(bad, "a.md")][-1] in ("false", "shape-error")
