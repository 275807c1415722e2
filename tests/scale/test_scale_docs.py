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
    from symattn.kernel import witness
    from symattn.kernel.witness import field as modp

    page = DOC.read_text(encoding="utf-8")
    for name in ("check", "shrink", "matmul", "power", "inverse", "rational", "ModP"):
        assert hasattr(modp, name) and f"`{name}(" in page, name
    for name in ("exact", "expansion_cost", "EXPAND_LIMIT"):
        assert hasattr(witness, name) and name in page, name
