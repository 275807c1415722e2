"""Markdown escapes in display math (`\\_` for a subscript, `\\*` for a star): read as the
author meant them in Markdown texts, never in LaTeX. A true and a false use of each."""

from __future__ import annotations

import pytest
from claim_helpers import kinds, results

from symattn.reader.syntax.escapes import markdown_escapes
from symattn.reader.syntax.scanner import scan

QK = "Let $Q, K \\in \\mathbb{R}^{n \\times d}$.\n\n"


def test_an_escaped_underscore_before_a_subscript_is_a_subscript() -> None:
    assert kinds(QK + "$$\n(QK^T)\\_{ij} = q\\_i \\cdot k\\_j\n$$\n") == ["verified"]
    assert kinds(QK + "$$\n(QK^T)\\_{ij} = q\\_j \\cdot k\\_i\n$$\n") == ["false"]


def test_an_escaped_star_is_a_product() -> None:
    assert kinds("Let $n = 3$.\n\n$$\n2 \\* n = 6\n$$\n") == ["verified"]
    assert kinds("Let $n = 3$.\n\n$$\n2 \\* n = 7\n$$\n") == ["false"]


def test_positions_stay_in_the_file() -> None:
    (found,) = results(QK + "$$\n(QK^T)\\_{ij} = q\\_j \\cdot k\\_i\n$$\n")
    assert found.location == "doc.md:4:1"


def test_latex_keeps_its_own_meaning() -> None:
    # in a .tex file `\_` is the printed underscore: not a subscript
    (span,) = scan("\\[ (QK^T)\\_{ij} = 1 \\]", "doc.tex")
    assert "\\_" in span.body


@pytest.mark.parametrize(
    ("written", "read"),
    [
        (r"\mathbf{p}\_j", r"\mathbf{p} _j"),
        (r"\text{n}\_\text{heads}", r"\text{n} _\text{heads}"),
        (r"\alpha\_0 + x\_{i}", r"\alpha _0 + x _{i}"),
        (r"num\_heads", r"num\_heads"),  # an identifier of code: TeX prints the underscore
        (r"a \\_ b", r"a \\_ b"),  # a line break, then `_`
    ],
)
def test_which_underscores_are_subscripts(written: str, read: str) -> None:
    assert markdown_escapes(written) == read
    assert len(markdown_escapes(written)) == len(written)


def test_a_display_in_a_block_quote_loses_the_quote_marks() -> None:
    sizes = "Let $n = 5$ and $d = 4$.\n\n"
    true = sizes + "> Quoted:\n> $$\n> 2 \\cdot d = 8 \\\\\n> n + d = 9\n> $$\n"
    assert kinds(true) == ["verified", "verified"]
    false = sizes + "> Quoted:\n> $$\n> 2 \\cdot d = 8 \\\\\n> n + d = 10\n> $$\n"
    assert kinds(false) == ["verified", "false"]
    assert results(false)[1].location == "doc.md:6:3"


def test_a_greater_sign_outside_a_block_quote_stays() -> None:
    (span,) = scan("$$\n> a\n$$\n", "doc.md")
    assert span.body == "\n> a\n"
