"""Unicode math typed directly reads as the TeX it renders as, with each token at its glyph:
a table of (typed, TeX) pairs that must give equal trees, and errors that point at the glyph."""

from __future__ import annotations

import pytest

from symattn.kernel.errors import ParseError
from symattn.reader.syntax import ast
from symattn.reader.syntax.glyphs import styled_letter
from symattn.reader.syntax.lexer import tokenize
from symattn.reader.syntax.parse import parse_formula

TWINS = [
    ("α + β = γ_i", r"\alpha + \beta = \gamma_i"),
    ("σ(x) ≤ 1", r"\sigma(x) \le 1"),
    ("ϕ ≠ φ", r"\phi \neq \varphi"),
    ("ϵ ≈ ε", r"\epsilon \approx \varepsilon"),
    ("θ_t ≥ λμ", r"\theta_t \ge \lambda\mu"),
    ("Q ∈ ℝ^{n×d_k}", r"Q \in \mathbb{R}^{n\times d_k}"),
    ("x → y", r"x \to y"),
    ("x ↦ y", r"x \mapsto y"),
    ("S ← S + v", r"S \leftarrow S + v"),
    ("a ⇒ b", r"a \Rightarrow b"),
    ("∑_{j=1}^{n} a_{ij} = 1", r"\sum_{j=1}^{n} a_{ij} = 1"),
    # the root covers the name with its index, or the parentheses after it
    ("√d_k", r"\sqrt{d_k}"),
    ("QKᵀ/√d_{model}", r"QK^T/\sqrt{d_{model}}"),
    ("√(d_k) + √2", r"\sqrt{(d_k)} + \sqrt 2"),
    ("x_1, …, x_n", r"x_1, \ldots, x_n"),
    ("x_1 + ⋯ + x_n", r"x_1 + \cdots + x_n"),
    ("q·k = q⋅k", r"q \cdot k = q \cdot k"),
    ("x^⊤ y", r"x^\top y"),
    ("Xᵀ = X^T", "X^T = X^T"),
    ("x² + d₁", "x^2 + d_1"),
    ("x⁻¹ = W₁₂", "x^{-1} = W_{12}"),
    ("a′ = b″", "a' = b''"),
    ("a − b = ∞", r"a - b = \infty"),
    ("⟨q, k⟩ = ‖x‖", r"\langle q, k\rangle = \|x\|"),
    ("A ⊙ B", r"A \odot B"),
    ("f（x）= y，a = b", "f(x) = y, a = b"),
    ("Q、K、V ∈ ℝ^{n×d}。", r"Q, K, V \in \mathbb R^{n\times d}."),
    ("a\u00a0=\u2009b", "a = b"),
    # mathematical letters: the letter in its font
    ("𝐱 = 𝒙 + 𝑥", r"\mathbf{x} = \boldsymbol{x} + x"),
    ("𝐖_q ∈ ℝ^{d}", r"\mathbf{W}_q \in \mathbb{R}^{d}"),
    ("𝛂 = 𝜶", r"\mathbf{\alpha} = \boldsymbol{\alpha}"),
    ("ℬ + 𝔄", r"\mathcal{B} + \mathfrak{A}"),
    ("ℎ", "h"),
    # a run of sans-serif letters is a word: one name, or an operator before parentheses
    ("𝗍𝗁𝖾 = 𝖺", r"\text{the} = \mathsf{a}"),
    ("𝗌𝗈𝖿𝗍𝗆𝖺𝗑(x)", r"\operatorname{softmax}(x)"),
]


@pytest.mark.parametrize(("typed", "tex"), TWINS)
def test_a_glyph_reads_as_its_tex(typed: str, tex: str) -> None:
    assert ast.dump(parse_formula(typed)) == ast.dump(parse_formula(tex))
    assert parse_formula(typed) == parse_formula(tex)


def test_a_run_of_sans_letters_is_one_name_not_a_product():
    (claim,) = parse_formula("𝖺𝖻𝖺𝖻𝖼 = y").items
    assert claim.subjects == (ast.Symbol("ababc", "text", start=0, end=5),)


def test_bold_letters_side_by_side_stay_letters():
    (claim,) = parse_formula("𝐪𝐤 = y").items
    assert isinstance(claim.subjects[0], ast.Product)


def test_tokens_keep_the_glyphs_offsets():
    toks = tokenize("α+x²")
    assert [(t.kind, t.start, t.end) for t in toks] == [
        ("SYMBOL", 0, 1),
        ("PLUS", 1, 2),
        ("LETTER", 2, 3),
        ("SUP", 3, 4),
        ("NUMBER", 3, 4),
    ]
    wide = tokenize("𝐱₁₂")  # one code point each, however many bytes
    assert [(t.kind, t.value, t.start) for t in wide] == [
        ("SYMBOL", "mathbf|x", 0),
        ("SUB", "_", 1),
        ("LBRACE", "{", 1),
        ("NUMBER", "12", 1),
        ("RBRACE", "}", 2),
    ]


ERRORS = [
    # the caret goes under the glyph, not under a stand-in
    ("α + ∘", r"^1:5: unexpected '∘'"),  # the entrywise product with no left operand
    ("a ⇔ b", r"^1:3: \\Leftrightarrow joins two statements"),
    ("a ⌉", r"^1:3: unbalanced \\rceil"),
    ("x ☃ y", r"^1:3: unexpected character '☃'"),
    ("♠ b", r"^1:1: unexpected character '♠'"),
]


def test_cjk_words_inside_math_are_prose() -> None:
    """A run of CJK writing is read as `\\text{...}` would be: prose between the claims."""
    from symattn.reader.syntax import ast

    assert ast.dump(parse_formula("今天")) == "text('今天')"
    assert ast.dump(parse_formula("a=b 对所有 i")) == "[a = b] ; text('对所有') ; [i]"


def test_the_partial_glyph_is_the_partial_command() -> None:
    from symattn.reader.syntax import ast

    glyph = ast.dump(parse_formula("∂L/∂V = A^T ∂L/∂O"))
    assert glyph == ast.dump(parse_formula(r"\partial L/\partial V = A^T \partial L/\partial O"))


@pytest.mark.parametrize(("text", "pattern"), ERRORS)
def test_errors_point_at_the_glyph(text: str, pattern: str) -> None:
    with pytest.raises(ParseError, match=pattern):
        parse_formula(text)


@pytest.mark.parametrize(
    ("glyph", "expected"),
    [
        ("𝐱", ("mathbf", "x")),
        ("𝑥", ("", "x")),
        ("𝒙", ("boldsymbol", "x")),
        ("𝖺", ("mathsf", "a")),
        ("𝚡", ("mathtt", "x")),
        ("ℝ", ("mathbb", "R")),
        ("𝛂", ("mathbf", "alpha")),
        ("x", None),
        ("Ａ", None),  # a full-width letter is not a mathematical one
        ("今", None),
    ],
)
def test_styled_letter(glyph: str, expected: tuple[str, str] | None) -> None:
    assert styled_letter(glyph) == expected
