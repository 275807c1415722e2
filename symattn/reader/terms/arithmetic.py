"""Products and arithmetic: products, sums of terms, masks, quotients, powers, roots, norms.
Imports the kernel and the reader's AST; must not import the resolver, the checker or the CLI.
"""

from __future__ import annotations

from typing import Any

import sympy

from symattn.kernel.dims import dims_equal, shape_str
from symattn.kernel.errors import ShapeError
from symattn.kernel.expr import (
    CausalMask,
    Dot,
    Entry,
    HeadSym,
    MatAdd,
    MatExpr,
    MatMul,
    MatSym,
    Scale,
    walk,
)
from symattn.kernel.partial import Partial
from symattn.kernel.text import plain
from symattn.reader.syntax import ast
from symattn.reader.syntax.gradients import leibniz_quotient, partial_quotient
from symattn.reader.terms.base import TermsBase
from symattn.reader.terms.bracketed_scalars import bracketed_after, bracketed_scalar
from symattn.reader.terms.identity import identity_product
from symattn.reader.terms.lists import list_value
from symattn.reader.terms.names import label_of, plain_name
from symattn.reader.terms.ones import ones_after
from symattn.reader.terms.ones_lengths import sum_parts
from symattn.reader.terms.problems import Problem, UnknownName, not_understood, shape_problem
from symattn.reader.terms.products import NotRead, entrywise
from symattn.reader.terms.scalars import huge_power


def _imaginary(node: ast.Node) -> bool:
    """An `i`, `j`, `\\imath` or `\\mathrm i` written as a factor, not below a letter."""
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, ast.Symbol):
            if x.name in ("i", "j", "imath", "jmath") and x.sub is None:
                return True
            continue  # a subscript (`x_i`) is an index, not a factor
        stack.extend(ast.children(x))
    return False


def _times(a: sympy.Basic, b: sympy.Basic, node: ast.Node, span: Any) -> sympy.Basic:
    am, bm = isinstance(a, MatExpr), isinstance(b, MatExpr)
    if am and bm:
        assert isinstance(a, MatExpr) and isinstance(b, MatExpr)
        # orientation is part of the shape: q_i^T k_j is (d_k × 1)(1 × d_k), a d_k × d_k
        # matrix, and k_j q_i^T is 1 × 1; neither is turned into a dot product here
        try:
            return MatMul(a, b)
        except ShapeError as e:
            raise shape_problem(e, node, span) from None
    if am:
        return Scale(b, a)
    if bm:
        return Scale(a, b)
    return a * b


def _vector_like(x: MatExpr) -> bool:
    return bool(dims_equal(x.rows, 1) or dims_equal(x.cols, 1))


def _conforms(a: MatExpr, b: MatExpr) -> bool:
    return bool(dims_equal(a.cols, b.rows))


def _dot(a: MatExpr, b: MatExpr, node: ast.Node, span: Any) -> sympy.Basic:
    r"""`u \cdot v` of two rows (`q_i\cdot k_j`) or of two columns (`x\cdot y` with
    `x\in\mathbb R^d`); a row and a column is a shape error. Between two matrices, neither
    of them a vector, `A \cdot V` is what texts write for their product, and it must conform
    as the product does; a matrix beside a vector (`W \cdot x`, `x_i \cdot W_Q`) is their
    product where it conforms, and a shape error where it does not."""
    if not _vector_like(a) and not _vector_like(b):
        return _times(a, b, node, span)
    if _vector_like(a) != _vector_like(b) and _conforms(a, b):
        return _times(a, b, node, span)  # `W \cdot x`, `x_i \cdot W_Q`: a matrix times a vector
    if _is_column(a) and _is_column(b):
        a, b = a.T, b.T
    elif _is_column(a) != _is_column(b) and (_is_row(a) or _is_row(b)):
        which = [f"{plain(x)} is {orientation(x)} ({shape_str(x.shape)})" for x in (a, b)]
        raise Problem(
            "shape_error",
            f"cannot take the dot product of a row and a column: {which[0]}, {which[1]}",
            node,
            span=span,
        )
    try:
        return Dot(a, b)
    except ShapeError as e:
        raise shape_problem(e, node, span) from None


def _divide(a: sympy.Basic, b: sympy.Basic, node: ast.Node, span: Any) -> sympy.Basic:
    if isinstance(b, MatExpr) and not isinstance(a, MatExpr):
        msg = f"cannot divide the scalar {plain(a)} by the matrix {plain(b)}"
        raise Problem("shape_error", msg, node, span=span)
    if isinstance(b, MatExpr) and dims_equal(b.rows, 1) and dims_equal(b.cols, 1):
        b = Entry(b, sympy.Integer(1), sympy.Integer(1))  # `x / (q^T k)`: a 1 × 1 divisor
    elif (
        isinstance(b, MatExpr)
        and isinstance(a, MatExpr)
        and dims_equal(b.cols, 1)
        and dims_equal(a.rows, b.rows)
    ):
        # `\phi(Q)(\phi(K)^T V) / \phi(Q)(\phi(K)^T 1_N)`: each row divided by its normaliser
        msg = f"each row of {plain(a)} divided by the entry of {plain(b)} in that row is not read"
        raise not_understood(msg, node)
    if isinstance(b, MatExpr):
        raise Problem("shape_error", f"cannot divide by the matrix {plain(b)}", node, span=span)
    if getattr(b, "is_zero", False):
        raise Problem("shape_error", f"division by zero: {plain(a)}/{plain(b)}", node, span=span)
    if isinstance(a, MatExpr):
        return Scale(1 / b, a)
    return a / b


def _sqrt_of(v: sympy.Basic, node: ast.Node) -> sympy.Basic:
    """`\\sqrt{d_k}`; `\\sqrt{x^\\top x}` of a provably 1 × 1 matrix is the root of its one entry,
    as texts write a norm; of any other matrix, a shape error."""
    if isinstance(v, MatExpr) and dims_equal(v.rows, 1) and dims_equal(v.cols, 1):
        return sympy.sqrt(Entry(v, sympy.Integer(1), sympy.Integer(1)))
    if isinstance(v, MatExpr):
        raise Problem("shape_error", f"cannot take the square root of the matrix {plain(v)}", node)
    return sympy.sqrt(v)


def chain_scalar(node: ast.Mul, parts: list[sympy.Expr]) -> sympy.Expr:
    """Scalars joined by `\\cdot`, `\\times` and `/`, left to right."""
    acc = parts[0]
    for op, p in zip(node.ops, parts[1:], strict=True):
        if op == "mod":
            acc = sympy.Mod(acc, p)
        else:
            acc = acc / p if op == "/" else acc * p
    return acc


def add_scalars(node: ast.Add, parts: list[sympy.Expr]) -> sympy.Expr:
    """Scalars joined by `+` and `-`, left to right."""
    acc = parts[0]
    for op, p in zip(node.ops, parts[1:], strict=True):
        acc = acc - p if op == "-" else acc + p
    return acc


def _is_row(x: MatExpr) -> bool:
    return bool(dims_equal(x.rows, 1)) and not dims_equal(x.cols, 1)


def _is_column(x: MatExpr) -> bool:
    return bool(dims_equal(x.cols, 1)) and not dims_equal(x.rows, 1)


def orientation(x: MatExpr) -> str:
    """`a row vector`, `a column vector`, `a 1 × 1 matrix` or `a matrix`."""
    if _is_row(x):
        return "a row vector"
    if _is_column(x):
        return "a column vector"
    return "a 1 × 1 matrix" if dims_equal(x.rows, 1) else "a matrix"


def as_comparable(lhs: sympy.Basic, rhs: sympy.Basic) -> tuple[sympy.Basic, sympy.Basic]:
    """A 1 × 1 matrix compared with a scalar is its only entry."""
    one = sympy.Integer(1)
    for _ in range(2):
        if isinstance(lhs, MatExpr) and not isinstance(rhs, MatExpr):
            if dims_equal(lhs.rows, 1) and dims_equal(lhs.cols, 1):
                lhs = Entry(lhs, one, one)
        lhs, rhs = rhs, lhs
    return lhs, rhs


class ArithmeticMixin(TermsBase):
    """Products, sums of terms, masks, quotients, powers, roots, inner products, norms."""

    def _product(self, node: ast.Product) -> sympy.Basic:
        applied = self._applications(node)
        if applied is not node:
            if not isinstance(applied, ast.Product):
                return self.term(applied)
            node = applied
        return self._fold(node, ["*"] * (len(node.factors) - 1))

    def _mul(self, node: ast.Mul) -> sympy.Basic:
        return self._fold(node, list(node.ops))

    def _fold(self, node: ast.Product | ast.Mul, ops: list[str]) -> sympy.Basic:
        """Left to right; each partial product is a step, and an error spans the factors so far."""
        eye = identity_product(self, node)
        if eye is not None:
            return eye  # `S(I - \beta k k^T)`: the identity read by the product around it
        factors = node.factors
        self._note_shift(factors)
        acc = self.term(factors[0])
        for k, (op, f) in enumerate(zip(ops, factors[1:], strict=True), start=2):
            b = ones_after(acc, f) if op == "*" else None
            b = self.term(f) if b is None else b
            span = (node.start, f.end)
            if op == "mod":
                if isinstance(acc, MatExpr) or isinstance(b, MatExpr):
                    raise not_understood("mod is read between integers only", node)
                acc = sympy.Mod(acc, b)
            elif op == "/":
                acc = _divide(acc, b, node, span)
            elif op == "star" and (isinstance(acc, MatExpr) or isinstance(b, MatExpr)):
                msg = "'*' is read between numbers only; between matrices write the product"
                raise not_understood(msg, node)
            elif op == "cdot" and isinstance(acc, MatExpr) and isinstance(b, MatExpr):
                before, acc = acc, _dot(acc, b, node, span)
                self._confirm(before, b)
            elif op in ("odot", "otimes", "circ"):
                masks = (k == 2 and self._is_mask(factors[0]), self._is_mask(f))
                try:
                    acc = entrywise(op, acc, b, masks)
                except ShapeError as e:
                    raise shape_problem(e, node, span) from None
                except NotRead as e:
                    raise not_understood(str(e), node) from None
            else:
                acc = bracketed_scalar(factors[0], acc, b) if k == 2 else acc
                b = bracketed_after(acc, f, b) if op == "*" else b
                before, acc = acc, _times(acc, b, node, span)
                if isinstance(before, MatExpr) and isinstance(b, MatExpr):
                    self._confirm(before, b)
            if k < len(factors) and self.observer is not None:
                self.observer(node, acc, f.end)
        return acc

    def _note_shift(self, factors: tuple[ast.Expr, ...]) -> None:
        r"""`c\mathbf 1_n^{\mathsf T}` with `c` a letter not in scope: c is a column of numbers
        `c_i`, one per row (the kernel's `FromColumn`), as long as the ones vector (a square
        shift; another length is then a shape error, never a silent guess that verifies)."""
        seqs: dict[str, sympy.Expr] | None = getattr(self.scope, "sequences", None)
        if seqs is None:
            return
        for a, b in zip(factors, factors[1:], strict=False):
            if (
                isinstance(a, ast.Symbol)
                and a.sub is None
                and a.font is None
                and len(a.name) == 1
                and a.name.islower()
                and a.name not in self.scope.dims
                and self.scope.lookup(a.name.upper()) is None
                and isinstance(b, ast.Transpose)
                and isinstance(b.operand, ast.Symbol)
                and b.operand.name == "1"
                and b.operand.sub is not None
            ):
                seqs.setdefault(a.name, self.dim_term(b.operand.sub))

    def _add(self, node: ast.Add) -> sympy.Basic:
        masks = [k for k, t in enumerate(node.terms) if self._is_mask(t)]
        if masks:
            return self._masked(node, masks)
        parts = sum_parts(self, node)
        if any(not isinstance(p, MatExpr) for p in parts):
            # `\mathbf q^\top\mathbf k - \frac12\|\mathbf k\|^2`: a 1 × 1 matrix beside numbers
            parts = [as_comparable(p, sympy.Integer(0))[0] for p in parts]
        if all(not isinstance(p, MatExpr) for p in parts):
            return add_scalars(node, parts)
        acc = parts[0]
        for op, p, t in zip(node.ops, parts[1:], node.terms[1:], strict=True):
            span = (node.start, t.end)
            if isinstance(acc, MatExpr) != isinstance(p, MatExpr):
                kinds = [("a matrix" if isinstance(x, MatExpr) else "a scalar") for x in (acc, p)]
                msg = f"cannot add {kinds[0]} and {kinds[1]}: {plain(acc)} and {plain(p)}"
                raise Problem("shape_error", msg, node, span=span)
            try:
                before, acc = acc, MatAdd(acc, Scale(-1, p) if op == "-" else p)
            except ShapeError as e:
                raise shape_problem(e, node, span) from None
            self._confirm(before, p)
        return acc

    def _confirm(self, *operands: sympy.Basic) -> None:
        """Matrices combined in a product or a sum that typechecks: the shapes they were read
        with are the text's own use of them (`XW_Q` confirms the chapter's X and W_Q)."""
        confirmed: set[str] | None = getattr(self.scope, "confirmed", None)
        if confirmed is None or self.trial or not getattr(self.scope, "confirming", False):
            return
        names = {m.name for x in operands for m in walk(x) if isinstance(m, MatSym)}
        heads = {f"{m.name}^(h)" for x in operands for m in walk(x) if isinstance(m, HeadSym)}
        document = getattr(getattr(self.scope, "document", None), "names", {})
        if any(getattr(document.get(k), "origin", "") == "inferred" for k in names):
            return  # `X W^Q` with W^Q inferred from this use: it typechecks whatever X is
        confirmed.update(names | heads)

    def _is_mask(self, node: ast.Node) -> bool:
        name = plain_name(node)
        entry = self.scope.lookup(name) if name is not None else None
        return bool(getattr(entry, "mask", False))

    def _masked(self, node: ast.Add, masks: list[int]) -> sympy.Basic:
        """`S + M` with M the additive causal mask (defined by its two cases) is
        `CausalMask(S)`: S on and below the diagonal, -∞ above it."""
        ops = ["+", *node.ops]
        if len(masks) != 1 or ops[masks[0]] != "+" or len(node.terms) < 2:
            raise not_understood("the causal mask is read only added once: S + M", node)
        rest = [t for k, t in enumerate(node.terms) if k != masks[0]]
        rest_ops = [o for k, o in enumerate(ops) if k != masks[0]][1:]
        if ops[0] == "-" and masks[0] != 0:
            raise not_understood("the causal mask is read only added once: S + M", node)
        inner: ast.Node = rest[0]
        if len(rest) > 1:
            inner = ast.Add(tuple(rest), tuple(rest_ops), start=node.start, end=node.end)
        s = self.term(inner)
        if not isinstance(s, MatExpr):
            raise Problem("shape_error", "the causal mask is added to a matrix", node)
        try:
            return CausalMask(s)
        except ShapeError as e:
            raise shape_problem(e, node) from None

    def _neg(self, node: ast.Neg) -> sympy.Basic:
        v = self.term(node.operand)
        return Scale(-1, v) if isinstance(v, MatExpr) else -v

    def _frac(self, node: ast.Frac) -> sympy.Basic:
        parts = partial_quotient(node)
        if parts is not None:
            return self._partial(*parts, node)
        if leibniz_quotient(node):
            msg = (
                "a derivative in Leibniz's notation (\\frac{dy}{dx}) that is not the loss's with "
                "respect to a matrix: not read"
            )
            raise not_understood(msg, node)
        return _divide(self.term(node.num), self.term(node.den), node, None)

    def _partial(self, of: ast.Expr, wrt: ast.Expr, node: ast.Frac) -> sympy.Basic:
        """`\\frac{\\partial s_i}{\\partial z_j}`: the derivative of one entry by an entry of
        a named matrix, which only the kernel's `prove_partial` decides."""
        y, x = self.term(of), self.term(wrt)
        if not (isinstance(y, Entry) and isinstance(x, Entry) and isinstance(x.args[0], MatSym)):
            msg = (
                "a partial derivative other than of an entry by an entry of a named matrix or "
                "vector (\\partial s_i/\\partial z_j): not read"
            )
            raise not_understood(msg, node)
        return Partial(y, x)

    def _sqrt(self, node: ast.Sqrt) -> sympy.Basic:
        return _sqrt_of(self.term(node.radicand), node)

    def _euler(self, node: ast.Power) -> bool:
        """`e` raised to a power where the text gives no e of its own: Euler's number. Not
        with an `i` or `j` among the exponent's factors (`e^{im\\theta}`: the imaginary unit,
        which the reader does not take for an index)."""
        base = node.base
        if not isinstance(base, ast.Symbol) or base.name != "e" or base.sub or base.font:
            return False
        if _imaginary(node.exponent):
            return False
        if "e" in self.scalars or self.scope.lookup("e"):
            return False
        if "e" not in self.scope.dims:
            return True
        # `e` is also a size of the text (`\mathbb R^{n\times e}`): raised to an entry or a
        # real number (`e^{x_{ij}}`) it is still Euler's number, as no size is; raised to a
        # number or sizes (`e^2`) it is the size
        try:
            exp = self.term(node.exponent)
        except (Problem, ShapeError):
            return False
        return _entry_valued(exp, set(self.scope.dims.values()))

    def _power(self, node: ast.Power) -> sympy.Basic:
        if self._euler(node):
            exp = self.term(node.exponent)
            if not isinstance(exp, MatExpr):
                huge = huge_power(sympy.E, exp)
                if huge:
                    raise not_understood(huge, node)
                return sympy.exp(exp)  # `e^{x_i}`: e is no name of the text's
        base = self.term(node.base)
        exp = node.exponent
        if isinstance(base, MatExpr) and (
            (isinstance(exp, ast.Symbol) and exp.sub is None)
            or (isinstance(exp, ast.Number) and exp.text.isdigit() and _vector_name(node, base))
        ):
            # `s_t^n`, `\\mathbf h^t`, `q^1`: a letter above a vector (or a number above a
            # vector, which has no powers) labels a new one (a step, a layer), never a power;
            # undeclared, it is read as a name of unknown shape
            text = exp.name if isinstance(exp, ast.Symbol) else exp.text
            shown = label_of(node.base) if isinstance(node.base, ast.Symbol) else plain(base)
            label = f"{shown}^{text}"
            raise UnknownName(f"unknown symbol {label} (declare its shape)", node, label, [])
        if isinstance(base, MatExpr):
            raise not_understood(
                "powers of matrices are not checked: write ^T for a transpose and "
                "(K^{(h)})^T for the transpose of a head",
                node,
            )
        exp = self.term(node.exponent)
        if isinstance(exp, MatExpr):
            raise not_understood("a matrix as an exponent is not checked", node)
        sizes = set(self.scope.dims.values())
        if _entry_valued(exp, sizes) and _size_valued(base, sizes):
            raise not_understood(
                f"a size raised to an entry's power ({plain(base)}^{{{plain(exp)}}}) is not read",
                node,
            )
        too_large = huge_power(base, exp)
        if too_large:
            raise not_understood(too_large, node)
        return base**exp

    def _number(self, node: ast.Number) -> sympy.Basic:
        return sympy.Rational(node.text)

    def _group(self, node: ast.Group) -> sympy.Basic:
        if len(node.items) != 1:
            listed = list_value(self, node)  # `[Z^{(1)}, \ldots, Z^{(H)}]`, `[x_1; x_2]`
            if listed is not None:
                return listed
            raise not_understood("a list in parentheses is not a value", node)
        return self.term(node.items[0])

    def _transpose(self, node: ast.Transpose) -> sympy.Basic:
        v = self.term(node.operand)
        if not isinstance(v, MatExpr):
            raise Problem("shape_error", f"cannot transpose the scalar {plain(v)}", node)
        return v.T

    def _inner(self, node: ast.Inner) -> sympy.Basic:
        r"""`\langle u, v\rangle` is `u \cdot v`: two rows or two columns (of scalars: ab)."""
        a, b = self.term(node.left), self.term(node.right)
        if isinstance(a, MatExpr) and isinstance(b, MatExpr):
            return _dot(a, b, node, None)
        if isinstance(a, MatExpr) or isinstance(b, MatExpr):
            raise not_understood("an inner product of a vector and a scalar is not read", node)
        return a * b

    def _norm(self, node: ast.Norm) -> sympy.Basic:
        r"""`\|x\|` (or `\|x\|_2`) is the Euclidean length of a row or column, sqrt(x·x); of a
        scalar, |x|. Another norm (`\|x\|_1`, `\|A\|_F`) is not read, and says so."""
        v = self.term(node.operand)
        if node.p not in ("", "2"):
            msg = f"the norm \\|x\\|_{{{node.p}}} is not read (only \\|x\\|, \\|x\\|_2 of a vector)"
            raise not_understood(msg, node)
        if not isinstance(v, MatExpr):
            return sympy.Abs(v)
        if not (dims_equal(v.rows, 1) or dims_equal(v.cols, 1)):
            raise not_understood("the norm of a matrix is not read (only of a vector)", node)
        return sympy.sqrt(_dot(v, v, node, None))

    def _abs(self, node: ast.Abs) -> sympy.Basic:
        """`|x|` of a number; of a vector or a set it is ambiguous (length, size), not read."""
        v = self.term(node.operand)
        if isinstance(v, MatExpr):
            raise not_understood("|x| of a vector or matrix is not read: write \\|x\\|", node)
        return sympy.Abs(v)

    def _matrix(self, node: ast.Matrix) -> sympy.Basic:
        """A matrix written out as a value: its cells are read (an undeclared name among them
        makes the claim undecided), but the matrix itself is checked only as the right side
        of `M = [rows]`."""
        for row in node.rows:
            for cell in row:
                if not isinstance(cell, ast.Dots):
                    self.term(cell)
        msg = "a matrix written out is checked only as the right side of M = [rows]"
        if node.env == "cases":
            msg = "a definition by cases is read, not checked as a value"
        raise not_understood(msg, node)


def _entry_valued(value: Any, sizes: set[sympy.Symbol]) -> bool:
    """A scalar holding an entry or a number of the text's (`x_{ij}`, `a + b`), not a number or
    a polynomial in sizes."""
    if not isinstance(value, sympy.Basic) or isinstance(value, MatExpr):
        return False
    if value.atoms(Entry):
        return True
    return any(
        isinstance(x, sympy.Symbol) and x not in sizes and not x.is_integer
        for x in value.free_symbols
    )


def _size_valued(value: Any, sizes: set[sympy.Symbol]) -> bool:
    """A polynomial in sizes with at least one size (`n`, `2d`), no other symbol."""
    if not isinstance(value, sympy.Expr) or isinstance(value, MatExpr) or value.atoms(Entry):
        return False
    return bool(value.free_symbols) and value.free_symbols <= sizes


def _vector_name(node: ast.Power, base: MatExpr) -> bool:
    """`q^1`, `\\mathbf s_t^0`: a vector written as one name (a row or a column, never 1 × 1)."""
    one = [dims_equal(x, 1) for x in base.shape]
    return isinstance(node.base, ast.Symbol) and one.count(True) == 1
