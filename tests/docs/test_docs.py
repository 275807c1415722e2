"""The docs stay true: the tutorial runs, generated pages are current, catalogues complete."""

from __future__ import annotations

import ast
import doctest
import re
import runpy
from pathlib import Path

import pytest

import symattn

DOCS = Path(__file__).resolve().parents[2] / "docs"
KERNEL_TESTS = Path(__file__).resolve().parents[1] / "kernel"


def test_tutorial_examples_run():
    result = doctest.testfile(
        str(DOCS / "tutorial.md"),
        module_relative=False,
        optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS,
        verbose=False,
    )
    assert result.attempted >= 20
    assert result.failed == 0


def test_rules_page_is_generated_from_the_registry():
    generator = runpy.run_path(str(DOCS / "gen_rules.py"))
    assert (DOCS / "rules.md").read_text(encoding="utf-8") == generator["render"](), (
        "docs/rules.md is stale: run python docs/gen_rules.py"
    )


def _pinned_messages(path: Path) -> list[str]:
    """Every `match=` pattern in a test file (implicitly concatenated strings joined)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "match":
            value = node.value
            assert isinstance(value, ast.Constant) and isinstance(value.value, str)
            out.append(value.value)
    return out


@pytest.mark.parametrize("pattern", _pinned_messages(KERNEL_TESTS / "test_expr.py"))
def test_every_pinned_shape_message_is_in_the_catalogue(pattern):
    catalogue = (DOCS / "errors.md").read_text(encoding="utf-8")
    assert re.search(pattern, catalogue, re.MULTILINE), f"docs/errors.md lacks {pattern!r}"


def test_the_catalogue_check_can_fail():
    assert not re.search(r"^cannot frobnicate", (DOCS / "errors.md").read_text(), re.MULTILINE)
    assert len(_pinned_messages(KERNEL_TESTS / "test_expr.py")) >= 8


@pytest.mark.parametrize("name", symattn.__all__)
def test_api_reference_lists_every_export(name):
    page = (DOCS / "api.md").read_text(encoding="utf-8")
    assert re.search(rf"`{re.escape(name)}[`(,]", page), f"docs/api.md does not list {name}"


@pytest.mark.parametrize("page", ["tutorial.md", "howto-ci.md", "kernel.md", "errors.md"])
def test_relative_links_point_to_existing_docs(page):
    text = (DOCS / page).read_text(encoding="utf-8")
    for ref in re.findall(r"(?<![\w/])docs/([\w.-]+\.(?:md|ipynb|py))", text):
        assert (DOCS / ref).exists(), f"{page} mentions docs/{ref}, which does not exist"
