"""A row of an alignment the checker cannot read, in a chain of equalities: the next link starts
from the last side read before it (`A &= B \\ &= (not read) \\ &= D` checks `B = D`); a row
with another relation (`\\approx`, `\\le`) breaks the chain."""

from __future__ import annotations

import pytest
from claim_helpers import kinds, results

AB = "Let $A, B \\in \\mathbb{R}^{n\\times n}$.\n\n"
CHAIN = "\\begin{{align}}\n(AB)^\\top &= B^\\top A^\\top \\\\\n{} \\\\\n&= {}\n\\end{{align}}\n"
UNREAD = "&= \\oslash B^\\top A^\\top"


def test_the_link_after_an_unread_row_starts_from_the_last_side_read() -> None:
    true = results(AB + CHAIN.format(UNREAD, "(A B)^\\top"))
    assert [r.kind for r in true] == ["verified", "not-understood", "verified"]
    assert "from the last side read before the rows not read" in true[-1].message
    assert kinds(AB + CHAIN.format(UNREAD, "A^\\top B^\\top")) == [
        "verified",
        "not-understood",
        "false",
    ]


@pytest.mark.parametrize("row", ["&\\approx \\oslash B^\\top A^\\top", "&= \\oslash C \\le D"])
def test_a_row_with_another_relation_breaks_the_chain(row: str) -> None:
    got = results(AB + CHAIN.format(row, "A^\\top B^\\top"))
    assert [r.kind for r in got] == ["verified", "not-understood", "not-understood"]
    assert got[-1].message == "this link starts from a row the checker cannot read"
