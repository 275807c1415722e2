"""The definition of a sequence of vectors indexed by a step (`h_t = W h_{t-1}` of a declared
vector h). Imports the kernel's dims and text and the reader's claims, spans, scope and terms;
never the resolver, the checker or the CLI (`relations` calls this).

The first equation with a step member on its left defines the sequence: it claims nothing, its
right side must typecheck and have the declared vectors' shape, and later claims about members
read them as free vectors of that shape (`reader.claims.premises`: a `false` is undecided).
"""

from __future__ import annotations

from symattn.kernel.dims import shape_str
from symattn.kernel.errors import ShapeError
from symattn.kernel.expr import MatExpr
from symattn.kernel.text import plain
from symattn.reader.claims.resolved import ResolvedClaim, new_claim, shape_claim
from symattn.reader.syntax import ast
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.scope import Scope, Shape, same_shape
from symattn.reader.terms.steps import step_vector
from symattn.reader.terms.translator import Problem, Terms

__all__ = ["define_step"]


def define_step(
    scope: Scope,
    terms: Terms,
    span: MathSpan,
    left: ast.Node,
    right: ast.Node,
    start: int,
    end: int,
) -> ResolvedClaim | None:
    """`h_t = W h_{t-1}` (or `y_t = 3 x_t`) where the text declares h as a vector: the
    definition of the vectors h_t, one per step. None when `left` is no step member of a
    declared vector, or an earlier formula defined the sequence already (then it is a claim).
    Raises `Problem` (a shape error) when the right side has another shape in every reading of
    the vectors the text allows."""
    if not isinstance(left, ast.Symbol) or step_vector(scope, left) is None:
        return None
    defined = scope.defined_sequences.get(left.name)
    if defined is not None and defined != span.start.line:
        return None
    label = span.body[left.start : left.end]
    shape, failed = _attempt(scope, terms, label, left, right, None)
    unsettled = bool(scope.consulted)
    if shape is not None:
        return _defined(scope, span, left, label, shape, "columns" if unsettled else "", start, end)
    if unsettled:
        shape, _ = _attempt(scope, terms, label, left, right, "row")
        if shape is not None:
            return _defined(scope, span, left, label, shape, "rows", start, end)
    if failed is None:
        return None  # a side is not read as a matrix: read as a claim, with its readings
    scope.consulted.clear()
    raise failed  # both sides read, of other shapes whether its vectors are rows or columns


def _attempt(
    scope: Scope, terms: Terms, label: str, left: ast.Node, right: ast.Node, reading: str | None
) -> tuple[Shape | None, Problem | None]:
    """Both sides read with the text's unsettled vectors as columns (`reading` None) or rows:
    the members' shape, or the shape error between the sides; (None, None) when a side is no
    matrix or does not typecheck."""
    scope.consulted.clear()
    scope.both_ways, scope.reading = True, reading
    try:
        lhs, rhs = _read(terms, left), _read(terms, right)
    except Problem as p:
        if p.status != "shape_error":
            raise
        return None, None  # a side does not typecheck: the claim's own readings decide
    finally:
        scope.both_ways, scope.reading = False, None
    if not isinstance(rhs, MatExpr) or not isinstance(lhs, MatExpr):
        return None, None
    have, got = scope.bind_shape(lhs.shape), scope.bind_shape(rhs.shape)
    if same_shape(have, got):
        return have, None
    why = f"{label} is a vector of {shape_str(have)}, but {plain(rhs)} is {shape_str(got)}"
    return None, Problem("shape_error", why, right)


def _defined(
    scope: Scope,
    span: MathSpan,
    left: ast.Symbol,
    label: str,
    shape: Shape | None,
    reading: str,
    start: int,
    end: int,
) -> ResolvedClaim:
    assert shape is not None
    scope.defined_sequences.setdefault(left.name, span.start.line)
    what = f"defines the vectors {label}, one per step (a premise: its value is not read)"
    if reading:  # the text does not settle its vectors' rows or columns: no shape is verified
        msg = f"{what}; it typechecks with the vectors as {reading}"
        return new_claim(span, start, end, "declared", msg)
    return shape_claim(span, start, end, shape, shape, f"{what}; both sides are {shape_str(shape)}")


def _read(terms: Terms, node: ast.Node) -> object:
    try:
        return terms.term(node)
    except ShapeError as e:
        raise Problem("shape_error", str(e).splitlines()[0], node) from None
