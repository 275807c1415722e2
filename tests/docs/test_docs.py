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


# the page checks every rule with the kernel again: the working loop proves each rule in
# tests/kernel/test_rules.py and prints rows in tests/cli/test_cli_rules.py; the page's freshness
# is checked with the slow tests
@pytest.mark.slow
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


REPO = DOCS.parent
#: what a reader of the project must not meet: a developer's machine paths, references to an
#: issue tracker instead of an explanation (built in pieces so this file does not match itself)
UNWANTED = re.compile("/(" + "work|home|tmp" + ")/|" + "issue" + r"[ -][0-9]", re.IGNORECASE)


def _project_files() -> list[Path]:
    files = [REPO / "README.md", REPO / "CHANGELOG.md"]
    for folder in ("docs", "symattn", "derivations", "tests", "benchmarks", "examples"):
        files += [
            p
            for p in sorted((REPO / folder).rglob("*"))
            if p.is_file() and p.suffix in {".md", ".py", ".toml", ".tex", ".lark", ".ipynb"}
        ]
    return files


def test_no_machine_paths_and_no_issue_numbers_in_the_project():
    found = []
    for path in _project_files():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if UNWANTED.search(line):
                found.append(f"{path.relative_to(REPO)}:{number}: {line.strip()[:80]}")
    assert not found, "\n".join(found)


def test_the_unwanted_pattern_can_fail():
    assert UNWANTED.search("see " + "issue" + " 12") and UNWANTED.search("/" + "tmp" + "/b14")
    assert not UNWANTED.search("tmp_path / 'build'")


def test_derive_page_examples_run():
    result = doctest.testfile(
        str(DOCS / "derive.md"),
        module_relative=False,
        optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS,
        verbose=False,
    )
    assert result.attempted >= 15
    assert result.failed == 0
