"""The matrix node with strict shapes and its algebra: products, sums, scaling, transpose, blocks.

Imports only sympy and the kernel below it (errors, limits, dims, text); must not import anything
above it. Each node is a sympy `Basic` with a `shape` and an `entry(i, j)` hook.
"""

from __future__ import annotations

from collections.abc import Iterable

import sympy
from sympy import Basic
from sympy.printing.str import StrPrinter

from symattn.kernel.dims import Shape, as_dim, dims_equal, shape_str
from symattn.kernel.errors import InputError, ShapeError
from symattn.kernel.limits import check_depth
from symattn.kernel.text import plain

# Preferred letters for bound indices, by the dim they range over; the chapter's choices.
_LETTERS = {"n": "jkl", "d_k": "rst", "d_v": "uvw", "d": "cpq", "H": "hgf"}


class Fresh:
    """Supplies readable bound-index symbols that avoid the names already in use."""

    def __init__(self, used: Iterable[sympy.Symbol] = ()):
        self.used = {s.name for s in used}

    def __call__(self, over: sympy.Expr) -> sympy.Symbol:
        letters = _LETTERS.get(str(over), "cpq")
        for k in range(1000):
            for letter in letters:
                name = letter if k == 0 else f"{letter}{k}"
                if name not in self.used:
                    self.used.add(name)
                    return index(name)
        raise AssertionError("ran out of index names")  # pragma: no cover


def index(name: str) -> sympy.Symbol:
    """An index symbol (a positive integer), e.g. `i` or `r`.

    >>> index("i").is_integer
    True
    """
    return sympy.Symbol(name, integer=True, positive=True)


class MatExpr(Basic):
    """A matrix-valued expression with a (rows, cols) shape; entries are 1-based."""

    is_commutative = False

    @property
    def shape(self) -> Shape:
        raise NotImplementedError

    @property
    def rows(self) -> sympy.Expr:
        return self.shape[0]

    @property
    def cols(self) -> sympy.Expr:
        return self.shape[1]

    def entry(self, i: sympy.Expr, j: sympy.Expr, fresh: Fresh | None = None) -> sympy.Expr:
        """Entry (i, j) as a sympy scalar, every product expanded into an explicit sum."""
        if fresh is None:
            fresh = Fresh(_symbols_in(self, i, j))
        return self._entry(_sympify(i), _sympify(j), fresh)

    def _entry(self, i: sympy.Expr, j: sympy.Expr, fresh: Fresh) -> sympy.Expr:
        raise NotImplementedError

    # -- operators: every one checks shapes strictly ------------------------------------
    def __matmul__(self, other: MatExpr) -> MatMul:
        return MatMul(self, other)

    def __add__(self, other: MatExpr) -> MatAdd:
        return MatAdd(self, other)

    def __sub__(self, other: MatExpr) -> MatAdd:
        return MatAdd(self, Scale(sympy.Integer(-1), other))

    def __neg__(self) -> Scale:
        return Scale(sympy.Integer(-1), self)

    def __mul__(self, c: object) -> Scale:
        if isinstance(c, MatExpr):
            raise ShapeError(
                f"use @ for the matrix product of {self} and {c}; * scales by a scalar"
            )
        return Scale(_sympify(c), self)

    __rmul__ = __mul__

    def __truediv__(self, c: object) -> Scale:
        return Scale(1 / _sympify(c), self)

    @property
    def T(self) -> Transpose:
        return Transpose(self)

    def __getitem__(self, key: tuple[object, object]) -> sympy.Expr:
        """`M[i, j]`: the entry as an unexpanded `Entry` (a leaf symbol's entry is `Indexed`)."""
        i, j = (_sympify(k) for k in key)
        return Entry(self, i, j)

    def row(self, i: object) -> Row:
        """Row `i` as a 1 × cols matrix (the chapter's `q_i` is `Q.row(i)`)."""
        return Row(self, _sympify(i))

    def __str__(self) -> str:
        return plain(self)

    __repr__ = __str__

    # Jupyter shows nodes through symattn.notebook's formatters; sympy's generic LaTeX hook would
    # print `MatSym(Q, n, d_k)` (or fail on a transpose), so it is switched off.
    _repr_latex_ = None

    def _sympystr(self, printer: StrPrinter) -> str:
        # sympy's str printer dispatches on class *names*: it would take our MatMul, MatAdd and
        # Transpose for its own and crash inside str() of an entry; print the generic form.
        args = ", ".join(printer._print(a) for a in self.args)
        return f"{type(self).__name__}({args})"


def _sympify(x: object) -> sympy.Basic:
    """sympify without string parsing: sympify of text runs eval, so text is refused."""
    if isinstance(x, str):
        raise InputError(
            f"expected a number or a kernel expression, not the text {x!r} "
            "(text is never evaluated)"
        )
    return sympy.sympify(x, strict=True)


def _symbols_in(*objs: object) -> set[sympy.Symbol]:
    out: set[sympy.Symbol] = set()
    for o in objs:
        if isinstance(o, Basic):
            out |= {s for s in o.atoms(sympy.Symbol)}
    return out


def _require_equal(a: sympy.Expr, b: sympy.Expr, message: str) -> None:
    if not dims_equal(a, b):
        raise ShapeError(message)


# ---- operations -------------------------------------------------------------------------


class MatMul(MatExpr):
    """The product `A @ B`; inner dims must be provably equal."""

    def __new__(cls, a: MatExpr, b: MatExpr) -> MatMul:
        _check_mat(a, b)
        if not dims_equal(a.cols, b.rows):  # the hint costs two more dim checks: only on failure
            raise ShapeError(
                f"cannot multiply {a} ({shape_str(a.shape)}) by {b} ({shape_str(b.shape)}): "
                f"inner dims {a.cols} and {b.rows} are not provably equal" + _mul_hint(a, b)
            )
        return Basic.__new__(cls, a, b)

    @property
    def shape(self) -> Shape:
        return (self.args[0].rows, self.args[1].cols)

    def _entry(self, i: sympy.Expr, j: sympy.Expr, fresh: Fresh) -> sympy.Expr:
        a, b = self.args
        left = _concat_of(a)
        if left is not None:
            return _block_sum(left, b, i, j, fresh)
        r = fresh(a.cols)
        return summed(a._entry(i, r, fresh) * b._entry(r, j, fresh), (r, 1, a.cols))

    def factors(self) -> list[MatExpr]:
        """The factors of a chain of products, in the written order."""
        out: list[MatExpr] = []
        for f in self.args:
            out.extend(f.factors() if isinstance(f, MatMul) else [f])
        return out


def _mul_hint(a: MatExpr, b: MatExpr) -> str:
    if dims_equal(a.cols, b.cols):
        return f"\n  hint: did you mean {a} @ {b}.T?"
    if dims_equal(a.rows, b.rows):
        return f"\n  hint: did you mean {a}.T @ {b}?"
    return ""


def _check_mat(*xs: object) -> None:
    depth = 0
    for x in xs:
        if not isinstance(x, MatExpr):
            raise ShapeError(f"expected a matrix expression, got {type(x).__name__} {x!r}")
        depth = max(depth, _depth(x))
    # sympy recurses on trees (hash, xreplace, printing): refuse a deep one while it is built.
    check_depth(1 + depth)


def _depth(x: MatExpr) -> int:
    """Nesting depth of a matrix expression, cached on the node (its args are cached already)."""
    d = x.__dict__.get("_symattn_depth")
    if d is None:
        d = 1 + max((_depth(a) for a in x.args if isinstance(a, MatExpr)), default=0)
        x.__dict__["_symattn_depth"] = d
    return d


class MatAdd(MatExpr):
    """The sum `A + B` of two matrices of provably equal shape (e.g. the residual `X + O`)."""

    def __new__(cls, a: MatExpr, b: MatExpr) -> MatAdd:
        _check_mat(a, b)
        for k, what in ((0, "rows"), (1, "cols")):
            _require_equal(
                a.shape[k],
                b.shape[k],
                f"cannot add {a} ({shape_str(a.shape)}) and {b} ({shape_str(b.shape)}): "
                f"{what} {a.shape[k]} and {b.shape[k]} are not provably equal",
            )
        return Basic.__new__(cls, a, b)

    @property
    def shape(self) -> Shape:
        return self.args[0].shape

    def _entry(self, i: sympy.Expr, j: sympy.Expr, fresh: Fresh) -> sympy.Expr:
        return self.args[0]._entry(i, j, fresh) + self.args[1]._entry(i, j, fresh)


class Hadamard(MatExpr):
    """The entrywise product `A ∘ B` of two matrices of provably equal shape (`A ∘ dA`)."""

    def __new__(cls, a: MatExpr, b: MatExpr) -> Hadamard:
        _check_mat(a, b)
        for k, what in ((0, "rows"), (1, "cols")):
            _require_equal(
                a.shape[k],
                b.shape[k],
                f"cannot take the entrywise product of {a} ({shape_str(a.shape)}) and {b} "
                f"({shape_str(b.shape)}): {what} {a.shape[k]} and {b.shape[k]} are not "
                "provably equal",
            )
        return Basic.__new__(cls, a, b)

    @property
    def shape(self) -> Shape:
        return self.args[0].shape

    def _entry(self, i: sympy.Expr, j: sympy.Expr, fresh: Fresh) -> sympy.Expr:
        return self.args[0]._entry(i, j, fresh) * self.args[1]._entry(i, j, fresh)


class Scale(MatExpr):
    """A scalar times a matrix, e.g. `QK^T / sqrt(d_k)`; the scalar is a sympy expression."""

    def __new__(cls, c: object, a: MatExpr) -> Scale:
        _check_mat(a)
        c = _sympify(c)
        if isinstance(c, MatExpr):
            raise ShapeError("Scale takes a scalar and a matrix")
        return Basic.__new__(cls, c, a)

    @property
    def scalar(self) -> sympy.Expr:
        return self.args[0]

    @property
    def shape(self) -> Shape:
        return self.args[1].shape

    def _entry(self, i: sympy.Expr, j: sympy.Expr, fresh: Fresh) -> sympy.Expr:
        return expand_entries(self.scalar, fresh) * self.args[1]._entry(i, j, fresh)


class Transpose(MatExpr):
    """`A^T`."""

    def __new__(cls, a: MatExpr) -> Transpose:
        _check_mat(a)
        return Basic.__new__(cls, a)

    @property
    def shape(self) -> Shape:
        r, c = self.args[0].shape
        return (c, r)

    def _entry(self, i: sympy.Expr, j: sympy.Expr, fresh: Fresh) -> sympy.Expr:
        return self.args[0]._entry(j, i, fresh)


class Row(MatExpr):
    """Row `i` of a matrix as a 1 × cols matrix: the chapter's `q_i`, `k_j`, `v_j`, `z_i`."""

    def __new__(cls, a: MatExpr, i: object) -> Row:
        _check_mat(a)
        return Basic.__new__(cls, a, _sympify(i))

    @property
    def shape(self) -> Shape:
        return (sympy.Integer(1), self.args[0].cols)

    @property
    def index(self) -> sympy.Expr:
        return self.args[1]

    def _entry(self, i: sympy.Expr, j: sympy.Expr, fresh: Fresh) -> sympy.Expr:
        return self.args[0]._entry(self.index, j, fresh)


class RowBlock(MatExpr):
    """Block `h` of `m` consecutive rows of a matrix with `count * m` rows: `W_O^{(h)}`."""

    def __new__(cls, a: MatExpr, head: object, m: object, count: object) -> RowBlock:
        _check_mat(a)
        m, count = as_dim(m), as_dim(count)
        assert isinstance(m, sympy.Expr) and isinstance(count, sympy.Expr)
        _require_equal(
            a.rows,
            count * m,
            f"cannot cut {a} ({shape_str(a.shape)}) into {count} blocks of {m} rows: "
            f"{a.rows} and {count}*{m} are not provably equal",
        )
        return Basic.__new__(cls, a, _sympify(head), m, count)

    @property
    def head(self) -> sympy.Expr:
        return self.args[1]

    @property
    def shape(self) -> Shape:
        return (self.args[2], self.args[0].cols)

    def _entry(self, i: sympy.Expr, j: sympy.Expr, fresh: Fresh) -> sympy.Expr:
        return self.args[0]._entry((self.head - 1) * self.args[2] + i, j, fresh)


class Concat(MatExpr):
    """Column concatenation of heads `Concat(Z^{(1)}, ..., Z^{(H)})`; `body` depends on `head`."""

    def __new__(cls, body: MatExpr, head: sympy.Symbol, count: object) -> Concat:
        _check_mat(body)
        return Basic.__new__(cls, body, head, as_dim(count))

    @property
    def body(self) -> MatExpr:
        return self.args[0]

    @property
    def head(self) -> sympy.Symbol:
        return self.args[1]

    @property
    def count(self) -> sympy.Expr:
        return self.args[2]

    @property
    def shape(self) -> Shape:
        return (self.body.rows, self.count * self.body.cols)

    def member(self, h: object) -> MatExpr:
        return self.body.xreplace({self.head: _sympify(h)})

    def _entry(self, i: sympy.Expr, j: sympy.Expr, fresh: Fresh) -> sympy.Expr:
        split = _split_block_index(j, self.body.cols)
        if split is None:
            m = self.body.cols
            raise NotImplementedError(
                f"entry of {self} at column {j}: the column must be written as (h-1)*{m}+u"
            )
        h, u = split
        return self.member(h)._entry(i, u, fresh)


def _split_block_index(c: sympy.Expr, m: sympy.Expr) -> tuple[sympy.Expr, sympy.Expr] | None:
    """Write a column index as (h-1)*m + u with 1 <= u <= m, when its form shows it."""
    if c.is_Integer and m.is_Integer:
        h = (int(c) - 1) // int(m) + 1
        return sympy.Integer(h), c - (h - 1) * m
    c = sympy.expand(c)
    for s in sorted(c.free_symbols, key=str):
        if sympy.expand(c.coeff(s) - m) == 0:
            u = sympy.expand(c - (s - 1) * m)
            if isinstance(u, sympy.Symbol) or u.is_Integer:
                return s, u
    return None


def _concat_of(a: MatExpr) -> Concat | None:
    return a if isinstance(a, Concat) else None


def _block_sum(left: Concat, b: MatExpr, i: sympy.Expr, j: sympy.Expr, fresh: Fresh) -> sympy.Expr:
    # sum over c = 1..H*m written as sum over heads h and columns u within a head.
    m = left.body.cols
    h = fresh(left.count)
    u = fresh(m)
    c = (h - 1) * m + u
    term = left.member(h)._entry(i, u, fresh) * b._entry(c, j, fresh)
    return sympy.Sum(term, (u, 1, m), (h, 1, left.count))


class MatSum(MatExpr):
    """A sum of matrices over a bound index, e.g. `sum_h Z^{(h)} W_O^{(h)}` or `sum_j a_ij v_j`."""

    def __new__(cls, body: MatExpr, var: sympy.Symbol, lo: object, hi: object) -> MatSum:
        _check_mat(body)
        return Basic.__new__(cls, body, var, _sympify(lo), _sympify(hi))

    @property
    def body(self) -> MatExpr:
        return self.args[0]

    @property
    def var(self) -> sympy.Symbol:
        return self.args[1]

    @property
    def limits(self) -> tuple[sympy.Symbol, sympy.Expr, sympy.Expr]:
        return (self.args[1], self.args[2], self.args[3])

    @property
    def shape(self) -> Shape:
        return self.body.shape

    def _entry(self, i: sympy.Expr, j: sympy.Expr, fresh: Fresh) -> sympy.Expr:
        v = self.var
        if v.name in fresh.used or v in (i, j) or v in _symbols_in(i, j):
            nv = fresh(self.args[3])
            body = self.body.xreplace({v: nv})
        else:
            fresh.used.add(v.name)
            nv, body = v, self.body
        return summed(body._entry(i, j, fresh), (nv, self.args[2], self.args[3]))


# ---- scalars that stay unexpanded until asked ----------------------------------------------


def _times(self: sympy.Expr, other: object) -> sympy.Expr:
    """`self * other` for an entry or a dot product: with the number 0 it stays a product
    (`0 (M)_{ij}`, not sympy's 0), so the kernel still sees the entry: its indices are
    range-checked and a masked (-inf) entry times 0 is ill-formed, as for any other factor."""
    x = _sympify(other)
    if not isinstance(x, sympy.Expr):
        return NotImplemented  # a matrix: its own product with a scalar
    return sympy.Mul(self, x, evaluate=not (x.is_number and x.is_zero))


def _times_from_left(self: sympy.Expr, other: object) -> sympy.Expr:
    """`other * self`, as `_times`."""
    x = _sympify(other)
    if not isinstance(x, sympy.Expr):
        return NotImplemented
    return sympy.Mul(x, self, evaluate=not (x.is_number and x.is_zero))


class Entry(sympy.Expr):
    """The entry `(M)_{ij}` of a matrix expression, unexpanded: `(QK^T)_{ij}`, `a_{ij}`."""

    is_commutative = True
    _op_priority = 11.0  # above sympy's, so `0 * entry` and `Integer(0) * entry` come here
    __mul__, __rmul__ = _times, _times_from_left

    def __new__(cls, m: MatExpr, i: object, j: object) -> Entry:
        _check_mat(m)
        return sympy.Expr.__new__(cls, m, _sympify(i), _sympify(j))

    @property
    def matrix(self) -> MatExpr:
        return self.args[0]

    def expanded(self, fresh: Fresh) -> sympy.Expr:
        return self.matrix._entry(self.args[1], self.args[2], fresh)


class Dot(sympy.Expr):
    """The dot product `u · v` of two row vectors of provably equal length: `q_i · k_j`."""

    is_commutative = True
    _op_priority = 11.0  # `0 * dot` comes here, as for an entry
    __mul__, __rmul__ = _times, _times_from_left

    def __new__(cls, u: MatExpr, v: MatExpr) -> Dot:
        _check_mat(u, v)
        for x in (u, v):
            _require_equal(x.rows, 1, f"{x} ({shape_str(x.shape)}) is not a row vector")
        _require_equal(
            u.cols,
            v.cols,
            f"cannot take the dot product of {u} (1 × {u.cols}) and {v} (1 × {v.cols}): "
            f"lengths {u.cols} and {v.cols} are not provably equal",
        )
        return sympy.Expr.__new__(cls, u, v)

    def expanded(self, fresh: Fresh) -> sympy.Expr:
        u, v = self.args
        r = fresh(u.cols)
        one = sympy.Integer(1)
        return summed(u._entry(one, r, fresh) * v._entry(one, r, fresh), (r, 1, u.cols))


def summed(function: sympy.Basic, *limits: tuple) -> sympy.Expr:
    """`sympy.Sum(function, *limits)`, without letting sympy fold a case split out of an inner sum.

    sympy brings every `Piecewise` that mentions the new sum's variable to the top of its body,
    also one inside an inner sum whose condition names that inner sum's own variable: the column
    softmax of a causal mask, `sum_j (sum_c [c >= j] e^{S_cj})^{-1} ...`, became a case split on
    a free `c`, with the mask gone from the denominator. Inner sums that hold a case split are
    hidden while sympy builds the sum, then put back as they were.

    >>> j, c = index("j"), index("c")
    >>> inner = sympy.Sum(sympy.Piecewise((c, c >= j), (0, True)), (c, 1, 2))
    >>> summed(1 / inner, (j, 1, 2)).free_symbols
    set()
    """
    inner = {x: sympy.Dummy() for x in function.atoms(sympy.Sum) if x.has(sympy.Piecewise)}
    if not inner:
        return sympy.Sum(function, *limits)
    out = sympy.Sum(function.xreplace(inner), *limits)
    back = {v: k for k, v in inner.items()}
    if not isinstance(out, sympy.Sum):
        return out.xreplace(back)
    # rebuilt as sympy.Sum's constructor builds it, without the fold
    function = out.function.xreplace(back)
    built = sympy.Expr.__new__(sympy.Sum)
    built._args = (function, *out.args[1:])
    built.is_commutative = function.is_commutative
    return built


def expand_entries(e: sympy.Expr, fresh: Fresh | None = None) -> sympy.Expr:
    """Replace every unexpanded `Entry`/`Dot` in a scalar by its explicit sum.

    >>> from symattn.kernel.dims import n, d_k
    >>> from symattn.kernel.leaves import MatSym
    >>> Q, K = MatSym("Q", n, d_k), MatSym("K", n, d_k)
    >>> i, j = index("i"), index("j")
    >>> expand_entries((Q @ K.T)[i, j])
    Sum(K[j, r]*Q[i, r], (r, 1, d_k))
    """
    e = _sympify(e)
    if fresh is None:
        fresh = Fresh(_symbols_in(e))
    if not e.has(Entry, Dot):
        return e
    return _expand_walk(e, fresh)


def _expand_walk(e: sympy.Basic, fresh: Fresh) -> sympy.Basic:
    if isinstance(e, (Entry, Dot)):
        return _expand_walk(e.expanded(fresh), fresh)
    if isinstance(e, MatExpr) or not e.args or not e.has(Entry, Dot):
        return e
    if isinstance(e, sympy.Sum):
        body, *limits = (_expand_walk(a, fresh) for a in e.args)
        return summed(body, *limits)
    return e.func(*(_expand_walk(a, fresh) for a in e.args))
