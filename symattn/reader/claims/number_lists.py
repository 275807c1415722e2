"""Lists of numbers in a worked example (`0.40 \\times [0,2] + 0.20 \\times [1,1] = [0.2, 1]`,
`[0.80, 1.20] \\approx [0.8, 1.2]`): read as vectors of numbers, entry by entry. A list is two
or more numbers in brackets or parentheses, or a `bmatrix` of one row; lists are added,
subtracted, negated and scaled by numbers. Each entry of the one side against the same entry of
the other is a claim between numbers for the kernel, so a wrong entry makes the claim false, and
lists of two lengths are a shape error.

Sound: entry by entry is what equality of two lists means, and every entry is a number the
kernel decides exactly (or within the unit of the last digit written, for `\\approx`). A side
that holds a name, a product of two lists or anything else is left to the other readings.

Imports sympy, the reader's AST, claims and translator; never the resolver, the checker or CLI.
"""

from __future__ import annotations

import dataclasses
from typing import TypeAlias

import sympy

from symattn.kernel.errors import SymattnError
from symattn.kernel.expr import MatExpr
from symattn.reader.claims.approximate import written_number
from symattn.reader.claims.resolved import ResolvedClaim, new_claim
from symattn.reader.syntax import ast
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.translator import Terms

__all__ = ["has_list", "list_claim", "written_unit"]

Value: TypeAlias = sympy.Expr | tuple[sympy.Expr, ...]


def has_list(node: ast.Node) -> bool:
    """Whether `node` writes a list of two or more items (`[0, 2]`, `(1.0, 2.0)`) or a row."""
    return any(_items(x) is not None for x in ast.walk(node))


def list_claim(
    terms: Terms,
    span: MathSpan,
    left: ast.Node,
    right: ast.Node,
    start: int,
    end: int,
    approximate: bool = False,
) -> ResolvedClaim | None:
    """`left = right` (or `\\approx`) between lists of numbers, as one claim per entry; None
    where a side is not a list of numbers or a number (then it is no claim of this kind)."""
    a, b = _value(terms, left), _value(terms, right)
    if a is None or b is None or not (isinstance(a, tuple) or isinstance(b, tuple)):
        return None
    if not (isinstance(a, tuple) and isinstance(b, tuple)):
        return None  # a number against a list: no reading of the text's is sure
    if len(a) != len(b):
        msg = f"a list of {len(a)} numbers against a list of {len(b)}: they cannot be equal"
        return new_claim(span, start, end, "shape_error", msg)
    claim = new_claim(span, start, end, "pending", pairs=tuple(zip(a, b, strict=True)))
    context = f"lists read as vectors of {len(a)} numbers, entry by entry"
    if not approximate:
        return dataclasses.replace(claim, context=context)
    units = [written_unit(x) for x in (right, left)]
    unit = next((u for u in units if u is not None), None)
    if unit is None:
        return None
    context += f"; \\approx read as within one unit of the last digit written, {unit}"
    return dataclasses.replace(claim, tolerance=unit, context=context)


def written_unit(side: ast.Node) -> sympy.Rational | None:
    """The unit of the last digit of the numbers a list or a matrix written out holds
    (`[0.80, 1.25]`, a `bmatrix` of such numbers, give 1/100); None where it is no such list or
    matrix, or where its fractional numbers are written to different digits (`[0.8, 1.25]`: one
    tolerance for both would be too strict for one or too loose for the other); a whole number
    beside them (`0`) is held to the same digit."""
    items = _items(side)
    if items is None and isinstance(side, ast.Matrix) and side.env in ("bmatrix", "pmatrix"):
        items = tuple(cell for row in side.rows for cell in row)
    if not items:
        return None
    written = [written_number(x) for x in items]
    if not all(written):
        return None
    # a whole number among decimals (`0` beside `0.71`) is exact: it does not set the digit
    units = {w[1] for w in written if w is not None and w[1] < 1}
    return units.pop() if len(units) == 1 else None


def _items(node: ast.Node) -> tuple[ast.Node, ...] | None:
    if isinstance(node, ast.Group) and node.delim in ("[", "(") and len(node.items) >= 2:
        if any(isinstance(x, ast.Dots) for x in node.items):
            return None
        return node.items
    if isinstance(node, ast.Matrix) and node.env in ("bmatrix", "pmatrix") and len(node.rows) == 1:
        row = node.rows[0]
        return row if len(row) >= 2 and not any(isinstance(x, ast.Dots) for x in row) else None
    return None


def _value(terms: Terms, node: ast.Node) -> Value | None:
    """A number, or a tuple of numbers for a list; None for anything else."""
    items = _items(node)
    if items is not None:
        out = [_value(terms, x) for x in items]
        if any(not isinstance(x, sympy.Expr) for x in out):
            return None
        return tuple(x for x in out if isinstance(x, sympy.Expr))
    if isinstance(node, ast.Group) and len(node.items) == 1:
        return _value(terms, node.items[0])
    if isinstance(node, ast.Neg):
        inner = _value(terms, node.operand)
        return _scaled(sympy.Integer(-1), inner)
    if isinstance(node, ast.Add):
        acc = _value(terms, node.terms[0])
        for op, t in zip(node.ops, node.terms[1:], strict=True):
            nxt = _value(terms, t)
            acc = _plus(acc, _scaled(sympy.Integer(-1), nxt) if op == "-" else nxt)
        return acc
    if isinstance(node, ast.Product | ast.Mul):
        ops = node.ops if isinstance(node, ast.Mul) else ("*",) * (len(node.factors) - 1)
        if any(op not in ("*", "times", "cdot", "/") for op in ops):
            return None
        acc = _value(terms, node.factors[0])
        for op, f in zip(ops, node.factors[1:], strict=True):
            nxt = _value(terms, f)
            if op == "/":
                ok = isinstance(nxt, sympy.Expr) and nxt != 0
                acc = _scaled(1 / nxt, acc) if ok and isinstance(nxt, sympy.Expr) else None
            else:
                acc = _times(acc, nxt)
        return acc
    if has_list(node):
        return None  # a list inside a function, a fraction, a power: not read here
    return _number(terms, node)


def _number(terms: Terms, node: ast.Node) -> sympy.Expr | None:
    try:
        got = terms.term(node)
    except (SymattnError, RecursionError):
        return None
    if isinstance(got, MatExpr) or not isinstance(got, sympy.Expr) or got.free_symbols:
        return None
    return got


def _plus(a: Value | None, b: Value | None) -> Value | None:
    if isinstance(a, tuple) and isinstance(b, tuple):
        return tuple(x + y for x, y in zip(a, b, strict=True)) if len(a) == len(b) else None
    if isinstance(a, sympy.Expr) and isinstance(b, sympy.Expr):
        return a + b
    return None  # a number plus a list: not read


def _scaled(c: sympy.Expr, v: Value | None) -> Value | None:
    if isinstance(v, tuple):
        return tuple(c * x for x in v)
    return c * v if isinstance(v, sympy.Expr) else None


def _times(a: Value | None, b: Value | None) -> Value | None:
    if isinstance(a, sympy.Expr):
        return _scaled(a, b)
    if isinstance(b, sympy.Expr):
        return _scaled(b, a)
    return None  # two lists side by side: no product is read
