"""Benchmark: reading chapter 6's formulas (scan, parse, resolve) against baselines; the check.

Run: `.venv/bin/python benchmarks/bench_reader.py [FILE]` (default
tests/check/data/chapter6_formulas.md, the formulas of chapter 6).
Prints medians of repeated runs and ratios to the baselines measured in the same run.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

DEFAULT = Path(__file__).resolve().parents[1] / "tests" / "check" / "data" / "chapter6_formulas.md"


def timed(fn: Callable[[], object], repeat: int) -> float:
    """Median wall time of `fn` over `repeat` runs, in seconds (after one warm-up run)."""
    fn()
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def main(argv: list[str]) -> int:
    from symattn.check import check_text
    from symattn.kernel.proof import forget
    from symattn.reader import MathSpan, parse_formula, scan
    from symattn.reader.claims.resolve import Resolver, section_lines

    path = Path(argv[0]) if argv else DEFAULT
    if not path.exists():
        print(f"{path}: no such file", file=sys.stderr)
        return 2
    text = path.read_text(encoding="utf-8")
    spans = [s for s in scan(text, str(path)) if isinstance(s, MathSpan)]

    def read() -> object:
        return path.read_text(encoding="utf-8")

    def scan_only() -> object:
        return scan(text, str(path))

    def parse_only() -> object:
        out = []
        for s in spans:
            try:
                out.append(parse_formula(s.body))
            except Exception:  # noqa: BLE001 - a span that does not parse still costs its time
                pass
        return out

    def read_all() -> object:
        resolver = Resolver(section_lines(text))
        return [
            c
            for s in scan(text, str(path))
            if isinstance(s, MathSpan)
            for c in resolver.resolve_span(s)
        ]

    def check_all() -> object:
        forget()  # the kernel remembers verdicts: time the work, not the memory
        return check_text(text, str(path))

    rows = [
        ("read the file", timed(read, 50)),
        ("scan", timed(scan_only, 50)),
        ("parse every span (lark + AST)", timed(parse_only, 20)),
        ("scan + parse + resolve", timed(read_all, 10)),
        ("check (resolve + kernel)", timed(check_all, 3)),
    ]
    parse = rows[2][1]
    print(f"{path.name}: {len(text)} characters, {len(spans)} math spans")
    print(f"{'step':34} {'median':>10} {'x parse':>9} {'x read':>9}")
    for name, t in rows:
        print(f"{name:34} {t * 1000:8.2f}ms {t / parse:9.2f} {t / rows[0][1]:9.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
