"""Time the command line's start-up: `symattn --help` must stay fast (no sympy imported).

Run: .venv/bin/python benchmarks/cli_startup.py  (prints medians; not a test, no pass/fail).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

RUNS = 7
COMMANDS = {
    "python -c pass (interpreter floor)": [sys.executable, "-c", "pass"],
    "symattn --help": [sys.executable, "-m", "symattn", "--help"],
    "symattn --version": [sys.executable, "-m", "symattn", "--version"],
    "symattn check --help (the checker's options)": [
        sys.executable,
        "-m",
        "symattn",
        "check",
        "--help",
    ],
    "symattn shapes QK^T (imports sympy)": [sys.executable, "-m", "symattn", "shapes", "QK^T"],
}


def median_seconds(argv: list[str]) -> float:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        subprocess.run(argv, capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    floor = None
    for label, argv in COMMANDS.items():
        t = median_seconds(argv)
        floor = t if floor is None else floor
        print(f"{label:40} {t * 1000:7.0f} ms   {t / floor:5.1f}x the floor")


if __name__ == "__main__":
    main()
