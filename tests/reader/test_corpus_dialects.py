"""The scanner on third-party texts (the corpus in ../shared beside the checkout, or in
$SYMATTN_SHARED): every formula of their dialect read, and no malformed report where their
renderer succeeds."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from symattn.reader.syntax.scanner import MathSpan, ScanProblem, read

pytestmark = pytest.mark.corpus("corpus")


@pytest.fixture
def corpus(shared: Path) -> Path:
    return shared / "corpus"


def scanned(path: Path) -> tuple[list[MathSpan], list[ScanProblem], str]:
    if not path.exists():
        pytest.skip(f"{path.parent.name}/{path.name} is not in the corpus")
    text = path.read_text(encoding="utf-8")
    found = read(text, str(path))
    spans = [s for s in found.items if isinstance(s, MathSpan)]
    problems = [s for s in found.items if isinstance(s, ScanProblem)]
    return spans, problems, text


def test_no_malformed_report_where_the_renderer_succeeds(corpus_file: Path) -> None:
    _, problems, _ = scanned(corpus_file)
    allowed = {"sustcsonglin/2024-12-03-deltanet-1.md": [79]}  # a stray $$ on its own line
    lines = [p.position.line for p in problems]
    assert lines == allowed.get(f"{corpus_file.parent.name}/{corpus_file.name}", [])


def test_the_kramdown_stray_dollars_is_reported_on_its_line_and_nothing_is_swallowed(
    corpus: Path,
) -> None:
    spans, problems, text = scanned(corpus / "sustcsonglin/2024-12-03-deltanet-1.md")
    [problem] = problems
    assert text.splitlines()[problem.position.line - 1].strip() == "$$"
    # every other $$ pairs: no formula runs over a paragraph of prose
    assert all("Let's" not in s.body and "\n\n\n" not in s.body for s in spans)
    assert sum(1 for s in spans if s.delimiter == "$$") == (text.count("$$") - 1) // 2


def test_every_markdown_escaped_formula_is_read(corpus: Path) -> None:
    spans, problems, text = scanned(corpus / "hf-blog/designing-positional-encoding.md")
    escaped = [s for s in spans if s.delimiter == "\\\\("]
    assert len(escaped) == len(re.findall(r"\\\\\(", text)) and problems == []
    assert all("\\\\" not in s.body for s in escaped)  # the Markdown escapes are undone
    assert read(text, "x.md").dialect.escaped


def test_html_blocks_with_backslash_parens_and_escaped_ones_are_both_read(corpus: Path) -> None:
    spans, problems, _ = scanned(corpus / "pbloem/transformers.md")
    kinds = {s.delimiter for s in spans}
    assert {"\\(", "\\\\("} <= kinds and problems == []


def test_environments_inside_dollars_are_unwrapped(corpus: Path) -> None:
    spans, _, _ = scanned(corpus / "happy-llm/chapter2-transformer.md")
    assert not any(s.body.lstrip().startswith("\\begin{equation}") for s in spans)
    assert any(s.env == "equation" and s.delimiter == "$$" for s in spans)
