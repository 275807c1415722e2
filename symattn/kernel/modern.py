"""Nodes of modern attention: position biases, key padding, grouped K/V heads, feature maps,
rotary pairs, the causal zero mask, prefixes and the online (streaming) softmax.

Imports only sympy and the kernel below it (errors, dims, text, expr); must not import anything
above it. Each node has a `shape` and an `entry(i, j)` hook, like those of `symattn.kernel.expr`.
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy
from sympy import Basic
from sympy.core.symbol import Str

from symattn.kernel.dims import Shape, as_dim, dims_equal, shape_str
from symattn.kernel.errors import DimError, ShapeError
from symattn.kernel.expr import (
    Fresh,
    FromColumn,
    MatExpr,
    MatSym,
    Ones,
    _check_mat,
    _require_equal,
    _split_block_index,
    _sympify,
)
from symattn.kernel.text import plain


def _count(value: object, what: str) -> sympy.Expr:
    """A size that may be 0 (a padding length, a number of valid keys): 0 or a dim."""
    if isinstance(value, int) and not isinstance(value, bool) and value == 0:
        return sympy.Integer(0)
    if isinstance(value, sympy.Expr) and value == 0:
        return sympy.Integer(0)
    try:
        return as_dim(value)
    except DimError:
        raise DimError(f"{what} must be 0 or a positive integer, not {value!r}") from None


# ---- additive biases and masks -------------------------------------------------------------


class PositionBias(MatExpr):
    """The n × n bias `B_ij = a·i + b·j` of query position i and key position j.

    ALiBi is `a = -λ, b = λ`: `B_ij = -λ(i - j)`, the bias on and below the diagonal (above it
    the causal mask removes the entry; the node continues the same formula there).

    >>> from symattn.kernel.dims import n
    >>> from symattn.kernel.expr import index
    >>> lam = sympy.Symbol("lambda", positive=True)
    >>> alibi(n, lam).entry(index("i"), index("j"))
    -i*lambda + j*lambda
    """

    def __new__(cls, size: object, row: object, col: object) -> PositionBias:
        return Basic.__new__(cls, as_dim(size), _sympify(row), _sympify(col))

    @property
    def shape(self) -> Shape:
        return (self.args[0], self.args[0])

    @property
    def row_coef(self) -> sympy.Expr:
        return self.args[1]

    @property
    def col_coef(self) -> sympy.Expr:
        return self.args[2]

    def _entry(self, i: sympy.Expr, j: sympy.Expr, fresh: Fresh) -> sympy.Expr:
        return self.row_coef * i + self.col_coef * j


def alibi(size: object, lam: object) -> PositionBias:
    """ALiBi's bias `B_ij = -λ(i - j)` (a slope λ per head)."""
    slope = _sympify(lam)
    return PositionBias(size, -slope, slope)


class PadMask(MatExpr):
    """Key padding: of `valid + pad` keys the last `pad` are padding; their scores become -inf.

    A row whose every key is masked (`valid = 0`) has no softmax; the kernel defines its weights
    as 0 (the convention of fused kernels that skip empty rows), and says so in `Softmax`.
    """

    def __new__(cls, a: MatExpr, valid: object, pad: object) -> PadMask:
        _check_mat(a)
        v, p = _count(valid, "the number of valid keys"), _count(pad, "the padding length")
        _require_equal(
            a.cols,
            v + p,
            f"cannot pad {a} ({shape_str(a.shape)}) as {v} valid keys and {p} padding: "
            f"cols {a.cols} and {v + p} are not provably equal",
        )
        return Basic.__new__(cls, a, v, p)

    @property
    def valid(self) -> sympy.Expr:
        return self.args[1]

    @property
    def shape(self) -> Shape:
        return self.args[0].shape

    def keeps(self, i: sympy.Expr, j: sympy.Expr) -> sympy.Basic:
        return sympy.Le(j, self.valid)

    def nonempty(self) -> sympy.Basic:
        """When a row keeps at least one key (always, unless `valid` is 0)."""
        return sympy.Ge(self.valid, 1)

    def _entry(self, i: sympy.Expr, j: sympy.Expr, fresh: Fresh) -> sympy.Expr:
        return sympy.Piecewise(
            (self.args[0]._entry(i, j, fresh), self.keeps(i, j)), (-sympy.oo, True)
        )


class CausalZero(MatExpr):
    """The multiplicative causal mask of linear attention: entries above the diagonal become 0."""

    def __new__(cls, a: MatExpr) -> CausalZero:
        _check_mat(a)
        _require_equal(
            a.rows,
            a.cols,
            f"cannot apply a causal mask to {a} ({shape_str(a.shape)}): "
            f"rows {a.rows} and cols {a.cols} are not provably equal",
        )
        return Basic.__new__(cls, a)

    @property
    def shape(self) -> Shape:
        return self.args[0].shape

    def _entry(self, i: sympy.Expr, j: sympy.Expr, fresh: Fresh) -> sympy.Expr:
        return sympy.Piecewise((self.args[0]._entry(i, j, fresh), sympy.Le(j, i)), (0, True))


class FirstRows(MatExpr):
    """The first `t` rows of a matrix (the KV cache after `t` tokens); `t <= rows` provably."""

    def __new__(cls, a: MatExpr, t: object) -> FirstRows:
        _check_mat(a)
        t = as_dim(t)
        if not sympy.expand(a.rows - t).is_nonnegative:
            raise ShapeError(
                f"cannot take the first {t} rows of {a} ({shape_str(a.shape)}): "
                f"{t} <= {a.rows} is not provable"
            )
        return Basic.__new__(cls, a, t)

    @property
    def shape(self) -> Shape:
        return (self.args[1], self.args[0].cols)

    def _entry(self, i: sympy.Expr, j: sympy.Expr, fresh: Fresh) -> sympy.Expr:
        return self.args[0]._entry(i, j, fresh)


# ---- grouped-query attention -----------------------------------------------------------------


class RepeatKV(MatExpr):
    """K/V heads repeated for grouped-query attention: `groups` heads of `width` columns, each
    repeated `r` times, give `groups·r` heads; query head h reads K/V head ceil(h/r).

    `order="tile"` is the common mistake (`repeat` instead of `repeat_interleave`): head h reads
    K/V head ((h-1) mod groups) + 1.
    """

    def __new__(
        cls, a: MatExpr, groups: object, r: object, width: object, order: object = "interleave"
    ) -> RepeatKV:
        _check_mat(a)
        g, rr, w = as_dim(groups), as_dim(r), as_dim(width)
        order = str(getattr(order, "name", order))  # xreplace rebuilds nodes from their args
        if order not in ("interleave", "tile"):
            raise ShapeError(f"order must be 'interleave' or 'tile', not {order!r}")
        _require_equal(
            a.cols,
            g * w,
            f"cannot read {a} ({shape_str(a.shape)}) as {g} heads of {w} columns: "
            f"cols {a.cols} and {g * w} are not provably equal",
        )
        return Basic.__new__(cls, a, g, rr, w, Str(order))

    @property
    def groups(self) -> sympy.Expr:
        return self.args[1]

    @property
    def r(self) -> sympy.Expr:
        return self.args[2]

    @property
    def width(self) -> sympy.Expr:
        return self.args[3]

    @property
    def order(self) -> str:
        return str(self.args[4].name)

    @property
    def shape(self) -> Shape:
        return (self.args[0].rows, self.groups * self.r * self.width)

    def source_head(self, h: sympy.Expr) -> sympy.Expr:
        """The K/V head that query head h reads."""
        if self.order == "tile":
            return sympy.Mod(h - 1, self.groups) + 1
        # no shortcut ceil(h/r) = 1 for MQA (G = 1): it holds only for h <= r, and a block past
        # the last head must still read past K's columns, so that it shows as ill-formed
        return sympy.ceiling(h / self.r)

    def _entry(self, i: sympy.Expr, j: sympy.Expr, fresh: Fresh) -> sympy.Expr:
        w = self.width
        split = _split_block_index(j, w)
        if split is None:
            h = sympy.ceiling(j / w)
            u = j - (h - 1) * w
        else:
            h, u = split
        return self.args[0]._entry(i, (self.source_head(h) - 1) * w + u, fresh)


# ---- linear attention ---------------------------------------------------------------------


class FeatureMap(MatSym):
    """`φ(X)`: a row-wise feature map applied to the rows of X, with `width` features.

    The kernel knows nothing of φ but the shape: `φ(X)` is a matrix of its own (entries
    `φ(X)_{ic}`), so an identity proved about it holds for every feature map.
    """

    def __new__(cls, name: object, a: MatExpr, width: object = None) -> FeatureMap:
        _check_mat(a)
        w = a.cols if width is None else as_dim(width)
        return Basic.__new__(cls, Str(str(getattr(name, "name", name))), a, w)

    @property
    def fname(self) -> str:
        return str(self.args[0].name)

    @property
    def name(self) -> str:
        return f"{self.fname}({self.args[1]})"

    @property
    def shape(self) -> Shape:
        return (self.args[1].rows, self.args[2])


def multiplications(e: MatExpr) -> sympy.Expr:
    """Scalar multiplications of the products in e, evaluated as written (left to right).

    >>> from symattn.kernel.dims import n, d_k, d_v
    >>> Q, K, V = MatSym("Q", n, d_k), MatSym("K", n, d_k), MatSym("V", n, d_v)
    >>> multiplications((Q @ K.T) @ V), multiplications(Q @ (K.T @ V))
    (d_k*n**2 + d_v*n**2, 2*d_k*d_v*n)
    """
    own = sympy.Integer(0)
    if type(e).__name__ == "MatMul":
        a, b = e.args
        own = a.rows * a.cols * b.cols
    inner = [multiplications(x) for x in e.args if isinstance(x, MatExpr)]
    return sympy.expand(own + sum(inner, sympy.Integer(0)))


# ---- rotary position embedding ------------------------------------------------------------


class Rope(MatExpr):
    """Rotary embedding of one vector stored as pairs: X is p × 2 (row k holds coordinates
    2k-1 and 2k of a d = 2p vector); pair k is rotated by the angle `pos·θ_k`.

    `cos` and `sin` of a sum or difference of angles are written out by the addition formulas,
    so `R(n - m)` is a polynomial in `cos(nθ_k)`, `sin(nθ_k)`, `cos(mθ_k)`, `sin(mθ_k)`.
    """

    def __new__(cls, a: MatExpr, pos: object, theta: object = "theta") -> Rope:
        _check_mat(a)
        _require_equal(
            a.cols,
            2,
            f"cannot rotate {a} ({shape_str(a.shape)}) by pairs: it must have 2 columns "
            "(row k holds the pair k)",
        )
        if not isinstance(theta, FromColumn):
            theta = FromColumn(str(theta), a.rows, 1)
        return Basic.__new__(cls, a, _sympify(pos), theta)

    @property
    def pos(self) -> sympy.Expr:
        return self.args[1]

    @property
    def theta(self) -> FromColumn:
        return self.args[2]

    @property
    def shape(self) -> Shape:
        return self.args[0].shape

    def angle(self, k: sympy.Expr) -> tuple[sympy.Expr, sympy.Expr]:
        t = sympy.expand(self.pos * self.theta._entry(k, sympy.Integer(1), Fresh()))
        return sympy.expand_trig(sympy.cos(t)), sympy.expand_trig(sympy.sin(t))

    def _entry(self, i: sympy.Expr, j: sympy.Expr, fresh: Fresh) -> sympy.Expr:
        a = self.args[0]
        c, s = self.angle(i)
        x1, x2 = a._entry(i, sympy.Integer(1), fresh), a._entry(i, sympy.Integer(2), fresh)
        first, second = c * x1 - s * x2, s * x1 + c * x2
        if j == 1:
            return first
        if j == 2:
            return second
        return sympy.Piecewise((first, sympy.Eq(j, 1)), (second, True))


class PairDots(MatExpr):
    """The p × 1 column of the pairs' dot products `a_{k1}b_{k1} + a_{k2}b_{k2}`; its sum over
    k is the dot product of the two d = 2p vectors."""

    def __new__(cls, a: MatExpr, b: MatExpr) -> PairDots:
        _check_mat(a, b)
        for x in (a, b):
            _require_equal(x.cols, 2, f"{x} ({shape_str(x.shape)}) is not a p × 2 pair matrix")
        _require_equal(
            a.rows,
            b.rows,
            f"cannot pair {a} ({shape_str(a.shape)}) with {b} ({shape_str(b.shape)}): "
            f"rows {a.rows} and {b.rows} are not provably equal",
        )
        return Basic.__new__(cls, a, b)

    @property
    def shape(self) -> Shape:
        return (self.args[0].rows, sympy.Integer(1))

    def _entry(self, i: sympy.Expr, j: sympy.Expr, fresh: Fresh) -> sympy.Expr:
        a, b = self.args
        one, two = sympy.Integer(1), sympy.Integer(2)
        return a._entry(i, one, fresh) * b._entry(i, one, fresh) + a._entry(
            i, two, fresh
        ) * b._entry(i, two, fresh)


# ---- online softmax -----------------------------------------------------------------------


class OnlineSoftmax(MatExpr):
    """`softmax(S) V` computed block by block over the keys, as FlashAttention does.

    The keys are cut into blocks of the sizes given (each a dim); block c brings a running
    maximum m_c, through its exponential `E_{ic} = e^{m_{ic}}` (a matrix of its own, rows × B:
    the identity holds for every choice, the maximum is the one that keeps exp finite; the
    evaluator computes the same value stably, `kernel.evaluate`). With
    `ℓ_0 = 0`, `o_0 = 0`:

        ℓ_c = (E_{c-1}/E_c) ℓ_{c-1} + Σ_{j in block c} e^{S_ij} / E_c
        o_c = (E_{c-1}/E_c) o_{c-1} + Σ_{j in block c} e^{S_ij} V_j / E_c

    and the entry is `o_B / ℓ_B`. `rescale=False` forgets to rescale the old output (o_c adds
    the block to o_{c-1} unscaled), the classic bug.
    """

    def __new__(
        cls,
        s: MatExpr,
        v: MatExpr,
        sizes: Sequence[object],
        e: object = None,
        rescale: object = True,
    ) -> OnlineSoftmax:
        _check_mat(s, v)
        if not sizes:
            raise ShapeError("an online softmax needs at least one block")
        blocks = tuple(as_dim(b) for b in sizes)
        total = sympy.Add(*blocks)
        _require_equal(
            s.cols,
            total,
            f"cannot cut the {s.cols} keys of {s} into blocks {', '.join(map(str, blocks))}: "
            f"{s.cols} and {total} are not provably equal",
        )
        _require_equal(
            s.cols,
            v.rows,
            f"cannot weight {v} ({shape_str(v.shape)}) by {s} ({shape_str(s.shape)}): "
            f"{s.cols} keys and {v.rows} values are not provably equal",
        )
        if isinstance(e, MatExpr) and not isinstance(e, MatSym):
            raise ShapeError(
                f"the running maxima of an online softmax are a matrix name (E), not {e}"
            )
        if e is None:  # named after its scores and blocks: two online softmaxes never clash
            e = f"E({plain(s)}; {', '.join(map(str, blocks))})"
        em = e if isinstance(e, MatSym) else MatSym(str(e), s.rows, len(blocks))
        if not (dims_equal(em.rows, s.rows) and dims_equal(em.cols, len(blocks))):
            raise ShapeError(
                f"the running maxima {em} ({shape_str(em.shape)}) must be {s.rows} × "
                f"{len(blocks)}: one per row of {s} and block"
            )
        return Basic.__new__(
            cls, s, v, sympy.Tuple(*blocks), em, sympy.true if bool(rescale) else sympy.false
        )

    @property
    def blocks(self) -> tuple[sympy.Expr, ...]:
        return tuple(self.args[2])

    @property
    def rescale(self) -> bool:
        return bool(self.args[4])

    @property
    def maxima(self) -> MatSym:
        """`E`, rows × blocks: by default named after the scores and blocks (`E(S; 2, 3)`), so
        two online softmaxes of other scores or blocks have their own."""
        return self.args[3]

    @property
    def shape(self) -> Shape:
        return (self.args[0].rows, self.args[1].cols)

    def _entry(self, i: sympy.Expr, j: sympy.Expr, fresh: Fresh) -> sympy.Expr:
        s, v, _, em, _ = self.args
        ell: sympy.Expr = sympy.Integer(0)
        out: sympy.Expr = sympy.Integer(0)
        start: sympy.Expr = sympy.Integer(0)
        prev: sympy.Expr | None = None
        for c, size in enumerate(self.blocks, start=1):
            e_c = em._entry(i, sympy.Integer(c), fresh)
            k = fresh(s.cols)
            lo, hi = start + 1, start + size
            weight = sympy.exp(s._entry(i, k, fresh))
            block_l = sympy.Sum(weight, (k, lo, hi)) / e_c
            k2 = fresh(s.cols)
            weight2 = sympy.exp(s._entry(i, k2, fresh))
            block_o = sympy.Sum(weight2 * v._entry(k2, j, fresh), (k2, lo, hi)) / e_c
            alpha = sympy.Integer(1) if prev is None else prev / e_c
            ell = alpha * ell + block_l
            out = (alpha if self.rescale else 1) * out + block_o
            prev, start = e_c, hi
        return out / ell


def pair_sum(x: MatExpr) -> MatExpr:
    """`1^T x`: the sum of a column (the score from the pairs' dot products)."""
    return Ones(sympy.Integer(1), x.rows) @ x
