"""pytest plugin entry point (`pytest11`): checks the math of documents as test items.

Imports the checker lazily; registering the plugin must cost nothing.
"""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("symattn")
    group.addoption(
        "--symattn",
        action="append",
        default=[],
        metavar="PATH",
        help="check the math of these Markdown/LaTeX documents (one test item per claim)",
    )
