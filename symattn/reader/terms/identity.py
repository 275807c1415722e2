"""The identity matrix in a product: `\\mathbf S(\\mathbf I - \\beta\\mathbf k\\mathbf k^\\top)`,
`(\\mathbf I - \\mathbf A)\\mathbf B`, `\\mathbf A\\mathbf I_d`. A letter I that the text does not
declare, written beside a matrix, is read as the identity of the size the product needs:
`A I = A`, `I B = B`, and `A(I - X)B = AB - AXB` term by term. Nothing else is assumed of it; an
I that no matrix beside it sizes (`\\beta\\mathbf I`, `\\mathbf R^\\top\\mathbf R = \\mathbf I`)
is left to the translator, which reports it as an unknown symbol.

Why this is sound: distributing a product over a sum and dropping an identity factor are exact
for matrices of every size, and every product that remains is shape-checked as written, so the
sizes the identity had to have (square, of the side it multiplies) are the sizes the result
requires. A written size (`I_d`) must be provably the side it multiplies.

Imports the kernel's nodes and the reader's AST and problems; the arithmetic mixin calls
`identity_product` before folding a product.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import sympy

from symattn.kernel.dims import dims_equal
from symattn.kernel.errors import ShapeError, SymattnError
from symattn.kernel.expr import MatAdd, MatExpr, MatMul, Scale
from symattn.reader.syntax import ast
from symattn.reader.terms.problems import shape_problem

if TYPE_CHECKING:
    from symattn.reader.terms.base import TermsBase

__all__ = ["identity_product", "is_identity", "other_terms", "written_beside"]

_FONTS = (None, "mathbf", "boldsymbol", "bm", "mathrm", "mathbb", "bold", "textbf")


def identity_product(terms: TermsBase, node: ast.Product | ast.Mul) -> sympy.Basic | None:
    """The value of `node` with its identity factors read as above; None where it has none,
    where an identity is not sized by a matrix beside it, or where the text declares an I."""
    ops = node.ops if isinstance(node, ast.Mul) else ("*",) * (len(node.factors) - 1)
    if any(op != "*" for op in ops):
        return None
    factors = _flat(node.factors)
    held = _scoped(terms)
    at = next((k for k, f in enumerate(factors) if _holds(held, f)), None)
    if at is None:
        return None
    pre, f, post = factors[:at], factors[at], factors[at + 1 :]
    if is_identity(terms, f) and _in_word(f, pre[-1:] + post[:1]):
        return None
    got = _distributed(terms, node, pre, f, post)
    if got is not None:
        for x in ast.walk(f):
            if is_identity(terms, x):
                assert isinstance(x, ast.Symbol)
                terms.identities.add(_shown(x))
    return got


def _shown(eye: ast.Symbol) -> str:
    letter = "I" if eye.font is None else f"\\{eye.font}{{I}}"
    return letter if eye.sub is None else f"{letter}_{{{ast.dump(eye.sub)}}}"


def _distributed(
    terms: TermsBase,
    node: ast.Node,
    pre: tuple[ast.Expr, ...],
    f: ast.Expr,
    post: tuple[ast.Expr, ...],
) -> sympy.Basic | None:
    if is_identity(terms, f):
        return _around(terms, node, pre, f, post)
    acc: MatExpr | None = None
    for sign, t in _signed(f) or ():
        if is_identity(terms, t):
            value = _around(terms, node, pre, t, post)
        else:
            group = ast.Group((t,), start=t.start, end=t.end)
            value = _value(terms, ast.Product((*pre, group, *post), start=node.start, end=node.end))
        if not isinstance(value, MatExpr):
            return None
        part = value if sign == 1 else Scale(-1, value)
        try:
            acc = part if acc is None else MatAdd(acc, part)
        except ShapeError as e:
            raise shape_problem(e, node, (node.start, node.end)) from None
    return acc


def written_beside(node: ast.Node) -> bool:
    """Whether `node` writes an I as a factor of a product or in parentheses that are one
    (`S(I - A)`, `A I`): an identity sized by what it multiplies, whose shape is not inferred
    from that use (`P^T P = I` alone still gives I a shape, as a condition reads it)."""
    for x in ast.walk(node):
        if not isinstance(x, ast.Product | ast.Mul):
            continue
        fs = x.factors
        for k, f in enumerate(fs):
            beside = fs[max(k - 1, 0) : k] + fs[k + 1 : k + 2]
            if _holds(_eye_letter, f) and not (_eye_letter(f) and _in_word(f, beside)):
                return True
    return False


def other_terms(terms: TermsBase, node: ast.Node) -> tuple[ast.Node, ...] | None:
    """For a factor of a product that is an identity (or parentheses around a sum with one),
    the parts that are not (`(I - \\beta k k^T)` gives `\\beta k k^T`); None for any other."""
    eye = _scoped(terms)
    if not _holds(eye, node):
        return None
    return tuple(t for t in _summed(node) or () if not eye(t))


def _around(
    terms: TermsBase,
    node: ast.Node,
    pre: tuple[ast.Expr, ...],
    eye: ast.Expr,
    post: tuple[ast.Expr, ...],
) -> sympy.Basic | None:
    """`pre · I · post` without the I: a matrix must stand on one side to size it."""
    a = _value(terms, _product(pre)) if pre else None
    b = _value(terms, _product(post)) if post else None
    size = _written_size(terms, eye)
    if size is False:
        return None
    if isinstance(a, MatExpr):
        if size is not None and not dims_equal(a.cols, size):
            return None
        if b is None:
            return a
        if isinstance(b, MatExpr):
            try:
                return MatMul(a, b)
            except ShapeError as e:
                raise shape_problem(e, node, (node.start, node.end)) from None
        return Scale(b, a)
    if isinstance(b, MatExpr):
        if size is not None and not dims_equal(b.rows, size):
            return None
        return b if a is None else Scale(a, b)
    return None  # `\beta I`: no matrix says how large the identity is


def _in_word(eye: ast.Expr, beside: tuple[ast.Expr, ...]) -> bool:
    """A plain `I` next to a plain capital (`AI`, arithmetic intensity): a word, not a product."""
    assert isinstance(eye, ast.Symbol)
    return eye.font is None and any(
        isinstance(x, ast.Symbol) and x.font is None and x.sub is None and x.name.isupper()
        for x in beside
    )


def _value(terms: TermsBase, node: ast.Node) -> sympy.Basic | None:
    got = terms.term(node)
    return got if isinstance(got, sympy.Basic) else None


def _product(factors: tuple[ast.Expr, ...]) -> ast.Expr:
    if len(factors) == 1:
        return factors[0]
    return ast.Product(factors, start=factors[0].start, end=factors[-1].end)


def _flat(factors: tuple[ast.Expr, ...]) -> tuple[ast.Expr, ...]:
    """Factors with a group that holds only a product (`(2\\mathbf I)`) opened."""
    out: list[ast.Expr] = []
    for f in factors:
        if isinstance(f, ast.Group) and f.delim == "(" and len(f.items) == 1:
            inner = f.items[0]
            if isinstance(inner, ast.Product):
                out.extend(inner.factors)
                continue
        out.append(f)
    return tuple(out)


def _holds(eye: Callable[[ast.Node], bool], node: ast.Node) -> bool:
    """An identity (by `eye`), or parentheses around a sum one of whose terms is (`(I - A)`)."""
    return eye(node) or any(eye(t) for t in _summed(node) or ())


def _summed(node: ast.Node) -> tuple[ast.Expr, ...] | None:
    """The terms, signs dropped, of a sum in parentheses (`(I - A)` gives I, A); None for
    anything else."""
    signed = _signed(node)
    return None if signed is None else tuple(t for _, t in signed)


def _signed(node: ast.Node) -> tuple[tuple[int, ast.Expr], ...] | None:
    """The terms of a sum in parentheses with their signs (`(I - A)` gives (1, I), (-1, A),
    `(-I)` gives (-1, I)); None for anything else."""
    if not (isinstance(node, ast.Group) and node.delim == "(" and len(node.items) == 1):
        return None
    inner = node.items[0]
    if isinstance(inner, ast.Neg):
        return ((-1, inner.operand),)
    if not isinstance(inner, ast.Add):
        return None
    out: list[tuple[int, ast.Expr]] = []
    for k, t in enumerate(inner.terms):
        sign = -1 if k > 0 and inner.ops[k - 1] == "-" else 1
        out.append((-sign, t.operand) if isinstance(t, ast.Neg) else (sign, t))
    return tuple(out)


def _scoped(terms: TermsBase) -> Callable[[ast.Node], bool]:
    return lambda node: is_identity(terms, node)


def _eye_letter(node: ast.Node) -> bool:
    """`I`, `\\mathbf I`, `I_d` as written, whatever the text declares."""
    return isinstance(node, ast.Symbol) and node.name == "I" and node.font in _FONTS


def is_identity(terms: TermsBase, node: ast.Node) -> bool:
    """`I`, `\\mathbf I`, `\\mathbb I`, `I_d`, where the text gives I no meaning of its own."""
    if not _eye_letter(node):
        return False
    if "I" in terms.scalars:
        return False
    entry = terms.scope.lookup("I")
    return entry is None or getattr(entry, "origin", "") == "inferred"


def _written_size(terms: TermsBase, node: ast.Node) -> sympy.Expr | None | bool:
    """The size below `I_d`; None where none is written; False where it is not a size."""
    assert isinstance(node, ast.Symbol)
    if node.sub is None:
        return None
    try:
        size = terms.dim_term(node.sub)
    except (SymattnError, RecursionError):
        return False
    return size if isinstance(size, sympy.Expr) else False
