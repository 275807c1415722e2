"""A formula that starts with a relation whose left side is in the words before it ("the
coefficient is $= 1 + 2 = 3$"): the links after its first value are read, each a claim of its
own; one link alone, or a link across a separator, keeps the message. A true and a false use."""

from __future__ import annotations

import pytest
from claim_helpers import kinds, results

from symattn.reader.syntax import ast
from symattn.reader.syntax.parse import parse_formula

SIZES = "Let $n = 5$ and $d = 4$.\n\n"


def test_the_links_after_the_first_value_are_claims() -> None:
    assert kinds("The sum is $= 2 + 3 = 5$ here.") == ["verified"]
    assert kinds("The sum is $= 2 + 3 = 6$ here.") == ["false"]
    # the claim is placed at its first value, not at the relation in front of it
    found = results("The sum is $= 2 + 3 = 6$ here.")[0]
    assert found.location == "doc.md:1:15" and found.source == "2 + 3 = 6"


def test_rows_below_continue_a_value_whose_subject_is_in_the_words() -> None:
    true = SIZES + "The cost is\n\n$$\n= 2 \\cdot d \\\\\n= 8\n$$\n"
    assert kinds(true) == ["verified"]
    rows = "\\begin{aligned}\n&= 2 \\cdot d \\\\\n&= 9\n\\end{aligned}"
    false = SIZES + f"The cost is\n\n$$\n{rows}\n$$\n"
    assert kinds(false) == ["false"]


@pytest.mark.parametrize(
    "text",
    [
        "The total is $\\approx 2.13$ billion.",  # one link: nothing to check
        "The sum is $= 2 \\quad = 3$ here.",  # the second relation's left side is not 2
        "The sum is $= a, b = 3$ here.",  # `a` and `b = 3` are two statements
        "The sum is $= a \\quad b = 3$ here.",  # a value alone, then another claim
    ],
)
def test_what_has_no_left_side_keeps_the_message(text: str) -> None:
    found = results(text)
    assert [r.kind for r in found] == ["not-understood"]
    assert "a row that starts with a relation needs a claim before it" in found[0].message


def test_the_syntax_tree_starts_at_the_first_value() -> None:
    (claim,) = parse_formula("= 1 + 2 = 3").items
    assert isinstance(claim, ast.Claim) and ast.dump(claim) == "[(1 + 2) = 3]"
    assert claim.start == 2


def test_an_implication_after_such_a_value_is_read_as_after_a_subject() -> None:
    # the implication itself is not decided; its right side is checked
    found = results("Let $n = 5$.\n\nThen $= 2 \\implies 2 + 3 = 6$.")
    assert [r.kind for r in found] == ["undecided", "false"]
    assert "relation 'implies' is not decided" in found[0].message


QK = "Let $Q, K \\in \\mathbb{R}^{n \\times d}$.\n\n"


def test_an_inline_formula_right_after_another_continues_it() -> None:
    # `$QK^T$ $\in ...$`: only spaces between the two, so the second goes on from the first
    assert kinds(QK + "The scores $QK^T$ $\\in \\mathbb{R}^{n \\times n}$ are square.") == [
        "verified"
    ]
    assert kinds(QK + "The scores $QK^T$ $\\in \\mathbb{R}^{n \\times d}$ are square.") == [
        "shape-error"
    ]
    assert kinds(SIZES + "The count $2 \\cdot d$ $= 8$ holds.") == ["verified"]


@pytest.mark.parametrize("between", ["is big,", "(where $d = 4$)", "and"])
def test_words_between_two_inline_formulas_keep_them_apart(between: str) -> None:
    found = results(SIZES + f"The count $2 \\cdot d$ {between} $= 9$ holds.")
    assert [r.kind for r in found][-1] == "not-understood"
    assert "needs a claim before it" in found[-1].message


def test_a_display_right_after_an_inline_formula_continues_it() -> None:
    assert kinds(SIZES + "So $2 \\cdot d = 2 + 6$\n$$= 8$$\n") == ["verified", "verified"]
    assert kinds(SIZES + "So $2 \\cdot d = 2 + 6$\n$$= 9$$\n") == ["verified", "false"]
    # a blank line (a new paragraph) or words between keep them apart, and so does a bare
    # mention, whose display may go on from the words before it ("the cost of $X$")
    for before in (
        "So $2 \\cdot d = 2 + 6$\n\n",
        "So $2 \\cdot d = 2 + 6$ is\n",
        "The cost of $d$\n",
    ):
        found = results(SIZES + f"{before}$$= 9$$\n")
        assert "needs a claim before it" in found[-1].message, before
