"""The backward-pass claims (`soundness.backward_seeds`, `soundness.grouped_seeds`) through every
front end, against their finite-difference truth.

Imports the suite's judging and backward seeds and the checker's verdicts (its time limit); the
runner (`soundness.differential`) calls it.
"""

from __future__ import annotations

import os
import shlex
import time
from collections.abc import Sequence

import symattn.check.verdicts as verdicts
from symattn.kernel.errors import SoundnessAlarm, SymattnError
from symattn.soundness.backward_seeds import BackClaim
from symattn.soundness.grouped_seeds import GroupedClaim
from symattn.soundness.judging import (
    FRONT_ENDS,
    Item,
    _cli,
    _cli_status,
    _where,
    _workdir,
    classify,
)

__all__ = ["judge_backward"]


def _api(c: BackClaim | GroupedClaim, seconds: float) -> tuple[str, str]:
    try:
        v = c.kernel_call(seconds)
        return v.status, v.summary()
    except SoundnessAlarm as exc:
        return "alarm", str(exc)
    except SymattnError as exc:
        return "rejected_at_construction", str(exc)
    except Exception as exc:  # noqa: BLE001 - a crash is an outcome of the suite, never hidden
        return "crash", f"{type(exc).__name__}: {exc} ({_where(exc)})"


def judge_backward(
    c: BackClaim | GroupedClaim, front_ends: Sequence[str] = FRONT_ENDS, seconds: float = 10.0
) -> list[Item]:
    """A backward-pass claim through the API (`prove_gradient`, or `prove_within` for the row
    term), `symattn prove` (the forward pass, then the claim, in one formula) and `symattn
    check` (the forward pass in the document's prose); the truth is finite differences."""
    verdicts.CLAIM_SECONDS = seconds
    try:
        truth = c.truth()
    except Exception as exc:  # noqa: BLE001 - the evaluator itself failed: report, never hide
        truth = f"oracle_error {type(exc).__name__}: {exc}"
    items = []
    for fe in front_ends:
        start = time.monotonic()
        if fe == "api":
            status, detail = _api(c, seconds)
            repro = f"{c.ident}: kernel_call()"
        elif fe == "prove":
            argv = c.prove_argv()
            rc, out, err = _cli(argv)
            status, detail, _ = _cli_status(rc, out, err, None)
            repro = "symattn " + shlex.join(argv)
        else:
            text, line = c.document()
            path = os.path.join(_workdir(), f"{c.ident}.md")
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
            rc, out, err = _cli(["check", path, "--format", "json"])
            status, detail, _ = _cli_status(rc, out, err, line)
            repro = text
        items.append(
            Item(
                c.ident,
                c.template,
                "-",
                "backward",
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
