"""How much of a corpus of documents the checker decides.

A claim-making item is one of kind verified, false, shape-error, undecided or not-understood
whose formula holds a relation (=, <, >, \\le, \\ge, \\in, \\approx, \\ne, ...); it is decided when
it is verified, false or a shape error. Malformed reports are counted beside.

    python benchmarks/reach.py ../shared/corpus            # every document under the folder
    python benchmarks/reach.py examples/attention.md --json out.json
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

# this tree's own code first: run from a worktree, it measures that worktree's checker
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from symattn.check import check_text  # noqa: E402
from symattn.check.document import read_document  # noqa: E402
from symattn.check.sites import SiteFinder  # noqa: E402
from symattn.cli.check import documents  # noqa: E402

_SITES = SiteFinder()  # each document read with its site's macros, as `symattn check` reads it
CLAIM_KINDS = ("verified", "false", "shape-error", "undecided", "not-understood")
DECIDED = ("verified", "false", "shape-error")
RELATION = re.compile(
    r"=|<|>|\\le\b|\\ge\b|\\leq\b|\\geq\b|\\in\b|\\approx\b|\\ne\b|\\neq\b|\\propto\b|\\sim\b"
    r"|\\equiv\b|\\subset"
)


def figures(path: str) -> tuple[Counter[str], list[dict[str, object]]]:
    """Counts per kind of the claim-making items of one document, and its alarms."""
    text = read_document(path)
    results = check_text(text, path, macros=_SITES.find(path, text).macros)
    counts: Counter[str] = Counter()
    alarms = []
    for r in results:
        if r.kind in CLAIM_KINDS and RELATION.search(r.source):
            counts[r.kind] += 1
        if r.kind == "malformed":
            counts["malformed"] += 1
        if r.kind in ("false", "shape-error", "malformed"):
            alarms.append({"where": r.location, "kind": r.kind, "source": r.source})
    return counts, alarms


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python benchmarks/reach.py")
    ap.add_argument("paths", nargs="+", help="documents, folders or globs")
    ap.add_argument("--json", default=None, help="write the figures and every alarm here")
    opts = ap.parse_args(argv)
    names, problems = documents(opts.paths)
    for p in problems:
        print(f"error: {p}", file=sys.stderr)
    total: Counter[str] = Counter()
    rows = []
    alarms = []
    for name in names:
        c, a = figures(name)
        total += c
        alarms += a
        claims = sum(c[k] for k in CLAIM_KINDS)
        decided = sum(c[k] for k in DECIDED)
        rows.append({"file": name, "claims": claims, "decided": decided, **c})
        print(f"{name}: {decided}/{claims} decided  {dict(c)}")
    claims = sum(total[k] for k in CLAIM_KINDS)
    decided = sum(total[k] for k in DECIDED)
    share = 100 * decided / claims if claims else 0.0
    print(
        f"total ({len(names)} documents): {decided}/{claims} decided ({share:.1f}%)  {dict(total)}"
    )
    for a in alarms:
        print(f"  alarm {a['where']}: {a['kind']}: {a['source']}")
    if opts.json:
        out = {"documents": rows, "total": dict(total), "alarms": alarms}
        Path(opts.json).write_text(json.dumps(out, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
