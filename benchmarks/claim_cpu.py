"""CPU seconds the checker spends on each claim of a document, slowest first.

Run: `python benchmarks/claim_cpu.py [FILE ...] [--limit SECONDS]` (default: the example chapter
and, when present, the chapter beside the repository). Counts `time.process_time`, the clock the
kernel's budgets use, so the figures do not depend on the machine's load. Exit 1 when a claim
took more than the limit (default 1 s).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULTS = [ROOT / "examples" / "attention.md", ROOT.parent / "shared" / "chapter6.md"]


def timed_claims(path: Path) -> list[tuple[float, str, str, str]]:
    """(CPU seconds, location, kind, source) of every claim that reached the kernel's decision."""
    from symattn.check.document import project_conventions, read_document, resolve_text
    from symattn.check.results import ClaimResult
    from symattn.check.verdicts import decide

    text = read_document(path)
    lines = text.splitlines()
    out = []
    for x in resolve_text(text, str(path), None, project_conventions(path)):
        if isinstance(x, ClaimResult):
            continue
        start = time.process_time()
        r = decide(x, lines)
        out.append((time.process_time() - start, r.location, r.kind, r.source))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", type=Path)
    ap.add_argument("--limit", type=float, default=1.0, help="CPU seconds allowed per claim")
    ap.add_argument("--top", type=int, default=8, help="slowest claims shown per file")
    args = ap.parse_args(argv)
    files = args.files or [p for p in DEFAULTS if p.exists()]
    over = 0
    for path in files:
        rows = timed_claims(path)
        rows.sort(key=lambda r: -r[0])
        total = sum(r[0] for r in rows)
        print(f"{path.name}: {len(rows)} claims, {total:.2f} s CPU in all, slowest:")
        for cpu, where, kind, source in rows[: args.top]:
            print(f"  {cpu:6.3f} s  {kind:<14} {where.rsplit('/', 1)[-1]}  {source[:60]}")
        over += sum(1 for r in rows if r[0] > args.limit)
    print(f"claims over {args.limit:g} s CPU: {over}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
