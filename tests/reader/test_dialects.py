"""The delimiters of every dialect: each read where its renderer reads math, and malformed math
reported only where the renderer fails too, at the place where it fails."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symattn.check import check_text
from symattn.reader.syntax.dialects import detect
from symattn.reader.syntax.scanner import MathSpan, ScanProblem, read, scan


def spans(text: str, name: str = "a.md") -> list[MathSpan]:
    return [s for s in scan(text, name) if isinstance(s, MathSpan)]


def problems(text: str, name: str = "a.md") -> list[ScanProblem]:
    return [s for s in scan(text, name) if isinstance(s, ScanProblem)]


KRAMDOWN = "---\nlayout: post\n---\n"


# --- kramdown: $$ blocks may hold blank lines --------------------------------------------------


def test_kramdown_display_block_with_blank_lines_is_one_formula() -> None:
    text = KRAMDOWN + "Text.\n\n$$\n\nA = QK^T\n\n$$\n\nThen $$B$$ here.\n"
    found = spans(text)
    assert [s.body.strip() for s in found] == ["A = QK^T", "B"]
    assert found[0].display and not found[1].display  # kramdown: $$ inside a paragraph is inline
    assert str(found[0].start) == "6:3" and problems(text) == []


def test_a_stray_dollars_is_reported_on_its_own_line_and_pairs_with_nothing() -> None:
    text = "$$ a = b\n\\end{x} $$\n$$\n\nLet $$c$$ be.\n\n$$\n\nd\n\n$$\n"
    [problem] = problems(KRAMDOWN + text)
    assert problem.position.line == 6 and problem.position.column == 1
    assert [s.body.strip() for s in spans(KRAMDOWN + text)] == ["a = b\n\\end{x}", "c", "d"]


def test_dollars_in_a_paragraph_without_a_closer_is_reported_where_it_is() -> None:
    [problem] = problems("One $$ x\n\nTwo $y$.\n")
    assert (problem.position.line, problem.position.column) == (1, 5)


def test_triple_dollars_is_not_a_delimiter() -> None:
    assert problems("it costs $$$ more") == [] and spans("it costs $$$ more") == []


# --- Markdown-escaped \\( \\) and \\[ \\] -------------------------------------------------------


def test_escaped_delimiters_are_math_with_the_markdown_escapes_undone() -> None:
    text = "Position \\\\(p+k\\\\) and \\\\(\\\\{a\\_1\\\\}\\\\).\n\n\\\\[\\\\frac{1}{N}\\\\]\n"
    found = spans(text)
    assert found[0].body == "p+k" and not found[0].display
    assert found[1].body.replace(" ", "") == "\\{a_1\\}"
    assert found[2].body.strip() == "\\frac{1}{N}" and found[2].display
    assert str(found[0].start) == "1:13"
    assert detect(text, "a.md").escaped


def test_an_escaped_line_break_before_a_bracket_opens_no_display() -> None:
    # `\\\\[4pt]` in an escaped-dialect page renders as `\\[4pt]`, a line break with its
    # spacing: no `\\[` opens there, and nothing is malformed
    text = (
        "Inline \\\\(x\\\\) first.\n\n"
        "\\begin{array}{c|c}\n"
        "& a \\\\\\\\[4pt]\nb & c \\\\\\\\[4pt]\n\\end{array}\n"
    )
    assert problems(text) == []
    assert [s.body for s in spans(text)][0] == "x"


def test_escaped_delimiters_in_code_are_not_math() -> None:
    assert spans("`\\\\(x\\\\)` and\n\n```\n\\\\(y\\\\)\n```\n") == []


def test_an_escaped_opener_without_closer_is_reported() -> None:
    [problem] = problems("see \\\\(x+1 here\n\nnext")
    assert problem.message.startswith("unterminated \\\\(") and str(problem.position) == "1:5"


# --- \[ and \( in Markdown ----------------------------------------------------------------------


@pytest.mark.parametrize("text", ["the \\[CLS] token", "a list \\[a,b,c] here", "\\[x] \\(y)"])
def test_escaped_brackets_are_text_not_math(text: str) -> None:
    assert spans(text) == [] and problems(text) == []


def test_backslash_brackets_that_close_are_math() -> None:
    assert [s.body for s in spans("\\[CLS] then \\[A=QK^T\\] and \\(x\\)")] == ["A=QK^T", "x"]


# --- KaTeX shortcodes (Jekyll, Zola, Hugo) ------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "display"),
    [
        ("{% katex %}A=QK^T{% endkatex %}", False),
        ("{% katex display %}A=QK^T{% endkatex %}", True),
        ("{% katex(block=true) %}A=QK^T{% end %}", True),
        ('{{ katex(body="A=QK^T") }}', False),
        ("{{< katex display >}}A=QK^T{{< /katex >}}", True),
    ],
)
def test_katex_shortcodes_are_math(text: str, display: bool) -> None:
    [span] = spans("Let\n" + text + "\n")
    assert span.body == "A=QK^T" and span.display is display
    assert span.start.line == 2


def test_an_unclosed_katex_shortcode_is_reported_and_dollars_inside_are_not_read_twice() -> None:
    [problem] = problems("{% katex %}A=B\n\ntext")
    assert "endkatex" in problem.message
    assert [s.body for s in spans("{% katex %}$x${% endkatex %}")] == ["$x$"]


# --- LaTeX environments inside or outside $$ ----------------------------------------------------


def test_an_environment_inside_dollars_is_read_as_that_environment() -> None:
    [span] = spans("$$\\begin{align*} A &= QK^T \\end{align*}$$")
    assert span.env == "align*" and span.body.strip() == "A &= QK^T"
    assert span.position_at(span.body.index("A")).column == 18


def test_an_environment_inside_dollars_is_checked() -> None:
    text = "Let $Q=XW_Q$.\n\n$$\\begin{align}\n(QK^T)_{ij} &= q_i\\cdot k_j\n\\end{align}$$\n"
    assert [r.kind for r in check_text(text, "a.md")][-1] == "verified"
    wrong = text.replace("q_i\\cdot k_j", "q_j\\cdot k_i")
    assert [r.kind for r in check_text(wrong, "a.md")][-1] == "false"


@pytest.mark.parametrize("env", ["equation", "equation*", "gather*", "multline", "align"])
def test_environments_outside_dollars(env: str) -> None:
    [span] = spans(f"\\begin{{{env}}}x=1\\end{{{env}}}")
    assert span.env == env and span.body == "x=1"


# --- MyST ---------------------------------------------------------------------------------------


def test_myst_math_directive_is_display_math_without_its_options() -> None:
    text = "Text\n\n```{math}\n:label: eq-att\nA = QK^T\n```\n\n```python\n$x$\n```\n"
    [span] = spans(text)
    assert span.body == "A = QK^T" and span.display and str(span.start) == "5:1"
    assert detect(text, "a.md").name == "myst"


def test_myst_labelled_dollars_block() -> None:
    text = "Text\n\n$$\nA = QK^T\n\nB = A\n$$ (eq-att)\n\nNext $y$.\n"
    assert [s.body.strip() for s in spans(text)] == ["A = QK^T\n\nB = A", "y"]
    assert problems(text) == []


def test_a_code_block_in_a_myst_file_is_not_math() -> None:
    assert spans("```{code-cell}\n$$x$$\n```\n") == []


# --- LaTeX files --------------------------------------------------------------------------------


def test_a_tex_file_is_read_as_latex() -> None:
    text = "\\section{A} price 5\\% $x$ % $y$\n\\[A=B\\]\n"
    assert [s.body for s in spans(text, "notes.tex")] == ["x", "A=B"]
    assert read(text, "notes.tex").dialect.name == "latex"
    assert [p.message[:15] for p in problems("\\[ a", "n.tex")] == ["unterminated \\["]


# --- notebooks ----------------------------------------------------------------------------------


def notebook(*cells: tuple[str, str]) -> str:
    return json.dumps(
        {
            "cells": [{"cell_type": t, "source": s, "metadata": {}} for t, s in cells],
            "nbformat": 4,
            "nbformat_minor": 5,
        },
        indent=1,
    )


def test_a_notebook_reads_its_markdown_cells_only() -> None:
    text = notebook(
        ("markdown", "# T\nLet $Q=XW_Q$.\n"),
        ("code", "s = '$y$'\n"),
        ("markdown", "$$\nA=QK^T\n$$\n"),
    )
    found = read(text, "nb.ipynb")
    assert found.dialect.name == "notebook"
    assert [s.body for s in found.items if isinstance(s, MathSpan)] == ["Q=XW_Q", "\nA=QK^T\n"]
    assert found.notebook is not None and found.notebook.where(5) == (3, 1)


def test_a_notebook_result_names_its_cell() -> None:
    text = notebook(("code", "x"), ("markdown", "Intro\n\n$(QK^T)_{ij}=q_j\\cdot k_i$"))
    [r] = [r for r in check_text(text, "nb.ipynb") if r.kind != "not-a-claim"]
    assert r.kind == "false" and r.location == "nb.ipynb:cell 2:3:2"


def test_math_never_runs_from_one_cell_to_the_next() -> None:
    text = notebook(("markdown", "a $$ b"), ("markdown", "c $$ d"))
    assert len(problems(text, "nb.ipynb")) == 2


def test_a_notebook_that_is_not_json_is_a_problem_not_text() -> None:
    [p] = scan('{"cells": [ $x$', "nb.ipynb")
    assert isinstance(p, ScanProblem) and "invalid JSON" in p.message


# --- the dialect said --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text", "dialect"),
    [
        ("a.md", KRAMDOWN + "x", "kramdown"),
        ("site/_posts/2024-01-01-a.md", "x", "kramdown"),
        ("a.md", "{% raw %}x", "kramdown"),
        ("a.md", "```{math}\nx\n```", "myst"),
        ("a.md", "plain $x$", "markdown"),
        ("a.tex", "x", "latex"),
        ("a.ipynb", "{}", "notebook"),
    ],
)
def test_dialect_detection(name: str, text: str, dialect: str) -> None:
    assert detect(text, name).name == dialect
    assert detect(text, name).describe()


@pytest.mark.parametrize(
    "text",
    [
        "<!-- $x$ -->",
        "<pre>$$x$$</pre>",
        "<code>\\(x\\)</code>",
        "<script>var s = '$x$';</script>",
        "{% highlight python %}\n$x$\n{% endhighlight %}",
    ],
)
def test_what_the_renderer_skips_is_not_math(text: str) -> None:
    assert [s.body for s in spans(text + " and $y$")] == ["y"]


def test_myst_math_role_and_github_dollar_backtick_are_inline_math() -> None:
    found = spans("Role {math}`A=QK^T` and GitHub $`B=A`$ but `C=D` is code.")
    assert [(s.body, s.display) for s in found] == [("A=QK^T", False), ("B=A", False)]
    assert str(found[0].start) == "1:13"


def test_quarto_labelled_dollars_block() -> None:
    text = "Text\n\n$$\nA = QK^T\n\nB = A\n$$ {#eq-att}\n\nNext $y$.\n"
    assert [s.body.strip() for s in spans(text)] == ["A = QK^T\n\nB = A", "y"]


PIECES = [
    "$",
    "$$",
    "\\\\(",
    "\\\\)",
    "\\(",
    "\\)",
    "\\[",
    "\\]",
    "{% katex %}",
    "{% endkatex %}",
    "```{math}\n",
    ":label: a\n",
    "```",
    "\n",
    "\n\n",
    "\\newcommand{\\a}{\\a}",
    "\\def\\b#1{#1\\b}",
    "\\a",
    "\\b{x}",
    "x",
    " ",
    "<pre>",
    "</pre>",
    "{math}`",
    "`",
    "\\begin{align}",
    "\\end{align}",
    "---\n",
    "layout: a\n",
    "\\_",
    "    ",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40), st.sampled_from(["a.md", "a.tex"]))
def test_every_dialect_scan_never_raises_and_stays_in_the_text(
    pieces: list[str], name: str
) -> None:
    text = "".join(pieces)
    for item in scan(text, name):
        if isinstance(item, MathSpan):
            assert 0 <= item.start.offset <= item.end <= len(text)
            assert 0 <= item.position_at(len(item.body)).offset <= len(text)
        else:
            assert 0 <= item.position.offset <= len(text)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(alphabet="$\\()[]x\n` ", max_size=30), max_size=5))
def test_a_notebook_of_any_cells_never_raises(cells: list[str]) -> None:
    text = notebook(*(("markdown", c) for c in cells))
    found = read(text, "n.ipynb")
    assert found.notebook is not None
    for item in found.items:
        offset = item.start.offset if isinstance(item, MathSpan) else item.position.offset
        assert 0 <= offset <= len(found.text)


def test_html_blocks_pair_as_written_even_around_code() -> None:
    text = "`<pre>` is a tag.\n\n<pre>\n\n    $a$ indented\n</pre>\n\n"
    text += "Then $b$ and <pre>$c$</pre> $d$."
    assert [s.body for s in spans(text)] == ["b", "d"]
