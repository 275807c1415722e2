"""Benchmark suite: symattn's exact witness against naive sympy and symengine.

Runs every contender in a child process (time cap, peak RSS), prints the tables and writes
docs/benchmarks.md. Usage: `python benchmarks/run.py [--cap 60] [--repeat 7] [--no-write]`.
Imports symattn only inside the child processes that measure it.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from identities import NAMES, SIZES  # noqa: E402

DOC = ROOT / "docs" / "benchmarks.md"
CHAPTER = ROOT / "tests" / "check" / "data" / "chapter6_formulas.md"


def _rss_mb() -> float:
    """Peak RSS of this process. VmHWM, not ru_maxrss: after fork + exec, Linux's ru_maxrss
    keeps the parent's peak as a floor, which hid the children's own figures."""
    hwm = _vm_hwm(os.getpid())
    return hwm or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# ---- children ---------------------------------------------------------------------------


def child_baseline(engine: str, name: str, size: str) -> dict:
    from identities import _engine, baseline

    _engine(engine)  # the import is not part of the measured time
    t = time.perf_counter()
    ok = baseline(engine, name, SIZES[size])
    return {"ok": ok, "seconds": time.perf_counter() - t, "rss_mb": _rss_mb()}


def child_symattn(size: str, repeat: int) -> dict:
    from identities import claims

    from symattn.kernel.proof import forget, prove_equal

    made = claims(**SIZES[size])

    def once(name: str) -> tuple[float, str, str]:
        lhs, rhs, defs = made[name]
        forget()  # the kernel remembers verdicts: measure the work, not the memory
        t = time.perf_counter()
        v = prove_equal(lhs, rhs, defs=defs, witnesses=("exact",))
        return time.perf_counter() - t, v.status, v.summary().replace("\n  ", "; ")

    first = {name: once(name)[0] for name in NAMES}
    runs: dict[str, list[float]] = {name: [] for name in NAMES}
    totals = []
    statuses, reasons = {}, {}
    for _ in range(repeat):
        total = 0.0
        for name in NAMES:
            dt, status, reason = once(name)
            runs[name].append(dt)
            statuses[name], reasons[name] = status, reason
            total += dt
        totals.append(total)
    return {
        "first": first,
        "median": {k: statistics.median(v) for k, v in runs.items()},
        "total_median": statistics.median(totals),
        "total_min": min(totals),
        "total_max": max(totals),
        "status": statuses,
        "reason": reasons,
        "rss_mb": _rss_mb(),
    }


def child_symbolic(repeat: int) -> dict:
    from identities import claims

    from symattn.kernel.dims import H, d, d_k, d_v, n
    from symattn.kernel.proof import forget, prove_equal

    out: dict = {}
    cases = {"symbolic dims": claims(n, d, d_k, d_v, H)}
    cases |= {f"{k} (explicit)": claims(**v) for k, v in SIZES.items()}
    for label, made in cases.items():
        for witnesses in (("symbolic",), ("symbolic", "exact", "numeric")):
            if "explicit" in label and len(witnesses) > 1:
                continue
            key = f"{label}, witnesses={'+'.join(witnesses)}"
            out[key] = {}
            for name in NAMES:
                lhs, rhs, defs = made[name]
                times, status = [], ""
                for _ in range(repeat):
                    forget()
                    t = time.perf_counter()
                    v = prove_equal(lhs, rhs, defs=defs, witnesses=witnesses)
                    times.append(time.perf_counter() - t)
                    status = v.status
                out[key][name] = {"median": statistics.median(times), "status": status}
    return out


def child_witnesses(size: str, repeat: int) -> dict:
    """The exact and the float64 witness alone, on the same claims, interleaved run by run."""
    from identities import claims

    from symattn.kernel.proof import unfold
    from symattn.kernel.ranges import infer_ranges
    from symattn.kernel.witness.exact import exact
    from symattn.kernel.witness.numeric import numeric_check

    out: dict = {"exact": {}, "float64": {}, "evidence": {}}
    for name, (lhs, rhs, defs) in claims(**SIZES[size]).items():
        a, b = unfold(lhs, defs), unfold(rhs, defs)
        rng = infer_ranges(a, b)
        times: dict[str, list[float]] = {"exact": [], "float64": []}
        for _ in range(repeat + 1):  # the first run of each is a warm-up
            for label, f in (("exact", exact), ("float64", numeric_check)):
                t = time.perf_counter()
                r = f(a, b, rng)
                times[label].append(time.perf_counter() - t)
                if not r.holds:
                    raise SystemExit(f"{label} witness does not hold on {name}: {r.detail}")
                out["evidence"].setdefault(name, {})[label] = str(r.evidence[0])
        for label, ts in times.items():
            out[label][name] = statistics.median(ts[1:])
    return out


# ---- the parent ---------------------------------------------------------------------------


def spawn(args: list[str], cap: float) -> dict:
    """Run a child; its JSON result, or a record that it did not finish within `cap` seconds."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", *args]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    start, peak = time.perf_counter(), 0.0
    while proc.poll() is None:
        peak = max(peak, _vm_hwm(proc.pid))
        if time.perf_counter() - start > cap:
            proc.kill()
            proc.wait()
            return {"dnf": True, "cap": cap, "rss_mb": peak}
        time.sleep(0.05)
    out, err = proc.communicate()
    if proc.returncode != 0:
        return {"error": err.strip().splitlines()[-1] if err.strip() else f"exit {proc.returncode}"}
    return json.loads(out.strip().splitlines()[-1])


def _vm_hwm(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def wall(cmd: list[str], repeat: int) -> tuple[float, int]:
    """Median wall time of a command, and its last exit code."""
    times, code = [], 0
    for _ in range(repeat):
        t = time.perf_counter()
        code = subprocess.run(cmd, capture_output=True, cwd=ROOT).returncode
        times.append(time.perf_counter() - t)
    return statistics.median(times), code


def startup(repeat: int) -> dict:
    py = sys.executable
    out = {
        "python -c pass": wall([py, "-c", "pass"], repeat),
        "python -c 'import symattn'": wall([py, "-c", "import symattn"], repeat),
        "python -c 'import symattn.kernel.proof' (kernel)": wall(
            [py, "-c", "import symattn.kernel.proof"], repeat
        ),
    }
    if (ROOT / "symattn" / "cli").exists():
        out["python -m symattn --help"] = wall([py, "-m", "symattn", "--help"], repeat)
        out[f"python -m symattn check {CHAPTER.relative_to(ROOT)}"] = wall(
            [py, "-m", "symattn", "check", str(CHAPTER)], max(3, repeat // 2)
        )
    return out


def fmt_time(r: dict) -> str:
    if "dnf" in r:
        return f"did not finish within {r['cap']:.0f} s"
    if "error" in r:
        return f"error: {r['error']}"
    mark = "" if r["ok"] else " (WRONG VERDICT)"
    return f"{r['seconds']:.3g} s{mark}"


def ratio(r: dict, ours: float) -> str:
    if "dnf" in r:
        return f"> {r['cap'] / ours:,.0f}×"
    if "error" in r:
        return "–"
    x = r["seconds"] / ours
    return f"{x:,.0f}×" if x >= 10 else f"{x:.2g}×"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cap", type=float, default=60.0, help="seconds per baseline run")
    p.add_argument("--repeat", type=int, default=7, help="runs of symattn (median)")
    p.add_argument("--sizes", default="small,seed,original")
    p.add_argument("--engines", default="sympy,symengine")
    p.add_argument("--no-write", action="store_true", help="print only; leave docs/ alone")
    p.add_argument("--child", nargs="*", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child is not None:
        return _run_child(a.child, a.repeat)
    sizes = a.sizes.split(",")
    engines = [e for e in a.engines.split(",") if _available(e)]
    results: dict = {"sizes": {}, "engines": engines}
    for size in sizes:
        ours = spawn(["symattn", size, str(a.repeat)], cap=600)
        row = {"symattn": ours}
        print(f"[{size}] symattn: {ours.get('total_median', float('nan')):.4f} s", flush=True)
        for engine in engines:
            for name in NAMES:
                r = spawn(["baseline", engine, name, size], cap=a.cap)
                row[f"{engine}/{name}"] = r
                print(f"[{size}] {engine} {name}: {fmt_time(r)}", flush=True)
        results["sizes"][size] = row
    results["witnesses"] = spawn(["witnesses", sizes[-1], str(a.repeat)], cap=600)
    results["witnesses"]["size"] = sizes[-1]
    results["symbolic"] = spawn(["symbolic", str(max(3, a.repeat // 2))], cap=600)
    results["startup"] = startup(a.repeat)
    text = report(results, a)
    print(text)
    if not a.no_write:
        DOC.write_text(text)
        print(f"written to {DOC.relative_to(ROOT)}")
    return 0


def _available(engine: str) -> bool:
    # find_spec, not import: the parent stays small, its children are measured
    if importlib.util.find_spec(engine) is None:
        print(f"{engine} is not installed: skipped (pip install '.[bench]')", file=sys.stderr)
        return False
    return True


def _run_child(args: list[str], repeat: int) -> int:
    kind, *rest = args
    if kind == "baseline":
        out = child_baseline(*rest)
    elif kind == "symattn":
        out = child_symattn(rest[0], int(rest[1]))
    elif kind == "symbolic":
        out = child_symbolic(int(rest[0]))
    elif kind == "witnesses":
        out = child_witnesses(rest[0], int(rest[1]))
    else:
        raise SystemExit(f"unknown child {kind}")
    print(json.dumps(out))
    return 0


# ---- the report ---------------------------------------------------------------------------


def report(results: dict, a: argparse.Namespace) -> str:
    lines = [
        "# Benchmarks",
        "",
        "Measured by `python benchmarks/run.py` "
        f"(cap {a.cap:.0f} s per baseline run, symattn median of {a.repeat} runs) on "
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{time.strftime('%Y-%m-%d')}. Absolute times depend on the machine and what else "
        "runs on it; compare the ratios, which are measured in the same run.",
        "",
        "symattn: `prove_equal(lhs, rhs, witnesses=('exact',))` in one process after import "
        "(exact evaluation mod p, 3 trials, every index point; verdict `checked` with the "
        "probability bound). Baselines: explicit matrices of independent symbols, "
        "`expand(lhs - rhs)` (`benchmarks/identities.py`), each run in a child process; "
        "peak RSS is the child's.",
        "",
    ]
    engines = results["engines"]
    for size, row in results["sizes"].items():
        ours = row["symattn"]
        lines += [f"## {size}: " + ", ".join(f"{k}={v}" for k, v in SIZES[size].items()), ""]
        if "median" not in ours:
            lines += [f"symattn failed: {ours}", ""]
            continue
        head = "| identity | symattn (median) | symattn verdict |"
        rule = "|---|---|---|"
        for e in engines:
            head += f" {e} | {e} peak RSS | {e} / symattn |"
            rule += "---|---|---|"
        lines += [head, rule]
        for name in NAMES:
            t = ours["median"][name]
            cells = f"| {name} | {t * 1000:.1f} ms | {ours['status'][name]} |"
            for e in engines:
                r = row[f"{e}/{name}"]
                mem = f"{r.get('rss_mb', 0):.0f} MB" if r.get("rss_mb") else "–"
                cells += f" {fmt_time(r)} | {mem} | {ratio(r, t)} |"
            lines.append(cells)
        total = ours["total_median"]
        cells = f"| **I1–I4** | **{total * 1000:.1f} ms** | |"
        for e in engines:
            rs = [row[f"{e}/{n}"] for n in NAMES]
            if any("dnf" in r or "error" in r for r in rs):
                done = sum(r["seconds"] for r in rs if "seconds" in r)
                cap = sum(r.get("cap", 0) for r in rs)
                cells += f" > {done + cap:.3g} s | | > {(done + cap) / total:,.0f}× |"
            else:
                s = sum(r["seconds"] for r in rs)
                cells += f" {s:.3g} s | | {ratio({'seconds': s}, total)} |"
        lines.append(cells)
        lines += [
            "",
            f"symattn: whole I1–I4 run min {ours['total_min'] * 1000:.1f} ms, "
            f"max {ours['total_max'] * 1000:.1f} ms; first (cold) run "
            + ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in ours["first"].items())
            + f"; peak RSS of the whole symattn process {ours['rss_mb']:.0f} MB.",
            "",
            f"Verdict text (I3): {ours['reason']['I3']}",
            "",
        ]
    lines += _witness_section(results["witnesses"])
    lines += _symbolic_section(results["symbolic"])
    lines += _startup_section(results["startup"])
    return "\n".join(lines) + "\n"


def _witness_section(w: dict) -> list[str]:
    size = w.get("size", "?")
    lines = [f"## The float64 witness against the exact one ({size})", ""]
    if "exact" not in w:
        return lines + [f"failed: {w}", ""]
    lines += [
        "`witness.exact` and `witness.numeric_check` alone on the same unfolded claims, "
        "interleaved, median after a warm-up run; each compares every entry.",
        "",
        "| identity | exact | float64 | float64 / exact |",
        "|---|---|---|---|",
    ]
    for name in NAMES:
        e, f = w["exact"][name], w["float64"][name]
        lines.append(f"| {name} | {e * 1000:.1f} ms | {f * 1000:.1f} ms | {f / e:.2f} |")
    e, f = sum(w["exact"].values()), sum(w["float64"].values())
    lines.append(f"| **I1–I4** | **{e * 1000:.1f} ms** | **{f * 1000:.1f} ms** | **{f / e:.2f}** |")
    ev = w["evidence"]["I3"]
    lines += ["", f"Evidence (I3): {ev['exact']}; {ev['float64']}"]
    return lines + [""]


def _symbolic_section(sym: dict) -> list[str]:
    lines = ["## Symbolic-dimension proofs", ""]
    if "error" in sym or "dnf" in sym:
        return lines + [f"failed: {sym}", ""]
    lines += ["| claim set, witnesses | I1 | I2 | I3 | I4 |", "|---|---|---|---|---|"]
    for key, row in sym.items():
        cells = " | ".join(f"{row[n]['median'] * 1000:.0f} ms ({row[n]['status']})" for n in NAMES)
        lines.append(f"| {key} | {cells} |")
    return lines + [
        "",
        "With symbolic dims the claim has no size; the symbolic witness at explicit sizes "
        "(last rows) shows the time does not grow with the numbers either.",
        "",
    ]


def _startup_section(start: dict) -> list[str]:
    lines = ["## Start-up", "", "| command | median wall time | exit |", "|---|---|---|"]
    for cmd, (t, code) in start.items():
        lines.append(f"| `{cmd}` | {t * 1000:.0f} ms | {code} |")
    if not any("--help" in c for c in start):
        lines += ["", "`symattn/cli/` was absent: only `import symattn` was measured."]
    return lines + [""]


if __name__ == "__main__":
    sys.exit(main())
