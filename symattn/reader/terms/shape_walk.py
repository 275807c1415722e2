"""Reading one formula for its shapes: the value of each part, unifying dims as it goes.
Imports sympy, the kernel's dims and the reader's syntax; must not import claims or the checker.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sympy

from symattn.kernel.errors import SymattnError
from symattn.reader.syntax import ast
from symattn.reader.terms.members import family_letter
from symattn.reader.terms.name_lists import lists_names
from symattn.reader.terms.scope import Scope
from symattn.reader.terms.translator import Terms, plain_name
from symattn.reader.terms.unify import SCALAR, Clash, Dim, Mat, Unifier, Value, Vec

#: Functions applied entry by entry (or row by row): the value keeps its argument's shape.
_SAME_SHAPE = frozenset(("softmax", "exp", "tanh", "relu", "sigmoid", "gelu", "mask", "dropout"))


def family_key(letter: str) -> str:
    """The name a family of matrices `R_m`, `R_n` is inferred under: `R_•`."""
    return f"{letter}_•"


class _Walker:
    """The values of a formula's parts, unifying dims as it goes (one formula at a time)."""

    def __init__(
        self, unifier: Unifier, env: dict[str, Value], dims: set[str], vectors: str = ""
    ) -> None:
        self.vectors = vectors  # `column` or `row` where the document settles it
        self.u = unifier
        self.env = env
        self.dims = dims
        self.used: set[str] = set()
        self.places: dict[str, tuple[int, int]] = {}
        #: the first clash: the two parts whose sizes disagree, and the two sizes
        self.clash: tuple[tuple[int, int], tuple[int, int], str] | None = None

    def claim(self, c: ast.Claim) -> None:
        if lists_names(c):
            return  # `W^Q, W^K W^V`: a list of names with a comma left out, no product
        left = self.value(c.subjects[0]) if len(c.subjects) == 1 else None
        prev: ast.Node = c.subjects[0]
        for s in c.subjects[1:]:
            self.value(s)
        for step in c.steps:
            if step.rel == "in" and isinstance(step.rhs, ast.Reals):
                right = _reals_value(self, step.rhs)
            else:
                right = self.value(step.rhs)
            if step.rel in ("=", "in") and left is not None and right is not None:
                self.same(left, right, prev, step.rhs)
            left, prev = right, step.rhs

    def same(self, a: Value, b: Value, one: ast.Node, other: ast.Node) -> None:
        pairs: list[tuple[Dim, Dim]] = []
        if isinstance(a, Mat) and isinstance(b, Mat):
            pairs = [(a.rows, b.rows), (a.cols, b.cols)]
        elif isinstance(a, Vec) and isinstance(b, Vec):
            pairs = [(a.size, b.size)]
        for x, y in pairs:
            self.unify(x, y, one, other)

    def unify(self, x: Dim, y: Dim, one: ast.Node, other: ast.Node) -> None:
        try:
            self.u.unify(x, y)
        except Clash as e:
            if self.clash is None:
                self.clash = ((one.start, one.end), (other.start, other.end), str(e))

    def value(self, node: ast.Node) -> Value:
        handler: Any = _VALUES.get(type(node))
        if handler is None:
            for kid in ast.children(node):
                self.value(kid)
            return None
        out: Value = handler(self, node)
        return out

    def symbol(self, node: ast.Symbol | ast.Labeled) -> Value:
        letter = family_letter(node)
        if letter is not None and family_key(letter) in self.env:
            key = family_key(letter)  # `R_m`, `R_n`: members of one family, one shape
            self.used.add(key)
            self.places.setdefault(key, (node.start, node.end))
            return self.env[key]
        name = plain_name(node)
        if name is None:
            return None
        if name in self.dims:
            return SCALAR
        if name in self.env:
            self.used.add(name)
            self.places.setdefault(name, (node.start, node.end))
            return self.env[name]
        if isinstance(node, ast.Symbol) and node.sub is not None and len(node.name) == 1:
            whole = self.env.get(node.name.upper())
            if isinstance(whole, Mat) and node.name.islower() and _one_index(node.sub):
                return Vec(whole.cols)  # `x_i`, a row of X
            if isinstance(whole, Mat) and _two_indices(node.sub):
                return SCALAR  # `Q_{ij}`, `a_{ij}`: an entry
        return None

    def product(self, factors: Sequence[ast.Node], ops: Sequence[str]) -> Value:
        values = [self.value(f) for f in factors]
        acc = values[0]
        for k, op in enumerate(ops):
            acc = self.times(acc, values[k + 1], factors[k], factors[k + 1], op)
        return acc

    def times(self, a: Value, b: Value, left: ast.Node, node: ast.Node, op: str) -> Value:
        if op == "/":
            return a if b == SCALAR else None
        if a == SCALAR:
            return b
        if b == SCALAR:
            return a
        if a is None or b is None:
            return None
        if op == "cdot" and isinstance(a, Vec) and isinstance(b, Vec) and not (a.t or b.t):
            self.unify(a.size, b.size, left, node)  # `\mathbf q \cdot \mathbf k`
            return SCALAR
        if isinstance(a, Mat) and isinstance(b, Mat):
            self.unify(a.cols, b.rows, left, node)
            return Mat(a.rows, b.cols)
        if isinstance(a, Mat) and isinstance(b, Vec) and not b.t:
            self.unify(a.cols, b.size, left, node)  # `W x`: x a column
            return Vec(a.rows)
        if isinstance(a, Vec) and isinstance(b, Mat):
            self.unify(a.size, b.rows, left, node)  # `x^T W` or, x a row, `x W`
            return Vec(b.cols, a.t)
        if isinstance(a, Vec) and isinstance(b, Vec) and a.t and not b.t:
            self.unify(a.size, b.size, left, node)  # `q^T k`
            return SCALAR
        if isinstance(a, Vec) and isinstance(b, Vec) and a.t == b.t and self.vectors:
            # two columns (or two rows) side by side: no product, whatever their lengths
            kind = self.vectors if not a.t else ("row" if self.vectors == "column" else "column")
            if self.clash is None:
                why = f"multiply two {kind} vectors (the document's vectors are {self.vectors}s)"
                self.clash = ((left.start, left.end), (node.start, node.end), why)
        return None

    def add(self, node: ast.Add) -> Value:
        values = [self.value(t) for t in node.terms]
        known = [v for v in values if v is not None]
        if not known or len(known) != len(values):
            return known[0] if known and all(type(v) is type(known[0]) for v in known) else None
        if not all(type(v) is type(known[0]) for v in known):
            return None
        for t, v in zip(node.terms[1:], known[1:], strict=True):
            self.same(known[0], v, node.terms[0], t)
        return known[0]

    def call(self, node: ast.Call) -> Value:
        values = [self.value(a) for a in node.args]
        name = node.name.lower()
        if name in _SAME_SHAPE and len(values) == 1:
            return values[0]
        if name == "attention" and len(values) == 3:
            q, k, v = values
            if isinstance(q, Mat) and isinstance(k, Mat) and isinstance(v, Mat):
                a, b, c = node.args
                self.unify(q.cols, k.cols, a, b)
                self.unify(k.rows, v.rows, b, c)
                return Mat(q.rows, v.cols)
        return None


def _transpose(w: _Walker, node: ast.Transpose) -> Value:
    v = w.value(node.operand)
    if isinstance(v, Mat):
        return Mat(v.cols, v.rows)
    if isinstance(v, Vec):
        return Vec(v.size, not v.t)
    return v


def _inner(w: _Walker, node: ast.Inner) -> Value:
    a, b = w.value(node.left), w.value(node.right)
    if isinstance(a, Vec) and isinstance(b, Vec):
        w.unify(a.size, b.size, node.left, node.right)
    return SCALAR


def _norm(w: _Walker, node: ast.Norm) -> Value:
    w.value(node.operand)
    return SCALAR


def _power(w: _Walker, node: ast.Power) -> Value:
    base = w.value(node.base)
    w.value(node.exponent)
    return SCALAR if base == SCALAR else None


def _group(w: _Walker, node: ast.Group) -> Value:
    values = [w.value(x) for x in node.items]
    return values[0] if len(values) == 1 and node.delim in ("(", "[", "{") else None


def _frac(w: _Walker, node: ast.Frac) -> Value:
    num, den = w.value(node.num), w.value(node.den)
    return num if den == SCALAR else None


def _sqrt(w: _Walker, node: ast.Sqrt) -> Value:
    w.value(node.radicand)
    return SCALAR


def _sum(w: _Walker, node: ast.Sum) -> Value:
    for x in (node.lower, node.upper):
        if x is not None:
            w.value(x)
    return w.value(node.body)


def _neg(w: _Walker, node: ast.Neg) -> Value:
    return w.value(node.operand)


def _head_sup(w: _Walker, node: ast.HeadSup) -> Value:
    """`W_q^{(s)}`: the head family's value; `q^{(s)}_i`, a row of the family Q^{(h)}."""
    op = node.operand
    if isinstance(op, ast.Symbol) and op.name[:1].isupper() and len(op.name) == 1:
        name = plain_name(op)
        key = f"{name}^(h)"
        if name is not None and key in w.env:
            w.used.add(key)
            w.places.setdefault(key, (node.start, node.end))
            return w.env[key]
    if isinstance(op, ast.Symbol) and op.name.islower() and len(op.name) == 1 and op.sub:
        whole = w.env.get(f"{op.name.upper()}^(h)")
        if isinstance(whole, Mat) and _one_index(op.sub):
            return Vec(whole.cols)  # `q^{(s)}_i`, a row of Q^{(s)}
    for kid in ast.children(node):
        w.value(kid)
    return None


_VALUES = {
    ast.HeadSup: _head_sup,
    ast.Symbol: _Walker.symbol,
    ast.Labeled: _Walker.symbol,
    ast.Number: lambda w, node: SCALAR,
    ast.Transpose: _transpose,
    ast.Inner: _inner,
    ast.Norm: _norm,
    ast.Abs: _norm,
    ast.Power: _power,
    ast.Group: _group,
    ast.Frac: _frac,
    ast.Gradient: lambda w, node: w.value(node.wrt),  # the gradient has the shape of wrt
    ast.Sqrt: _sqrt,
    ast.Sum: _sum,
    ast.Neg: _neg,
    ast.Add: _Walker.add,
    ast.Call: _Walker.call,
    ast.Product: lambda w, node: w.product(node.factors, ["*"] * (len(node.factors) - 1)),
    ast.Mul: lambda w, node: w.product(node.factors, node.ops),
}


def _reals_value(w: _Walker, node: ast.Reals) -> Value:
    found = [_size(w, x) for x in node.shape]
    sizes = [x for x in found if x is not None]
    if len(sizes) != len(found):
        return None
    if not sizes:
        return SCALAR
    if len(sizes) == 1:
        return Vec(sizes[0])
    if len(sizes) == 2:
        return Mat(sizes[0], sizes[1])
    return None


def _size(w: _Walker, node: ast.Node) -> sympy.Expr | None:
    try:
        return _SIZES.dim_term(node)
    except (SymattnError, RecursionError):
        return None


def _one_index(sub: ast.Node) -> bool:
    return isinstance(sub, ast.Symbol | ast.Number) and len(getattr(sub, "name", "1")) == 1


def _two_indices(sub: ast.Node) -> bool:
    return isinstance(sub, ast.Product | ast.Seq) or (
        isinstance(sub, ast.Number) and len(sub.text) == 2
    )


#: Reads sizes as they are written (`d_k`, `Hd_v`, `d/h`), in a scope of its own.
_SIZES = Terms(Scope())
