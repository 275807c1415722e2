"""The differential soundness suite: every generated claim through every front end, vs the oracle.

Imports the kernel, check, cli and the suite's own modules (generate, oracle, render, mutation,
wild); nothing in symattn but the soundness package imports it. Each claim runs under every context.

    python -m symattn.soundness diff --claims N --seed S --jobs 2 --json out.json

Front ends: `api` (`symattn.kernel.proof.prove_within`, i.e. `proof.prove_equal`, under
`symattn.kernel.dims.assume`), `prove` (`symattn.cli.main(["prove", ...])` in-process) and `check`
(`symattn.cli.main(["check", doc.md])` on a generated Markdown document). Contexts: see
`oracle.CONTEXTS`. The existing mutation corpus runs through the API under every context too
(`--corpus`). The wider classes (`soundness.wild`, `--wild N`) go through `prove` and `check`
only, under the context `inferred` (the document declares nothing) or `declared`.

Claims with the same AST under the same contexts are one task: the first goes through every front
end under every context, and the others (the same argv, the same documents: the front ends and
the kernel are deterministic, the oracle is seeded) share its items under their own names;
`--repeats` judges each of them again.

Outcome categories (per front end and context):

- `false_accepted`: the oracle says the claim is not true (false, ill-typed or ill-formed) and
  the front end accepted it: status `proved`; or `checked` where the oracle finds the claim false
  at one of the sizes the verdict lists (or the verdict lists none); `symattn prove` exit 0; a
  `verified` line in `symattn check`;
- `checked_false_elsewhere`: `checked` at sizes where the claim holds, false in general (a
  weakness, not an escape);
- `true_rejected`: a true claim reported `false`;
- `crash`: an exception that is not a SymattnError, a traceback, an exit code other than 0/1/2,
  or "internal error" in the output;
- `alarm`: `SoundnessAlarm` (or its text in the CLI output);
- `unknown`: unknown, agreed, undecided, time budget exhausted;
- `rejected` (a non-true claim refused: false, shape error), `accepted` (a true claim
  proved/checked), `true_not_accepted` (a true claim refused as shape error / not understood),
  `not_understood` (the reader refused a non-true claim), `not_expressible` (the front end
  cannot state the claim; not run).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import multiprocessing as mp
import os
import re
import shlex
import sys
import tempfile
import time
import traceback
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import sympy

import symattn.check.verdicts as verdicts
from symattn import cli
from symattn.kernel.dims import STANDARD_DIMS, assume
from symattn.kernel.errors import SoundnessAlarm, SymattnError
from symattn.kernel.expr import MatExpr
from symattn.kernel.proof import prove_within
from symattn.soundness import oracle, wild
from symattn.soundness import truth as T
from symattn.soundness.corpus import corpus
from symattn.soundness.generate import TEMPLATES, GenClaim, generate
from symattn.soundness.mutation import mutants
from symattn.soundness.oracle import CONTEXTS, Context, Decision
from symattn.soundness.render import (
    NotExpressible,
    api_source,
    document,
    kernel_terms,
    prove_argv,
    undeclared_document,
)

FRONT_ENDS = ("api", "prove", "check")
BAD = ("false_accepted", "crash", "alarm")


@dataclass
class Item:
    """One claim through one front end under one context."""

    claim: str
    template: str
    mutations: str
    context: str
    front_end: str
    truth: str
    status: str
    category: str
    detail: str
    seconds: float
    repro: str = ""

    def line(self) -> str:
        return (
            f"[{self.category}] {self.front_end}/{self.context} {self.claim} {self.template} "
            f"[{self.mutations}] truth={self.truth} status={self.status}: {self.detail[:200]}"
        )


# ---- judging one front end -------------------------------------------------------------------


def _where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    inner = [f for f in frames if "/symattn/" in f.filename and "/soundness/" not in f.filename]
    return " < ".join(f"{f.filename.rsplit('/', 1)[-1]}:{f.lineno}" for f in inner[::-1][:3])


def classify(truth: str, status: str, sizes_ok: bool | None) -> str:
    """The category of a (truth, status) pair; `sizes_ok` says whether the oracle finds the claim
    true at every size a `checked` verdict lists (None: no sizes listed)."""
    if status == "crash":
        return "crash"
    if status == "alarm":
        return "alarm"
    if status == "not_expressible":
        return "not_expressible"
    true = truth == "true"
    if status == "proved":
        return "accepted" if true else "false_accepted"
    if status == "checked":
        if true:
            return "accepted"
        return "checked_false_elsewhere" if sizes_ok else "false_accepted"
    if status in ("unknown", "agreed", "timeout"):
        return "unknown"
    if status == "false":
        return "true_rejected" if true else "rejected"
    if status in ("shape_error", "rejected_at_construction"):
        return "true_not_accepted" if true else "rejected"
    if status == "not_understood":
        return "true_not_accepted" if true else "not_understood"
    return "unknown"


def _sizes_ok(spec: oracle.ClaimSpec, sizes: Iterable[Iterable[tuple[str, int]]]) -> bool | None:
    listed = [dict(s) for s in sizes]
    listed = [s for s in listed if s]
    if not listed:
        return None
    defaults = {"n": 3, "d": 5, "d_k": 4, "d_v": 6, "H": 2}
    for plan in listed:
        full = {**defaults, **{k: int(v) for k, v in plan.items() if k in defaults}}
        if oracle.decide_at(spec, full).truth != "true":
            return False
    return True


def run_api(c: GenClaim, ctx: Context, seconds: float) -> tuple[str, str, Any]:
    """(status, detail, sizes) from the Python API under the context."""
    if ctx.kind == "written":
        return "not_expressible", "matrices written out are stated only in a document", ()

    try:
        k = kernel_terms(c.spec, ctx)
    except SymattnError as exc:
        return "rejected_at_construction", f"{type(exc).__name__}: {exc}", ()
    except Exception as exc:  # a crash in a constructor
        return "crash", f"{type(exc).__name__}: {exc} ({_where(exc)})", ()
    try:
        with assume(**k.assume):
            v = prove_within(k.lhs, k.rhs, seconds=seconds)
    except SoundnessAlarm as exc:
        return "alarm", str(exc), ()
    except SymattnError as exc:
        return "shape_error" if "Shape" in type(exc).__name__ else "unknown", str(exc), ()
    except Exception as exc:
        return "crash", f"{type(exc).__name__}: {exc} ({_where(exc)})", ()
    return v.status, v.summary(), v.sizes


def _cli(argv: Sequence[str]) -> tuple[int | str, str, str]:

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc: int | str = cli.main(list(argv))
        except SystemExit as exc:
            rc = exc.code if isinstance(exc.code, int) else 2
        except Exception as exc:
            rc = f"exception {type(exc).__name__}: {exc} ({_where(exc)})"
    return rc, out.getvalue(), err.getvalue()


_SIZES = re.compile(r"([A-Za-z_]+)\s*=\s*(\d+)")


def _parse_sizes(message: str) -> list[list[tuple[str, int]]]:
    """The sizes a 'checked' message lists: `... at n=3, d_k=2; n=4, d_k=3 ...` (best effort)."""
    m = re.search(r"(?:explicit sizes only|checked[^:]*? at)\s*\(?([^)\[:]*)", message)
    if not m:
        return []
    out = []
    for part in re.split(r";| and ", m.group(1)):
        got = [(a, int(b)) for a, b in _SIZES.findall(part)]
        if got:
            out.append(got)
    return out


def _cli_status(rc: int | str, out: str, err: str, line: int | None) -> tuple[str, str, Any]:
    text = out + err
    if isinstance(rc, str):
        return "crash", rc, ()
    if rc not in (0, 1, 2):
        return "crash", f"exit code {rc}: {text[-300:]}", ()
    if "Traceback (most recent call last)" in text:
        return "crash", text[-400:], ()
    if "internal error" in text:
        m = re.search(r"internal error[^\n]*", text)
        return "crash", f"exit {rc}: {m.group(0) if m else text[-200:]}", ()
    if "soundness alarm" in text:
        return "alarm", text[-300:], ()
    try:
        data = json.loads(out)
    except ValueError:
        return "unknown", f"exit {rc}, no JSON: {text[-200:]}", ()
    results = data.get("results")
    if results is None:  # check: files -> results
        results = [r for f in data.get("files", []) for r in f.get("results", [])]
        if line is not None:
            results = [r for r in results if r.get("line") == line]
    results = [r for r in results if r.get("kind") not in ("declaration", "not-a-claim")]
    if not results:
        return "not_understood", f"exit {rc}: no claim read", ()
    statuses = [r.get("status", "") for r in results]
    msg = " | ".join(r.get("message", "") for r in results)
    for bad in ("false", "shape_error"):
        if bad in statuses:
            return bad, msg, ()
    if all(s in ("proved", "checked") for s in statuses):
        st = "proved" if all(s == "proved" for s in statuses) else "checked"
        sizes = _parse_sizes(msg) if st == "checked" else ()
        return st, msg, sizes
    if "not_understood" in statuses:
        return "not_understood", msg, ()
    return "unknown", msg, ()


def run_prove(c: GenClaim, ctx: Context) -> tuple[str, str, Any, str]:
    try:
        argv = prove_argv(c.spec, ctx)
    except NotExpressible as exc:
        return "not_expressible", str(exc), (), ""
    rc, out, err = _cli(argv)
    status, detail, sizes = _cli_status(rc, out, err, None)
    if rc == 0 and status not in ("proved", "checked", "crash", "alarm"):
        status, detail = "proved", f"exit 0 although the verdict is {status}: {detail}"
    return status, f"exit {rc}: {detail}", sizes, "symattn " + shlex.join(argv)


def run_check(c: GenClaim, ctx: Context, workdir: str) -> tuple[str, str, Any, str]:
    try:
        text, line = document(c.spec, ctx)
    except NotExpressible as exc:
        return "not_expressible", str(exc), (), ""
    path = os.path.join(workdir, f"{c.ident}-{ctx.name.replace('/', '_')}.md")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    rc, out, err = _cli(["check", path, "--format", "json"])
    status, detail, sizes = _cli_status(rc, out, err, line)
    return status, f"exit {rc}: {detail}", sizes, text


# ---- one claim, every context and front end ---------------------------------------------------

_WORKDIR: str | None = None


def _workdir() -> str:
    global _WORKDIR
    if _WORKDIR is None:
        _WORKDIR = tempfile.mkdtemp(prefix="symattn-diff-")
    return _WORKDIR


def _set_claim_seconds(seconds: float) -> None:
    verdicts.CLAIM_SECONDS = seconds  # the checker reads its per-claim limit at call time


def run_inferred(c: GenClaim) -> tuple[str, str, Any, str]:
    """`symattn check` on the claim with no shape declared (the reader infers them)."""
    try:
        text, line = undeclared_document(c.spec)
    except NotExpressible as exc:
        return "not_expressible", str(exc), (), ""
    path = os.path.join(_workdir(), f"{c.ident}-inferred.md")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    rc, out, err = _cli(["check", path, "--format", "json"])
    status, detail, sizes = _cli_status(rc, out, err, line)
    return status, f"exit {rc}: {detail}", sizes, text


def _inferred_item(c: GenClaim, seconds: float) -> Item:
    """The context "inferred" (check only): the truth is the oracle's with the generator's shapes
    and no assumption; a claim that is not well-typed with them is not judged (its names could
    have other shapes that make it true), it is recorded as not expressible."""
    start = time.monotonic()
    try:
        truth = oracle.decide(c.spec, CONTEXTS[0]).truth
    except Exception as exc:
        truth = f"oracle_error {type(exc).__name__}: {exc}"
    if truth in ("ill_typed", "ill_formed"):
        status, detail, sizes, repro = (
            "not_expressible",
            f"{truth} with the generator's shapes",
            (),
            "",
        )
    else:
        status, detail, sizes, repro = run_inferred(c)
    ok = _sizes_ok(c.spec, sizes) if status == "checked" and truth != "true" else None
    return Item(
        c.ident,
        c.template,
        "+".join(c.mutations) or "-",
        "inferred",
        "check",
        truth,
        status,
        classify(truth, status, ok),
        detail[:500],
        round(time.monotonic() - start, 3),
        repro,
    )


def judge_claim(
    c: GenClaim,
    contexts: Sequence[Context] = CONTEXTS,
    front_ends: Sequence[str] = FRONT_ENDS,
    seconds: float = 10.0,
    inferred: bool = False,
) -> list[Item]:
    """Every (context, front end) pair for one claim; with `inferred`, also `check` on a
    document that declares no shape."""
    _set_claim_seconds(seconds)
    items = [_inferred_item(c, seconds)] if inferred and "check" in front_ends else []
    for ctx in contexts:
        try:
            dec: Decision = oracle.decide(c.spec, ctx)
            truth = dec.truth
        except Exception as exc:  # the oracle itself failed: report, never hide
            truth = f"oracle_error {type(exc).__name__}: {exc}"
        for fe in front_ends:
            start = time.monotonic()
            repro = ""
            if fe == "api":
                status, detail, sizes = run_api(c, ctx, seconds)
                repro = api_source(c.spec, ctx)
            elif fe == "prove":
                status, detail, sizes, repro = run_prove(c, ctx)
            else:
                status, detail, sizes, repro = run_check(c, ctx, _workdir())
            ok = _sizes_ok(c.spec, sizes) if status == "checked" and truth != "true" else None
            cat = classify(truth, status, ok)
            items.append(
                Item(
                    c.ident,
                    c.template,
                    "+".join(c.mutations) or "-",
                    ctx.name,
                    fe,
                    truth,
                    status,
                    cat,
                    detail[:500],
                    round(time.monotonic() - start, 3),
                    repro,
                )
            )
    return items


# ---- the wider classes: claims as texts write them ------------------------------------------


def judge_wild(
    c: wild.WildClaim, front_ends: Sequence[str] = FRONT_ENDS, seconds: float = 10.0
) -> list[Item]:
    """A wild claim through `prove` and `check` (the API has no terms for it: the reader must
    read it); context `inferred` when the document declares nothing, else `declared`."""
    _set_claim_seconds(seconds)
    try:
        truth = wild.decide(c.spec)
    except Exception as exc:  # the evaluator itself failed: report, never hide
        truth = f"oracle_error {type(exc).__name__}: {exc}"
    ctx = "declared" if c.declare else "inferred"
    items = []
    for fe in front_ends:
        if fe == "api":
            continue
        start = time.monotonic()
        if fe == "prove":
            try:
                argv = wild.prove_argv(c)
            except wild.NotStated as exc:
                status, detail, sizes, repro = "not_expressible", str(exc), (), ""
            else:
                rc, out, err = _cli(argv)
                status, detail, sizes = _cli_status(rc, out, err, None)
                if rc == 0 and status not in ("proved", "checked", "crash", "alarm"):
                    status, detail = "proved", f"exit 0 although the verdict is {status}: {detail}"
                detail, repro = f"exit {rc}: {detail}", "symattn " + shlex.join(argv)
        else:
            text, line = wild.document(c)
            path = os.path.join(_workdir(), f"{c.ident}.md")
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
            rc, out, err = _cli(["check", path, "--format", "json"])
            status, detail, sizes = _cli_status(rc, out, err, line)
            detail, repro = f"exit {rc}: {detail}", text
        ok = None
        if status == "checked" and truth != "true":
            given: Any = sizes
            listed: list[dict[str, int]] = [dict(x) for x in given if x]
            ok = bool(listed) and all(wild.decide(c.spec, at=p) == "true" for p in listed)
        items.append(
            Item(
                c.ident,
                c.template,
                "+".join(c.mutations) or "-",
                ctx,
                fe,
                truth,
                status,
                classify(truth, status, ok),
                detail[:500],
                round(time.monotonic() - start, 3),
                repro,
            )
        )
    return items


def _job(args: tuple[Any, ...]) -> list[Item]:
    """Every claim of a group (claims with one AST under the same contexts).

    The first claim goes through every front end under every context; the others are the same
    input (the same argv, the same documents), so by default they share its items, each under
    its own name, template and mutations (`repeats`: judge each one again, as a user would)."""
    group, ctx_names, fes, seconds, *rest = args
    repeats = bool(rest and rest[0])
    out: list[Item] = []
    first: list[Item] | None = None
    for c in group:
        if first is not None and not repeats:
            out += [_repeat(it, c) for it in first]
            continue
        if isinstance(c, wild.WildClaim):
            got = judge_wild(c, fes, seconds)
        else:
            ctxs = [x for x in CONTEXTS if x.name in ctx_names]
            got = judge_claim(c, ctxs, fes, seconds, inferred="inferred" in ctx_names)
        first = first if first is not None else got
        out += got
    return out


def _repeat(it: Item, c: Any) -> Item:
    """The item of an identical claim, under the name of `c` (judged once: the front ends and
    the kernel are deterministic on the same input, and the oracle is seeded)."""
    return replace(
        it,
        claim=c.ident,
        template=c.template,
        mutations="+".join(c.mutations) or "-",
        seconds=0.0,
    )


def _groups(
    claims: Sequence[Any], contexts: Sequence[tuple[str, ...]]
) -> list[tuple[list[Any], tuple[str, ...]]]:
    """Claims with the same AST under the same contexts, together, in the order first seen."""
    found: dict[tuple[str, str, tuple[str, ...]], list[Any]] = {}
    for c, names in zip(claims, contexts, strict=True):
        kind = "wild" if isinstance(c, wild.WildClaim) else "gen"
        found.setdefault((kind, repr(c.spec), names), []).append(c)
    return [(group, key[2]) for key, group in found.items()]


def run_claims(
    claims: Sequence[Any],
    *,
    jobs: int = 2,
    contexts: Sequence[str] | None = None,
    front_ends: Sequence[str] = FRONT_ENDS,
    seconds: float = 10.0,
    progress: bool = False,
    per_claim: Sequence[Sequence[str]] | None = None,
    stall: float | None = None,
    log: str | None = None,
    repeats: bool = False,
) -> list[Item]:
    """Judge every claim (in `jobs` processes) under `contexts` (default: all), or under
    `per_claim[k]` for claim k (a CI sample that rotates the contexts).

    With no result from the workers for `stall` seconds (default: four times a claim's budget
    plus 2 min) the pool is stopped and every unfinished claim is reported as a crash. With
    `log`, every item is appended to that file (one JSON object a line) as it comes back, so an
    interrupted run keeps what it judged. A claim identical to an earlier one (the same AST
    under the same contexts) shares its items unless `repeats` (`_job`)."""
    names = tuple(contexts or [x.name for x in CONTEXTS])
    chosen = [tuple(per_claim[k]) if per_claim is not None else names for k in range(len(claims))]
    tasks = [
        (group, ctx_names, tuple(front_ends), seconds, repeats)
        for group, ctx_names in _groups(claims, chosen)
    ]
    out: list[Item] = []
    start = time.monotonic()
    done = 0
    if jobs <= 1:
        it: Iterable[list[Item]] = map(_job, tasks)
        for task, items in zip(tasks, it, strict=True):
            out.extend(items)
            _log(log, items)
            before, done = done, done + len(task[0])
            _progress(progress, done, len(claims), start, out, before)
        return out

    # A worker the per-claim budgets fail to stop (C code deaf to the timer's signal) must not
    # hang the run: with no result for `stall` seconds the pool is stopped and the unfinished
    # claims are crashes.
    if stall is None:
        widest = max((len(t[0]) * len(t[1]) for t in tasks), default=1)
        stall = 4 * (seconds * widest * len(front_ends) + 30)
    ctx = mp.get_context("fork")
    with ctx.Pool(jobs, maxtasksperchild=200) as pool:
        results = pool.imap_unordered(_job, tasks)  # chunks of one: `next` takes a timeout
        for _ in range(len(tasks)):
            try:
                items = results.next(timeout=stall)
            except mp.TimeoutError:
                pool.terminate()
                out.extend(_stalled(tasks, out, stall))
                return out
            out.extend(items)
            _log(log, items)
            before, done = done, done + len({it.claim for it in items})
            _progress(progress, done, len(claims), start, out, before)
    return out


def _log(path: str | None, items: Sequence[Item]) -> None:
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            for it in items:
                fh.write(json.dumps(asdict(it), ensure_ascii=False) + "\n")


def _stalled(tasks: Sequence[tuple[Any, ...]], done: Sequence[Item], stall: float) -> list[Item]:
    """A crash item for every claim whose result never came back."""
    finished = {i.claim for i in done}
    detail = f"no result for {stall:.0f} s: a worker hung past its time budget"
    return [
        Item(
            c.ident,
            c.template,
            "+".join(c.mutations) or "-",
            "-",
            "-",
            "-",
            "-",
            "crash",
            detail,
            stall,
        )
        for group, *_ in tasks
        for c in group
        if c.ident not in finished
    ]


def _progress(
    on: bool, k: int, total: int, start: float, items: list[Item], before: int = -1
) -> None:
    if on and (k // 200 > max(before, 0) // 200 or k == total):
        bad = sum(i.category in BAD for i in items)
        took = time.monotonic() - start
        print(f"  {k}/{total} claims, {took:.0f} s, {bad} bad items", file=sys.stderr, flush=True)


# ---- the mutation corpus under every context ----------------------------------------------------


def corpus_items(
    contexts: Sequence[Context] = CONTEXTS, seconds: float = 10.0, derivations: bool = False
) -> list[Item]:
    """Every mutant of the existing corpus through the API under each context; truth by the
    corpus's independent route at size plans that satisfy the context."""

    # the dims no context sets (m, p, q, and modern attention's G, R, D, ell, b), as the truth
    # oracle's first plan has them, so the corpus's modern claims are decided, not undecided
    extra = [k for k in T.TRUTH_PLANS[0] if k.name not in STANDARD_DIMS]
    items = []
    pool = [mu for c in corpus(derivations=derivations) for mu in mutants(c)]
    for ctx in contexts:
        plans = [
            _apart({STANDARD_DIMS[k]: v for k, v in plan.items()}, extra)
            for plan in oracle.plans(ctx)
        ]
        numbers = (
            {STANDARD_DIMS[k]: sympy.Integer(v) for k, v in (ctx.explicit or {}).items()}
            if ctx.kind == "explicit"
            else {}
        )
        asm: dict[str, Any] = {}
        if ctx.relation:
            a, b = ctx.relation.split("=")
            asm[a] = (
                STANDARD_DIMS[b.split("/")[0]] / STANDARD_DIMS[b.split("/")[1]]
                if "/" in b
                else STANDARD_DIMS[b]
            )
        if ctx.kind == "worked":
            asm.update({k: int(v) for k, v in (ctx.explicit or {}).items()})
        for mu in pool:
            start = time.monotonic()
            label = f"{mu.base.name} | {mu.operator}: {mu.where}"
            if mu.error is not None or mu.lhs is None or mu.rhs is None:
                items.append(
                    Item(
                        label,
                        "corpus",
                        mu.operator,
                        ctx.name,
                        "api",
                        "false",
                        "rejected_at_construction",
                        "rejected",
                        mu.error or "",
                        0.0,
                    )
                )
                continue
            lhs, rhs = mu.lhs.xreplace(numbers), mu.rhs.xreplace(numbers)
            defs = {k.xreplace(numbers): v.xreplace(numbers) for k, v in mu.base.defs.items()}
            truth = _corpus_truth(lhs, rhs, defs, mu.base.assuming, plans)
            try:
                with assume(**asm):
                    v = prove_within(
                        lhs, rhs, seconds=seconds, defs=defs, assuming=mu.base.assuming
                    )
                status, detail, sizes = v.status, v.summary(), v.sizes
            except SoundnessAlarm as exc:
                status, detail, sizes = "alarm", str(exc), ()
            except SymattnError as exc:
                status, detail, sizes = "shape_error", f"{type(exc).__name__}: {exc}", ()
            except Exception as exc:
                status, detail, sizes = "crash", f"{type(exc).__name__}: {exc} ({_where(exc)})", ()
            ok = None
            if status == "checked" and truth != "true":
                listed = [dict(s) for s in sizes if s]
                ok = bool(listed) and all(
                    _corpus_truth(
                        lhs,
                        rhs,
                        defs,
                        mu.base.assuming,
                        [
                            {
                                **plans[0],
                                **{
                                    STANDARD_DIMS.get(
                                        k, sympy.Symbol(k, integer=True, positive=True)
                                    ): v
                                    for k, v in s.items()
                                },
                            }
                        ],
                    )
                    == "true"
                    for s in listed
                )
            items.append(
                Item(
                    label,
                    "corpus",
                    mu.operator,
                    ctx.name,
                    "api",
                    truth,
                    status,
                    classify(truth, status, ok),
                    detail[:500],
                    round(time.monotonic() - start, 3),
                )
            )
    return items


def _apart(plan: dict[Any, int], extra: Sequence[Any]) -> dict[Any, int]:
    """`plan` with a size for each dim in `extra`, each differing from every other size, so a
    claim that holds only when two dims coincide (`R` summed up to `d_v`) is not judged true.

    >>> _apart({"n": 3, "d_v": 3 + 1}, ["R", "G"])
    {'n': 3, 'd_v': 4, 'R': 2, 'G': 5}
    """
    out, used = dict(plan), set(plan.values())
    for k in extra:
        v = 2
        while v in used:
            v += 1
        out[k] = v
        used.add(v)
    return out


def _corpus_truth(lhs: Any, rhs: Any, defs: Any, assuming: Any, plans: Sequence[Any]) -> str:
    try:
        a, b = T._unfold(lhs, defs), T._unfold(rhs, defs)
        if isinstance(a, MatExpr) != isinstance(b, MatExpr):
            return "false"
        free = T._ranges(a, b)
        decided = False
        for plan in plans:
            for seed in (0, 1):
                t = T._truth_at(a, b, free, plan, seed, assuming)
                if t == "false":
                    return "false"
                if t == "undecided":
                    return "undecided"
                decided = True
        return "true" if decided else "undecided"
    except SymattnError:
        return "undecided"


# ---- report ------------------------------------------------------------------------------------

CATEGORIES = (
    "false_accepted",
    "crash",
    "alarm",
    "true_rejected",
    "checked_false_elsewhere",
    "unknown",
    "true_not_accepted",
    "not_understood",
    "rejected",
    "accepted",
    "not_expressible",
)


def table(items: Sequence[Item]) -> dict[str, dict[str, Counter[str]]]:
    out: dict[str, dict[str, Counter[str]]] = defaultdict(lambda: defaultdict(Counter))
    for it in items:
        out[it.front_end][it.context][it.category] += 1
    return out


def text_table(items: Sequence[Item]) -> str:
    cols = CATEGORIES
    short = (
        "FALSE-ACC",
        "CRASH",
        "ALARM",
        "TRUE-REJ",
        "chk-weak",
        "unknown",
        "true-n/a",
        "not-und",
        "rejected",
        "accepted",
        "n/expr",
    )
    lines = [f"{'front end/context':22}" + "".join(f"{s:>10}" for s in short)]
    t = table(items)
    for fe in sorted(t):
        for ctx in sorted(t[fe]):
            row = t[fe][ctx]
            lines.append(f"{fe + '/' + ctx:22}" + "".join(f"{row.get(c, 0):>10}" for c in cols))
    tot: Counter[str] = Counter(it.category for it in items)
    lines.append(f"{'total':22}" + "".join(f"{tot.get(c, 0):>10}" for c in cols))
    return "\n".join(lines)


def summary(items: Sequence[Item], claims: int, seconds: float) -> dict[str, Any]:
    cats = Counter(it.category for it in items)
    truths = Counter(it.truth for it in items)
    return {
        "claims": claims,
        "items": len(items),
        "seconds": round(seconds, 1),
        "categories": dict(sorted(cats.items())),
        "truths": dict(sorted(truths.items())),
        "table": {fe: {c: dict(v) for c, v in row.items()} for fe, row in table(items).items()},
    }


def diff_main(argv: Sequence[str]) -> int:
    """`python -m symattn.soundness diff --claims N --seed S --jobs 2 --json out.json`."""
    ap = argparse.ArgumentParser(prog="python -m symattn.soundness diff")
    ap.add_argument("--claims", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=10.0, help="time budget per kernel call")
    ap.add_argument("--json", default=None, help="write every bad item and the figures here")
    ap.add_argument("--contexts", default="", help="comma-separated subset of contexts")
    ap.add_argument("--front-ends", default=",".join(FRONT_ENDS))
    ap.add_argument("--corpus", action="store_true", help="also the mutation corpus, every context")
    ap.add_argument("--all-items", action="store_true", help="write every item to the JSON")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument(
        "--repeats",
        action="store_true",
        help="judge a claim identical to an earlier one again (default: it shares its items)",
    )
    ap.add_argument("--log", default=None, help="append every item to this file as it comes back")
    ap.add_argument(
        "--inferred",
        action="store_true",
        help="also `check` each claim on a document that declares no shape (context inferred)",
    )
    ap.add_argument(
        "--wild",
        type=int,
        default=0,
        help="also this many claims of the wider classes (soundness.wild), through prove and check",
    )
    ap.add_argument(
        "--templates", default="", help="comma-separated templates only (e.g. size_poly,size_count)"
    )
    opts = ap.parse_args(list(argv))
    start = time.monotonic()
    wanted = {x for x in opts.templates.split(",") if x}
    if wanted:
        unknown = wanted - set(TEMPLATES)
        if unknown:
            ap.error(f"unknown templates: {', '.join(sorted(unknown))}")
        pool = generate(opts.claims * 4 * len(TEMPLATES) // len(wanted), seed=opts.seed)
        claims = [c for c in pool if c.template in wanted][: opts.claims]
    else:
        claims = generate(opts.claims, seed=opts.seed)
    wilds = wild.generate_wild(opts.wild, seed=opts.seed) if opts.wild else []
    ctxs = [x for x in opts.contexts.split(",") if x] or None
    if opts.inferred:
        ctxs = [*(ctxs or [x.name for x in CONTEXTS]), "inferred"]
    everything: list[Any] = [*wilds, *claims]
    items = run_claims(
        everything,
        jobs=opts.jobs,
        contexts=ctxs,
        front_ends=[x for x in opts.front_ends.split(",") if x],
        seconds=opts.seconds,
        progress=not opts.quiet,
        log=opts.log,
        repeats=opts.repeats,
    )
    if opts.corpus:
        chosen = [x for x in CONTEXTS if ctxs is None or x.name in ctxs]
        items += corpus_items(chosen, seconds=opts.seconds)
    took = time.monotonic() - start
    summ = summary(items, len(claims) + len(wilds), took)
    distinct = len({(type(c).__name__, repr(c.spec)) for c in everything})
    print(
        f"differential: {len(claims)} claims and {len(wilds)} of the wider classes "
        f"({distinct} distinct{'' if opts.repeats else ', a repeat shares the items of the first'}"
        f"), {len(items)} items in {took:.0f} s"
    )
    print(text_table(items))
    summ["distinct"] = distinct
    bad = [it for it in items if it.category in BAD]
    for it in bad[:40]:
        print("  " + it.line())
    if opts.json:
        data = {
            "figures": summ,
            "bad": [asdict(it) for it in bad],
            "true_rejected": [asdict(it) for it in items if it.category == "true_rejected"],
            "weak": [asdict(it) for it in items if it.category == "checked_false_elsewhere"],
        }
        if opts.all_items:
            data["items"] = [asdict(it) for it in items]
        with open(opts.json, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=1, ensure_ascii=False)
    return 1 if bad else 0
