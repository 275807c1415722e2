"""The CLI's own commands, `prove`, `rules` and `shapes`: the work and its text/JSON output.

Imports the kernel and the reader; the checker (symattn.check) only lazily, inside `prove`.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import sys
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any, TextIO

import sympy

from symattn import dims as D
from symattn import expr as E
from symattn.errors import ParseError, Position, ShapeError, SymattnError, UnknownNameError
from symattn.reader import ast, parse_formula
from symattn.reader.declarations import Declared, parse_assume, parse_dims
from symattn.reader.resolve import Resolver
from symattn.reader.terms import Problem, Terms, UnknownName
from symattn.show import text

OK, FALSE, USAGE = 0, 1, 2

# ---- colour -----------------------------------------------------------------------------

_COLOURS = {
    "proved": "32",
    "checked": "36",
    "agreed": "33",
    "unknown": "33",
    "false": "31",
    "shape_error": "31",
    "error": "31",
    "ok": "32",
}


def use_colour(stream: TextIO, mode: str = "auto") -> bool:
    """Colour only on a terminal, never when NO_COLOR is set (unless forced with `always`).

    >>> import io
    >>> use_colour(io.StringIO()), use_colour(io.StringIO(), "always")
    (False, True)
    """
    if mode == "always":
        return True
    if mode == "never" or os.environ.get("NO_COLOR"):
        return False
    return hasattr(stream, "isatty") and stream.isatty()


def paint(word: str, key: str, on: bool) -> str:
    """`word` in the colour of `key` (a status) when `on`.

    >>> paint("false", "false", True), paint("false", "false", False)
    ('\\x1b[31mfalse\\x1b[0m', 'false')
    """
    code = _COLOURS.get(key)
    return f"\033[{code}m{word}\033[0m" if on and code else word


def _emit_json(data: object, out: TextIO) -> None:
    json.dump(data, out, ensure_ascii=False, indent=2)
    out.write("\n")


class Progress:
    """`k/N what` on one stderr line, rewritten in place; silent unless stderr is a terminal."""

    def __init__(self, total: int, what: str, stream: TextIO | None = None):
        self.total, self.what = total, what
        self.stream = stream if stream is not None else sys.stderr
        self.on = hasattr(self.stream, "isatty") and self.stream.isatty()

    def __call__(self, k: int, label: str) -> None:
        if self.on:
            self.stream.write(f"\r\033[K{self.what} {k}/{self.total}: {label}")
            self.stream.flush()

    def done(self) -> None:
        if self.on:
            self.stream.write("\r\033[K")
            self.stream.flush()


# ---- shapes -----------------------------------------------------------------------------


def _assuming(equalities: Mapping[str, sympy.Expr]) -> AbstractContextManager[Any]:
    return D.assume(**equalities) if equalities else nullcontext()


@dataclass
class ShapeStep:
    """One subexpression, where it is written (offsets in the user's text) and its shape."""

    text: str
    shape: tuple[str, str] | None  # None for a scalar
    start: int
    end: int

    def as_json(self) -> dict[str, Any]:
        return {
            "expr": self.text,
            "shape": list(self.shape) if self.shape else "scalar",
            "start": self.start,
            "end": self.end,
        }


@dataclass
class ShapeReport:
    """The steps that typechecked, in the order they were built, and the first error if any."""

    source: str
    steps: list[ShapeStep] = field(default_factory=list)
    error: str | None = None
    error_span: tuple[int, int] | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


_WORDS = re.compile(r"(?<![\\{A-Za-z])(softmax|sqrt|mask|Concat|concat)(?=\s*\()")


def _latexify(source: str) -> tuple[str, Callable[[int], int]]:
    """Accept `softmax(...)`, `sqrt(...)` as well as LaTeX; map offsets back to the source."""
    pieces: list[tuple[int, int, int, int]] = []  # new start, new length, old start, old length
    out, last, shift = [], 0, 0
    for m in _WORDS.finditer(source):
        new = rf"\operatorname{{{m.group(1)}}}"
        out += [source[last : m.start()], new]
        pieces.append((m.start() + shift, len(new), m.start(), len(m.group(1))))
        shift += len(new) - len(m.group(1))
        last = m.end()
    out.append(source[last:])

    def back(pos: int) -> int:
        delta = 0
        for new_start, new_len, old_start, old_len in pieces:
            if pos < new_start:
                break
            if pos < new_start + new_len:
                return old_start + min(max(pos - new_start - (new_len - old_len), 0), old_len)
            delta += new_len - old_len
        return pos - delta

    return "".join(out), back


def shapes(
    source: str,
    declared: Mapping[str, Declared] | None = None,
    equalities: Mapping[str, sympy.Expr] | None = None,
) -> ShapeReport:
    """The shape of every subexpression of `source`, bottom up; stops at the first shape error.

    Names, conventions and the meaning of every construct are those of `symattn check` and
    `symattn prove`: the formula goes through the reader's one translator (`reader.terms`).

    >>> r = shapes("softmax(QK^T/sqrt(d_k))V")
    >>> [(s.text, s.shape) for s in r.steps][-1]
    ('softmax(QK^T/sqrt(d_k))V', ('n', 'd_v'))
    >>> shapes("QK").error.splitlines()[0]
    'cannot multiply Q (n × d_k) by K (n × d_k): inner dims d_k and n are not provably equal'
    """
    body, back = _latexify(source)
    try:
        formula = parse_formula(body)
    except ParseError as exc:
        pos = exc.position
        if pos is not None:
            raise ParseError(exc.message, _position(back(pos.offset), source)) from None
        raise
    claims = [it for it in formula.items if isinstance(it, ast.Claim)]
    if len(claims) != 1 or len(claims[0].subjects) != 1:
        raise ParseError("shapes takes one expression (or one chain 'a = b = ...')")
    claim = claims[0]
    report = ShapeReport(source)
    with _assuming(equalities or {}):
        scope = Resolver(assume=dict(equalities or {}))
        for entry in (declared or {}).values():
            scope.declare(entry.key, entry.shape)
        terms = Terms(scope, _Steps(report, back))
        try:
            sides = [terms.term(claim.subjects[0])]
            for step in claim.steps:
                if step.rel != "=":
                    raise ParseError(f"shapes reads '=' chains only, not {step.rel!r}")
                sides.append(terms.term(step.rhs))
            _compare_sides(sides, claim, report, back)
        except Problem as p:
            _refuse(p, report, back, source, scope)
        except ShapeError as exc:
            report.error = str(exc)
    return report


def _refuse(p: Problem, report: ShapeReport, back: Any, source: str, scope: Resolver) -> None:
    """A shape error goes into the report (exit 1); anything else is an input error (exit 2)."""
    where = p.where
    if p.status == "shape_error":
        report.error = p.detail
        report.error_span = (back(where[0]), back(where[1])) if where is not None else None
        return
    if isinstance(p, UnknownName):
        close = difflib.get_close_matches(p.label, scope.known_names(), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise UnknownNameError(
            f"unknown name {p.label!r}: declare it with --dims '{p.label}: rows x cols'{hint}"
        ) from None
    pos = _position(back(where[0]), source) if where is not None else None
    raise ParseError(p.message, pos) from None


def _position(offset: int, source: str) -> Position:
    line = source.count("\n", 0, offset) + 1
    col = offset - (source.rfind("\n", 0, offset) + 1) + 1
    return Position(line, col, offset)


def _compare_sides(sides: list[sympy.Basic], claim: Any, report: ShapeReport, back: Any) -> None:
    from symattn.proof import check_shapes

    for k in range(1, len(sides)):
        problem = check_shapes(sides[0], sides[k])
        if problem is not None:
            node = claim.steps[k - 1].rhs
            report.error_span = (back(node.start), back(node.end))
            raise ShapeError(f"the sides of '=' differ: {problem}")


class _Steps:
    """Records each subexpression the translator builds as a step of the report."""

    def __init__(self, report: ShapeReport, back: Callable[[int], int]):
        self.report, self.back = report, back

    def __call__(self, node: ast.Node, value: sympy.Basic, end: int) -> None:
        if isinstance(value, (sympy.Symbol, sympy.Number)):
            return  # a bare dim or number needs no line of its own
        step = ShapeStep(text(value), None, self.back(node.start), self.back(end))
        if isinstance(value, E.MatExpr):
            step.shape = (D.dim_str(value.rows), D.dim_str(value.cols))
        steps = self.report.steps
        last = steps[-1] if steps else None
        if last is not None and (last.text, last.shape) == (step.text, step.shape):
            if step.start <= last.start and last.end <= step.end:
                return  # a group and what it holds: show once
        steps.append(step)


# ---- rules ------------------------------------------------------------------------------


def rule_rows(words: str = "", *, check: bool = True, lang: str = "en") -> list[dict[str, Any]]:
    """One record per named rule matching `words` (all rules when empty), with its verdict.

    >>> row = rule_rows("mul_transpose_apply_dot")[0]
    >>> row["statement"], row["status"], row["witnesses"]
    ('(QK^T)_{ij} = q_i·k_j', 'proved', ['symbolic', 'exact', 'numeric'])
    """
    from symattn import rules

    found = rules.search(words) if words.strip() else list(rules.registry().values())
    progress = Progress(len(found), "checking rule")
    rows = []
    for k, rule in enumerate(found, start=1):
        progress(k, rule.name)
        rows.append(_rule_row(rule, check, lang))
    progress.done()
    return rows


def _rule_row(rule: Any, check: bool, lang: str) -> dict[str, Any]:
    from symattn.rules import describe

    lhs, rhs = rule.sides()
    conditions = [text(c) for c in rule.assuming()]
    row: dict[str, Any] = {
        "name": rule.name,
        "statement": f"{text(lhs)} = {text(rhs)}",
        "lhs": text(lhs),
        "rhs": text(rhs),
        "assuming": conditions,
        "description": describe(rule.name, lang),
    }
    if check:
        verdict = rule.check()
        row.update(_verdict_record(verdict))
    return row


def _verdict_record(v: Any) -> dict[str, Any]:
    """A verdict as JSON-ready data."""
    return {
        "status": v.status,
        "witnesses": list(v.witnesses),
        "summary": v.summary(),
        "counterexample": str(v.counterexample) if v.counterexample is not None else None,
    }


def _print_rules(rows: list[dict[str, Any]], out: TextIO, colour: bool) -> None:
    width = max((len(r["name"]) for r in rows), default=0)
    for r in rows:
        head = r["name"].ljust(width)
        if "status" in r:
            badge = paint(r["status"], r["status"], colour)
            head += f"  {badge} [{'+'.join(r['witnesses']) or 'none'}]"
        out.write(head + "\n")
        cond = f"    (when {', '.join(r['assuming'])})" if r["assuming"] else ""
        out.write(f"    {r['statement']}{cond}\n    {r['description']}\n")


# ---- command runners (called by symattn.cli) -------------------------------------------


def run_rules(args: Any, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    rows = rule_rows(" ".join(args.words), check=not args.no_check, lang=args.lang)
    if not rows:
        sys.stderr.write(f"symattn rules: no rule matches {' '.join(args.words)!r}\n")
    if args.format == "json":
        _emit_json(rows, out)
    else:
        _print_rules(rows, out, use_colour(out, args.color))
    bad = [r for r in rows if "status" in r and r["status"] not in ("proved", "checked")]
    return FALSE if bad else OK


def run_shapes(args: Any, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    report = shapes(args.expression, parse_dims(args.dims), parse_assume(args.assume))
    if args.format == "json":
        _emit_json(
            {
                "expression": report.source,
                "ok": report.ok,
                "steps": [s.as_json() for s in report.steps],
                "error": report.error,
                "error_span": list(report.error_span) if report.error_span else None,
            },
            out,
        )
    else:
        _print_shapes(report, out, use_colour(out, args.color))
    return OK if report.ok else FALSE


def _print_shapes(report: ShapeReport, out: TextIO, colour: bool) -> None:
    width = min(max((len(s.text) for s in report.steps), default=0), 48)
    for s in report.steps:
        shape = " × ".join(s.shape) if s.shape else "scalar"
        out.write(f"{s.text.ljust(width)}  {shape}\n")
    if report.error is not None:
        out.write(f"{paint('error[shape]', 'error', colour)}: {report.error}\n")
        if report.error_span is not None and "\n" not in report.source:
            a, b = report.error_span
            out.write(f"  {report.source}\n  {' ' * a}{'^' * max(b - a, 1)}\n")


def run_prove(args: Any, out: TextIO | None = None) -> int:
    """`symattn prove`: 0 proved or checked, 1 false, a shape error or not proved, 2 unreadable."""
    out = out or sys.stdout
    check = import_optional("symattn.check", "prove")
    progress = Progress(1, "proving")
    progress(1, args.formula[:60])
    try:
        equalities = parse_assume(args.assume)
        with _assuming(equalities):
            results = check.check_formula(args.formula, args.dims, assume=equalities)
    finally:
        progress.done()
    claims = [r for r in results if r.kind not in ("declaration", "not-a-claim")]
    code = prove_exit_code([r.kind for r in claims])
    if args.format == "json":
        _emit_json(
            {
                "formula": args.formula,
                "ok": code == OK,
                "exit_code": code,
                "results": [r.to_json() for r in results],
            },
            out,
        )
    else:
        colour = use_colour(out, args.color)
        for r in results:
            out.write(check.format_diagnostic(r, colour) + "\n")
    if not claims:
        sys.stderr.write(f"symattn prove: error: no claim to prove in {args.formula!r}\n")
    elif code != OK and args.format != "json":
        sys.stderr.write(f"symattn prove: {_prove_outcome(claims)}\n")
    return code


def prove_exit_code(kinds: list[str]) -> int:
    """0 when every claim is verified; 2 when one cannot be read, the kernel failed on one (a
    soundness alarm, an internal error) or there is none; else 1.

    `prove` is asked to prove, so a claim only agreed numerically or undecided fails (1).

    >>> prove_exit_code(["verified"]), prove_exit_code(["false"]), prove_exit_code([])
    (0, 1, 2)
    """
    if not kinds or {"not-understood", "error", "malformed"} & set(kinds):
        return USAGE
    return OK if all(k == "verified" for k in kinds) else FALSE


def _prove_outcome(claims: list[Any]) -> str:
    kinds = [r.kind for r in claims]
    for kind, words in (
        ("error", "the kernel failed on this claim (a soundness alarm or an internal error)"),
        ("not-understood", "the formula could not be read"),
        ("false", "the claim is false"),
        ("shape-error", "the shapes do not agree"),
        ("undecided", "the claim is not proved (undecided or numeric agreement only)"),
    ):
        if kind in kinds:
            return words
    return "not proved"


def import_optional(module: str, command: str) -> Any:
    """Import a front-end module for a subcommand, or say clearly that it is missing.

    >>> import_optional("symattn.no_such_front_end", "frob")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    symattn.commands.MissingCommand: 'frob' is not available in this installation (...)
    """
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingCommand(
            f"'{command}' is not available in this installation ({module}: {exc})"
        ) from None


class MissingCommand(SymattnError):
    """A subcommand whose module is not installed or could not be imported (exit 2)."""
