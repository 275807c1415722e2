"""The differential soundness suite: every generated claim through every front end, vs the oracle.

Imports check and the suite's own modules (generate, oracle, render, judging, corpus_contexts,
diff_report, wild); nothing in symattn but the soundness package imports it.

    python -m symattn.soundness diff --claims N --seed S --jobs 2 --json out.json

Front ends: `api` (`symattn.kernel.proof.prove_within`, i.e. `proof.prove_equal`, under
`symattn.kernel.dims.assume`), `prove` (`symattn.cli.main(["prove", ...])` in-process) and `check`
(`symattn.cli.main(["check", doc.md])` on a generated Markdown document). Contexts: see
`oracle.CONTEXTS`. The existing mutation corpus runs through the API under every context too
(`--corpus`). The wider classes (`soundness.wild`, `--wild N`) go through `prove` and `check`
only, under the context `inferred` (the document declares nothing) or `declared`. The
recurrence claims (`soundness.recurrence_seeds`, `--recurrences`) and the backward-pass claims
(`soundness.backward_seeds` and the grouped-query ones of `soundness.grouped_seeds`,
`--backward`) go through all three.

Claims with the same AST under the same contexts are one task: the first goes through every front
end under every context, and the others (the same argv, the same documents: the front ends and
the kernel are deterministic, the oracle is seeded) share its items under their own names;
`--repeats` judges each of them again.

The outcome categories are `judging`'s; the report's tables are `diff_report`'s.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import shlex
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, replace
from typing import Any

import symattn.check.verdicts as verdicts
from symattn.kernel.errors import SoundnessAlarm, SymattnError
from symattn.kernel.proof import prove_within
from symattn.soundness import oracle, wild
from symattn.soundness.backward_judge import judge_backward
from symattn.soundness.backward_seeds import BackClaim, backward_claims
from symattn.soundness.corpus_contexts import corpus_items
from symattn.soundness.diff_report import summary, text_table
from symattn.soundness.generate import TEMPLATES, GenClaim, generate
from symattn.soundness.grouped_seeds import GroupedClaim, grouped_claims
from symattn.soundness.judging import BAD as BAD
from symattn.soundness.judging import FRONT_ENDS as FRONT_ENDS
from symattn.soundness.judging import (
    Item,
    _cli,
    _sizes_ok,
    _where,
    _workdir,
    run_api,
    run_check,
    run_prove,
)
from symattn.soundness.judging import _cli_status as _cli_status
from symattn.soundness.judging import _parse_sizes as _parse_sizes
from symattn.soundness.judging import classify as classify
from symattn.soundness.online_seeds import OnlineClaim, online_claims
from symattn.soundness.oracle import CONTEXTS, Context, Decision
from symattn.soundness.recurrence_seeds import RecClaim, recurrence_claims
from symattn.soundness.render import (
    NotExpressible,
    api_source,
    undeclared_document,
)
from symattn.soundness.split_seeds import SplitClaim, split_claims

# ---- one claim, every context and front end ---------------------------------------------------


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


def _oracle_key(spec: oracle.ClaimSpec, ctx: Context) -> tuple[Any, ...]:
    """What `oracle.decide` reads of a context: its size relation, its explicit sizes, and
    whether the claim is evaluated at the written values; not its name, not how the front ends
    are told to read vectors (`columns`), not whether the sizes are stated as a worked example
    (`worked`): the truth is the same there (`oracle.plans.Context`)."""
    sizes = tuple(sorted(ctx.explicit.items())) if ctx.explicit is not None else None
    return (repr(spec), ctx.relation, sizes, ctx.kind == "written")


_TRUTHS: dict[tuple[Any, ...], Decision] = {}  # by problem and oracle


def _oracle_decide(spec: oracle.ClaimSpec, ctx: Context) -> Decision:
    """`oracle.decide(spec, ctx)`, once for contexts that pose the oracle the same problem
    (`_oracle_key`); the oracle is seeded, so asked again it answers the same."""
    key = (_oracle_key(spec, ctx), oracle.decide)  # a replaced oracle (in a test) is another
    hit = _TRUTHS.get(key)
    if hit is None:
        hit = _TRUTHS[key] = oracle.decide(spec, ctx)
        if len(_TRUTHS) > 256:
            _TRUTHS.pop(next(iter(_TRUTHS)))
    return hit


def _inferred_item(c: GenClaim, seconds: float) -> Item:
    """The context "inferred" (check only): the truth is the oracle's with the generator's shapes
    and no assumption; a claim that is not well-typed with them is not judged (its names could
    have other shapes that make it true), it is recorded as not expressible."""
    start = time.monotonic()
    try:
        truth = _oracle_decide(c.spec, CONTEXTS[0]).truth
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
            dec: Decision = _oracle_decide(c.spec, ctx)
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


def judge_recurrence(
    c: RecClaim | OnlineClaim | SplitClaim,
    front_ends: Sequence[str] = FRONT_ENDS,
    seconds: float = 10.0,
) -> list[Item]:
    """A recurrence claim (base case, step, claim) through the API (`kernel.unfold.member`),
    `symattn prove` (the three equations in one formula) and `symattn check` (the recurrence in
    the document's prose); the truth is the numpy iteration of `soundness.recurrence_seeds`."""
    _set_claim_seconds(seconds)
    try:
        truth = c.truth()
    except Exception as exc:  # the evaluator itself failed: report, never hide
        truth = f"oracle_error {type(exc).__name__}: {exc}"
    items = []
    for fe in front_ends:
        start = time.monotonic()
        repro = c.formula
        if fe == "api":
            try:
                lhs, rhs = c.kernel_terms()
                v = prove_within(lhs, rhs, seconds=seconds)
                status, detail, sizes = v.status, v.summary(), v.sizes
            except SoundnessAlarm as exc:
                status, detail, sizes = "alarm", str(exc), ()
            except SymattnError as exc:
                status, detail, sizes = "rejected_at_construction", str(exc), ()
            except Exception as exc:
                status, detail, sizes = "crash", f"{type(exc).__name__}: {exc} ({_where(exc)})", ()
        elif fe == "prove":
            argv = c.prove_argv()
            rc, out, err = _cli(argv)
            status, detail, sizes = _cli_status(rc, out, err, None)
            if rc == 0 and status not in ("proved", "checked", "crash", "alarm"):
                status, detail = "proved", f"exit 0 although the verdict is {status}: {detail}"
            repro = "symattn " + shlex.join(argv)
        else:
            text, line = c.document()
            path = os.path.join(_workdir(), f"{c.ident}.md")
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
            rc, out, err = _cli(["check", path, "--format", "json"])
            status, detail, sizes = _cli_status(rc, out, err, line)
            repro = text
        # a 'checked' recurrence claim lists no size plan the oracle can re-decide: strict
        items.append(
            Item(
                c.ident,
                c.template,
                "-",
                "recurrence",
                fe,
                truth,
                status,
                classify(truth, status, None),
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
        elif isinstance(c, (RecClaim, OnlineClaim, SplitClaim)):
            got = judge_recurrence(c, fes, seconds)
        elif isinstance(c, (BackClaim, GroupedClaim)):
            got = judge_backward(c, fes, seconds)
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
        kind = "rec" if isinstance(c, (RecClaim, OnlineClaim, SplitClaim)) else kind
        kind = "bw" if isinstance(c, BackClaim) else kind
        # a wild claim's document also depends on whether it declares the shapes
        spec = repr(c.spec) + (f" declare={c.declare}" if isinstance(c, wild.WildClaim) else "")
        found.setdefault((kind, spec, names), []).append(c)
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
        "--recurrences",
        action="store_true",
        help="also the recurrence claims (soundness.recurrence_seeds), through every front end",
    )
    ap.add_argument(
        "--backward",
        action="store_true",
        help="also the backward-pass claims (soundness.backward_seeds, grouped_seeds), through "
        "every front end",
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
    recs: list[Any] = (
        [*recurrence_claims(), *online_claims(), *split_claims()] if opts.recurrences else []
    )
    recs += [*backward_claims(), *grouped_claims()] if opts.backward else []
    everything: list[Any] = [*wilds, *recs, *claims]
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
    summ = summary(items, len(claims) + len(wilds) + len(recs), took)
    distinct = len({(type(c).__name__, repr(c.spec)) for c in everything})
    print(
        f"differential: {len(claims)} claims, {len(wilds)} of the wider classes and "
        f"{len(recs)} recurrences "
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
