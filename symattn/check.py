"""Document checking: claims -> kernel verdicts -> compiler-style diagnostics, JSON and exit codes.

Imports the kernel (proof) and the reader; the CLI and the pytest plugin import it, not the reverse.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import threading
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import sympy

from symattn.errors import Position, SymattnError
from symattn.reader.declarations import parse_dims

__all__ = [
    "ClaimResult",
    "InputError",
    "add_arguments",
    "check_file",
    "check_formula",
    "check_text",
    "claim_position",
    "decide",
    "resolve_text",
    "format_json",
    "format_text",
    "main",
    "run",
    "summary_counts",
]

SCHEMA = "symattn-check/1"
MAX_FILE_BYTES = 5_000_000
KINDS = (
    "verified",
    "false",
    "shape-error",
    "not-understood",
    "undecided",
    "declaration",
    "not-a-claim",
    "error",
    "malformed",
)
#: `malformed`: LaTeX that TeX itself would stop at (unbalanced braces, an environment or a
#: display never closed); it fails the run like a false claim.
_PROBLEMS = ("false", "shape-error", "malformed")
#: The kernel failed (a soundness alarm, an internal error): never a verdict; exit code 2.
_ERRORS = ("error",)
_SOFT = ("not-understood", "undecided")


class InputError(SymattnError):
    """A file cannot be checked at all (missing, a directory, not text); exit code 2."""


@dataclass(frozen=True)
class ClaimResult:
    """The verdict on one claim of a document, where it is, and why.

    `kind` is one of `verified`, `false`, `shape-error`, `not-understood`, `undecided`,
    `declaration`, `not-a-claim`, `error`; `status` is the finer kernel status (`proved` for all
    sizes, `checked` at explicit sizes, `agreed` numerically only, `false`, `shape_error`,
    `unknown`, `not_understood`, `declared`, `prose`, and for `error` either `soundness_alarm`
    (two witnesses contradict each other) or `internal_error` (the kernel raised something that
    is not a SymattnError)). `witnesses` are those the kernel found.
    """

    file: str
    line: int
    col: int
    end_line: int
    end_col: int
    kind: str
    status: str
    message: str
    witnesses: tuple[str, ...] = ()
    counterexample: str | None = None
    source: str = ""
    source_lines: tuple[str, ...] = field(default=(), repr=False, compare=False)

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    @property
    def failed(self) -> bool:
        return self.kind in _PROBLEMS or self.kind in _ERRORS

    def to_json(self) -> dict[str, Any]:
        """The stable JSON form (schema `symattn-check/1`)."""
        return {
            "file": self.file,
            "line": self.line,
            "col": self.col,
            "end": {"line": self.end_line, "col": self.end_col},
            "kind": self.kind,
            "status": self.status,
            "witnesses": list(self.witnesses),
            "message": self.message,
            "counterexample": self.counterexample,
            "source": self.source,
        }


# ---- checking ------------------------------------------------------------------------------


def check_text(text: str, filename: str = "<string>") -> list[ClaimResult]:
    """Every claim of a Markdown/LaTeX text with its verdict, in file order.

    >>> [r.kind for r in check_text("$Q=XW_Q$ and $(QK^T)_{ij}=q_j\\\\cdot k_i$", "a.md")]
    ['verified', 'false']
    """
    lines = text.splitlines()
    return [
        x if isinstance(x, ClaimResult) else decide(x, lines) for x in resolve_text(text, filename)
    ]


def resolve_text(text: str, filename: str = "<string>") -> list[Any]:
    """Every claim resolved but not yet decided (`ResolvedClaim`), in file order; what the
    scanner could not read comes back as a `ClaimResult` already. `decide` gives the verdict.

    >>> [getattr(c, "status", None) for c in resolve_text("$Q=XW_Q$ $q_i=k_i$ $A$")]
    ['proved', 'pending', 'prose']
    """
    from symattn.reader.resolve import Resolver, attach_conditions, section_lines
    from symattn.reader.scanner import MathSpan, scan

    lines = text.splitlines()
    resolver = Resolver(section_lines(text))
    out: list[Any] = []
    for item in scan(text, filename):
        if isinstance(item, MathSpan):
            out.extend(resolver.resolve_span(item))
        else:
            out.append(_scan_problem(item.message, item.position, filename, lines))
    return attach_conditions(out, text)


def claim_position(claim: Any) -> Position:
    """Where `decide` will place the claim's diagnostic (known before the kernel runs)."""
    start = claim.focus[0] if claim.status in ("not_understood", "shape_error") else claim.start
    return claim.span.position_at(start)  # type: ignore[no-any-return]


def check_file(path: str | os.PathLike[str], display_name: str | None = None) -> list[ClaimResult]:
    """Check one file; `InputError` if it is missing, a directory, too large or not UTF-8 text.

    >>> check_file("/no/such/file.md")
    Traceback (most recent call last):
    symattn.check.InputError: /no/such/file.md: no such file
    """
    return check_text(read_document(path), display_name or str(path))


def read_document(path: str | os.PathLike[str]) -> str:
    """The text of a document, or `InputError` saying why it cannot be read."""
    p = Path(path)
    if not p.exists():
        raise InputError(f"{path}: no such file")
    if p.is_dir():
        raise InputError(f"{path}: is a directory (give the Markdown or LaTeX files inside it)")
    try:
        size = p.stat().st_size
        if size > MAX_FILE_BYTES:
            raise InputError(f"{path}: file too large ({size} bytes; limit {MAX_FILE_BYTES})")
        data = p.read_bytes()
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror}") from None
    if b"\x00" in data:
        raise InputError(f"{path}: not a text file (it contains NUL bytes)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 text (bad byte at offset {e.start})") from None


def check_formula(
    latex: str, dims: str | None = None, assume: Mapping[str, sympy.Expr] | None = None
) -> list[ClaimResult]:
    """Check one LaTeX formula, with optional shape declarations `Q,K: n x d_k; V: n x d_v`
    and size relations `{"d_v": d/H}` or values `{"n": Integer(5)}` (`--assume`).

    >>> [r.status for r in check_formula(r"(QK^T)_{ij} = q_i\\cdot k_j", "Q,K: n x d_k")]
    ['proved']
    >>> check_formula("B = QK^T", "B: n x d")[0].kind
    'shape-error'
    """
    from symattn.reader.resolve import Resolver, attach_conditions
    from symattn.reader.scanner import MathSpan

    resolver = Resolver(assume=dict(assume or {}))
    for declared in parse_dims(dims).values():
        resolver.declare(declared.key, declared.shape)
    span = MathSpan(latex, Position(1, 1, 0), False, "$", None, "<formula>")
    lines = latex.splitlines() or [""]
    claims = attach_conditions(resolver.resolve_span(span), latex)
    return [decide(c, lines) for c in claims]


# ---- deciding ------------------------------------------------------------------------------

_KIND_OF_STATUS = {
    "proved": "verified",
    "checked": "verified",
    "agreed": "undecided",
    "unknown": "undecided",
    "false": "false",
    "shape_error": "shape-error",
    "not_understood": "not-understood",
    "declared": "declaration",
    "prose": "not-a-claim",
    "soundness_alarm": "error",
    "internal_error": "error",
    "malformed": "malformed",
}
_SYMBOLIC: tuple[str, ...] = ("symbolic",)


def decide(claim: Any, lines: Sequence[str]) -> ClaimResult:
    """Turn a resolved claim into a verdict, calling the kernel for identities."""
    status, message, cex = claim.status, claim.message, None
    witnesses: tuple[str, ...] = ()
    if status == "proved":
        witnesses = _SYMBOLIC
        message = message or "shapes agree"
    elif status == "pending":
        status, message, witnesses, cex = _kernel(claim)
    if claim.context and message.startswith("proved for all sizes"):
        message = message.replace("proved for all sizes", "proved", 1)
    if claim.context and not message.startswith("worked example"):
        message = f"{message} ({claim.context})"
    problem = ("not_understood", "shape_error", "malformed")
    focus = claim.focus if status in problem else (claim.start, claim.end)
    return _result(claim.span, focus, status, message, witnesses, cex, claim.source, lines)


def _kernel(claim: Any) -> tuple[str, str, tuple[str, ...], str | None]:
    from symattn.dims import assume
    from symattn.errors import SoundnessAlarm
    from symattn.proof import Verdict

    verdicts: list[Verdict] = []
    hypotheses = tuple(getattr(claim, "hypotheses", ()))
    try:
        with _time_limit(CLAIM_SECONDS), assume(**claim.assumptions):
            sign = getattr(claim, "sign", None)
            if sign is not None:
                verdicts.append(_prove_sign(sign, claim.defs))
            for lhs, rhs in claim.pairs:
                v = _prove(lhs, rhs, claim.defs, hypotheses)
                verdicts.append(v)
                if v.status in ("false", "shape_error"):
                    break
    except _OutOfTime:
        msg = f"the kernel did not decide within {CLAIM_SECONDS:g} s (SYMATTN_CLAIM_SECONDS)"
        return "unknown", msg, (), None
    except SoundnessAlarm as e:
        msg = f"soundness alarm while checking {_quote(claim)}: {_one_line(str(e))}"
        return "soundness_alarm", msg, (), None
    except SymattnError as e:
        return "not_understood", f"the kernel cannot check this: {_one_line(str(e))}", (), None
    except Exception as e:  # noqa: BLE001 - never a traceback, never a verdict: an error (exit 2)
        msg = (
            f"internal error in the kernel while checking {_quote(claim)} (please report): "
            f"{type(e).__name__}: {e}"
        )
        return "internal_error", _one_line(msg), (), None
    worst = max(verdicts, key=lambda v: _RANK[v.status])
    cex = str(worst.counterexample) if worst.counterexample is not None else None
    if getattr(claim, "negated", False):
        return _negated(worst, cex)
    return worst.status, _verdict_message(worst), tuple(worst.witnesses), cex


def _negated(v: Any, cex: str | None) -> tuple[str, str, tuple[str, ...], str | None]:
    """`a \ne b`: a counterexample to `a = b` is what verifies it (the status `checked`: a
    witness at explicit values, not a proof for all sizes); a proof of `a = b` refutes it."""
    if v.status == "false" and cex is not None:
        return "checked", f"the two sides differ: {cex}", tuple(v.witnesses), None
    if v.status == "proved":
        return "false", "the two sides are equal for all sizes", tuple(v.witnesses), None
    if v.status == "shape_error":
        return v.status, _verdict_message(v), tuple(v.witnesses), cex
    return "unknown", f"not decided: {_verdict_message(v)}", (), None


def _prove_sign(sign: Any, defs: Mapping[Any, Any]) -> Any:
    """`a_{ij} > 0`: the kernel's sign fact on every entry of A, its definitions unfolded.
    A fact it cannot show is `unknown` (undecided), never false."""
    from symattn.facts import prove_positive
    from symattn.reader.literals import unfold

    matrix, strict = sign
    return prove_positive(unfold(matrix, defs), strict=strict)


def _quote(claim: Any) -> str:
    text = _one_line(claim.source)
    return f"'{text[:117]}...'" if len(text) > 120 else f"'{text}'"


CLAIM_SECONDS = float(os.environ.get("SYMATTN_CLAIM_SECONDS", "30"))


class _OutOfTime(Exception):
    pass


@contextlib.contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    """Stop a kernel call that runs past `seconds` (main thread on POSIX; elsewhere no limit)."""
    usable = (
        seconds > 0
        and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
    )
    if not usable:
        yield
        return

    def stop(signum: int, frame: Any) -> None:
        raise _OutOfTime

    old = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


_RANK = {"proved": 0, "checked": 1, "agreed": 2, "unknown": 3, "shape_error": 4, "false": 5}


def _verdict_message(v: Any) -> str:
    w = "+".join(v.witnesses) or "none"
    if v.status == "proved":
        return f"proved for all sizes [{w}]"
    evidence = "; ".join(str(e) for e in getattr(v, "evidence", ()))
    if v.status == "checked":
        sizes = "; ".join(", ".join(f"{k}={x}" for k, x in s) or "the sizes given" for s in v.sizes)
        return f"checked at explicit sizes only ({sizes}) [{w}]: {v.reason}; evidence: {evidence}"
    if v.status == "false":
        return _one_line(v.reason) or "the two sides differ"
    if v.status == "agreed":
        why = _one_line(v.reason)
        return f"evidence only, not a proof [{w}]: {why}; evidence: {evidence}"
    return _one_line(v.reason) or v.status


def _prove(lhs: Any, rhs: Any, defs: Mapping[Any, Any], assuming: Sequence[Any] = ()) -> Any:
    """The kernel's verdict, unfolding as few definitions as a proof needs.

    The symbolic witness alone is probed at each level of unfolding (no definitions, then the
    names the claim mentions, and so on) to find the level a proof needs; the claim is then
    decided there by `prove_equal` with every witness (symbolic, exact and numeric), the same
    safety net as the API, so a witness that contradicts the proof raises the kernel's
    `SoundnessAlarm`. When no level proves it, the kernel decides with every definition the
    claim reaches and every witness, so a `false` always means false given the document's
    definitions. Under hypotheses (`j > i`) the probe is skipped: the kernel decides at once.
    """
    from symattn.canon import infer_ranges
    from symattn.proof import check_shapes, prove_equal, unfold
    from symattn.witness import symbolic

    if check_shapes(lhs, rhs) is not None:
        return prove_equal(lhs, rhs)  # the kernel's shape_error verdict, with its message
    levels = _unfold_levels(lhs, rhs, defs)
    assuming = list(assuming)
    for level in levels if not assuming else ():
        a, b = unfold(lhs, level), unfold(rhs, level)
        try:
            probe = symbolic(a, b, dict(infer_ranges(a, b))).holds
        except SymattnError:
            probe = False
        if probe:
            v = prove_equal(lhs, rhs, defs=level)
            if v.status == "proved":
                return v
    return prove_equal(lhs, rhs, defs=_without_free_products(levels[-1]), assuming=assuming)


def _without_free_products(defs: Mapping[Any, Any]) -> dict[Any, Any]:
    """Drop definitions like `Q = XW_Q`: a product of free matrices over a free inner dim.

    For a large enough inner dim such a product takes every value, so a counterexample with `Q`
    free is one for `XW_Q` too; keeping `Q` folded keeps the kernel's search small. Definitions
    that constrain their values (`A = softmax(...)`, `Z = AV` with A defined) are kept.
    """
    from symattn.expr import HeadSym, MatMul, MatSym

    def free(rhs: Any) -> bool:
        if not isinstance(rhs, MatMul):
            return False
        factors = rhs.factors()
        leaves = all(isinstance(f, MatSym | HeadSym) and f not in defs for f in factors)
        inner = [f.cols for f in factors[:-1]]
        return leaves and len(set(factors)) == len(factors) and all(x.is_Symbol for x in inner)

    return {k: v for k, v in defs.items() if not free(v)}


def _unfold_levels(lhs: Any, rhs: Any, defs: Mapping[Any, Any]) -> list[dict[Any, Any]]:
    from symattn.expr import walk

    levels: list[dict[Any, Any]] = [{}]
    frontier = [lhs, rhs]
    chosen: dict[Any, Any] = {}
    while True:
        found = {x for t in frontier for x in walk(t) if x in defs and x not in chosen}
        if not found:
            break
        for x in found:
            chosen[x] = defs[x]
        levels.append(dict(chosen))
        frontier = [defs[x] for x in found]
    # the last level unfolds every definition the claim can reach; the others cannot matter
    return levels


def _result(
    span: Any,
    focus: tuple[int, int],
    status: str,
    message: str,
    witnesses: tuple[str, ...],
    cex: str | None,
    source: str,
    lines: Sequence[str],
) -> ClaimResult:
    start = span.position_at(focus[0])
    end = span.position_at(max(focus[1], focus[0] + 1))
    return ClaimResult(
        file=span.filename,
        line=start.line,
        col=start.column,
        end_line=end.line,
        end_col=end.column,
        kind=_KIND_OF_STATUS.get(status, "undecided"),
        status=status,
        message=message,
        witnesses=witnesses,
        counterexample=cex,
        source=source,
        source_lines=tuple(lines[start.line - 1 : end.line]) if lines else (),
    )


def _scan_problem(message: str, pos: Position, filename: str, lines: Sequence[str]) -> ClaimResult:
    return ClaimResult(
        filename,
        pos.line,
        pos.column,
        pos.line,
        pos.column + 1,
        "malformed",
        "malformed",
        f"malformed LaTeX: {message}",
        source_lines=tuple(lines[pos.line - 1 : pos.line]),
    )


def _one_line(text: str) -> str:
    return " ".join(text.split())


# ---- output ----------------------------------------------------------------------------------

_COLORS = {
    "verified": "32",
    "false": "1;31",
    "shape-error": "1;31",
    "not-understood": "33",
    "undecided": "33",
    "declaration": "36",
    "error": "1;31",
    "malformed": "1;31",
}


def summary_counts(results: Iterable[ClaimResult]) -> dict[str, int]:
    """Counts per kind (every kind present, zeros included), plus proved and checked.

    >>> summary_counts(check_text("$Q=XW_Q$ $A$"))["not-a-claim"]
    1
    """
    results = list(results)
    c = Counter(r.kind for r in results)
    out = {k: c.get(k, 0) for k in KINDS}
    out["proved"] = sum(1 for r in results if r.status == "proved")
    out["checked"] = sum(1 for r in results if r.status == "checked")
    return out


def summary_line(name: str, results: Sequence[ClaimResult]) -> str:
    c = summary_counts(results)
    return (
        f"{name}: {c['verified']} verified ({c['proved']} proved, {c['checked']} checked), "
        f"{c['false']} false, {c['shape-error']} shape errors, {c['not-understood']} not "
        f"understood, {c['undecided']} undecided"
        + (f", {c['malformed']} malformed" if c["malformed"] else "")
        + (f", {c['error']} errors (exit code 2)" if c["error"] else "")
        + f"; {c['declaration']} declarations, {c['not-a-claim']} not a claim"
    )


def format_diagnostic(r: ClaimResult, color: bool = False) -> str:
    """`file:line:col: kind: message`, then the source line and a caret under the span."""
    kind = _paint(r.kind, _COLORS.get(r.kind), color)
    head = f"{r.location}: {kind}: {r.message}"
    if r.kind in ("verified", "declaration"):
        return head + (f": {_one_line(r.source)}" if r.source else "")
    out = [head]
    if r.source_lines:
        text = r.source_lines[0]
        width = (r.end_col - r.col) if r.end_line == r.line else len(text) - r.col + 1
        out.append("  " + text)
        out.append("  " + " " * (r.col - 1) + _paint("^" + "~" * max(0, width - 1), "1;32", color))
    if r.counterexample:
        out.append(f"  counterexample: {r.counterexample}")
    return "\n".join(out)


def _paint(text: str, code: str | None, on: bool) -> str:
    return f"\x1b[{code}m{text}\x1b[0m" if on and code else text


def format_text(results: Sequence[ClaimResult], name: str, color: bool = False) -> str:
    """Diagnostics of one file (all but not-a-claim), then its summary line."""
    lines = [format_diagnostic(r, color) for r in results if r.kind != "not-a-claim"]
    lines.append(summary_line(name, results))
    return "\n".join(lines)


def format_json(per_file: Mapping[str, Sequence[ClaimResult]], errors: Sequence[str] = ()) -> str:
    """All results as one JSON document (schema `symattn-check/1`)."""
    doc = {
        "schema": SCHEMA,
        "files": [
            {"file": name, "summary": summary_counts(rs), "results": [r.to_json() for r in rs]}
            for name, rs in per_file.items()
        ],
        "errors": list(errors),
        "summary": summary_counts(r for rs in per_file.values() for r in rs),
    }
    return json.dumps(doc, ensure_ascii=False, indent=2)


# ---- command ---------------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of `symattn check`."""
    parser.add_argument("files", nargs="+", metavar="FILE", help="Markdown or LaTeX files")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument(
        "--strict",
        action="store_true",
        help="also fail (exit 1) when a formula is not understood or not decided",
    )
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto")


def run(args: argparse.Namespace, out: IO[str] | None = None, err: IO[str] | None = None) -> int:
    """Check the files; 0 all good, 1 a claim false or a shape wrong (or, with --strict, a
    formula not understood), 2 an input error such as a missing file, or a kernel error (a
    soundness alarm or an internal error) on some claim."""
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    color = _use_color(getattr(args, "color", "auto"), out)
    per_file: dict[str, list[ClaimResult]] = {}
    errors: list[str] = []
    for name in args.files:
        try:
            per_file[name] = check_file(name)
        except InputError as e:
            errors.append(str(e))
            if args.format == "text":
                print(f"{_paint('error', '1;31', color)}: {e}", file=err)
            continue
        if args.format == "text":
            print(format_text(per_file[name], name, color), file=out)
    if args.format == "json":
        print(format_json(per_file, errors), file=out)
    elif len(per_file) > 1:
        total = [r for rs in per_file.values() for r in rs]
        print(summary_line(f"total ({len(per_file)} files)", total), file=out)
    return exit_code(per_file.values(), errors, strict=getattr(args, "strict", False))


def exit_code(
    per_file: Iterable[Sequence[ClaimResult]], errors: Sequence[str] = (), strict: bool = False
) -> int:
    kinds = {r.kind for rs in per_file for r in rs}
    if errors or kinds & set(_ERRORS):
        return 2
    if kinds & set(_PROBLEMS):
        return 1
    if strict and kinds & set(_SOFT):
        return 1
    return 0


def _use_color(mode: str, stream: IO[str]) -> bool:
    if mode == "always":
        return True
    if mode == "never" or os.environ.get("NO_COLOR"):
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m symattn.check FILE...` (the same as `symattn check`)."""
    parser = argparse.ArgumentParser(
        prog="symattn check",
        description="Check every formula of Markdown/LaTeX documents.",
        epilog="example: symattn check chapter6.md --format json",
    )
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
