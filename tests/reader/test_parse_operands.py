"""Names written as words (`\\text{scores}`, `\\mathrm{scores}`, `\\mathit{dO}`), the bar of a
condition (`p(a \\mid b)`), ceilings and floors, and conditions of cases after `\\quad`: golden
trees, and the prose that must stay prose."""

from __future__ import annotations

import pytest

from symattn.kernel.errors import ParseError
from symattn.reader.syntax import ast
from symattn.reader.syntax.parse import parse_formula

GOLDEN = [
    # a word where a value stands is one name, like a multi-letter identifier
    (r"y = \text{softmax}(\text{scores})V", r"[y = (* softmax(\text{scores}) V)]"),
    (r"\mathrm{scores} = QK^T", r"[\text{scores} = (* Q (T K))]"),
    (r"\operatorname{cost} = 2", r"[\text{cost} = 2]"),
    (r"t = \frac{\text{Total Bytes}}{B}", r"[t = (frac \text{Total Bytes} B)]"),
    (
        r"c = 2 \cdot \text{bytes per float} \cdot H",
        r"[c = (2 \cdot \text{bytes per float} \cdot H)]",
    ),
    (r"T_\text{HBM comms} = 1", r"[T_{\text{HBM comms}} = 1]"),
    (r"\log p(\text{next token}_i)", r"[log((* p (group \text{next token}_{i})))]"),
    (r"x_{1:L} = [\text{[CLS]}, A]", r"[x_{(* 1 \colon L)} = (bracket \text{[CLS]}, A)]"),
    # one letter in an upright font is the letter: `\sqrt{\text{d}_k}` is the root of d_k
    (r"\sqrt{\text{d}_k}", r"[(sqrt \mathrm{d}_{k})]"),
    (r"\text{Q} = \mathrm{Q}", r"[\mathrm{Q} = \mathrm{Q}]"),
    (r"d_{\text{k}}", r"[d_{\text{k}}]"),
    # a differential is one name: the gradient of O (of a loss the text does not name)
    (r"\mathit{dO} = \mathrm{d}O", r"[(grad ∇ O) = (grad ∇ O)]"),
    (r"\mathit{dx} = \text{dX}_1", r"[\text{dx} = (grad ∇ X_{1})]"),
    # the bar of a condition: a function of its own (`p|`), never `p(a, b)` nor an absolute value
    (r"p(a \mid b)", r"[p|(a, b)]"),
    (r"p(a|b) = p(a, b)", r"[p|(a, b) = (* p (group a, b))]"),
    (r"p_\theta(x_i \vert x_{1:i-1})", r"[p|_{\theta}(x_{i}, x_{((* 1 \colon i) - 1)})]"),
    (r"P(a \mid \tilde x)", r"[P|(a, \tilde{x})]"),
    (r"(a |b|)", "[(group (* a (abs b)))]"),
    (r"f(|x|)", "[(* f (group (abs x)))]"),
    # a dot alone in an argument list is the argument left open, not a product
    (r"p(\cdot \mid x)", r"[p|(\cdot, x)]"),
    (r"g\left(\cdot, y\right)", r"[(* g (group \cdot, y))]"),
    (r"q(a \cdot b)", r"[(* q (group (a \cdot b)))]"),
    # ceilings and floors
    (r"\lceil n/2 \rceil", "[ceil((n / 2))]"),
    (r"\left\lfloor x \right\rfloor + 1", "[(floor(x) + 1)]"),
    # a case's condition after `\quad`, as after `&`
    (
        r"p = \begin{cases} \sin(x) \quad k \text{ even} \\ \cos(x) \qquad k > 1 \end{cases}",
        "[p = cases[sin(x); cos(x)]]",
    ),
]


@pytest.mark.parametrize(("text", "expected"), GOLDEN)
def test_golden(text: str, expected: str) -> None:
    assert ast.dump(parse_formula(text)) == expected


PROSE = [
    # words with spaces around them, or a first word of prose, separate two formulas
    (r"a = b \text{ and } c = d", "[a = b] ; text(' and ') ; [c = d]"),
    (r"x = 1 \quad \text{where} \quad y = 2", "[x = 1] ; text('where') ; [y = 2]"),
    (r"5 \text{s}", "[5] ; text('s')"),
    (r"a = 1, \text{so} b = 2", "[a = 1] ; text('so') ; [b = 2]"),
]


@pytest.mark.parametrize(("text", "expected"), PROSE)
def test_prose_stays_prose(text: str, expected: str) -> None:
    assert ast.dump(parse_formula(text)) == expected


ERRORS = [
    (r"a=\text{ and }+b", r"^1:3: unexpected \\text"),
    (r"\sqrt{\text { Dimension of } Q}", r"^1:7: unexpected \\text"),
    (r"\lceil x \rfloor", r"^1:10: unbalanced \\rfloor: no \\lfloor to close"),
    (r"\lceil x", r"^1:1: unbalanced '\\lceil': it is never closed"),
    (r"(y|x)", r"^1:3: unbalanced '\|'"),
]


@pytest.mark.parametrize(("text", "pattern"), ERRORS)
def test_errors(text: str, pattern: str) -> None:
    with pytest.raises(ParseError, match=pattern):
        parse_formula(text)
