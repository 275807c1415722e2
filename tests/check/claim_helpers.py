"""The claims of a snippet checked as a document: every item but declarations and prose
(`results`), their kinds (`kinds`) and the last of them (`last`), for the notation tests of the
checker.

A plain module, not a conftest.py: several conftest.py files clash under --doctest-modules.
"""

from __future__ import annotations

from symattn.check import check_text
from symattn.check.results import ClaimResult


def results(text: str, name: str = "doc.md") -> list[ClaimResult]:
    return [r for r in check_text(text, name) if r.kind not in ("declaration", "not-a-claim")]


def kinds(text: str, name: str = "doc.md") -> list[str]:
    return [r.kind for r in results(text, name)]


def last(text: str, name: str = "doc.md") -> ClaimResult:
    got = results(text, name)
    assert got, "no claim read"
    return got[-1]
