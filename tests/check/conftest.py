"""Fixtures for the checker's tests: pytester for the plugin, cached results of documents."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
#: The formulas of the textbook's chapter 6 in its order and sections, with the project's own prose.
CHAPTER = DATA / "chapter6_formulas.md"


def pytest_configure(config: pytest.Config) -> None:
    # pytest_plugins is refused outside the top-level conftest; register pytester this way.
    if not config.pluginmanager.has_plugin("pytester"):
        config.pluginmanager.import_plugin("pytester")


@functools.cache
def _checked(path: str):  # type: ignore[no-untyped-def]
    from symattn.check import check_file

    return tuple(check_file(path))


@pytest.fixture(scope="session")
def checked():  # type: ignore[no-untyped-def]
    """check_file(path), computed once per test session (the kernel is the slow part)."""
    return _checked


@pytest.fixture(scope="session")
def chapter() -> Path:
    return CHAPTER
