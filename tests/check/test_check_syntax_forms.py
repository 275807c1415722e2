"""Forms the grammar reads that it once refused: a star raised on a name (an optimal value),
a bold font around letters apart or a letter's call; each with a true use and a false one, and
the forms it still refuses named by what they are."""

from __future__ import annotations

import pytest
from claim_helpers import results

SCALARS = r"Let $\alpha^* \in \mathbb{R}$ be the best scale and $b^{*} \in \mathbb{R}$." + "\n\n"


@pytest.mark.parametrize(
    ("true", "false"),
    [
        (
            r"(\alpha^* + 1)^2 = \alpha^*\alpha^* + 2\alpha^* + 1",
            r"(\alpha^* + 1)^2 = \alpha^*\alpha^* + 1",
        ),
        (
            r"(b^{*} + \alpha^*)^2 = b^{\ast} b^* + 2\alpha^* b^* + \alpha^*\alpha^*",
            r"(b^{*} + \alpha^*)^2 = b^{\ast} b^* + \alpha^*\alpha^*",
        ),
    ],
)
def test_a_star_raised_on_a_name_decorates_it(true: str, false: str) -> None:
    rs = results(SCALARS + f"$${true}$$\n\n$${false}$$\n")
    assert [r.kind for r in rs] == ["verified", "undecided"], [r.message for r in rs]
    assert "alpha^* is a scalar of the text" in rs[1].message or "alpha^* are" in rs[1].message


def test_a_starred_name_with_an_index_is_a_family_of_its_own() -> None:
    rs = results(r"Let $a_j^* \in \mathbb{R}$." + "\n\n$$a_j^* + a_j^* = 2a_j^*$$\n")
    assert [r.kind for r in rs] == ["verified"], [r.message for r in rs]


@pytest.mark.parametrize(
    ("text", "why"),
    [
        # where the text works with complex numbers the star may be the conjugate
        ("We multiply complex numbers.\n\n$$\\alpha^* + \\alpha^* = 2\\alpha^*$$\n", "complex"),
        ("Take $e^{i\\theta}$.\n\n$$p_n^* p_n = 1$$\n", "complex"),
        # on a matrix of the text it may be its adjoint
        ("$$S_{ij} = Q_{ir}^* K_{jr}$$\n", "Q is a matrix or vector of the text"),
    ],
)
def test_a_star_that_may_be_a_conjugate_is_refused_by_name(text: str, why: str) -> None:
    [r] = results(text)
    assert r.kind == "not-understood"
    assert r.message.startswith("a complex conjugate or adjoint (x^*) is not read")
    assert why in r.message


def test_a_star_on_a_group_is_refused_by_name() -> None:
    [r] = results("$$(a+b)^* = a + b$$\n")
    assert r.kind == "not-understood" and "complex conjugate" in r.message


BOLD = r"Let $\mathbf{P} \in \mathbb{R}^{n\times n}$ and $\mathbf{V} \in \mathbb{R}^{n\times d}$."


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        (r"(\mathbf{P V})^T = \mathbf{V}^T \mathbf{P}^T", "verified"),
        (r"(\mathbf{P V})^T = \mathbf{V}^T \mathbf{P}", "false"),
        (r"(\mathbf{P\ V})^T = \mathbf{P}^T \mathbf{V}^T", "shape-error"),
    ],
)
def test_a_bold_font_around_letters_apart_is_each_letter_in_bold(formula: str, kind: str) -> None:
    rs = results(BOLD + f"\n\n$${formula}$$\n")
    assert [r.kind for r in rs] == [kind], [r.message for r in rs]


def test_a_bold_font_around_a_call_is_the_call_in_bold() -> None:
    same = results(r"$$\mathbf{y} = \mathbf{f(x)}$$" + "\n")
    written = results(r"$$\mathbf{y} = \mathbf{f}(\mathbf{x})$$" + "\n")
    assert [(r.kind, r.message) for r in same] == [(r.kind, r.message) for r in written]
    assert all("takes one letter" not in r.message for r in same)


CASES = r"M_{ij} = \begin{cases} 1, & j \le i \\ 0, & j > i \end{cases}"


@pytest.mark.parametrize(
    "braced",
    [
        r"M_{ij} = \left\{\begin{aligned} &1, &j \le i \\ &0, &j > i \end{aligned}\right.",
        r"M_{ij} = \left\{ \begin{array}{ll} 1, & j \le i \\ 0, & j > i \end{array} \right.",
        # the Markdown escape of `\{`, as a site whose Markdown runs before the math writes it
        r"M_{ij} = \left\\{\begin{aligned} &1, &j \le i \\\ &0, &j > i \end{aligned}\right.",
        # a matrix with the value and its condition in two columns
        r"M_{ij} = \left\{\begin{matrix} 1, & j \le i \\ 0, & j > i \end{matrix}\right.",
    ],
)
def test_a_left_brace_around_an_alignment_is_a_definition_by_cases(braced: str) -> None:
    from symattn.reader.syntax import ast
    from symattn.reader.syntax.parse import parse_formula

    assert ast.dump(parse_formula(braced)) == ast.dump(parse_formula(CASES))
    [r] = [x for x in check_text_all(f"$${braced}$$\n") if x.kind != "not-a-claim"]
    assert r.kind == "declaration", r.message


def check_text_all(text: str) -> list:
    from symattn.check import check_text

    return check_text(text, "doc.md")


SCORES = r"Let $s_1, \ldots, s_n$ be scores and $p_1, \ldots, p_n$ weights." + "\n\n"


@pytest.mark.parametrize(
    "formula",
    [
        r"\log e^{\max_i s_i} = \max_i s_i",
        r"\max_i s_i = \max_j s_i",
        r"\max_i p_i(1 - p_i) \le \max_i p_i",
    ],
)
def test_a_largest_value_over_an_index_is_read(formula: str) -> None:
    # the kernel has no largest value: read, and never decided on its own
    [r] = results(SCORES + f"$${formula}$$\n")
    assert r.kind == "undecided", r.message
    assert "parentheses" not in r.message


def test_a_largest_value_takes_the_product_after_it() -> None:
    from symattn.reader.syntax import ast
    from symattn.reader.syntax.parse import parse_formula

    bare = parse_formula(r"\max_i p_i(1 - p_i) + 1").items[0].subjects[0]
    written = parse_formula(r"\max_i(p_i(1 - p_i)) + 1").items[0].subjects[0]
    assert ast.dump(bare) == ast.dump(written)


@pytest.mark.parametrize(
    "formula", [r"m = \max _{k=1}^V x_k + 1", r"\max_{0 \le i < n} s_i \ge s_1"]
)
def test_a_largest_value_over_a_range_is_refused_by_name(formula: str) -> None:
    [r] = results(SCORES + f"$${formula}$$\n")
    assert r.kind == "not-understood"
    assert "\\max over a range of its index" in r.message


@pytest.mark.parametrize(
    ("formula", "kinds"),
    [
        (
            r"(a+1)^2 = a^2 + 2a + 1 \quad\Rightarrow\quad (a+1)^2 - a^2 = 2a + 1",
            ["verified", "undecided", "verified"],
        ),
        (
            r"(a+1)^2 = a^2 + 2a + 1 \qquad \implies \qquad (a+1)^2 - a^2 = 2a",
            ["verified", "undecided", "false"],
        ),
    ],
)
def test_spaces_around_an_implication_arrow_are_layout(formula: str, kinds: list[str]) -> None:
    # read as `\Rightarrow` alone is: each side's equation checked, the arrow not decided
    rs = results(f"$${formula}$$\n")
    assert [r.kind for r in rs] == kinds, [r.message for r in rs]


@pytest.mark.parametrize(
    ("formula", "named"),
    [
        (r"y = \sqrt{\text{ the width of } q} + 1", "words inside a value ('the width of')"),
        (r"y = \text{Draw()} \cdot 2", "words inside a value ('Draw()')"),
        (r"a + b = = b + a", "two relations in a row"),
        (r"s_{i} = q_{id} \cdot_d k_{id}", "a product over an index written under the dot"),
        (r"i \in [0, n)", "a half-open interval"),
        (r"t \in (0, 1]", "a half-open interval"),
        (r"N^- = N - 1", "a sign raised alone"),
        (r"(a, b) =", "nothing stands on the right of the relation"),
        (r"\exp(x) = \sum_{k=0}^{\infty} \frac{x^k}{k!}", "a factorial (k!) is not read"),
    ],
)
def test_forms_the_grammar_does_not_read_are_named(formula: str, named: str) -> None:
    [r] = results(f"$${formula}$$\n")
    assert r.kind == "not-understood" and named in r.message, r.message


TWO = (
    r"Let $X \in \mathbb{R}^{n \times d}$ and $W_Q, W_K \in \mathbb{R}^{d \times d}$." + "\n\n"
    r"$$Q = X \: W_Q \; \; \; K = X \: W_K$$" + "\n\n"
)


def test_a_wide_space_before_a_name_and_its_relation_parts_two_definitions() -> None:
    # the thin space `\:` inside the product is no gap: Q is XW_Q, not X
    rs = [r for r in check_text_all(TWO + "$$QW_K = XW_QW_K$$\n") if r.kind != "not-a-claim"]
    assert [r.kind for r in rs][-1] == "verified", rs[-1].message
    rs = [r for r in check_text_all(TWO + "$$QW_K = XW_K$$\n") if r.kind != "not-a-claim"]
    assert [r.kind for r in rs][-1] == "false", rs[-1].message
