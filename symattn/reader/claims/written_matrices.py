"""Matrices written out in a formula: stacked rows (`Z = [z_1; ...; z_n]`), entries (`QK^T =
[q_1\\cdot k_1 ...]`), a worked example's table of numbers, and claims that reach one.

Imports sympy, the kernel and the reader's AST, spans, claims, conventions, literals, scope and
translator; never the resolver, the checker or the CLI.
"""

from __future__ import annotations

import sympy

from symattn.kernel.dims import dims_equal, shape_str
from symattn.kernel.expr import Entry, MatExpr, MatSym, walk
from symattn.kernel.text import plain
from symattn.reader.claims.literals import LiteralProblem, entry_pairs, unfold
from symattn.reader.claims.resolved import ResolvedClaim, new_claim
from symattn.reader.syntax import ast
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.conventions import looks_like_matrix
from symattn.reader.terms.problems import not_understood
from symattn.reader.terms.scope import Name, Scope, same_shape
from symattn.reader.terms.translator import Problem, Terms, plain_name

__all__ = ["pending", "stack_claim"]

Pair = tuple[sympy.Basic, sympy.Basic]


def pending(
    scope: Scope, span: MathSpan, start: int, end: int, pairs: tuple[Pair, ...]
) -> ResolvedClaim:
    """A claim for the kernel; one that reaches a matrix written out in the worked example
    goes entry by entry, with the written values (`reader.literals`)."""
    defs = scope.defs()
    literals = scope.literals()
    if literals:
        out: list[Pair] = []
        for lhs, rhs in pairs:
            try:
                got = entry_pairs(lhs, rhs, defs, literals)
            except LiteralProblem as e:
                raise not_understood(f"{e} (a matrix written out is in force)", None) from None
            out.extend(got if got is not None else [(lhs, rhs)])
        pairs = tuple(out)
    return new_claim(span, start, end, "pending", pairs=pairs, defs=defs)


def stack_claim(
    scope: Scope,
    terms: Terms,
    span: MathSpan,
    left: ast.Node,
    m: ast.Matrix,
    start: int,
    end: int,
) -> ResolvedClaim:
    """`Z = [z_1; ...; z_5]`: row k of the left side is the k-th row written; a column of
    numbers or scalars (`Q = [1 \\ 2]`) is a matrix written entry by entry."""
    if any(len(row) != 1 for row in m.rows):
        return _entries_claim(scope, terms, span, left, m, start, end)
    if not any(isinstance(terms.term(row[0]), MatExpr) for row in m.rows):
        return _entries_claim(scope, terms, span, left, m, start, end)
    lhs = terms.term(left)
    if not isinstance(lhs, MatExpr):
        raise not_understood("a matrix written out is compared only with a matrix", left)
    rows = []
    for row in m.rows:
        if len(row) != 1:
            raise not_understood("matrices written entry by entry are not checked", m)
        cell = terms.term(row[0])
        if not isinstance(cell, MatExpr) or not dims_equal(cell.rows, 1):
            raise not_understood("each row of the matrix must be a row vector", row[0])
        rows.append(cell)
    if not dims_equal(lhs.rows, len(rows)):
        raise Problem(
            "shape_error",
            f"{plain(lhs)} has {lhs.rows} rows but the matrix shows {len(rows)}",
            m,
        )
    pairs = []
    for k, cell in enumerate(rows, start=1):
        if not dims_equal(cell.cols, lhs.cols):
            raise Problem(
                "shape_error",
                f"row {k} has {cell.cols} columns but {plain(lhs)} has {lhs.cols}",
                m.rows[k - 1][0],
            )
        pairs.append((lhs.row(k), cell))
    return pending(scope, span, start, end, tuple(pairs))


def _entries_claim(
    scope: Scope,
    terms: Terms,
    span: MathSpan,
    left: ast.Node,
    m: ast.Matrix,
    start: int,
    end: int,
) -> ResolvedClaim:
    r"""`M = [cells]` written entry by entry (a `bmatrix`, or an `array` table whose labels
    are prose): each cell is a claim about an entry, `(QK^T)_{11} = q_1\cdot k_1`; a name
    not defined in this section with only numbers in its cells is a definition by its
    entries, kept for the claims of the worked example (`A` = the table of weights)."""
    width = len(m.rows[0])
    if any(len(row) != width for row in m.rows):
        raise not_understood("the rows of the matrix have different lengths", m)
    cells = [[terms.term(c) for c in row] for row in m.rows]
    if any(isinstance(c, MatExpr) for row in cells for c in row):
        raise not_understood("a matrix of blocks is not checked", m)
    name = plain_name(left)
    current = scope.lookup(name) if name is not None else None
    numeric = all(not c.free_symbols for row in cells for c in row)
    if name is not None and (looks_like_matrix(name) or _labeled(name)) and numeric:
        if current is None or not _checkable(scope, current):
            return _define_literal(scope, span, name, current, cells, left, start, end)
    lhs = terms.term(left)
    if not isinstance(lhs, MatExpr):
        raise not_understood("a matrix written out is compared only with a matrix", left)
    got = (len(cells), width)
    if not (dims_equal(lhs.rows, got[0]) and dims_equal(lhs.cols, got[1])):
        guessed = _guessed_leaves(scope, lhs)
        sized = all(sympy.sympify(x, strict=True).is_Integer for x in scope.bind_shape(lhs.shape))
        bound = scope.bind_shape(lhs.shape)
        sides = zip(bound, got, strict=True)
        open_size = numeric and all(
            dims_equal(a, b) or not sympy.sympify(a, strict=True).is_Integer for a, b in sides
        )
        if (numeric and guessed and not sized) or open_size:
            # `\boldsymbol v_n = (1, 0)^T` in a worked example: the written entries set the
            # size, where the shape they differ from is only the chapter's convention
            why = (
                f"by the chapter's convention for {', '.join(guessed)}, which the text never "
                "declares"
                if guessed
                else "with sizes the text leaves symbolic, which a worked example may set"
            )
            msg = (
                f"undecided: {plain(lhs)} is {shape_str(lhs.shape)} {why}; the matrix written "
                f"out shows {shape_str(got)}"
            )
            return new_claim(span, start, end, "unknown", msg)
        raise Problem(
            "shape_error",
            f"{plain(lhs)} is {shape_str(lhs.shape)} but the matrix shows {shape_str(got)}",
            m,
        )
    pairs = tuple(
        (Entry(lhs, r, c), cells[r - 1][c - 1])
        for r in range(1, got[0] + 1)
        for c in range(1, got[1] + 1)
    )
    return pending(scope, span, start, end, pairs)


def _labeled(name: str) -> bool:
    """`W^Q`, `W^O`: a capital with a label above, a matrix's name as papers write it."""
    return name[:1].isupper() and name[1:2] == "^" and "(" not in name


def _checkable(scope: Scope, current: Name) -> bool:
    """Whether numbers written for a name defined in this section are a claim about its
    definition: only when that definition can be computed from matrices the worked example
    wrote out (`Q = XW_Q` with X and W_Q given). Otherwise (X and W_Q not given) they are the
    example's values for it, used by the claims after them."""
    if current.definition is None or not scope.local(current):
        return False
    if scope.top().kind != "example":
        return True
    try:
        unfolded = unfold(scope.bind(current.definition), scope.defs())
    except LiteralProblem:
        return True
    names = {x.name for x in walk(unfolded) if isinstance(x, MatSym)}
    return names <= set(scope.literals())


def _define_literal(
    scope: Scope,
    span: MathSpan,
    name: str,
    current: Name | None,
    cells: list[list[sympy.Basic]],
    left: ast.Node,
    start: int,
    end: int,
) -> ResolvedClaim:
    shape = (sympy.Integer(len(cells)), sympy.Integer(len(cells[0])))
    if current is not None and not same_shape(scope.bind_shape(current.shape), shape):
        if current.origin in ("convention", "inferred"):
            return _literal_over_a_guess(scope, span, name, current, cells, start, end)
        raise Problem(
            "shape_error",
            f"{name} is {shape_str(scope.bind_shape(current.shape))} here, "
            f"but the matrix shows {shape_str(shape)}",
            left,
        )
    top = scope.example()
    top.literals[name] = sympy.Matrix(cells)
    if current is None:
        top.names[name] = Name(shape, "declared", scope.section, scope.line)
    msg = f"worked example: {name} is the {shape_str(shape)} matrix written out"
    return new_claim(span, start, end, "declared", msg)


def _literal_over_a_guess(
    scope: Scope,
    span: MathSpan,
    name: str,
    current: Name,
    cells: list[list[sympy.Basic]],
    start: int,
    end: int,
) -> ResolvedClaim:
    """Numbers written for a name whose shape the text never gave (the chapter's convention
    `Q: n x d_k`, or inferred): they set its sizes in the worked example where the guessed
    shape leaves them open; where a size the text fixed differs, the guess is wrong or the text
    is: undecided, naming the guess, never a shape error."""
    shape = (sympy.Integer(len(cells)), sympy.Integer(len(cells[0])))
    bound = scope.bind_shape(current.shape)
    fixed = [
        (a, b)
        for a, b in zip(bound, shape, strict=True)
        if sympy.sympify(a, strict=True).is_Integer and not dims_equal(a, b)
    ]
    if fixed:
        why = "the chapter's convention" if current.origin == "convention" else "inferred"
        msg = (
            f"undecided: {name} is {shape_str(bound)} ({why}, a shape the text never gives); "
            f"the matrix written out shows {shape_str(shape)}"
        )
        return new_claim(span, start, end, "unknown", msg)
    top = scope.example()
    top.literals[name] = sympy.Matrix(cells)
    top.names[name] = Name(shape, "declared", scope.section, scope.line)
    msg = (
        f"worked example: {name} is the {shape_str(shape)} matrix written out (its shape "
        f"{shape_str(current.shape)} was {current.origin}, never given by the text)"
    )
    return new_claim(span, start, end, "declared", msg)


def _guessed_leaves(scope: Scope, term: MatExpr) -> list[str]:
    """The names of `term`'s matrices when every one has a shape the text never gave (the
    chapter's convention, or inferred); empty if the text declared or defined any of them."""
    names = sorted({str(x.args[0]) for x in walk(term) if isinstance(x, MatSym)})
    entries = [scope.lookup(k) for k in names]
    if not names or any(e is None or e.origin not in ("convention", "inferred") for e in entries):
        return []
    return names
