"""CPU time of the differential suite against a baseline tree, in the same run, and the projection.

Run: `python benchmarks/diff_speed.py --base REF [--claims 30] [--seed 5] [--jobs 2] [--runs 3]
[--extra='--inferred --wild 20']`.
REF is a git revision of this repository (exported with `git archive` to a temporary folder) or
the path of another checkout. The two trees run `python -m symattn.soundness diff` in turn (A B A
B ...); each run's CPU time is the operating system's account of its processes (the workers
included), so a busy machine changes the wall time, not the ratio much. Prints the median CPU and
wall seconds of each tree, the ratio base/this pair by pair, and the wall time projected for
`--project` claims (default 20,000) at `--jobs`: CPU per distinct claim times the distinct
claims among them (a repeat shares the items of its first) over the jobs. Not a test.
"""

from __future__ import annotations

import argparse
import os
import resource
import shlex
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def export(ref: str, into: Path) -> Path:
    """The tree at `ref` (a revision, or a folder that is a checkout) as a folder."""
    if Path(ref).is_dir():
        return Path(ref).resolve()
    archive = into / "base.tar"
    with archive.open("wb") as fh:
        subprocess.run(["git", "-C", str(ROOT), "archive", ref], stdout=fh, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into / "base", filter="data")
    return into / "base"


def timed(tree: Path, args: list[str]) -> tuple[float, float]:
    """(CPU seconds of the command and its children, wall seconds) of one diff run in `tree`."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    subprocess.run(
        [sys.executable, "-m", "symattn.soundness", "diff", *args],
        cwd=tree,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def distinct(tree: Path, claims: int, seed: int) -> int:
    """Distinct claims (by AST) among the first `claims` the generator gives."""
    code = (
        "import sys; from symattn.soundness.generate import generate; "
        f"print(len({{repr(c.spec) for c in generate({claims}, seed={seed})}}))"
    )
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return int(out.stdout.strip())


def shares_repeats(tree: Path) -> bool:
    """Whether the tree's suite judges a repeated claim once (it has `--repeats`)."""
    source = tree / "symattn" / "soundness" / "differential.py"
    return "--repeats" in source.read_text(encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", required=True, help="a git revision or another checkout's folder")
    ap.add_argument("--claims", type=int, default=30)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--project", type=int, default=20_000, help="claims of the projection")
    ap.add_argument(
        "--extra",
        default="",
        help="more flags of the suite, one string: --extra='--inferred --wild 20'",
    )
    opts = ap.parse_args(argv)
    args = ["--claims", str(opts.claims), "--seed", str(opts.seed), "--jobs", str(opts.jobs)]
    args += shlex.split(opts.extra)
    args.append("--quiet")
    with tempfile.TemporaryDirectory(prefix="diff-speed-") as tmp:
        base = export(opts.base, Path(tmp))
        rows: dict[str, list[tuple[float, float]]] = {"base": [], "this": []}
        for _ in range(opts.runs):
            rows["base"].append(timed(base, args))
            rows["this"].append(timed(ROOT, args))
        print(f"diff {' '.join(args)}: {opts.runs} runs each, base {opts.base}")
        for name, got in rows.items():
            cpu = statistics.median(c for c, _ in got)
            wall = statistics.median(w for _, w in got)
            print(f"  {name}: median CPU {cpu:.1f} s, wall {wall:.1f} s")
        ratios = [b[0] / t[0] for b, t in zip(rows["base"], rows["this"], strict=True)]
        print(f"  CPU ratio base/this: median {statistics.median(ratios):.2f}x")
        seen = distinct(ROOT, opts.project, opts.seed)
        for name, got in rows.items():
            per = statistics.median(c for c, _ in got) / opts.claims
            tree = base if name == "base" else ROOT
            count = seen if shares_repeats(tree) else opts.project
            minutes = per * count / opts.jobs / 60
            print(f"  {name}: {opts.project} claims ({seen} distinct) ~ {minutes:.0f} min wall")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
