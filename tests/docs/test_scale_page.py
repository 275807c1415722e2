"""docs/scale.md: its examples run and say what the code does."""

from __future__ import annotations

import doctest
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "scale.md"


def test_scale_page_examples_run():
    result = doctest.testfile(
        str(DOC), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE
    )
    assert result.attempted >= 3
    assert result.failed == 0


def test_scale_page_names_the_public_api():
    from symattn.kernel.witness import counterexample, exact, field

    page = DOC.read_text(encoding="utf-8")
    for name in ("check", "matmul", "power", "inverse", "rational", "ModP"):
        assert hasattr(field, name) and f"`{name}(" in page, name
    assert hasattr(counterexample, "shrink") and "`shrink(" in page
    for name in ("exact", "expansion_cost", "EXPAND_LIMIT"):
        assert hasattr(exact, name) and name in page, name
