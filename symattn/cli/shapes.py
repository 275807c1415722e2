"""`symattn shapes`: the shape of every subexpression of one formula, bottom up.

Imports the kernel, the reader (its one translator, reader.terms) and cli.options/output; must
not import check or another command's module.
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TextIO

import sympy

from symattn.cli.options import assuming, color_option, dims_options, format_option
from symattn.cli.output import FALSE, OK, emit_json, paint, use_colour
from symattn.kernel import dims as D
from symattn.kernel import expr as E
from symattn.kernel.errors import ParseError, Position, ShapeError, UnknownNameError
from symattn.kernel.proof import check_shapes
from symattn.kernel.text import text
from symattn.reader import ast, parse_formula
from symattn.reader.claims.declarations import (
    Declared,
    conventional_sizes,
    parse_assume,
    parse_dims,
)
from symattn.reader.claims.resolve import Resolver
from symattn.reader.terms.translator import Problem, Terms, UnknownName


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
    with assuming(equalities or {}):
        sizes = conventional_sizes(dict(declared or {}), dict(equalities or {}))
        scope = Resolver(assume={**sizes, **(equalities or {})})
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


def run(args: Any, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    report = shapes(args.expression, parse_dims(args.dims), parse_assume(args.assume))
    if args.format == "json":
        emit_json(
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


EPILOG = """\
examples:
  symattn shapes 'softmax(QK^T/sqrt(d_k))V'
  symattn shapes '\\frac{QK^T}{\\sqrt{d_k}}' --dims 'Q,K: 5 x 64'
  symattn shapes 'X + Concat(Z^{(1)},\\ldots,Z^{(H)})W_O'
  symattn shapes 'X + AV' --assume d_v=d      # without --assume: exit 1, cols d and d_v

Names known without --dims (the chapter's, as in check and prove): X n x d, W_Q W_K d x d_k,
W_V d x d_v, Q K n x d_k, V n x d_v, A n x n, Z n x d_v, W_O H*d_v x d, O n x d; the families
Z^{(h)}, Q^{(h)}, K^{(h)}, V^{(h)}, A^{(h)}, W_Q^{(h)}, ... have the same shapes, and W_O^{(h)}
is the h-th block of d_v rows of W_O.
--dims 'NAMES: ROWS x COLS; ...' declares or overrides them (x, × or \\times; dims like n, d_k,
64, H*d_v or 'H d_v'; 'Z^{(h)}: n x d_v' declares a head family). Plain words softmax(, sqrt(,
mask(, Concat( are read as the LaTeX operators. Exit 1 at the first shape error.
"""

DESCRIPTION = "Show the shape of every subexpression, bottom up, and stop at the first shape error."


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("expression", help="e.g. 'softmax(QK^T/sqrt(d_k))V' (LaTeX also accepted)")
    color_option(p)
    dims_options(p)
    format_option(p)
