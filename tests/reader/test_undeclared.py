"""`reader.undeclared`: reading around names the text never declares, and which names those are."""

from __future__ import annotations

import pytest

from symattn.reader.claims.resolve import Resolver
from symattn.reader.syntax.parse import parse_formula
from symattn.reader.terms.translator import Problem, UnknownName, UnknownOperator
from symattn.reader.terms.undeclared import membership, read_around, undeclared


def _side(text: str):
    claim = parse_formula(text).items[0]
    return claim.subjects[0]


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("QK^T", []),  # nothing undeclared: read as usual
        (r"\sigma(q_i) + q_i", [r"\sigma(·)"]),
        (r"f(x, y) q_i", ["f(·)", "x", "y"]),
        (r"\tanh(q_i\cdot k_j)", []),  # tanh of a number: nothing undeclared
        (r"\sum_{j=1}^{n} \alpha_j v_j", [r"\alpha_j"]),
        (r"\{x, q_1\}", ["x"]),
        (r"\begin{bmatrix} \cos(t) & 1 \end{bmatrix}", ["t"]),
    ],
)
def test_read_around_names_what_it_skips(text: str, names: list[str]) -> None:
    assert read_around(Resolver().terms, _side(text)) == names


@pytest.mark.parametrize(
    ("text", "status"),
    [
        ("f(QK)", "shape_error"),  # the parts it can read are still checked
        ("x + QK", "shape_error"),
        (r"\sum_{j=1} f(x_j)", "not_understood"),  # a sum without its upper bound
        ("x + W_q", "not_understood"),  # a capital must be declared
    ],
)
def test_read_around_still_raises_for_what_is_wrong_or_unread(text: str, status: str) -> None:
    with pytest.raises(Problem) as info:
        read_around(Resolver().terms, _side(text))
    assert info.value.status == status


def test_which_names_may_be_read_around() -> None:
    node = _side("x")
    assert undeclared(UnknownName("m", node, "x", []))
    assert undeclared(UnknownName("m", node, r"\hat{y}", []))
    assert not undeclared(UnknownName("m", node, "W_o", ["W_O"]))  # a capital: a typo to report
    assert not undeclared(UnknownName("m", node, "Z^{(h)}", []))
    assert undeclared(UnknownName("m", node, "S_i", [], defined=True))  # the text defined it
    assert undeclared(UnknownName("m", node, "F(·)", [], applied=True))
    assert undeclared(UnknownOperator("m", node, r"\operatorname{relu}"))


def test_membership_is_read_never_decided() -> None:
    terms = Resolver().terms
    assert membership(terms, _side("j"), _side(r"\{1, 2\}")).startswith(
        "membership in a set is not decided; j not declared"
    )
    assert (
        membership(terms, _side("q_1"), _side(r"\{q_1\}")) == "membership in a set is not decided"
    )
    with pytest.raises(Problem):
        membership(terms, _side("QK"), _side(r"\{1\}"))
