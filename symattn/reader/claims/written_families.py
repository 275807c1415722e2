"""Claims between members of a family of matrices written out (`R_m` = a rotation by `m\\theta`).
Imports sympy, the reader's AST, claims, spans and terms; never the resolver or the checker."""

from __future__ import annotations

import dataclasses
from typing import Any

import sympy

from symattn.kernel.errors import Signal, SymattnError
from symattn.kernel.expr import MatExpr
from symattn.reader.claims.resolved import ResolvedClaim
from symattn.reader.claims.written_matrices import pending
from symattn.reader.syntax import ast
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.members import lookup_member
from symattn.reader.terms.translator import Terms, label_of

__all__ = ["written_family_claim"]


class _NotOurs(Signal):
    """A part that is no member of a written family, no identity and no number."""


def written_family_claim(
    terms: Terms, span: MathSpan, left: ast.Node, right: ast.Node, start: int, end: int
) -> ResolvedClaim | None:
    """`R_m^\\top R_n = R_{n-m}` where the text defines `R_m` by a matrix written out whose
    entries are scalars of m and of letters it never declares (`\\cos m\\theta`): both sides as
    matrices of those entries, compared entry by entry, the letters read as real numbers (they
    are arguments of cos and sin, or factors of their values) and the indices as what the claim
    writes. None when a side uses anything else (a vector, a matrix of the text's), or no member
    of such a family: then the claim is read as before."""
    state = _State(terms)
    try:
        a, b = state.value(left), state.value(right)
        if isinstance(a, _Identity) and isinstance(b, sympy.MatrixBase):
            a = a.scale * sympy.eye(b.shape[0]) if b.shape[0] == b.shape[1] else a
        if isinstance(b, _Identity) and isinstance(a, sympy.MatrixBase):
            b = b.scale * sympy.eye(a.shape[0]) if a.shape[0] == a.shape[1] else b
    except (_NotOurs, SymattnError, RecursionError):
        return None
    if not state.families or not state.reals:
        return None
    if not (isinstance(a, sympy.MatrixBase) and isinstance(b, sympy.MatrixBase)):
        return None
    if a.shape != b.shape:
        return None
    pairs = tuple((sympy.expand(x), sympy.expand(y)) for x, y in zip(a, b, strict=True))
    claim = pending(terms.scope, span, start, end, pairs)  # type: ignore[arg-type]
    reals = ", ".join(sorted(state.reals))
    used = ", ".join(f"{k} as defined at line {v}" for k, v in state.families.items())
    context = f"{reals} read as real numbers (not declared by the text); with {used}"
    # a point where the claim fails says nothing of the values the text means: undecided
    why = (
        f"{reals} {'is' if len(state.reals) == 1 else 'are'} not declared by the text; read as "
        "real numbers the claim fails, but the text may mean particular values"
    )
    return dataclasses.replace(claim, context=context, defines=why)


class _Identity:
    """`I` (times a number): the identity of the size the other side has."""

    def __init__(self, scale: sympy.Expr = sympy.S.One) -> None:
        self.scale = scale


class _State:
    def __init__(self, terms: Terms) -> None:
        self.terms = terms
        self.families: dict[str, int] = {}
        self.reals: set[str] = set()

    def value(self, node: ast.Node) -> Any:
        if isinstance(node, ast.Group) and node.delim == "(" and len(node.items) == 1:
            return self.value(node.items[0])
        if isinstance(node, ast.Transpose):
            inner = self.value(node.operand)
            if not isinstance(inner, sympy.MatrixBase):
                raise _NotOurs("a transpose of a number")
            return inner.T
        if isinstance(node, ast.Product) or (
            isinstance(node, ast.Mul) and set(node.ops) <= {"cdot", "times"}
        ):
            acc = self.value(node.factors[0])
            for f in node.factors[1:]:
                acc = _times(acc, self.value(f))
            return acc
        if isinstance(node, ast.Add):
            parts = [self.value(t) for t in node.terms]
            acc = parts[0]
            for op, p in zip(node.ops, parts[1:], strict=True):
                if not (isinstance(acc, sympy.MatrixBase) and isinstance(p, sympy.MatrixBase)):
                    raise _NotOurs("a sum that is not of matrices")
                if acc.shape != p.shape:
                    raise _NotOurs("matrices of different sizes added")
                acc = acc - p if op == "-" else acc + p
            return acc
        if isinstance(node, ast.Neg):
            inner = self.value(node.operand)
            if isinstance(inner, _Identity):
                return _Identity(-inner.scale)
            return -inner
        if isinstance(node, ast.Number):
            return self.terms.term(node)
        if isinstance(node, ast.Symbol):
            return self.symbol(node)
        raise _NotOurs(type(node).__name__)

    def symbol(self, node: ast.Symbol) -> Any:
        terms = self.terms
        if node.name == "I" and node.sub is None and node.font in (None, "mathbf", "mathrm"):
            entry = terms.scope.lookup("I")
            if entry is not None and getattr(entry, "origin", "") == "declared":
                raise _NotOurs("a matrix I of the text's")
            return _Identity()
        if node.sub is None or len(node.name) != 1 or not node.name.isupper():
            raise _NotOurs("no member of a family")
        family = lookup_member(terms.scope, node.name)
        closed = getattr(family, "closed", None)
        if family is None or not isinstance(closed, ast.Matrix) or family.index is None:
            raise _NotOurs("no family written out")
        (at,) = terms.indices(node.sub)
        table: dict[str, sympy.Expr] = {str(family.index): at}
        for x in _free_letters(terms, closed, str(family.index)):
            table[x] = sympy.Symbol(x, real=True)
            self.reals.add(x)
        saved = terms.scalars
        terms.scalars = table
        try:
            rows = [[terms.term(c) for c in row] for row in closed.rows]
        finally:
            terms.scalars = saved
        if not rows or len({len(r) for r in rows}) != 1:
            raise _NotOurs("rows of different lengths")
        if any(isinstance(c, MatExpr) or not isinstance(c, sympy.Expr) for r in rows for c in r):
            raise _NotOurs("an entry that is not a number")
        self.families[f"{node.name}_{str(family.index)}"] = family.line
        return sympy.Matrix(rows)


def _free_letters(terms: Terms, node: ast.Node, index: str) -> list[str]:
    """The letters of a closed form the text never declares (`\\theta`): no size, no name in
    scope, not the family's index."""
    out: list[str] = []
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, ast.Symbol):
            if x.sub is not None:
                raise _NotOurs("a subscripted name in the form")
            label = label_of(x)
            if label == index or label in terms.scope.dims or terms.scope.lookup(label):
                continue
            if not (len(x.name) == 1 and x.name.islower()) and not label.startswith("\\"):
                raise _NotOurs("a name that is not a letter")
            if label in ("\\pi", "e"):
                raise _NotOurs("a constant")
            out.append(label)
            continue
        stack.extend(ast.children(x))
    return list(dict.fromkeys(out))


def _times(a: Any, b: Any) -> Any:
    if isinstance(a, _Identity) and isinstance(b, _Identity):
        return _Identity(a.scale * b.scale)
    if isinstance(a, _Identity) or isinstance(b, _Identity):
        ident, other = (a, b) if isinstance(a, _Identity) else (b, a)
        if isinstance(other, sympy.MatrixBase):
            return ident.scale * other
        return _Identity(ident.scale * other)  # `2I`: a multiple of the identity
    am, bm = isinstance(a, sympy.MatrixBase), isinstance(b, sympy.MatrixBase)
    if am and bm and a.shape[1] != b.shape[0]:
        raise _NotOurs("sizes that do not multiply")
    return a * b
