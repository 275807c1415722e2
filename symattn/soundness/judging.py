"""One generated claim through one front end of the differential suite, and what its outcome is.

Imports the kernel, cli and the suite's own modules (oracle, render, generate); nothing in symattn
but the soundness package imports it.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shlex
import tempfile
import traceback
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from symattn import cli
from symattn.kernel.dims import assume
from symattn.kernel.errors import SoundnessAlarm, SymattnError
from symattn.kernel.proof import prove_within
from symattn.soundness import oracle
from symattn.soundness.generate import GenClaim
from symattn.soundness.oracle import Context
from symattn.soundness.render import (
    NotExpressible,
    document,
    kernel_terms,
    prove_argv,
)

# Outcome categories (per front end and context):
#
# - `false_accepted`: the oracle says the claim is not true (false, ill-typed or ill-formed) and
#   the front end accepted it: status `proved`; or `checked` where the oracle finds the claim false
#   at one of the sizes the verdict lists (or the verdict lists none); `symattn prove` exit 0; a
#   `verified` line in `symattn check`;
# - `checked_false_elsewhere`: `checked` at sizes where the claim holds, false in general (a
#   weakness, not an escape);
# - `true_rejected`: a true claim reported `false`;
# - `crash`: an exception that is not a SymattnError, a traceback, an exit code other than 0/1/2,
#   or "internal error" in the output;
# - `alarm`: `SoundnessAlarm` (or its text in the CLI output);
# - `unknown`: unknown, agreed, undecided, time budget exhausted;
# - `rejected` (a non-true claim refused: false, shape error), `accepted` (a true claim
#   proved/checked), `true_not_accepted` (a true claim refused as shape error / not understood),
#   `not_understood` (the reader refused a non-true claim), `not_expressible` (the front end
#   cannot state the claim; not run).

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


_WORKDIR: str | None = None


def _workdir() -> str:
    """One folder per run for the documents the suite writes for `symattn check`."""
    global _WORKDIR
    if _WORKDIR is None:
        _WORKDIR = tempfile.mkdtemp(prefix="symattn-diff-")
    return _WORKDIR
