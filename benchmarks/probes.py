"""Truth-labelled probes: documents written the way others write about attention, with each
claim marked true or false by hand, scored against the checker. Imports the checker only.

A label follows the formula it judges: `<!--T-->` / `<!--F-->` in Markdown, `%<T>` / `%<F>` in
LaTeX (at the end of the line). Formulas without a label (definitions, declarations) are not
scored. For a true claim the checker is right when it verifies it, and raises a false alarm when
it calls it false or a shape error; for a false claim it is right when it refutes it, and
accepts it falsely when it verifies it. Everything else is undecided.

In a notebook (`.ipynb`) the labels are written in its Markdown cells, as in Markdown.
Documents whose false verdicts are not fixed yet wait in `benchmarks/probes/pending/`: they are
scored only with `--pending` (and the test does not read them).

    python benchmarks/probes.py                     # the probes of benchmarks/probes/
    python benchmarks/probes.py --pending           # those of benchmarks/probes/pending/
    python benchmarks/probes.py DIR_OR_FILES --json out.json
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

# this tree's own code first: run from a worktree, it measures that worktree's checker
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from symattn.check import check_text  # noqa: E402
from symattn.check.document import read_document  # noqa: E402
from symattn.check.results import ClaimResult  # noqa: E402
from symattn.reader.syntax.notebook import read_notebook  # noqa: E402

HERE = Path(__file__).with_name("probes")
PENDING = HERE / "pending"
SUFFIXES = (".md", ".tex", ".ipynb")
LABEL = re.compile(r"<!--([TF])-->|%<([TF])>")
REFUTED = ("false", "shape-error")
CLAIM_KINDS = ("verified", "false", "shape-error", "undecided", "not-understood")


@dataclass(frozen=True)
class Probe:
    """One labelled formula: where its math is, its label, and the checker's verdicts on it."""

    file: str
    line: int
    truth: bool
    source: str
    kinds: tuple[str, ...]

    @property
    def outcome(self) -> str:
        kinds = [k for k in self.kinds if k in CLAIM_KINDS]
        refuted = any(k in REFUTED for k in kinds)
        verified = bool(kinds) and all(k == "verified" for k in kinds)
        if self.truth:
            if refuted:
                return "false alarm"
            return "right" if verified else "undecided"
        if refuted:
            return "right"
        return "false accept" if verified else "undecided"


def _math_before(text: str, end: int) -> tuple[int, int] | None:
    """The span of the math that ends right before offset `end` (punctuation aside)."""
    stop = len(text[:end].rstrip(" \t\n.,;:，。；"))
    myst_label = re.search(r"\$\$[ \t]*\([\w:.-]+\)$", text[:stop])
    if myst_label:  # MyST's `$$ ... $$ (label)`
        stop = myst_label.start() + 2
    head = text[:stop]
    for close, open_ in (("```", "```{math}"), ("`", "{math}`")):  # MyST's fence and role
        if head.endswith(close) and (close == "`" or head.endswith("\n```")):
            start = head.rfind(open_, 0, stop - len(close))
            if start >= 0:
                return (start, stop)
    for close, open_ in (("$$", "$$"), ("\\]", "\\["), ("\\)", "\\(")):
        if head.endswith(close):
            start = head.rfind(open_, 0, stop - len(close))
            return (start, stop) if start >= 0 else None
    env = re.search(r"\\end\{([a-z*]+)\}$", head)
    if env:
        start = head.rfind("\\begin{" + env.group(1) + "}")
        return (start, stop) if start >= 0 else None
    if head.endswith("$"):
        start = head.rfind("$", 0, stop - 1)
        return (start, stop) if start >= 0 else None
    return None


def _offset(text: str, line: int, col: int) -> int:
    lines = text.splitlines(keepends=True)
    return sum(len(x) for x in lines[: line - 1]) + col - 1


def _in_joined_cells(
    raw: str, results: list[ClaimResult]
) -> tuple[str, list[tuple[str, int, int]]]:
    """A notebook's Markdown cells joined into one text, and each verdict's place in it (the
    checker places a verdict in its cell: `file.ipynb:cell N`, line within the cell)."""
    nb = read_notebook(raw)
    first = {number: line for number, line, _, _ in nb.cells}
    where = []
    for r in results:
        cell = re.search(r":cell (\d+)$", r.file)
        line = r.line + first[int(cell.group(1))] - 1 if cell else r.line
        where.append((r.kind, line, r.col))
    return nb.text, where


def probes(path: str) -> list[Probe]:
    """The labelled formulas of one document with the checker's verdicts on each."""
    text = Path(path).read_text(encoding="utf-8")
    results: list[ClaimResult] = check_text(read_document(path), path)
    where = [(r.kind, r.line, r.col) for r in results]
    if path.endswith(".ipynb"):
        text, where = _in_joined_cells(text, results)
    out = []
    for m in LABEL.finditer(text):
        span = _math_before(text, m.start())
        if span is None:
            raise SystemExit(f"{path}: label at offset {m.start()} follows no formula")
        inside = [k for k, line, col in where if span[0] <= _offset(text, line, col) < span[1]]
        line = text.count("\n", 0, span[0]) + 1
        source = " ".join(text[span[0] : span[1]].split())
        out.append(Probe(path, line, (m.group(1) or m.group(2)) == "T", source, tuple(inside)))
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python benchmarks/probes.py")
    ap.add_argument("paths", nargs="*", default=[str(HERE)], help="documents or folders")
    ap.add_argument("--json", default=None, help="write every probe and its outcome here")
    ap.add_argument("--quiet", action="store_true", help="only the totals and the wrong ones")
    ap.add_argument(
        "--pending", action="store_true", help="score the documents of benchmarks/probes/pending/"
    )
    opts = ap.parse_args(argv)
    if opts.pending:
        opts.paths = [str(PENDING)]
    files: list[str] = []
    if opts.pending and not PENDING.is_dir():
        opts.paths = []  # nothing waits: every probe document is in the test
    for p in opts.paths:
        q = Path(p)
        files += sorted(str(f) for f in q.iterdir() if f.suffix in SUFFIXES) if q.is_dir() else [p]
    every: list[Probe] = []
    for f in files:
        every += probes(f)
    tally = Counter((p.truth, p.outcome) for p in every)
    for p in every:
        if not opts.quiet or p.outcome in ("false alarm", "false accept"):
            label = "T" if p.truth else "F"
            print(f"{p.file}:{p.line}: [{label}] {p.outcome}: {p.source}  {list(p.kinds)}")
    true_n = sum(1 for p in every if p.truth)
    false_n = len(every) - true_n
    print(
        f"true claims {true_n}: verified {tally[(True, 'right')]}, "
        f"false alarms {tally[(True, 'false alarm')]}, undecided {tally[(True, 'undecided')]}"
    )
    print(
        f"false claims {false_n}: refuted {tally[(False, 'right')]}, "
        f"FALSE ACCEPTS {tally[(False, 'false accept')]}, undecided {tally[(False, 'undecided')]}"
    )
    if opts.json:
        rows = [{**p.__dict__, "outcome": p.outcome} for p in every]
        Path(opts.json).write_text(json.dumps(rows, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
