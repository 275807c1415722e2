"""Formulas about indices: a condition (`j > i`, a premise for the claim before it), an equation
between indices (`j = i`, a position), and the sign of an entry (`a_{ij} > 0`, for every i, j).

Imports sympy, the kernel and the reader's AST, spans, claims, conditions, scope and translator;
never the resolver, the checker or the CLI.
"""

from __future__ import annotations

import dataclasses

import sympy

from symattn.kernel.errors import SymattnError
from symattn.kernel.expr import Entry
from symattn.kernel.text import plain
from symattn.reader.claims.conditions import ORDER, REL_TEXT, rel_text
from symattn.reader.claims.resolved import ResolvedClaim, new_claim
from symattn.reader.claims.size_orders import size_order
from symattn.reader.syntax import ast
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.scope import Scope
from symattn.reader.terms.translator import Problem, Terms, plain_name

__all__ = ["condition", "index_equation"]


def condition(scope: Scope, terms: Terms, span: MathSpan, c: ast.Claim) -> ResolvedClaim:
    """`j > i`, `i < j`, `j \\ge i+1`, `i \\le j`: a premise on indices for the claim before
    it (chains such as `i < j \\le n` give one relation per link)."""
    if len(c.subjects) != 1:
        msg = "a condition relates two indices, as in j > i"
        return new_claim(span, c.start, c.end, "not_understood", msg)
    members = [c.subjects[0], *(step.rhs for step in c.steps)]
    values: list[sympy.Expr] = []
    for m in members:
        try:
            values.append(terms.index_term(m))
        except Problem:
            sign = _sign_claim(scope, terms, span, c)
            if sign is not None:
                return sign
            msg = (
                f"relation '{REL_TEXT.get(c.steps[0].rel, c.steps[0].rel)}' is read only "
                "between indices (j > i, i < j, j \\ge i+1), not checked as a claim"
            )
            return new_claim(span, c.start, c.end, "not_understood", msg, where=(m.start, m.end))
    dims = set(scope.dims.values()) | set(scope.bindings)
    relations: list[sympy.Basic] = []
    for k, step in enumerate(c.steps):
        a, b = values[k], values[k + 1]
        free = (a.free_symbols | b.free_symbols) - dims
        if not free:
            ordered = size_order(scope, span, c, values)
            if ordered is not None:
                return ordered
            msg = "a condition on sizes alone (n > 5) is not read; conditions relate indices"
            return new_claim(span, c.start, c.end, "not_understood", msg)
        rel = ORDER[step.rel](a, b)
        if rel is sympy.true:
            continue
        if rel is sympy.false:
            shown = f"{plain(a)} {REL_TEXT.get(step.rel, step.rel)} {plain(b)}"
            msg = f"the condition {shown} never holds"
            return new_claim(span, c.start, c.end, "not_understood", msg)
        relations.append(rel)
    text = ", ".join(rel_text(r) for r in relations) or "true for every index"
    return dataclasses.replace(
        new_claim(span, c.start, c.end, "declared", f"condition {text}"),
        conditions=tuple(relations) or (sympy.true,),
    )


def _sign_claim(scope: Scope, terms: Terms, span: MathSpan, c: ast.Claim) -> ResolvedClaim | None:
    r"""`a_{ij} > 0` (also `\ge`, `0 < a_{ij}`): the sign of an entry, for the kernel's
    sign facts on every entry of the matrix (which implies it for any i, j)."""
    if len(c.steps) != 1 or len(c.subjects) != 1:
        return None
    left, rel, right = c.subjects[0], c.steps[0].rel, c.steps[0].rhs
    if isinstance(left, ast.Number) and left.text == "0" and rel in ("<", "le"):
        left, right, rel = right, left, {"<": ">", "le": "ge"}[rel]
    if rel not in (">", "ge") or not (isinstance(right, ast.Number) and right.text == "0"):
        return None
    try:
        entry = terms.term(left)
    except (Problem, SymattnError):
        return None
    if not isinstance(entry, Entry):
        return None
    claim = new_claim(span, c.start, c.end, "pending", defs=scope.defs())
    return dataclasses.replace(claim, sign=(entry.matrix, rel == ">"))


def index_equation(
    scope: Scope, terms: Terms, span: MathSpan, c: ast.Claim
) -> ResolvedClaim | None:
    """`j=i` (the sum stops at j=i), `h=1` (of `h=1,\\ldots,H`), `i \\bmod 2 = 0`: an
    equation between indices names a position or a condition; it claims nothing."""
    members = [*c.subjects, *(step.rhs for step in c.steps)]
    for m in members:
        for x in ast.walk(m):
            if (
                isinstance(x, ast.Symbol)
                and plain_name(x) not in scope.dims
                and not (len(x.name) == 1 and x.name.islower() and x.sub is None and x.font is None)
            ):
                return None  # a matrix, a vector or a name: not only indices
    values = []
    for m in members:
        try:
            values.append(terms.index_term(m))
        except (Problem, SymattnError):
            return None
    dims = set(scope.dims.values()) | set(scope.bindings)
    free = set().union(*(v.free_symbols for v in values)) - dims
    if not free or any(_degree(v, free) > 1 for v in values):
        return None  # `(a+bi)(c+di) = ...`: a product of two letters is no position
    msg = "an equation between indices (a position or a condition), not a claim"
    return new_claim(span, c.start, c.end, "prose", msg + _second_value(scope, values))


def _second_value(scope: Scope, values: list[sympy.Basic]) -> str:
    """`m = 3` and then `m = 4` in one section: two numbers for one letter, said."""
    if len(values) != 2 or not isinstance(values[0], sympy.Symbol) or not values[1].is_number:
        return ""
    letter, value = values[0].name, values[1]
    old = scope.index_values.get(letter)
    scope.index_values[letter] = (value, scope.line, scope.section)
    if old is None or old[2] != scope.section or old[0] == value:
        return ""
    return f"; but {letter} = {old[0]} at line {old[1]}: two values for {letter}"


def _degree(value: sympy.Expr, letters: set[sympy.Basic]) -> int:
    """The largest number of letters multiplied in one term of `value` (`ac + bd`: 2)."""
    out = 0
    for term in sympy.Add.make_args(sympy.expand(value)):
        powers = term.as_powers_dict()
        exps = [sympy.sympify(powers.get(x, 0), strict=True) for x in letters]
        out = max(out, sum(int(e) if e.is_Integer else 2 for e in exps))
    return out
