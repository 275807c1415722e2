"""`S = s_1, \\ldots, s_n`: a list (a sequence named S), not an equation that defines S as its
first member, in a formula read whole and in the rows of an alignment read one by one."""

from __future__ import annotations

import pytest

from symattn.check import check_text

ROWS = (
    "\\begin{align*}\nS &= s_1, \\ldots, s_n \\\\\nu &= (x \\\\\n"
    "2 + 2 &= 4 \\\\\n2 + 2 &= 5\n\\end{align*}\n"
)
WHOLE = "$$\nS = s_1, \\ldots, s_n, \\quad 2 + 2 = 4, \\quad 2 + 2 = 5\n$$\n"


@pytest.mark.parametrize("text", [ROWS, WHOLE], ids=["rows", "whole"])
def test_a_list_is_no_definition_and_the_claims_beside_it_are_decided(text):
    got = [(r.kind, r.message) for r in check_text(text, "a.md")]
    assert ("not-a-claim", "a list (s_1, …): a sequence, not a claim") in got
    assert not any(kind == "declaration" and "defines S" in msg for kind, msg in got)
    kinds = [kind for kind, _ in got]
    assert kinds.count("verified") == 1 and kinds.count("false") == 1
