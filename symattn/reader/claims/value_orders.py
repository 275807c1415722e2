"""An order between values with names (`T_\\text{math} \\ge T_\\text{comms}`, `d_k^{-1/2} \\le 1`):
both sides read as the sides of `=` are read, the claim that their difference has the sign the
relation says, for the kernel (`kernel.orders`); after a condition word, a hypothesis.

Imports sympy, the kernel's expressions and the reader's AST, spans, claims and number orders;
never the resolver itself, the checker or the CLI (the resolver passes itself in).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import sympy

from symattn.kernel.expr import MatExpr
from symattn.kernel.text import plain
from symattn.reader.claims.index_claims import condition
from symattn.reader.claims.number_orders import aside, condition_word
from symattn.reader.claims.resolved import ResolvedClaim, new_claim
from symattn.reader.syntax import ast
from symattn.reader.syntax.scanner import MathSpan

__all__ = ["order_links", "value_order"]

_SIGN = {"<": "<", "le": "\\le", ">": ">", "ge": "\\ge"}


def value_order(reader: Any, span: MathSpan, c: ast.Claim) -> ResolvedClaim | None:
    """`a > b` (also `<`, `\\ge`, `\\le`) whose sides read as numbers, sizes or names with
    values, as `a = b` would be: the claim `sign(a - b)` as the relation says, for the kernel,
    which proves it where it holds for every value, refutes it where it fails for every value
    and leaves it undecided otherwise (so it never rests on a value the text does not give).
    After a condition word (`if $n > 1$`) or in a supposition, a hypothesis. None when a side
    is not read so, or is not a scalar."""
    if len(c.subjects) != 1 or len(c.steps) != 1 or c.steps[0].rel not in _SIGN:
        return None
    text = getattr(reader, "text", "")
    if text and aside(text, span):
        return None  # `($n \\le 512$)`: an aside, which may be a condition
    word = condition_word(text, span) if text else ""
    if word or reader.scope.supposing:
        shown = span.body[c.start : c.end]
        how = f"after '{word}'" if word else "a supposition"
        msg = f"a hypothesis ({how}): {shown}, a condition the text states, not checked"
        return new_claim(span, c.start, c.end, "declared", msg)
    return _link(reader, span, c.subjects[0], c.steps[0]) or _sizes(reader, span, c)


def _link(reader: Any, span: MathSpan, left: ast.Node, step: ast.Step) -> ResolvedClaim | None:
    equal = dataclasses.replace(step, rel="=")
    (got,) = reader._traceless(lambda: [reader._link(span, left, equal, first=False)])
    if got.status != "pending" or got.split or got.sign is not None or got.negated:
        return None
    if got.tolerance is not None or got.hypotheses or len(got.pairs) != 1:
        return None
    try:
        a, b = (reader.scope.bind(x) for x in got.pairs[0])
    except Exception:  # noqa: BLE001 - a side that is not bound keeps the claim undecided
        return None
    if not all(isinstance(x, sympy.Expr) and not isinstance(x, MatExpr) for x in (a, b)):
        return None
    if not all(x.is_real is not False for x in (a, b)):
        return None
    if got.defines.endswith(("may be related", "may be related or integers")):
        # an equation between names may relate them; an order that holds (or fails) for every
        # value holds (or fails) for related values too
        got = dataclasses.replace(got, defines="")
    return _signed(got, a, step.rel, b)


def _sizes(reader: Any, span: MathSpan, c: ast.Claim) -> ResolvedClaim | None:
    """`n^2 \\ge n`: sides of sizes and numbers only, which an equation would relate (an
    assumption), compared here."""
    scope = reader.scope
    try:
        a, b = (scope.bind(reader.terms.term(x)) for x in (c.subjects[0], c.steps[0].rhs))
    except Exception:  # noqa: BLE001 - a side that is not read keeps the claim undecided
        return None
    sizes = set(scope.dims.values())
    for x in (a, b):
        if not isinstance(x, sympy.Expr) or isinstance(x, MatExpr) or not x.free_symbols <= sizes:
            return None
    return _signed(new_claim(span, c.start, c.end, "pending"), a, c.steps[0].rel, b)


def _signed(claim: ResolvedClaim, a: sympy.Expr, rel: str, b: sympy.Expr) -> ResolvedClaim | None:
    if (a - b).atoms(sympy.Float):
        return None  # a decimal's binary value is no number the text wrote
    strict = rel in ("<", ">")
    diff = a - b if rel in (">", "ge") else b - a
    why = f"{plain(a)} {_SIGN[rel]} {plain(b)} read as the sign of the difference"
    context = f"{claim.context}; {why}" if claim.context else why
    return dataclasses.replace(claim, pairs=(), sign=(diff, strict), context=context)


def order_links(
    reader: Any, span: MathSpan, c: ast.Claim, whole: ResolvedClaim
) -> list[ResolvedClaim]:
    """`0 < a_{ij} < 1`, `0 < \\frac{1}{\\sqrt{d_k}} \\le 1`: a chain of orders as its links, each
    read as a lone order (`a_{ij} > 0` a sign fact, `\\frac{1}{\\sqrt{d_k}} \\le 1` for the
    kernel), where one of them at least is for the kernel; else `whole`, the chain undecided."""
    if len(c.subjects) != 1 or len(c.steps) < 2:
        return [whole]
    out: list[ResolvedClaim] = []
    left: ast.Node = c.subjects[0]
    for step in c.steps:
        one = ast.Claim(start=left.start, end=step.rhs.end, subjects=(left,), steps=(step,))  # type: ignore[arg-type]
        got = condition(reader.scope, reader.terms, span, one)
        if got.status == "not_understood" and "read only between indices" in got.message:
            got = reader._order_between_values(span, one, got)
        out.append(got)
        left = step.rhs
    return out if any(x.status == "pending" for x in out) else [whole]
