"""The scanner: which math it finds, exact positions, what it ignores, and that it never raises."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symattn.kernel.errors import ParseError, Position
from symattn.reader import MathSpan, ScanProblem, scan


def bodies(text: str, kind: str = "md") -> list[str]:
    return [s.body for s in scan(text, kind=kind) if isinstance(s, MathSpan)]


FOUND = [
    ("md", "a $x$ b", ["x"]),
    ("md", "a $$x$$ b", ["x"]),
    ("md", r"a \(x\) b \[y\]", ["x", "y"]),
    ("md", "$$\nA=B\n$$", ["\nA=B\n"]),
    ("md", "\\begin{align*}\na&=b\n\\end{align*}", ["\na&=b\n"]),
    ("md", "\\begin{equation}x\\end{equation}", ["x"]),
    ("md", "\\begin{gather}x\\end{gather} \\begin{multline*}y\\end{multline*}", ["x", "y"]),
    (
        "md",
        "$Z=\\begin{bmatrix}z_1\\\\z_2\\end{bmatrix}$",
        ["Z=\\begin{bmatrix}z_1\\\\z_2\\end{bmatrix}"],
    ),
    ("md", "costs $5 and $10", []),
    ("md", "from $5 to $6 each", []),
    ("md", "pandoc reads $5, more$ as math", ["5, more"]),
    ("md", r"escaped \$x\$ here", []),
    ("md", "code `$x$` and $y$", ["y"]),
    ("md", "code ``a ` $x$`` and $y$", ["y"]),
    ("md", "```\n$x$\n```\n$y$", ["y"]),
    ("md", "~~~python\n$$x$$\n~~~\n$y$", ["y"]),
    ("md", "````\n```\n$x$\n````\n$y$", ["y"]),
    ("md", "para\n\n    $x$ is code\n\n$y$", ["y"]),
    ("md", "para\n    $x$ continues the paragraph", ["x"]),
    ("md", "% not a comment in markdown $x$", ["x"]),
    ("md", "$x$$y$", ["x", "y"]),
    ("tex", "a $x$ % $y$\n$z$", ["x", "z"]),
    ("tex", r"price 5\% and $x$", ["x"]),
    ("tex", "\\begin{align}\na&=b % why\n\\end{align}", ["\na&=b      \n"]),
    ("tex", "\\begin{verbatim}$x$\\end{verbatim} $y$", ["y"]),
]


@pytest.mark.parametrize(("kind", "text", "expected"), FOUND)
def test_found(kind: str, text: str, expected: list[str]) -> None:
    assert bodies(text, kind) == expected


def test_span_fields() -> None:
    [span] = scan("x \\[a\\]", filename="f.md")
    assert isinstance(span, MathSpan)
    assert (span.display, span.delimiter, span.env, span.filename) == (True, "\\[", None, "f.md")
    [env] = scan("\\begin{align*}a\\end{align*}")
    assert isinstance(env, MathSpan)
    assert (env.display, env.delimiter, env.env) == (True, "\\begin{align*}", "align*")
    [inline] = scan("$a$")
    assert isinstance(inline, MathSpan) and not inline.display


DOC = """# Title

Some `$code$` and $Q=XW_Q$ here.

```
$$ not math $$
```

    $indented$ code

Display:

$$
A = \\operatorname{softmax}
  (QK^T)
$$

Done \\(z_i\\) and $$B$$ ok.
"""


def test_positions_in_a_document() -> None:
    spans = [s for s in scan(DOC, "doc.md") if isinstance(s, MathSpan)]
    assert [s.body.strip()[:4] for s in spans] == ["Q=XW", "A = ", "z_i", "B"]
    assert [str(s.start) for s in spans] == ["3:20", "13:3", "18:8", "18:20"]
    for span in spans:
        assert DOC[span.start.offset : span.start.offset + len(span.body)] == span.body


def test_position_at_crosses_newlines() -> None:
    span = next(s for s in scan(DOC, "doc.md") if isinstance(s, MathSpan) and "QK" in s.body)
    k = span.body.index("QK")
    assert span.position_at(k) == Position(15, 4, span.start.offset + k)
    assert DOC[span.position_at(k).offset : span.position_at(k).offset + 2] == "QK"
    assert span.location(k) == "doc.md:15:4"


def test_columns_count_characters_not_bytes() -> None:
    [span] = scan("患者 $A$")
    assert str(span.start) == "1:5"


@pytest.mark.parametrize(
    ("text", "message", "where"),
    [
        ("a $$ b", "unterminated $$", "1:3"),
        ("a $$ b\n\nc $$", "unterminated $$", "1:3"),
        ("x\n\\[ a", "unterminated \\[", "2:1"),
        ("\\begin{align} a", "unterminated \\begin{align}", "1:1"),
    ],
)
def test_problems_are_reported_not_raised(text: str, message: str, where: str) -> None:
    kind = "tex" if text.startswith("x\n\\[") else "md"  # in Markdown `\[` alone is a bracket
    problems = [p for p in scan(text, kind=kind) if isinstance(p, ScanProblem)]
    assert problems and problems[0].message.startswith(message)
    assert str(problems[0].position) == where
    assert isinstance(problems[0].to_error(), ParseError)


@pytest.mark.parametrize(
    ("name", "text", "kind"),
    [
        ("a.tex", "", "tex"),
        ("a.md", "\\documentclass{article}", "md"),
        ("a.txt", "", "md"),
        ("<string>", "\\documentclass{article}", "tex"),
        ("<string>", "plain", "md"),
    ],
)
def test_kind_auto(name: str, text: str, kind: str) -> None:
    probe = text + "\n% $x$\n"
    found = bodies_auto(probe, name)
    assert found == ([] if kind == "tex" else ["x"])


def bodies_auto(text: str, name: str) -> list[str]:
    return [s.body for s in scan(text, name) if isinstance(s, MathSpan)]


def test_huge_input_is_linear() -> None:
    # Stray delimiters by the ten thousand: each failed search must not be repeated.
    nasty = ("$a " * 10_000 + "\n") * 4 + "\\[" * 10_000 + "`" * 3 + "$$ " * 10_000
    started = time.perf_counter()
    scan(nasty, kind="md")
    scan(nasty, kind="tex")
    assert time.perf_counter() - started < 10.0  # a hang guard, not a benchmark


def test_bytes_are_decoded() -> None:
    assert bodies_auto(b"$x$ \xff", "a.md") == ["x"]  # type: ignore[arg-type]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("$\\`~%[]()\n a{}x" + "\x00"), max_size=300), st.booleans())
def test_scan_never_raises(text: str, tex: bool) -> None:
    for item in scan(text, kind="tex" if tex else "md"):
        if isinstance(item, MathSpan):
            end = item.start.offset + len(item.body)
            assert 0 <= item.start.offset <= end <= len(text)
        else:
            assert 0 <= item.position.offset <= len(text)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=500))
def test_scan_never_raises_on_any_text(text: str) -> None:
    scan(text)


def test_huge_input_of_every_dialect_is_linear() -> None:
    nasty = [
        "\\[" * 20_000 + "\\]",
        "\\(" * 20_000 + "\\)",
        "{% katex %}" * 5_000,
        "<pre>" * 5_000 + "<!--" * 5_000,
        "\n\n$$ a" * 5_000,
        "\\\\(" * 20_000,
        "$\\def\\a{\\a\\a}$ " + "$\\a$ " * 2_000,
    ]
    started = time.perf_counter()
    for text in nasty:
        scan(text, kind="md")
    assert time.perf_counter() - started < 10.0  # a hang guard, not a benchmark


@pytest.mark.parametrize(
    ("text", "body"),
    [
        ("the set $\\lbrace x_i \\rbrace\\_{i=1}^t$ of", "\\lbrace x_i \\rbrace _{i=1}^t"),
        ("weights $\\\\{W_a\\\\}_{a \\in \\{Q, K\\}}$ here", " \\{W_a \\}_{a \\in \\{Q, K\\}}"),
        ("a row break $a \\\\_1$ stays", "a \\\\_1"),
    ],
)
def test_markdown_escapes_in_inline_math(text: str, body: str) -> None:
    """`\\_` and `\\\\{` in inline math are what Markdown leaves of `_` and `\\{`; offsets kept."""
    (span,) = [s for s in scan(text, "a.md") if isinstance(s, MathSpan)]
    assert span.body == body
    assert span.start.column == text.index("$") + 2
    assert len(span.body) == text.index("$", text.index("$") + 1) - text.index("$") - 1


def test_escapes_stay_in_latex_and_display_math() -> None:
    (tex,) = [s for s in scan("$a\\_b$", "a.tex") if isinstance(s, MathSpan)]
    assert tex.body == "a\\_b"
    (display,) = [s for s in scan("$$\na \\\\\n{b}\n$$\n", "a.md") if isinstance(s, MathSpan)]
    assert "\\\\" in display.body


def test_an_escaped_subscript_lets_the_checker_read_the_formula() -> None:
    from symattn.check import check_text

    text = (
        "Let $X\\in\\mathbb{R}^{n\\times d}$ and $W\\_Q\\in\\mathbb{R}^{d\\times k}$; "
        "$XW\\_Q\\in\\mathbb{R}^{n\\times k}$."
    )
    assert [r.kind for r in check_text(text, "a.md")][-1] == "verified"
    wrong = text.replace("{n\\times k}$.", "{k\\times n}$.")
    assert [r.kind for r in check_text(wrong, "a.md")][-1] in ("false", "shape-error")


def test_math_in_an_indented_list_paragraph_is_read() -> None:
    """Four spaces inside a list item continue the item (CommonMark), they are not code."""
    text = "- item\n\n    so $a=b$ and\n\n    $$c=d$$\n\n1. next\n\n        $e$ is code\n"
    bodies = [s.body.strip() for s in scan(text, "a.md") if isinstance(s, MathSpan)]
    assert bodies == ["a=b", "c=d"]


def test_indented_code_and_fences_inside_a_list_stay_code() -> None:
    text = (
        "- item\n\n      $x$ code\n\n  ```\n  $y$ fenced\n  ```\n\n    $z$ text\n\n"
        "after\n\n    $w$\n"
    )
    bodies = [s.body for s in scan(text, "a.md") if isinstance(s, MathSpan)]
    assert bodies == ["z"]
