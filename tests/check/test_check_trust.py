"""Readings found by labelled probes in styles the other tests do not write: digits grouped by
spaces, macros a Pandoc front matter defines, and relations the prose only supposes.
Each rule has a true use and a false (or honestly undecided) one."""

from __future__ import annotations

import pytest

from symattn.check import check_text


def claims(text: str) -> list[str]:
    got = check_text(text, "doc.md")
    return [r.kind for r in got if r.kind not in ("declaration", "not-a-claim")]


# ---- digits grouped by thousands with a space ------------------------------------------------


SPACES = [r"\,", "~", r"\ ", " ", "{\\,}", "\u2009", "\u202f", r"\thinspace "]


@pytest.mark.parametrize("sep", SPACES)
def test_digits_grouped_by_a_space_are_one_number(sep: str) -> None:
    number = sep.join(["1", "228", "800"])
    assert claims(f"$$3 \\times 640^2 = {number}$$") == ["verified"]
    wrong = sep.join(["1", "228", "080"])
    assert claims(f"$$3 \\times 640^2 = {wrong}$$") == ["false"]


def test_spaced_digits_with_a_decimal_part() -> None:
    assert claims(r"$$2\,469.5 \cdot 2 = 4939$$") == ["verified"]
    assert claims(r"$$2\,469.5 \cdot 2 = 4938$$") == ["false"]


def test_spaced_groups_need_three_digits_and_one_separator() -> None:
    # `12\,34` is no grouping: it keeps its old reading, whatever it is, and never one number
    assert claims(r"$$12\,34 = 1234$$") != ["verified"]
    assert claims(r"$$1\,234,567 = 1234567$$") != ["verified"]


def test_spaced_digits_inside_parentheses() -> None:
    assert claims(r"$$(1\,000 + 2) \cdot 3 = 3006$$") == ["verified"]
    assert claims(r"$$(1\,000 + 2) \cdot 3 = 3600$$") == ["false"]
