"""The scan for ASCII formulas in the text of a built page (tests/cli/tex_text.py)."""

from __future__ import annotations

import pytest
from tex_text import raw_math, text_mode


@pytest.mark.parametrize(
    "tex",
    [
        r"\subsubsection*{the current token (j <= i, not j < i)}",
        r"\begin{align*} a &= b && \text{(rows 1..i of \(A\))} \end{align*}",
        r"\[ x \text{ for h >= 2} \]",
        r"head ceil(h/R) reads it",
        r"\text{scaled by 1/sqrt(d)}",
        r"a map n -> m",
    ],
)
def test_an_ascii_formula_in_text_is_found(tex: str) -> None:
    assert raw_math(tex)


@pytest.mark.parametrize(
    "tex",
    [
        r"\subsubsection*{the current token (\(j \le i\), not \(j < i\))}",
        r"\begin{align*} a &\le b && \text{(rows \(1,\ldots,i\) of \(A\))} \end{align*}",
        r"\( x_{1..n} <= y \) and $a -> b$ and \[ \lceil h/R \rceil \]",
        r"and so on... to the end",
    ],
)
def test_formulas_set_as_math_pass(tex: str) -> None:
    assert raw_math(tex) == []


def test_text_inside_math_is_kept_and_its_math_dropped() -> None:
    assert "by " in text_mode(r"\[ a = b \quad \text{by \(x->y\)} \]")
    assert "->" not in text_mode(r"\[ a = b \quad \text{by \(x->y\)} \]")
