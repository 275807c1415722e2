"""Lists and matrices of numbers in a worked example (`0.40 \\times [0,2] + 0.20 \\times [1,1] =
[0.2, 1]`, `[0.80, 1.20] \\approx [0.8, 1.2]`, `[1, 3] \\begin{bmatrix}1\\\\2\\end{bmatrix} =
1 + 6`): read as arrays of numbers, entry by entry. A list is two or more numbers in brackets or
parentheses (a row; `[1; 2]` a column), a matrix a `bmatrix` or `pmatrix` of numbers; they are
added, subtracted, negated, scaled and divided by numbers, transposed, and multiplied as
matrices (`\\times` and `\\cdot` between two arrays, or side by side, is the matrix product,
a list on the left of a matrix being a row vector). Each entry of the one side against the same
entry of the other is a claim between numbers for the kernel, so a wrong entry makes the claim
false, and arrays of two sizes are a shape error (a row against a column of the same length is
compared entry by entry: texts write a vector either way).

Sound: entry by entry is what equality of two arrays means, every product is formed only where
its inner sizes agree (the one reading that typechecks), and every entry is a number the kernel
decides exactly (or within the unit of the last digit written, for `\\approx`). A side that
holds a name, a product of two lists, a list on the right of a matrix (a row or a column?) or
anything else is left to the other readings.

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

#: An array of numbers, as its rows: a list `[1, 2]` is `((1, 2),)`.
Array: TypeAlias = tuple[tuple[sympy.Expr, ...], ...]
Value: TypeAlias = sympy.Expr | Array


def has_list(node: ast.Node) -> bool:
    """Whether `node` writes a list of two or more items (`[0, 2]`, `(1.0, 2.0)`), a row or a
    matrix written out."""
    return any(_array_items(x) is not None for x in ast.walk(node))


def list_claim(
    terms: Terms,
    span: MathSpan,
    left: ast.Node,
    right: ast.Node,
    start: int,
    end: int,
    approximate: bool = False,
) -> ResolvedClaim | None:
    """`left = right` (or `\\approx`) between arrays of numbers, as one claim per entry; None
    where a side is not an array of numbers or a number, or only one side is an array (then it
    is no claim of this kind)."""
    a, b = _value(terms, left), _value(terms, right)
    if a is None or b is None:
        return None
    if not (isinstance(a, tuple) and isinstance(b, tuple)):
        if isinstance(a, tuple) or isinstance(b, tuple) or not (has_list(left) or has_list(right)):
            return None  # a number against an array: no reading of the text's is sure
        what = "arrays of numbers multiplied out to a number"
        claim = new_claim(span, start, end, "pending", pairs=((a, b),))
        return _approximate(claim, what, left, right) if approximate else _plain(claim, what)
    shapes = (len(a), len(a[0])), (len(b), len(b[0]))
    if shapes[0] != shapes[1]:
        flat = [tuple(x for row in v for x in row) for v in (a, b)]
        vectors = all(1 in shape for shape in shapes)
        if not vectors or len(flat[0]) != len(flat[1]):
            return new_claim(span, start, end, "shape_error", _sizes(shapes, a, b))
        a, b = (flat[0],), (flat[1],)
    pairs = tuple((x, y) for ra, rb in zip(a, b, strict=True) for x, y in zip(ra, rb, strict=True))
    claim = new_claim(span, start, end, "pending", pairs=pairs)
    what = (
        f"lists read as vectors of {len(pairs)} numbers, entry by entry"
        if len(a) == 1 and len(b) == 1
        else f"{len(a)} × {len(a[0])} arrays of numbers, entry by entry"
    )
    if approximate:
        return _approximate(claim, what, left, right)
    return _rounded(claim, what, left, right)


def _rounded(claim: ResolvedClaim, what: str, left: ast.Node, right: ast.Node) -> ResolvedClaim:
    """`[\\sin 1, 2] = [0.841, 2]`: entries written with decimals that no decimal of their digits
    gives exactly are the values rounded (within half the last digit); entries written to
    different digits (`[1.041, 0.84]`) get no one tolerance, so such a claim is undecided."""
    for side, written in ((1, right), (0, left)):
        values = [pair[1 - side] for pair in claim.pairs]
        unit = written_unit(written)
        if not _has_decimals(written):
            continue
        if unit is None:
            unit = _finest(written)
            if unit is None or all((v * (1 / unit)).is_integer for v in values):
                continue
            msg = (
                "not decided: the entries are written to different digits, so the values "
                "they round are not held to one digit"
            )
            return new_claim(claim.span, claim.start, claim.end, "unknown", msg)
        if all((v / unit).is_integer for v in values):
            continue  # `[0.5, 0.25]`: values written out exactly, nothing is rounded
        half = unit / 2
        what += f"; = read as rounded to the last digit written, within {half}"
        shown = "the entries written with decimals are the values rounded to their last digit"
        return dataclasses.replace(claim, tolerance=half, rounded=True, context=what, decimal=shown)
    return _plain(claim, what)


def _cells(node: ast.Node) -> list[ast.Node]:
    cells = _array_items(node)
    return [x for row in cells for x in row] if cells is not None else []


def _has_decimals(node: ast.Node) -> bool:
    """Whether an array written out holds a number with decimals (`0.84`)."""
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, ast.Number) and "." in x.text:
            return True
        stack.extend(ast.children(x))
    return False


def _finest(node: ast.Node) -> sympy.Rational | None:
    """The unit of the finest digit the numbers of an array written out are written to."""
    written = [written_number(x) for x in _cells(node)]
    if not written or any(w is None for w in written):
        return None  # a computation among the entries (`0.5 + 0.25`): not a result written
    return min(w[1] for w in written if w is not None)


def _sizes(shapes: tuple[tuple[int, int], tuple[int, int]], a: Array, b: Array) -> str:
    if len(a) == 1 and len(b) == 1:
        return f"a list of {len(a[0])} numbers against a list of {len(b[0])}: they cannot be equal"
    (r, c), (r2, c2) = shapes
    return f"a {r} × {c} array of numbers against a {r2} × {c2} one: they cannot be equal"


def _plain(claim: ResolvedClaim, what: str) -> ResolvedClaim:
    return dataclasses.replace(claim, context=what)


def _approximate(
    claim: ResolvedClaim, what: str, left: ast.Node, right: ast.Node
) -> ResolvedClaim | None:
    units = [written_unit(x) for x in (right, left)]
    unit = next((u for u in units if u is not None), None)
    if unit is None:
        return None
    what += f"; \\approx read as within one unit of the last digit written, {unit}"
    return dataclasses.replace(claim, tolerance=unit, context=what)


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


def _array_items(node: ast.Node) -> tuple[tuple[ast.Node, ...], ...] | None:
    """The cells of a list (one row; a column for `[1; 2]`) or of a matrix written out."""
    items = _items(node)
    if items is not None:
        stacked = isinstance(node, ast.Group) and node.stacked
        return tuple((x,) for x in items) if stacked else (items,)
    if isinstance(node, ast.Matrix) and node.env in ("bmatrix", "pmatrix") and node.rows:
        rows = node.rows
        cells = [x for row in rows for x in row]
        if len({len(row) for row in rows}) != 1 or any(isinstance(x, ast.Dots) for x in cells):
            return None
        return rows
    return None


def _value(terms: Terms, node: ast.Node) -> Value | None:
    """A number, or an array of numbers; None for anything else."""
    cells = _array_items(node)
    if cells is not None:
        out = [[_value(terms, x) for x in row] for row in cells]
        if any(not isinstance(x, sympy.Expr) or isinstance(x, tuple) for row in out for x in row):
            return None
        return tuple(tuple(x for x in row if isinstance(x, sympy.Expr)) for row in out)
    if isinstance(node, ast.Group) and len(node.items) == 1:
        return _value(terms, node.items[0])
    if isinstance(node, ast.Neg):
        inner = _value(terms, node.operand)
        return _scaled(sympy.Integer(-1), inner)
    if isinstance(node, ast.Transpose):
        inner = _value(terms, node.operand)
        if isinstance(inner, tuple):
            return tuple(zip(*inner, strict=True))
        return None
    if isinstance(node, ast.Frac) and has_list(node.num) and not has_list(node.den):
        den = _value(terms, node.den)
        if not isinstance(den, sympy.Expr) or isinstance(den, tuple) or den == 0:
            return None
        return _scaled(1 / den, _value(terms, node.num))
    if isinstance(node, ast.Add):
        acc = _value(terms, node.terms[0])
        for op, t in zip(node.ops, node.terms[1:], strict=True):
            nxt = _value(terms, t)
            acc = _plus(acc, _scaled(sympy.Integer(-1), nxt) if op == "-" else nxt)
        return acc
    if isinstance(node, ast.Product | ast.Mul):
        ops = node.ops if isinstance(node, ast.Mul) else ("*",) * (len(node.factors) - 1)
        if any(op not in ("*", "star", "times", "cdot", "/") for op in ops):
            return None
        acc = _value(terms, node.factors[0])
        for op, f in zip(ops, node.factors[1:], strict=True):
            nxt = _value(terms, f)
            if op == "/":
                ok = isinstance(nxt, sympy.Expr) and not isinstance(nxt, tuple) and nxt != 0
                acc = _scaled(1 / nxt, acc) if ok and isinstance(nxt, sympy.Expr) else None
            else:
                acc = _times(acc, nxt)
        return acc
    if has_list(node):
        return None  # an array inside a function, a power: not read here
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
        if len(a) != len(b) or len(a[0]) != len(b[0]):
            return None
        return tuple(
            tuple(x + y for x, y in zip(ra, rb, strict=True)) for ra, rb in zip(a, b, strict=True)
        )
    if isinstance(a, sympy.Expr) and isinstance(b, sympy.Expr):
        return a + b
    return None  # a number plus an array: not read


def _scaled(c: sympy.Expr, v: Value | None) -> Value | None:
    if isinstance(v, tuple):
        return tuple(tuple(c * x for x in row) for row in v)
    return c * v if isinstance(v, sympy.Expr) else None


def _times(a: Value | None, b: Value | None) -> Value | None:
    """`a` times `b`: a number scales; two arrays are multiplied as matrices where the inner
    sizes agree (a 1 × 1 result is a number). Two lists side by side (a dot product? an outer
    one?) and a list on the right of a matrix (a row or a column?) are not read."""
    if isinstance(a, sympy.Expr) and not isinstance(a, tuple):
        return _scaled(a, b)
    if isinstance(b, sympy.Expr) and not isinstance(b, tuple):
        return _scaled(b, a)
    if not (isinstance(a, tuple) and isinstance(b, tuple)):
        return None
    if len(b) == 1 or len(a[0]) != len(b):
        return None  # `[1, 2][3, 4]`, `M [1, 2]`, or sizes that do not meet
    zero = sympy.Integer(0)
    columns = list(zip(*b, strict=True))
    out = tuple(
        tuple(sum((x * y for x, y in zip(row, col, strict=True)), zero) for col in columns)
        for row in a
    )
    return out[0][0] if len(out) == 1 and len(out[0]) == 1 else out
