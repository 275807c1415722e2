"""Formulas written in ways the grammar once refused (fonts around several letters, `\\_` in
names, a bold number, brackets after `\\exp`, `\\ast`, a formula's tag, `\\approxeq`, a word of
prose before a name in one `\\text`): each read, with a true use verified and a false one
refused; notations given no meaning are "not understood" with a message that names them."""

from __future__ import annotations

import re

import pytest
from claim_helpers import results

DECL = (
    r"Let $X \in \mathbb{R}^{n \times d}$, $A \in \mathbb{R}^{d \times m}$ and "
    r"$Q, K \in \mathbb{R}^{n \times d_k}$." + "\n\n"
)


def verdicts(text: str) -> list[tuple[str, str]]:
    return [(r.kind, r.message) for r in results(DECL + text)]


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        # a bold font around letters side by side: the letters, each in that font
        (r"\boldsymbol{XA} \in \mathbb{R}^{n \times m}", "verified"),
        (r"\boldsymbol{XA} \in \mathbb{R}^{n \times d}", "shape-error"),
        # a bold operator before its parentheses is the operator
        (r"\sum_{j=1}^{n} \mathbf{softmax}(QK^T)_{ij} = 1", "verified"),
        (r"\sum_{j=1}^{n} \boldsymbol{softmax}(QK^T)_{ij} = 2", "false"),
        # a number in bold is the number
        (r"\textbf{12} = 3 \cdot 4", "verified"),
        (r"\textbf{12} = 3 \cdot 5", "false"),
        # brackets around the one argument of a known function
        (r"\exp[\ln 2] = 2", "verified"),
        (r"\exp[\ln 2] = 3", "false"),
        # `\ast` as `*`; a tag set apart at the end is a label
        (r"\frac{1}{2} \ast 4 = 2", "verified"),
        (r"\frac{1}{2} \ast 4 = 3", "false"),
        (r"q_i \cdot k_j = (QK^T)_{ij} \qquad (\ast)", "verified"),
        (r"q_i \cdot k_j = (QK^T)_{ji} \qquad (\ast)", "false"),
        (r"q_i \cdot k_j = (QK^T)_{ji} \quad (3.2)", "false"),
        # `\approxeq` is `\approx`
        (r"2.0 \approxeq 2", "verified"),
        (r"2.0 \approxeq 2.5", "false"),
    ],
)
def test_written_forms(formula: str, kind: str) -> None:
    assert [k for k, _ in verdicts(f"$${formula}$$\n")] == [kind]


@pytest.mark.parametrize(
    ("formula", "named"),
    [
        (r"\mathbf{QK}_{ij} = Q_{i1}", r"a script after several letters in one font"),
        (r"\mathbf{QK}^{\top} \in \mathbb{R}^{n \times n}", r"on the last letter or on their"),
        (r"\prod_{i=1}^{n} 1 = 1", r"a product over a range \(\\prod\)"),
        (r"A \oplus A = A", r"\\oplus between two terms: a concatenation"),
        (r"X \oslash X = X", r"an entrywise division \(\\oslash\)"),
        (r"n \gg d = 2", r"much greater than \(\\gg\)"),
        (r"x \cup y = y", r"a union of sets \(\\cup\)"),
        (r"a \overset{?}{=} b", r"a symbol with a note set over it"),
        (r"\begin{rcases} a \\ b \end{rcases} = c", r"a brace on their right \(rcases\)"),
    ],
)
def test_unread_notations_are_named(formula: str, named: str) -> None:
    [(kind, message)] = verdicts(f"$${formula}$$\n")
    assert kind == "not-understood"
    assert re.search(named, message), message


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        # words joined by `\_` in a subscript label one name, in display and inline math
        (
            "Let $W_{kv\\_cache} \\in \\mathbb{R}^{d \\times d}$.\n\n"
            "$$X W_{kv\\_cache} \\in \\mathbb{R}^{n \\times d}$$\n\n"
            "$$X W_{kv\\_cache} \\in \\mathbb{R}^{n \\times n}$$\n",
            ["verified", "shape-error"],
        ),
        (
            "Let $$W_{kv\\_cache} \\in \\mathbb{R}^{d \\times d}.$$\n\n"
            "Then $X W_{kv\\_cache} \\in \\mathbb{R}^{n \\times d}$ and "
            "$X W_{kv\\_cache} \\in \\mathbb{R}^{d \\times d}$.\n",
            ["verified", "shape-error"],
        ),
        # a worded name with `\_` in inline Markdown math is one name
        (
            "Let $\\text{seq\\_len} = 4$.\n\n$$\\text{seq\\_len} \\cdot 2 = 8$$\n",
            ["undecided"],
        ),
    ],
)
def test_joined_words(text: str, kinds: list[str]) -> None:
    got = verdicts(text)
    assert [k for k, _ in got] == kinds, got
    assert all("cannot read" not in m and "_l, e" not in m for _, m in got), got


def test_bold_quantity_is_read() -> None:
    [(kind, message)] = verdicts(r"$$7 \times 2 \approx \textbf{14 GB}$$" + "\n")
    assert "cannot read" not in message and "GB" in message, (kind, message)


def test_prose_word_before_a_name() -> None:
    text = (
        "$$\n\\begin{aligned}\n\\text{where head}_i &= QK^T \\\\\n"
        "\\text{head}_i &\\in \\mathbb{R}^{n \\times n}\n\\end{aligned}\n$$\n\n"
        "$$\\text{head}_i \\in \\mathbb{R}^{n \\times d}$$\n"
    )
    got = verdicts(text)
    assert [k for k, _ in got] == ["verified", "shape-error"], got


def test_operator_word_with_its_axis_then_call() -> None:
    got = verdicts(r"$$\text{Softmax}_j(QK^T) = 1$$" + "\n")
    assert all("cannot read" not in m for _, m in got), got


FONTS_LISTS = (
    r"Let $W \in \mathbb{R}^{d \times d}$ and $\text{KV-cache} \in \mathbb{R}^{n \times d_k}$."
    + "\n\n"
)


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        # a bold font around a letter in another font is that letter, as its other uses
        (r"X \boldsymbol{\mathrm{W}} \in \mathbb{R}^{n \times d}", "verified"),
        (r"X \boldsymbol{\mathrm{W}} \in \mathbb{R}^{d \times d}", "shape-error"),
        # a comma before the closing parenthesis ends no item
        (r"\mathrm{Attention}(Q, K, X,) \in \mathbb{R}^{n \times d}", "verified"),
        (r"\mathrm{Attention}(Q, K, X,) \in \mathbb{R}^{n \times n}", "shape-error"),
        # a worded name with a hyphen is one name
        (r"\text{KV-cache} + Q \in \mathbb{R}^{n \times d_k}", "verified"),
        (r"\text{KV-cache} + Q \in \mathbb{R}^{n \times n}", "shape-error"),
    ],
)
def test_fonts_lists_and_worded_names(formula: str, kind: str) -> None:
    assert [k for k, _ in verdicts(FONTS_LISTS + f"$${formula}$$\n")] == [kind]


NORMS = r"Let $Q, K \in \mathbb{R}^{n \times d_k}$ and $S \in \mathbb{R}^{n \times n}$." + "\n\n"


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        # `\|x\|_2` of a vector is its Euclidean length, as `\|x\|`
        (r"\|q_i\|_2^2 = q_i \cdot q_i", "verified"),
        (r"\|q_i\|^2_2 = q_i \cdot k_i", "false"),
        (r"\Vert q_i \Vert_2 = \sqrt{q_i \cdot q_i}", "verified"),
        (r"\Vert q_i \Vert_2 = q_i \cdot q_i", "false"),
        # the root of a 1 x 1 product, as texts write a length; of a matrix, a shape error
        (r"\|q_i\| = \sqrt{q_i k_i^\top}", "false"),
        (r"\|q_i\|_2 = \sqrt{q_i q_i^\top}", "verified"),
        (r"\sqrt{Q^\top Q} = Q^\top Q", "shape-error"),
    ],
)
def test_euclidean_norm_with_its_subscript(formula: str, kind: str) -> None:
    assert [r.kind for r in results(NORMS + f"$${formula}$$\n")] == [kind]


@pytest.mark.parametrize(
    ("formula", "named"),
    [
        (r"\|q_i\|_1 = 1", r"the norm \\\|x\\\|_\{1\} is not read"),
        (r"\|S\|_F = 1", r"the norm \\\|x\\\|_\{F\} is not read"),
        (r"\|S\|_2 = 1", r"the norm of a matrix is not read"),
        (r"p(x_t \mid x_{<t}) = 1", r"a subscript that starts with a relation"),
    ],
)
def test_other_norms_and_prefixes_are_named(formula: str, named: str) -> None:
    [r] = results(NORMS + f"$${formula}$$\n")
    assert r.kind == "not-understood" and re.search(named, r.message), r.message


def test_comma_after_a_case_value() -> None:
    from symattn.reader.syntax import ast
    from symattn.reader.syntax.parse import parse_formula

    plain = r"M_{ij} = \begin{cases} 0 & j \le i \\ -\infty & j > i \end{cases}"
    commas = r"M_{ij} = \begin{cases} 0, & j \le i, \\ -\infty, & j > i. \end{cases}"
    assert ast.dump(parse_formula(commas)) == ast.dump(parse_formula(plain))


OLD_STYLE = (
    r"Let $Q, K \in \mathbb{R}^{n \times d_k}$ and $\mathbf{W} \in \mathbb{R}^{d_k \times d_k}$."
    + "\n\n"
)


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        # plain TeX's font switches around the letters of their group
        (r"Q {\bf W} \in \mathbb{R}^{n \times d_k}", "verified"),
        (r"Q {\bf W} \in \mathbb{R}^{n \times n}", "shape-error"),
        (r"Q \bf{W} K^T \in \mathbb{R}^{n \times n}", "verified"),
        # `\operatorname*`, `^{\prime}`, `\cfrac`
        (r"\sum_{j=1}^{n} \operatorname*{softmax}(QK^T)_{ij} = 1", "verified"),
        (r"\sum_{j=1}^{n} \operatorname*{softmax}(QK^T)_{ij} = 0", "false"),
        (r"\cfrac{1}{2} + \cfrac{1}{2} = 1", "verified"),
        (r"\cfrac{1}{2} + \cfrac{1}{3} = 1", "false"),
    ],
)
def test_old_style_commands(formula: str, kind: str) -> None:
    assert [r.kind for r in results(OLD_STYLE + f"$${formula}$$\n")] == [kind]


def test_prime_in_braces_is_a_prime() -> None:
    from symattn.reader.syntax import ast
    from symattn.reader.syntax.parse import parse_formula

    assert ast.dump(parse_formula(r"x^{\prime}_i = y")) == ast.dump(parse_formula(r"x'_i = y"))


@pytest.mark.parametrize(
    ("formula", "named"),
    [
        (r"{\bf x y} = 1", r"a font switch over the rest of a group"),
        (r"\begin{vmatrix} a \end{vmatrix} = 1", r"a determinant written with bars"),
        (r"\binom{n}{2} = 1", r"a binomial coefficient"),
        (r"Q \xrightarrow{\text{softmax}} K", r"relation"),
    ],
)
def test_more_unread_notations_are_named(formula: str, named: str) -> None:
    [r] = results(OLD_STYLE + f"$${formula}$$\n")
    assert r.kind in ("not-understood", "undecided") and re.search(named, r.message), r.message


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        # more layouts that hold formulas; `\sqrt[2]{x}` is the square root
        (r"\begin{alignedat}{2} q_i \cdot k_j &= (QK^T)_{ij} \end{alignedat}", "verified"),
        (r"\begin{alignedat}{2} q_i \cdot k_j &= (QK^T)_{ji} \end{alignedat}", "false"),
        (r"\sqrt[2]{4} = 2", "verified"),
        (r"\sqrt[2]{4} = 3", "false"),
        (r"\smash{q_i} \cdot k_j = (QK^T)_{ij}", "verified"),
    ],
)
def test_layouts_and_roots(formula: str, kind: str) -> None:
    assert [r.kind for r in results(OLD_STYLE + f"$${formula}$$\n")] == [kind]


@pytest.mark.parametrize(
    ("formula", "named"),
    [
        (r"\sqrt[3]{8} = 2", r"an n-th root"),
        (r"a \stackrel{?}{=} b", r"a symbol with a note set over it"),
        (r"\sum_{\substack{i=1 \\ i \ne j}}^{n} x_i = 1", r"a sum over several conditions"),
        (r"Q^\dagger Q = 1", r"a pseudo-inverse or adjoint"),
    ],
)
def test_roots_notes_and_adjoints_are_named(formula: str, named: str) -> None:
    [r] = results(OLD_STYLE + f"$${formula}$$\n")
    assert r.kind == "not-understood" and re.search(named, r.message), r.message


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        # `\_` outside a subscript is printed: the words around it are one identifier of code
        (r"n\_heads \cdot d\_head = d\_head \cdot n\_heads", "verified"),
        (r"n\_heads \cdot d\_head = d\_head + n\_heads", "undecided"),
        (r"X W\_proj \in \mathbb{R}^{n \times d_k}", "verified"),
        (r"X W\_proj \in \mathbb{R}^{n \times n}", "shape-error"),
    ],
)
def test_code_identifiers(formula: str, kind: str) -> None:
    text = r"Let $$W\_proj \in \mathbb{R}^{d \times d_k}.$$" + "\n\n" + f"$${formula}$$\n"
    assert [r.kind for r in results(DECL + text)] == [kind]


@pytest.mark.parametrize(
    ("rows", "kind"),
    [
        # a pair of brackets split across rows with `\right.` and `\left.`, or left open
        (
            r"(QK^T)_{ij} &= \left( \sum_{r=1}^{d_k} Q_{ir} \right. \\ &\left. K_{jr} \right)",
            "v",
        ),
        (
            r"(QK^T)_{ij} &= \left( \sum_{r=1}^{d_k} Q_{ir} \right. \\ &\left. K_{ir} \right)",
            "f",
        ),
        (r"(QK^T)_{ij} &= \left( q_i \cdot k_j + \right. \\ &\quad \left. 0 \right)", "v"),
        (r"(QK^T)_{ij} &= (q_i \cdot k_j \\ &+ 0)", "v"),
        (r"(QK^T)_{ij} &= (q_i \cdot k_i \\ &+ 0)", "f"),
    ],
)
def test_brackets_split_across_rows(rows: str, kind: str) -> None:
    text = f"$$\n\\begin{{aligned}}\n{rows}\n\\end{{aligned}}\n$$\n"
    expected = {"v": "verified", "f": "false"}[kind]
    assert [r.kind for r in results(DECL + text)] == [expected]


def test_a_period_for_the_argument_is_a_placeholder() -> None:
    from symattn.reader.syntax import ast
    from symattn.reader.syntax.parse import parse_formula

    for dotted, cdot in [(r"f(.)", r"f(\cdot)"), (r"g(., y) = 1", r"g(\cdot, y) = 1")]:
        assert ast.dump(parse_formula(dotted)) == ast.dump(parse_formula(cdot))
