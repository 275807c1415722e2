"""The suite's third-party corpus: `corpus` tests and the `d2l_file` parameters.

Must not import symattn: these hooks run before any test module is collected.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

#: Third-party text (the textbook's chapter 6, the d2l book's chapters) is not part of the
#: repository: its licences are not ours. CI keeps it in ../shared beside the checkout;
#: SYMATTN_SHARED names another folder. A test that needs it says which part with
#: `@pytest.mark.corpus("corpus/d2l-en")`, and skips, saying so, without it.
SHARED = Path(os.environ.get("SYMATTN_SHARED") or Path(__file__).resolve().parents[2] / "shared")
D2L = SHARED / "corpus" / "d2l-en"


def missing(part: str) -> str:
    """The skip reason of a `corpus` test whose part of the corpus is absent."""
    return (
        f"needs {part}, third-party text kept out of the repository (optional): not found in "
        "../shared beside the checkout nor in $SYMATTN_SHARED"
    )


@pytest.fixture(scope="session")
def shared() -> Path:
    """The folder of third-party text (use it in `corpus` tests only)."""
    return SHARED


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """`d2l_file`: each Markdown file of the d2l corpus, one test each; `corpus_file`: each
    Markdown file of every text of the corpus (`corpus/<text>/<file>.md`)."""
    for name, files, label in (
        ("d2l_file", sorted(D2L.glob("*.md")), lambda p: p.name),
        ("corpus_file", sorted((SHARED / "corpus").glob("*/*.md")), _text_and_file),
    ):
        if name in metafunc.fixturenames:
            params = files or [pytest.param(None, id="absent")]
            metafunc.parametrize(
                name, params, ids=lambda p, f=label: "absent" if p is None else f(p)
            )


def _text_and_file(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        marker = item.get_closest_marker("corpus")
        if marker is None:
            continue
        part = marker.args[0] if marker.args else "corpus/d2l-en"
        if not (SHARED / part).exists():
            item.add_marker(pytest.mark.skip(reason=missing(part)))
