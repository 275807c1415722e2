"""`reader.introductions`: the first equation about a new name defines it."""

from __future__ import annotations

import pytest

from symattn.reader.claims.introductions import (
    definition_form,
    index_letters,
    introduce,
    listed,
    mentions,
)
from symattn.reader.claims.resolve import Resolver
from symattn.reader.syntax.parse import parse_formula
from symattn.reader.syntax.scanner import scan


def _span(text: str):
    return next(s for s in scan(f"$${text}$$\n", "x.md") if hasattr(s, "body"))


def _introduce(r: Resolver, text: str):
    span = _span(text)
    claim = parse_formula(span.body).items[0]
    left, right = claim.subjects[0], claim.steps[0].rhs
    return introduce(r.terms, span, left, right, left.start, right.end)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (r"a(q_i, k_j) = q_i\cdot k_j", "defines the function a(q_i, k_j), a scalar"),
        (r"e_{ij} = q_i\cdot k_j", "defines the sequence e_{ij}, a scalar"),
        (r"\omega_j = 1/10000^{2j/d}", r"defines the sequence \omega_j, a scalar"),
        (r"\hat y = q_1", r"defines the name \hat y, 1 × d_k"),
        (r"y = g(x)", "defines the name y (its value is not read"),
    ],
)
def test_a_first_equation_about_a_new_name_defines_it(text: str, message: str) -> None:
    claim = _introduce(Resolver(), text)
    assert claim is not None and claim.status == "declared"
    assert claim.message.startswith(message)


@pytest.mark.parametrize("text", ["q_i = k_i", "Q = XW_Q", r"\operatorname{softmax}(x) = 1"])
def test_a_known_name_is_never_introduced(text: str) -> None:
    assert _introduce(Resolver(), text) is None


def test_only_the_first_equation_defines() -> None:
    r = Resolver()
    assert _introduce(r, r"a(q_i) = q_i\cdot q_i") is not None
    assert _introduce(r, r"a(q_i) = 2") is None  # a claim about a, no longer a definition


def test_helpers() -> None:
    def side(t: str):
        return parse_formula(t).items[0].subjects[0]

    assert definition_form(side("f(x, y)")) and not definition_form(side("f(x + y)"))
    assert index_letters(side("p_{i,2j+1}")) == {"i", "j"}
    assert mentions(side(r"q^T k"), (side("k"),)) and not mentions(side("q"), (side("k"),))
    assert listed(side(r"(a_1, \ldots, a_m)")) and not listed(side("(a_1, a_2)"))
