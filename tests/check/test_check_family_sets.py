"""A family written as a set with its index range (`\\{c_i\\}_{i=1}^T`): read as the set it
is (a mention, never a claim, and never `^T` read as a transpose), so the claims beside it
are decided."""

from __future__ import annotations

import pytest
from claim_helpers import kinds

from symattn.check import check_text
from symattn.kernel.errors import ParseError
from symattn.reader.syntax import ast
from symattn.reader.syntax.parse import parse_formula


@pytest.mark.parametrize(
    "text", [r"\{ c_i \}_{i=1}^T", r"\lbrace \mathbf x_i \rbrace_{i=1}^{n}", r"\{k_j\}_{j=1}"]
)
def test_a_ranged_family_reads_as_a_set(text: str) -> None:
    (item,) = parse_formula(text).items
    assert isinstance(item, ast.Claim) and not item.steps
    assert isinstance(item.subjects[0], ast.Set)


def test_the_claims_beside_a_ranged_family_are_decided() -> None:
    assert kinds(r"So $2 + 2 = 4$ for $\{c_i\}_{i=1}^{T}$.") == ["verified"]
    assert kinds(r"So $2 + 2 = 5$ for $\{c_i\}_{i=1}^{T}$.") == ["false"]
    got = [r.kind for r in check_text(r"The cache keeps $\{ c_i \}_{i=1}^T$.", "doc.md")]
    assert got == ["not-a-claim"]


def test_a_set_with_two_subscripts_is_refused() -> None:
    with pytest.raises(ParseError, match="one subscript and one superscript"):
        parse_formula(r"\{ c_i \}_{i=1}^T_2")
