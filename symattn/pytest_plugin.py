"""pytest plugin entry point (`pytest11`): checks the math of documents as test items.

Imports nothing from symattn but kernel.errors (no sympy) and symattn.check, lazily (registering
the plugin must cost nothing); must not import the reader, latex or cli.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from symattn.kernel.errors import SymattnError


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("symattn")
    group.addoption(
        "--symattn",
        action="append",
        default=[],
        metavar="PATH",
        help="check the math of these Markdown/LaTeX documents (one test item per claim)",
    )
    group.addoption(
        "--symattn-strict",
        action="store_true",
        default=False,
        help="fail (instead of skip) claims the checker does not understand or cannot decide",
    )
    parser.addini(
        "symattn_paths",
        type="paths",
        default=[],
        help="documents whose math is checked as test items (like --symattn)",
    )


class SymattnFailure(SymattnError):
    """A claim of a document is false or does not typecheck; carries the diagnostic."""


class SymattnDocument(pytest.File):
    """One document; its items are its claims (mentions and declarations are not items)."""

    def collect(self) -> Iterator[pytest.Item]:
        """Claims are read here (cheap); the kernel decides each one when its item runs."""
        from symattn.check import (
            ClaimResult,
            FileError,
            claim_position,
            project_conventions,
            read_document,
            resolve_text,
        )

        name = _display(self.path, self.config)
        try:
            text = read_document(self.path)
            project = project_conventions(self.path)
        except FileError as e:
            raise self.CollectError(str(e)) from None
        lines = text.splitlines()
        for c in resolve_text(text, name, project=project):
            if isinstance(c, ClaimResult):
                item_name = f"{c.file}:{c.line}:{c.col}"
            elif c.status in ("prose", "declared"):
                continue
            else:
                item_name = f"{name}:{claim_position(c)}"
            yield SymattnClaim.from_parent(self, name=item_name, claim=c, lines=lines)


class SymattnClaim(pytest.Item):
    """One claim: passes when verified, fails when false or ill-shaped, else skips (or fails)."""

    def __init__(self, *, claim: Any, lines: list[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.claim = claim
        self.lines = lines
        self.result: Any = None

    def runtest(self) -> None:
        from symattn.check import ClaimResult, decide

        c = self.claim
        r = c if isinstance(c, ClaimResult) else decide(c, self.lines)
        self.result = r
        if r.kind == "verified":
            return
        if r.failed or self.config.getoption("symattn_strict"):
            raise SymattnFailure(r)
        pytest.skip(f"{r.kind}: {r.message}")

    def repr_failure(self, excinfo: Any, style: Any = None) -> str:
        if isinstance(excinfo.value, SymattnFailure):
            from symattn.check import format_diagnostic

            return format_diagnostic(self.result)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        line = int(self.name.rsplit(":", 2)[-2])
        return self.path, line - 1, self.name


def _display(path: Path, config: pytest.Config) -> str:
    try:
        return str(path.relative_to(config.rootpath))
    except ValueError:
        return str(path)


def _paths(config: pytest.Config) -> list[Path]:
    out: list[Path] = []
    for p in config.getoption("symattn") or []:
        out.append(Path(p) if Path(p).is_absolute() else Path(config.invocation_params.dir) / p)
    out.extend(Path(p) for p in config.getini("symattn_paths"))
    seen: set[Path] = set()
    unique = []
    for p in out:
        key = p.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(p)
    return unique


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Add one item per claim of each `--symattn` document, before -k/-m selection runs."""
    for path in _paths(config):
        if not path.exists() or path.is_dir():
            what = "is a directory" if path.is_dir() else "no such file"
            raise pytest.UsageError(f"--symattn {path}: {what}")
        doc = SymattnDocument.from_parent(session, path=path)
        report = session.ihook.pytest_make_collect_report(collector=doc)
        session.ihook.pytest_collectreport(report=report)
        if report.failed:
            continue
        items.extend(x for x in report.result if isinstance(x, pytest.Item))
