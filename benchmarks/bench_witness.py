"""CPU time of the exact witness's counterexample search against a baseline tree, in the same run.

Run: `python benchmarks/bench_witness.py --base REF [--runs 3] [--claims 48]`. REF is a git
revision of this repository or another checkout's folder (as for `benchmarks/diff_speed.py`).
The two trees run the same made-up workload in turn (A B A B ...), each in a fresh process:
scalar claims at one explicit point, rational ones and ones with `exp` (softmax-like quotients
of sums of exponentials), half of them true and half false, through
`witness.counterexample.counterexample` and `witness.certify.separate`. Each run prints the CPU
seconds of the workload alone (`time.process_time`, imports excluded) and how many claims came
back with a counterexample; the two trees must agree on that count. Not a test.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from diff_speed import export  # noqa: E402

# the workload, run in the tree under test (only public names of the witness modules)
WORKLOAD = r"""
import random, sys, time
import sympy
from symattn.kernel.witness import certify
from symattn.kernel.witness.counterexample import counterexample

claims = int(sys.argv[1])
rng = random.Random(11)
Q, K = sympy.IndexedBase("Q"), sympy.IndexedBase("K")

def entries(base, n):
    return [base[i, j] for i in range(1, n + 1) for j in range(1, n + 1)]

work = []
for c in range(claims):
    n = 2 + c % 3
    q, k = entries(Q, n), entries(K, n)
    dots = [sum(q[i * n + r] * k[j * n + r] for r in range(n)) for i in range(n) for j in range(n)]
    wrong = 1 if c % 2 else 0
    if c % 4 < 2:  # rational: a square of a sum against its expansion
        s = sum(dots)
        lhs = s**2 * (1 + q[0] ** 2)
        rhs = sum(a * b for a in dots for b in dots) * (1 + q[0] ** 2) + wrong * q[-1] * k[0]
    else:  # exp: a softmax entry against the same entry with its row shifted by a constant
        row = dots[:n]
        shift = sum(q[:n])
        lhs = sympy.exp(row[0]) / sum(sympy.exp(t) for t in row)
        shifted = [t + shift for t in row]
        rhs = sympy.exp(shifted[0] + wrong * k[0]) / sum(sympy.exp(t) for t in shifted)
    work.append((lhs, rhs))

start = time.process_time()
found = 0
for lhs, rhs in work:
    found += counterexample(lhs, rhs, {}) is not None
    found += certify.separate(lhs, rhs) is not None
print(time.process_time() - start, found)
"""


def timed(tree: Path, claims: int) -> tuple[float, int]:
    """(CPU seconds of the workload, counterexamples found) in `tree`."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run(
        [sys.executable, "-c", WORKLOAD, str(claims)],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    cpu, found = out.stdout.split()
    return float(cpu), int(found)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", required=True, help="a git revision or another checkout's folder")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--claims", type=int, default=48)
    opts = ap.parse_args(argv)
    here = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory(prefix="bench-witness-") as tmp:
        base = export(opts.base, Path(tmp))
        rows: dict[str, list[tuple[float, int]]] = {"base": [], "this": []}
        for _ in range(opts.runs):
            rows["base"].append(timed(base, opts.claims))
            rows["this"].append(timed(here, opts.claims))
    print(f"{opts.claims} claims, {opts.runs} runs each, base {opts.base}")
    for name, got in rows.items():
        cpu = statistics.median(c for c, _ in got)
        print(f"  {name}: median CPU {cpu:.2f} s, counterexamples {sorted({f for _, f in got})}")
    ratios = [t[0] / b[0] for b, t in zip(rows["base"], rows["this"], strict=True)]
    print(f"  CPU ratio this/base pair by pair: {', '.join(f'{r:.2f}' for r in ratios)}")
    print(f"  median ratio this/base: {statistics.median(ratios):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
