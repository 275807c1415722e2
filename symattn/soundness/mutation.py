"""The soundness suite: wrong variants (mutants) of every true identity, judged by the kernel.

Imports the kernel and the soundness corpus, truth and fuzzer (all at the top); must not import
cli.
Run: `python -m symattn.soundness [--sample N] [--seed S] [--json]`,
`python -m symattn.soundness fuzz --examples N` and `python -m symattn.soundness diff ...`.

Each mutant's truth is decided by an independent route (`soundness.truth`: numpy on random data
at two explicit size plans, every index point, by handlers that share no code with the kernel's
evaluator), never by the kernel and never by a hand-written list. The kernel
then judges it with `prove_equal`; a false mutant it reports `proved` or `checked` is an escape.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import sympy

from symattn.kernel.dims import d_k, d_v, n
from symattn.kernel.errors import SoundnessAlarm, SymattnError
from symattn.kernel.expr import (
    CausalMask,
    ColSoftmax,
    Dot,
    Entry,
    HeadSym,
    MatExpr,
    MatMul,
    MatSum,
    MatSym,
    Row,
    RowBlock,
    Softmax,
    Transpose,
    walk,
)
from symattn.kernel.proof import prove_within
from symattn.kernel.ranges import bound_indices
from symattn.kernel.text import plain
from symattn.soundness.corpus import Claim, corpus
from symattn.soundness.fuzzing import fuzz_main
from symattn.soundness.truth import DIMS, Truth, truth

# ---- the corpus of true claims --------------------------------------------------------------


# ---- mutation -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mutant:
    """A variant of `base` with one change; `error` is set when it cannot even be built."""

    base: Claim
    operator: str
    where: str
    lhs: sympy.Basic | None
    rhs: sympy.Basic | None
    error: str | None = None

    @property
    def label(self) -> str:
        return f"{self.base.name} | {self.operator}: {self.where}"


Edit = tuple[str, str, Callable[[], sympy.Basic]]  # operator, description, builder


def _nodes(e: sympy.Basic) -> Iterator[tuple[tuple[int, ...], sympy.Basic]]:
    stack: list[tuple[tuple[int, ...], sympy.Basic]] = [((), e)]
    while stack:
        path, x = stack.pop()
        yield path, x
        for k in reversed(range(len(x.args))):
            if isinstance(x.args[k], sympy.Basic):
                stack.append((path + (k,), x.args[k]))


def _replace(e: sympy.Basic, path: tuple[int, ...], new: sympy.Basic) -> sympy.Basic:
    if not path:
        return new
    args = list(e.args)
    args[path[0]] = _replace(args[path[0]], path[1:], new)
    return e.func(*args)


def _short(x: object) -> str:

    text = plain(x) if isinstance(x, sympy.Basic) else str(x)
    return text if len(text) <= 60 else text[:57] + "..."


def _dims_of_claim(c: Claim) -> list[sympy.Symbol]:
    found = set()
    for side in (c.lhs, c.rhs):
        for x in walk(side):
            if isinstance(x, sympy.Symbol) and x in DIMS:
                found.add(x)
    return sorted(found, key=lambda s: s.name)


def _core(x: MatExpr) -> tuple[MatSym | None, bool]:
    if isinstance(x, Transpose) and isinstance(x.args[0], MatSym):
        return x.args[0], True
    return (x, False) if isinstance(x, MatSym) else (None, False)


def _edits(x: sympy.Basic, c: Claim, indices: Sequence[sympy.Symbol]) -> list[Edit]:
    out: list[Edit] = []
    if isinstance(x, Transpose):
        out.append(("transpose_dropped", f"{_short(x)} -> {_short(x.args[0])}", lambda: x.args[0]))
    if isinstance(x, (MatSym, HeadSym)):
        out.append(("transpose_added", f"{_short(x)} -> {_short(x)}^T", lambda: Transpose(x)))
    if isinstance(x, sympy.Indexed) and len(x.indices) >= 2 and x.indices[-1] != x.indices[-2]:
        *head, a, b = x.indices
        out.append(("indices_swapped", f"{x} -> swap", lambda: x.base[(*head, b, a)]))
    if isinstance(x, Entry) and x.args[1] != x.args[2]:
        e = x
        out.append(
            ("indices_swapped", f"{_short(x)} -> swap", lambda: Entry(e.matrix, *e.args[:0:-1]))
        )
    out.extend(_row_edits(x, indices))
    out.extend(_sum_edits(x, c))
    out.extend(_scale_edits(x))
    out.extend(_product_edits(x))
    if isinstance(x, Softmax):
        out.append(("softmax_over_columns", _short(x), lambda: ColSoftmax(x.args[0])))
    if isinstance(x, CausalMask) and not x.upper:
        out.append(("mask_wrong_triangle", _short(x), lambda: CausalMask(x.args[0], upper=True)))
    if isinstance(x, RowBlock):
        rb = x
        out.append(
            (
                "block_wrong_offset",
                f"{_short(x)} -> head {rb.head + 1}",
                lambda: RowBlock(rb.args[0], rb.head + 1, rb.args[2], rb.args[3]),
            )
        )
    if isinstance(x, MatSym) and x.name == "W_O":
        out.extend(_wo_edits(x))
    return out


def _row_edits(x: sympy.Basic, indices: Sequence[sympy.Symbol]) -> list[Edit]:
    out: list[Edit] = []
    if isinstance(x, Dot):
        u, v = x.args
        out.append(("factors_reordered", f"{_short(x)} -> v·u", lambda: Dot(v, u)))
        if isinstance(u, Row) and isinstance(v, Row) and u.index != v.index:
            out.append(
                (
                    "indices_swapped",
                    f"{_short(x)} -> rows swapped",
                    lambda: Dot(Row(u.args[0], v.index), Row(v.args[0], u.index)),
                )
            )
    if isinstance(x, Row):
        others = [k for k in indices if k != x.index]
        if others:
            k = others[0]
            out.append(("row_index_changed", f"{_short(x)} -> row {k}", lambda: Row(x.args[0], k)))
    return out


def _sum_edits(x: sympy.Basic, c: Claim) -> list[Edit]:
    if isinstance(x, sympy.Sum):
        limits = [tuple(lim) for lim in x.limits]

        def rebuild(k: int, lo: sympy.Expr, hi: sympy.Expr) -> Callable[[], sympy.Basic]:
            new = list(limits)
            new[k] = (limits[k][0], lo, hi)
            return lambda: sympy.Sum(x.function, *new)

    elif isinstance(x, MatSum):
        limits = [x.limits]

        def rebuild(k: int, lo: sympy.Expr, hi: sympy.Expr) -> Callable[[], sympy.Basic]:
            return lambda: MatSum(x.body, x.var, lo, hi)

    else:
        return []
    out: list[Edit] = []
    dims = _dims_of_claim(c)
    for k, (v, lo, hi) in enumerate(limits):
        out.append(("sum_bound_off_by_one", f"{v} up to {hi - 1}", rebuild(k, lo, hi - 1)))
        out.append(("sum_bound_off_by_one", f"{v} up to {hi + 1}", rebuild(k, lo, hi + 1)))
        out.append(("sum_bound_off_by_one", f"{v} from {lo + 1}", rebuild(k, lo + 1, hi)))
        if hi in DIMS:
            for other in (dim for dim in dims if dim != hi):
                out.append(("sum_over_wrong_dim", f"{v} up to {other}", rebuild(k, lo, other)))
    return out


def _scale_edits(x: sympy.Basic) -> list[Edit]:
    if not (isinstance(x, sympy.Pow) and x.base == d_k and x.exp in (sympy.S.Half, -sympy.S.Half)):
        return []
    sign = 1 if x.exp > 0 else -1
    return [
        ("scale_changed", f"sqrt(d_k) -> sqrt({s})", lambda s=s: s ** (sign * sympy.S.Half))
        for s in (d_v, n)
    ] + [("scale_changed", "sqrt(d_k) -> d_k", lambda: d_k**sign)]


def _product_edits(x: sympy.Basic) -> list[Edit]:
    if not isinstance(x, MatMul):
        return []
    a, b = x.args
    out: list[Edit] = [
        ("factors_reordered", f"{_short(x)} -> {_short(b)}{_short(a)}", lambda: b @ a)
    ]
    (ca, ta), (cb, tb) = _core(a), _core(b)
    if ca is not None and cb is not None and ca != cb and ca.shape == cb.shape:

        def swapped() -> sympy.Basic:
            return (cb.T if ta else cb) @ (ca.T if tb else ca)

        out.append(("factors_reordered", f"{_short(x)} -> letters swapped", swapped))
    return out


def _wo_edits(x: MatSym) -> list[Edit]:
    rows, cols = x.shape
    out: list[Edit] = []
    if rows.has(d_v):
        wrong = rows.xreplace({d_v: d_k})
        out.append(
            ("w_o_wrong_shape", f"W_O rows {rows} -> {wrong}", lambda: MatSym("W_O", wrong, cols))
        )
    out.append(("w_o_wrong_shape", f"W_O cols {cols} -> d_v", lambda: MatSym("W_O", rows, d_v)))
    return out


def _free_indices(c: Claim) -> list[sympy.Symbol]:
    bound = bound_indices(c.lhs, c.rhs)
    found = {
        s
        for side in (c.lhs, c.rhs)
        for x in walk(side)
        for s in ([x] if isinstance(x, sympy.Symbol) else [])
        if s.is_integer and s not in DIMS and s not in bound
    }
    return sorted(found, key=lambda s: s.name)


def mutants(c: Claim) -> list[Mutant]:
    """Every single-edit variant of `c` that differs from it, without duplicates.

    >>> from symattn.soundness.corpus import chapter_claims
    >>> c = chapter_claims()[1]
    >>> sorted({x.operator for x in mutants(c)})[:3]
    ['factors_reordered', 'indices_swapped', 'row_index_changed']
    """
    out: list[Mutant] = []
    seen = {sympy.srepr((c.lhs, c.rhs))}
    indices = _free_indices(c)
    for side in ("lhs", "rhs"):
        root = getattr(c, side)
        for path, node in _nodes(root):
            for op, where, build in _edits(node, c, indices):
                mutant = _apply(c, side, root, path, op, where, build)
                key = mutant.error or sympy.srepr((mutant.lhs, mutant.rhs))
                if mutant.error is None and key in seen:
                    continue
                seen.add(key)
                out.append(mutant)
    return out


def _apply(c: Claim, side: str, root: sympy.Basic, path, op: str, where: str, build) -> Mutant:
    where = f"{side}: {where}"
    try:
        new = _replace(root, path, build())
    except SymattnError as exc:
        return Mutant(c, op, where, None, None, error=f"{type(exc).__name__}: {exc}")
    lhs, rhs = (new, c.rhs) if side == "lhs" else (c.lhs, new)
    return Mutant(c, op, where, lhs, rhs)


# ---- truth by an independent route ----------------------------------------------------------


# ---- running the kernel ---------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """One mutant: its truth, the kernel's status, and whether they agree."""

    mutant: Mutant
    truth: Truth
    status: str
    reason: str
    seconds: float

    @property
    def accepted(self) -> bool:
        return self.status in ("proved", "checked")

    @property
    def escape(self) -> bool:
        """A false claim the kernel reports proved or checked: a soundness bug."""
        return self.truth == "false" and self.accepted

    def as_dict(self) -> dict[str, Any]:
        return {
            "claim": self.mutant.base.name,
            "operator": self.mutant.operator,
            "where": self.mutant.where,
            "truth": self.truth,
            "status": self.status,
            "reason": self.reason[:300],
            "seconds": round(self.seconds, 2),
        }


def judge(mutant: Mutant, seconds: float = 30.0) -> Outcome:
    """Decide the mutant's truth independently, then ask the kernel (under a time budget).

    >>> from symattn.soundness.corpus import chapter_claims
    >>> mu = [x for x in mutants(chapter_claims()[1]) if x.operator == "indices_swapped"][0]
    >>> o = judge(mu); o.truth, o.status
    ('false', 'false')
    """

    start = time.monotonic()
    if mutant.error is not None or mutant.lhs is None or mutant.rhs is None:
        return Outcome(mutant, "false", "rejected_at_construction", mutant.error or "", 0.0)
    c = mutant.base
    try:
        t = truth(mutant.lhs, mutant.rhs, c.defs, c.assuming)
    except SymattnError:
        t = "undecided"
    try:
        v = prove_within(mutant.lhs, mutant.rhs, seconds=seconds, defs=c.defs, assuming=c.assuming)
        status, reason = v.status, v.reason
    except SoundnessAlarm as exc:  # the kernel's own soundness alarm
        status, reason = "alarm", str(exc)
    except SymattnError as exc:
        status, reason = "error", f"{type(exc).__name__}: {exc}"
    except Exception as exc:  # a crash is a bug to report, not a verdict
        status, reason = "crash", f"{type(exc).__name__}: {exc} ({_where(exc)})"
    return Outcome(mutant, t, status, reason, time.monotonic() - start)


def _stratified(pool: list[Mutant], size: int, seed: int) -> list[Mutant]:
    """A seeded sample that takes the operators in turn, so a small sample still covers each."""
    rng = random.Random(seed)
    groups: dict[str, list[Mutant]] = {}
    for mutant in pool:
        groups.setdefault(mutant.operator, []).append(mutant)
    for group in groups.values():
        rng.shuffle(group)
    out: list[Mutant] = []
    while len(out) < size:
        for name in sorted(groups):
            if groups[name] and len(out) < size:
                out.append(groups[name].pop())
    return out


def _where(exc: BaseException) -> str:
    """The innermost symattn frames of a traceback, as `file:line` (where a crash happened)."""

    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/symattn/" in f.filename]
    return " < ".join(f"{f.filename.rsplit('/', 1)[-1]}:{f.lineno}" for f in frames[::-1][:3])


@dataclass
class Report:
    """Figures over a run; `escapes` must be empty."""

    outcomes: list[Outcome]
    bases: int
    base_problems: list[str]
    seconds: float

    def _of(self, truth: Truth) -> list[Outcome]:
        return [o for o in self.outcomes if o.truth == truth]

    @property
    def escapes(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.escape or o.status == "alarm"]

    def figures(self) -> dict[str, Any]:
        false, true = self._of("false"), self._of("true")
        return {
            "claims": self.bases,
            "mutants": len(self.outcomes),
            "false": len(false),
            "false_rejected": sum(not o.accepted for o in false),
            "false_accepted": sum(o.accepted for o in false),
            "rejected_at_construction": sum(
                o.status == "rejected_at_construction" for o in self.outcomes
            ),
            "true": len(true),
            "true_accepted": sum(o.accepted for o in true),
            "undecided": len(self._of("undecided")),
            "crashes": sum(o.status == "crash" for o in self.outcomes),
            "status": dict(sorted(Counter(o.status for o in self.outcomes).items())),
            "operators": dict(sorted(Counter(o.mutant.operator for o in self.outcomes).items())),
            "seconds": round(self.seconds, 1),
        }

    def disagreements(self) -> list[Outcome]:
        """False accepted, true not accepted, and undecided: every case worth reading."""
        return [
            o
            for o in self.outcomes
            if o.escape
            or o.status in ("alarm", "crash")
            or (o.truth == "true" and not o.accepted)
            or o.truth == "undecided"
        ]

    def text(self) -> str:
        f = self.figures()
        pct = lambda a, b: f"{100.0 * a / b:.1f}%" if b else "n/a"  # noqa: E731
        lines = [
            f"soundness: {f['mutants']} mutants of {f['claims']} true claims in {f['seconds']} s",
            f"  false mutants rejected: {f['false_rejected']}/{f['false']} "
            f"({pct(f['false_rejected'], f['false'])}); "
            f"{f['rejected_at_construction']} of them refused at construction, "
            f"{f['crashes']} only by a crash",
            f"  false mutants reported proved/checked (escapes): {len(self.escapes)}",
            f"  true mutants accepted: {f['true_accepted']}/{f['true']} "
            f"({pct(f['true_accepted'], f['true'])})",
            f"  undecided by the independent route: {f['undecided']}",
            f"  kernel crashes (an exception that is not a SymattnError): {f['crashes']}",
            f"  kernel statuses: {f['status']}",
        ]
        for prob in self.base_problems:
            lines.append(f"  base claim problem: {prob}")
        for o in self.disagreements():
            tag: str = "ESCAPE" if o.escape or o.status == "alarm" else o.truth
            tag = "CRASH" if o.status == "crash" else tag
            lines.append(f"  [{tag}] {o.mutant.label} -> {o.status}: {o.reason[:160]}")
        return "\n".join(lines)

    def to_json(self) -> str:
        return json.dumps(
            {
                "figures": self.figures(),
                "escapes": [o.as_dict() for o in self.escapes],
                "disagreements": [o.as_dict() for o in self.disagreements()],
                "base_problems": self.base_problems,
                "outcomes": [o.as_dict() for o in self.outcomes],
            },
            indent=1,
            ensure_ascii=False,
            sort_keys=True,
        )


def run(
    claims: Sequence[Claim] | None = None,
    *,
    sample: int | None = None,
    seed: int = 0,
    seconds: float = 30.0,
    progress: Callable[[str], None] | None = None,
) -> Report:
    """Mutate every claim, judge every mutant (or a seeded sample of them), and sum up.

    >>> from symattn.soundness.corpus import chapter_claims
    >>> r = run([chapter_claims()[1]], sample=2, seed=0)
    >>> r.figures()["mutants"], r.escapes
    (2, [])
    """
    start = time.monotonic()
    claims = corpus() if claims is None else list(claims)
    problems: list[str] = []
    pool: list[Mutant] = []
    for c in claims:
        t = truth(c.lhs, c.rhs, c.defs, c.assuming)
        if t != "true":
            problems.append(f"{c.name}: the independent route says {t}; its mutants are skipped")
            continue
        pool.extend(mutants(c))
    if sample is not None and sample < len(pool):
        pool = _stratified(pool, sample, seed)
    outcomes = []
    for k, mutant in enumerate(pool, start=1):
        o = judge(mutant, seconds)
        outcomes.append(o)
        if progress is not None:
            progress(
                f"[{k}/{len(pool)}] {o.truth:9} {o.status:24} {o.seconds:5.1f}s {mutant.label}"
            )
    return Report(outcomes, len(claims), problems, time.monotonic() - start)


# ---- fuzzing the reader (and the checker) ---------------------------------------------------


# ---- command line ---------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m symattn.soundness [fuzz] ...`; exit 1 when a false claim escaped."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["fuzz"]:
        return fuzz_main(args[1:])
    ap = argparse.ArgumentParser(prog="python -m symattn.soundness", description=__doc__)
    ap.add_argument("--sample", type=int, default=None, help="judge a seeded sample of N mutants")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true", help="print the full report as JSON")
    ap.add_argument("--seconds", type=float, default=30.0, help="time budget per mutant")
    ap.add_argument("--no-derivations", action="store_true", help="rules and chapter only")
    ap.add_argument("--verbose", action="store_true", help="one line per mutant on stderr")
    ap.add_argument("--only", default="", help="only claims whose name contains this text")
    opts = ap.parse_args(args)
    claims = [c for c in corpus(derivations=not opts.no_derivations) if opts.only in c.name]
    report = run(
        claims,
        sample=opts.sample,
        seed=opts.seed,
        seconds=opts.seconds,
        progress=(lambda s: print(s, file=sys.stderr, flush=True)) if opts.verbose else None,
    )
    print(report.to_json() if opts.json else report.text())
    return 1 if report.escapes else 0


if __name__ == "__main__":
    raise SystemExit(main())
