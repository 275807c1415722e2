"""`\\quad` inside brackets: after a comma it is the space of a list (`\\max(2,\\quad 3)`); alone
between entries (`[a \\quad b]`, a row written with spaces) it is named as not read."""

from __future__ import annotations

import pytest
from claim_helpers import kinds, results


@pytest.mark.parametrize(("value", "kind"), [("3", "verified"), ("2", "false")])
def test_a_space_after_a_comma_in_brackets_is_a_space(value: str, kind: str) -> None:
    assert kinds(f"$$\\max(2,\\quad 3) = {value}$$") == [kind]
    assert kinds(f"$$\\max\\left(2,\\qquad 3\\right) = {value}$$") == [kind]


@pytest.mark.parametrize("row", [r"[x \quad y]", r"(x \qquad y)", r"\left[ x \quad y \right]"])
def test_entries_set_apart_by_spaces_are_named(row: str) -> None:
    (found,) = results(f"$$F = {row}$$")
    assert found.kind == "not-understood"
    assert "entries set apart by spaces inside brackets" in found.message


def test_a_space_between_two_claims_still_separates_them() -> None:
    assert kinds("Let $n = 5$.\n\n$$2 n = 10 \\quad n + 1 = 7$$") == ["verified", "false"]
