"""Forms that only typeset, read as what they show: `\\smash[b]{x}` is x, a proof's closing
`\\square` is prose (elsewhere a placeholder, named), bold keywords of an algorithm are named,
a label's colon and a function's signature claim nothing, and digits grouped by thousands stay
one number inside parentheses of arithmetic. A true and a false use of each that is decided."""

from __future__ import annotations

import pytest
from claim_helpers import kinds, results

SIZE = "Let $d_k = 64$. "


@pytest.mark.parametrize(
    ("claim", "kind"),
    [
        (r"$\frac{1}{\sqrt{\smash[b]{d_k}}} = \frac{1}{8}$", "verified"),
        (r"$\frac{1}{\sqrt{\smash[b]{d_k}}} = \frac{1}{4}$", "false"),
        (r"$\sqrt{\smash{d_k}} = 8$", "verified"),
    ],
)
def test_smash_is_what_it_hides(claim: str, kind: str) -> None:
    assert kinds(SIZE + claim) == [kind]


def test_a_closing_square_is_prose_and_a_placeholder_is_named() -> None:
    assert kinds(r"So $1 + 1 = 2$. $\square$") == ["verified"]
    assert kinds(r"So $1 + 1 = 3$ $\blacksquare$") == ["false"]
    (hole,) = results(r"Then $f(\square) = 1$.")
    assert hole.kind == "not-understood" and "placeholder (\\square)" in hole.message


@pytest.mark.parametrize("word", ["for", "end", "return", "while"])
def test_keywords_of_an_algorithm_are_named(word: str) -> None:
    (step,) = results(rf"$O_i = 0 \quad \mathbf{{{word}}}$")
    assert step.kind == "not-understood"
    assert f"a step of an algorithm (\\mathbf{{{word}}})" in step.message


def test_a_bold_word_that_is_no_keyword_is_read_as_before() -> None:
    text = r"Let $\mathbf{x} \in \mathbb{R}^d$ and $\mathbf{y} = 2\mathbf{x}$; $\mathbf{do} = 1$."
    assert not any("algorithm" in r.message for r in results(text)[:-1])


@pytest.mark.parametrize(
    ("claim", "kind"),
    [
        (r"$\text{Scores}: (QK^\top)^\top = KQ^\top$", "verified"),
        (r"$\text{Scores}: (QK^\top)^\top = QK^\top$", "false"),
        (r"$\mathrm{Sizes\ here}: 2 \cdot 3 = 6$", "verified"),
    ],
)
def test_the_colon_of_a_label_ends_the_label(claim: str, kind: str) -> None:
    head = r"Let $Q, K \in \mathbb{R}^{n \times d_k}$. "
    assert kinds(head + claim) == [kind]


@pytest.mark.parametrize(
    "signature",
    [
        r"$f : \mathbb{R}^d \to \mathbb{R}$",
        r"$\phi: V^L \rightarrow \mathbb{R}^{d \times L}$",
        r"$K: \mathbb{R}^d \times \mathbb{R}^d \to \mathbb{R}_+$",
        r"$g_\theta : x \mapsto 2x$",
    ],
)
def test_a_signature_is_no_claim(signature: str) -> None:
    assert results(f"The map {signature} is smooth.") == []


def test_a_colon_between_values_is_still_unreadable() -> None:
    (r,) = results(r"The ratio $a : b = 2$.")
    assert r.kind == "not-understood"


@pytest.mark.parametrize(
    ("claim", "kind"),
    [
        (r"$2 \times (50,257 \times 1,600) = 160,822,400$", "verified"),
        (r"$2 \times (1,600 \times 6,400) = 30,720,000$", "false"),
        (r"$4 \times (1,600^2) = 10,240,000$", "verified"),
        (r"$(1,600 + 400) = 2,000$", "verified"),
    ],
)
def test_digits_grouped_in_parentheses_of_arithmetic(claim: str, kind: str) -> None:
    assert kinds(claim) == [kind]


@pytest.mark.parametrize(
    "text",
    [
        r"$p = (100, 200)$",  # a space after the comma: a list
        r"$x = (1,024)$",  # a pair alone: which it is, the parentheses do not say
        r"$(N, d) = (1024, 64)$",
    ],
)
def test_lists_in_parentheses_stay_lists(text: str) -> None:
    assert all("list" in r.message for r in results(text))
