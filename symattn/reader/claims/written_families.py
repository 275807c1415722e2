"""Claims between members of a family of matrices written out (`R_m` = a rotation by `m\\theta`).
Imports sympy, the reader's AST, claims, spans and terms; never the resolver or the checker."""

from __future__ import annotations

import dataclasses
from typing import Any

import sympy

from symattn.kernel.errors import Signal, SymattnError
from symattn.kernel.expr import MatExpr
from symattn.reader.claims.resolved import ResolvedClaim, new_claim
from symattn.reader.claims.written_matrices import pending
from symattn.reader.syntax import ast
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.defined import Defined, head_of
from symattn.reader.terms.members import lookup_member
from symattn.reader.terms.translator import Terms, label_of

__all__ = ["define_written", "written_family_claim"]


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
    state.size = _size(terms, (left, right))
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
    if state.vectors:
        shown = ", ".join(sorted(state.vectors))
        context += (
            f"; {shown} read as columns of {state.size} real numbers (the text does not declare "
            f"{'it' if len(state.vectors) == 1 else 'them'})"
        )
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
        self.vectors: set[str] = set()
        self.size: int | None = None

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
            values = self.applied(node.factors) if isinstance(node, ast.Product) else None
            if values is None:
                values = [self.value(f) for f in node.factors]
            acc = values[0]
            for v in values[1:]:
                acc = _times(acc, v)
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

    def applied(self, factors: tuple[ast.Node, ...]) -> list[Any] | None:
        """The values of the factors, `R(\\alpha)` and `R(\\theta)^\\top` of a function written
        out read as its matrix at those arguments; None when no such function is applied."""
        out: list[Any] = []
        found = False
        k = 0
        while k < len(factors):
            f = factors[k]
            nxt = factors[k + 1] if k + 1 < len(factors) else None
            if isinstance(f, ast.Symbol) and f.sub is None and nxt is not None:
                written = self.terms.defs.written.get(label_of(f))
                group, mark = (
                    (nxt.operand, True) if isinstance(nxt, ast.Transpose) else (nxt, False)
                )
                if written is not None and isinstance(group, ast.Group) and group.delim == "(":
                    value = self.call(label_of(f), written, group.items)
                    out.append(value.T if mark else value)
                    found = True
                    k += 2
                    continue
            out.append(self.value(f))
            k += 1
        return out if found else None

    def call(
        self, name: str, written: tuple[tuple[str, ...], Any, int], args: tuple[ast.Node, ...]
    ) -> sympy.MatrixBase:
        params, body, line = written
        if len(args) != len(params):
            raise _NotOurs("another number of arguments")
        values = []
        for a in args:
            v = self.scalar(a)
            values.append(v)
        table = dict(zip(params, values, strict=True))
        for x in _free_letters(self.terms, body, ""):
            if x not in table:
                table[x] = sympy.Symbol(x, real=True)
        matrix = _entries(self.terms, body, table)
        self.families[f"{name}(·)"] = line
        return matrix

    def scalar(self, node: ast.Node) -> sympy.Expr:
        """An argument of a function written out: letters the text never declares are read as
        real numbers (`\\alpha`, `m\\theta`)."""
        table = {x: sympy.Symbol(x, real=True) for x in _free_letters(self.terms, node, "")}
        self.reals |= set(table)
        saved = self.terms.scalars
        self.terms.scalars = table
        try:
            value = self.terms.term(node)
        finally:
            self.terms.scalars = saved
        if isinstance(value, MatExpr) or not isinstance(value, sympy.Expr):
            raise _NotOurs("an argument that is not a number")
        return value

    def vector(self, node: ast.Symbol) -> sympy.MatrixBase:
        """`q` beside rotations of the plane, never declared by the text: a column of real
        numbers of their size (a name the text or the conventions give a meaning is refused)."""
        label = label_of(node)
        entry = self.terms.scope.lookup(label)
        if self.size is None or label in self.terms.scope.dims or label in self.terms.defs.table:
            raise _NotOurs("a name of the text's")
        if entry is not None and getattr(entry, "origin", "") != "inferred":
            raise _NotOurs("a vector of the text's")
        matrix = self.terms.scope.lookup(label.upper())
        if matrix is not None and getattr(matrix, "origin", "") == "declared":
            raise _NotOurs("a row of a matrix the text declares")
        self.vectors.add(label)
        cells = [sympy.Symbol(f"{label}_{k + 1}", real=True) for k in range(self.size)]
        return sympy.Matrix(cells)

    def symbol(self, node: ast.Symbol) -> Any:
        terms = self.terms
        if node.name == "I" and node.sub is None and node.font in (None, "mathbf", "mathrm"):
            entry = terms.scope.lookup("I")
            if entry is not None and getattr(entry, "origin", "") == "declared":
                raise _NotOurs("a matrix I of the text's")
            return _Identity()
        if node.sub is None and len(node.name) == 1 and node.name.islower():
            return self.vector(node)
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
        matrix = _entries(terms, closed, table)
        self.families[f"{node.name}_{str(family.index)}"] = family.line
        return matrix


def _size(terms: Terms, nodes: tuple[ast.Node, ...]) -> int | None:
    """The one size of the square matrices written out that the claim's families and functions
    stand for (2 for a rotation of the plane); None when there are none or several."""
    sizes: set[int] = set()
    stack = list(nodes)
    while stack:
        x = stack.pop()
        if isinstance(x, ast.Symbol):
            form = None
            if x.sub is not None and len(x.name) == 1 and x.name.isupper():
                family = lookup_member(terms.scope, x.name)
                form = getattr(family, "closed", None)
            elif x.sub is None and label_of(x) in terms.defs.written:
                form = terms.defs.written[label_of(x)][1]
            if isinstance(form, ast.Matrix) and form.rows:
                sizes.add(len(form.rows) if len(form.rows) == len(form.rows[0]) else -1)
            continue
        stack.extend(ast.children(x))
    return sizes.pop() if len(sizes) == 1 and -1 not in sizes else None


def _entries(terms: Terms, matrix: ast.Matrix, table: dict[str, sympy.Expr]) -> sympy.MatrixBase:
    """A matrix written out, its entries read with the names of `table` as those values."""
    saved = terms.scalars
    terms.scalars = table
    try:
        rows = [[terms.term(c) for c in row] for row in matrix.rows]
    finally:
        terms.scalars = saved
    if not rows or len({len(r) for r in rows}) != 1:
        raise _NotOurs("rows of different lengths")
    if any(isinstance(c, MatExpr) or not isinstance(c, sympy.Expr) for r in rows for c in r):
        raise _NotOurs("an entry that is not a number")
    return sympy.Matrix(rows)


def define_written(
    terms: Terms, span: MathSpan, left: ast.Node, right: ast.Node, start: int, end: int
) -> ResolvedClaim | None:
    """`R(\\theta) = \\begin{pmatrix}\\cos\\theta & -\\sin\\theta\\\\ ...\\end{pmatrix}`: the text's
    function of scalars whose value is a matrix written out (a declaration, which claims
    nothing); claims between its values at other arguments compare them entry by entry. None
    when the name means something already, a parameter is not a plain letter, or an entry is
    not a scalar of the parameters and of letters the text never declares."""
    head = head_of(left)
    if head is None or not isinstance(right, ast.Matrix) or right.env == "cases":
        return None
    letter, group = head
    name = label_of(letter)
    if letter.sub is not None or name in terms.defs.table or name in terms.defs.written:
        return None
    entry = terms.scope.lookup(name)
    if (entry is not None and entry.origin != "inferred") or name in terms.scope.dims:
        return None  # a matrix the text declares, or the conventions name (not one inferred)
    params: list[str] = []
    for p in group.items:
        if not (isinstance(p, ast.Symbol) and p.sub is None and p.font is None):
            return None
        label = label_of(p)
        if terms.scope.lookup(label) is not None or label in terms.scope.dims or label in params:
            return None
        params.append(label)
    try:
        table = {x: sympy.Symbol(x, real=True) for x in _free_letters(terms, right, "")}
        matrix = _entries(terms, right, table)
    except (_NotOurs, SymattnError, RecursionError):
        return None
    if not params or not any(matrix.has(table[p]) for p in params if p in table):
        return None
    rows, cols = matrix.shape
    terms.defs.written[name] = (tuple(params), right, span.start.line)
    shape = (sympy.Integer(rows), sympy.Integer(cols))
    terms.defs.table[name] = Defined(
        name, 0, tuple("scalar" for _ in params), shape, span.start.line
    )
    text = span.body[left.start : left.end]
    msg = (
        f"defines the function {text}, a {rows} × {cols} matrix written out (claims between its "
        "values are compared entry by entry)"
    )
    return new_claim(span, start, end, "declared", msg)


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
