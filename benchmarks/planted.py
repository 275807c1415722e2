"""Planted errors: how often the checker flags a realistic mistake in a formula it verifies.

For each formula of the documents that `symattn check` verifies, one mistake of each kind that
applies is planted into a copy of the document (one at a time): two indices swapped, a transpose
dropped, `\\sqrt{d_v}` for `\\sqrt{d_k}`, a sum's upper bound `n` made `n-1`, and one index of a
formula that uses both `i` and `j` changed into the other. The mutant counts as
flagged when the checker reports that formula `false` or `shape-error` (a result that starts
inside the formula, on any of its lines, and that the document without the mistake does not
raise there); `undecided` or `verified` count as missed. (A planted mistake can leave a
formula true, e.g. a swap in a symmetric expression: such mutants are listed so a reader can
judge them.)

    python benchmarks/planted.py examples/attention.md tests/check/data/*.md [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

# this tree's own code first: run from a worktree, it measures that worktree's checker
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from symattn.check import check_text  # noqa: E402
from symattn.check.document import read_document  # noqa: E402
from symattn.check.results import ClaimResult  # noqa: E402

Plant = Callable[[str], Iterator[str]]
ALARMS = ("false", "shape-error")


def _each(pattern: str, repl: Callable[[re.Match[str]], str]) -> Plant:
    """Each match of `pattern` replaced on its own (one mutant per occurrence)."""

    def plant(formula: str) -> Iterator[str]:
        for m in re.finditer(pattern, formula):
            yield formula[: m.start()] + repl(m) + formula[m.end() :]

    return plant


def _swap_one_index(formula: str) -> Iterator[str]:
    """After the first `=`, one single-letter subscript `i` made `j` or `j` made `i` (`q_i k_j`
    -> `q_j k_j`), when the formula uses both."""
    eq = formula.find("=")
    if eq < 0 or not (re.search(r"_\{?i\b", formula) and re.search(r"_\{?j\b", formula)):
        return
    for m in re.finditer(r"(?<=_)(\{?)([ij])(?![A-Za-z])", formula[eq:]):
        k = eq + m.start(2)
        yield formula[:k] + ("j" if m[2] == "i" else "i") + formula[k + 1 :]


PLANTS: dict[str, Plant] = {
    # `_{ij}` -> `_{ji}` (also `_{i,j}`); one `q_i` made `q_j` in a formula that uses both
    "swap indices": _each(
        r"_\{([a-z])(,\s*)?([a-z])\}", lambda m: f"_{{{m[3]}{m[2] or ''}{m[1]}}}"
    ),
    "change an index": _swap_one_index,
    "drop a transpose": _each(
        r"\^(?:\{(?:T|\\top|\\mathsf\{T\}|\\mathsf T|\\intercal)\}|T|\\top|\\intercal)",
        lambda m: "",
    ),
    "sqrt(d_v) for sqrt(d_k)": _each(r"\\sqrt\{d_(?:k|\{k\})\}", lambda m: r"\sqrt{d_v}"),
    # a sum's upper bound: `\sum_{j=1}^{n}`, `^{d_k}` (a letter, perhaps with an index) ->
    # `^{n-1}`, `^{d_k-1}`; never inside the bound's own subscript
    "bound n-1 for n": _each(
        r"(\\sum_\{[^{}]*\}\^)(?:\{([A-Za-z](?:_[a-z]|_\{[a-z]+\})?)\}|([A-Za-z])(?![A-Za-z_{]))"
        r"|\^\{?n\}?(?=\s*[A-Za-z\\(])",
        lambda m: f"{m[1]}{{{m[2] or m[3]}-1}}" if m[1] else "^{n-1}",
    ),
}


def _offset(text: str, line: int, col: int) -> int:
    lines = text.split("\n")
    return sum(len(x) + 1 for x in lines[: line - 1]) + col - 1


def _span(text: str, r: ClaimResult) -> tuple[int, int]:
    start = _offset(text, r.line, r.col)
    end = _offset(text, r.end_line, r.end_col)
    return start, end


def plant_document(path: str) -> list[dict[str, object]]:
    text = read_document(path)
    results = check_text(text, path)
    rows: list[dict[str, object]] = []
    for r in results:
        if r.kind != "verified" or "=" not in r.source or r.message.startswith("definition"):
            continue  # a definition is true by definition: a mistake in it is not a claim
        start, end = _span(text, r)
        formula = text[start:end]
        if formula != r.source:  # a formula whose source is not its span: not planted
            continue
        before = Counter(
            x.kind
            for x in results
            if start <= _offset(text, x.line, x.col) <= end and x.kind in ALARMS
        )
        for kind, plant in PLANTS.items():
            for mutant in plant(formula):
                changed = text[:start] + mutant + text[end:]
                # the verdict on the planted formula: the results starting inside its span (a
                # shape error points at the operand it is about, on a later line of a display
                # whose formula spans several); an alarm there that the document without the
                # mistake does not raise flags it, else the first result says what it became
                after = [
                    x
                    for x in check_text(changed, path)
                    if start <= _offset(changed, x.line, x.col) <= start + len(mutant)
                    and x.kind != "not-a-claim"
                ]
                raised = Counter(x.kind for x in after if x.kind in ALARMS)
                new = [x for x in after if x.kind in ALARMS and raised[x.kind] > before[x.kind]]
                verdict = new[0].kind if new else after[0].kind if after else "gone"
                rows.append(
                    {
                        "file": path,
                        "line": r.line,
                        "kind": kind,
                        "formula": formula,
                        "mutant": mutant,
                        "verdict": verdict,
                        "flagged": verdict in ("false", "shape-error"),
                    }
                )
    return rows


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python benchmarks/planted.py")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--json", default=None)
    opts = ap.parse_args(argv)
    rows = [row for f in opts.files for row in plant_document(f)]
    by_kind: dict[str, Counter[str]] = {}
    for row in rows:
        by_kind.setdefault(str(row["kind"]), Counter())[str(row["verdict"])] += 1
    flagged = sum(1 for row in rows if row["flagged"])
    print(f"planted: {len(rows)} mutants in {len(opts.files)} files; flagged {flagged}")
    for kind, c in by_kind.items():
        total = sum(c.values())
        hit = c["false"] + c["shape-error"]
        print(f"  {kind:26} {hit:4}/{total:<4} {dict(c)}")
    for row in rows:
        if not row["flagged"]:
            print(f"  missed {row['file']}:{row['line']}: {row['mutant']} -> {row['verdict']}")
    if opts.json:
        Path(opts.json).write_text(json.dumps(rows, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
