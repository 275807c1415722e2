"""Exact evaluation of kernel expressions at random points over a prime field (Schwartz–Zippel).

Imports numpy, sympy and symattn.expr only; never the front or back ends.

Every named matrix gets independent uniform entries mod p; products, transposes, slices, sums,
rational scales (modular inverses) and masks are computed exactly mod p. Three kinds of value
are *free atoms*, random field elements chosen once per trial:

- `exp(x)` is a random function of the value of `x` (one fresh element per distinct value, so
  the same score gives the same exp on both sides); softmax divides by the row sum's inverse;
- an algebraic number such as `sqrt(2)` (from `1/sqrt(d_k)` at `d_k = 32`) is one fresh element
  per distinct number; this is sound for identities that hold with that number as a variable.

A free scalar symbol such as `c` in `c A` is an ordinary variable, drawn like an entry.

If the two sides are equal as functions of leaves and atoms, they are equal for real. If not,
a trial says "equal" with probability at most `degree / p` (plus the chance that two different
exp arguments collide); trials use different primes and independent points.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import sympy

from symattn.expr import (
    CausalMask,
    ColSoftmax,
    Concat,
    Dot,
    Entry,
    FromColumn,
    HeadSym,
    MatAdd,
    MatExpr,
    MatMul,
    MatSum,
    MatSym,
    Ones,
    Row,
    RowBlock,
    Scale,
    Softmax,
    Transpose,
    named_shapes,
)
from symattn.ranges import dependency_order
from symattn.semantics import summation_range

# Primes below 2^31: a product of two reduced values is below 2^62 and fits in int64.
PRIMES: tuple[int, ...] = (2_147_483_647, 2_147_483_629, 2_147_483_587)
_LIMB = 11  # limb width of the smaller matmul factor
_CHUNK = 1 << 11  # inner dimension per float64 product: 2^11 * 2^11 * 2^31 = 2^53
_SMALL = 1 << 16  # products with at most this many multiplications skip the limbs

Range = tuple[sympy.Expr, sympy.Expr]
Draw = Callable[[tuple, tuple[int, int], np.random.Generator, int], np.ndarray]


class Unsupported(Exception):
    """A node the field evaluator cannot take; the caller falls back to full expansion."""


class _Resample(Exception):
    """A denominator vanished mod p: the trial is drawn again."""


class _Loop(Exception):
    """A matrix depends on an index bound to a whole range: evaluate that index value by value."""

    def __init__(self, var: sympy.Symbol):
        super().__init__(str(var))
        self.var = var


# ---- field arithmetic ---------------------------------------------------------------------


def matmul(a: np.ndarray, b: np.ndarray, p: int) -> np.ndarray:
    """`a @ b mod p` for reduced int64 matrices, exactly, through float64 products on limbs.

    The smaller factor is cut into three 11-bit limbs; a limb times a 31-bit entry is below
    2^42 and a sum of 2^11 of them below 2^53, so every float64 partial product is exact.

    >>> p = PRIMES[0]
    >>> a = np.full((1, 3), p - 1, dtype=np.int64)
    >>> int(matmul(a, a.T, p)[0, 0]) == (3 * (p - 1) ** 2) % p
    True
    """
    if a.shape[0] * a.shape[1] * b.shape[1] <= _SMALL:
        # every product reduced below 2^31 before the sum: no overflow, no float
        return (a[:, :, None] * b[None, :, :] % p).sum(axis=1) % p
    if a.size > b.size:
        return matmul(b.T, a.T, p).T
    inner = a.shape[1]
    if inner > _CHUNK:
        out = np.zeros((a.shape[0], b.shape[1]), dtype=np.int64)
        for k in range(0, inner, _CHUNK):
            out = (out + matmul(a[:, k : k + _CHUNK], b[k : k + _CHUNK], p)) % p
        return out
    big = b.astype(np.float64)
    out = np.zeros((a.shape[0], b.shape[1]), dtype=np.int64)
    mask = (1 << _LIMB) - 1
    for t in range(3):
        limb = ((a >> (_LIMB * t)) & mask).astype(np.float64)
        # einsum, not @: multithreaded BLAS is erratic on a busy 2-core machine (30x slower).
        part = np.einsum("ik,kj->ij", limb, big).astype(np.int64) % p
        out = (out + part * ((1 << (_LIMB * t)) % p)) % p
    return out


def power(x: Any, k: int, p: int) -> Any:
    """`x**k mod p` elementwise for k >= 0 (square and multiply; every product below 2^62)."""
    result: Any = np.ones_like(x) if isinstance(x, np.ndarray) else 1
    base = x
    while k:
        if k & 1:
            result = result * base % p  # type: ignore[operator]
        base = base * base % p  # type: ignore[operator]
        k >>= 1
    return result


def inverse(x: Any, p: int) -> Any:
    """The modular inverse (Fermat); a zero anywhere means this trial must be drawn again."""
    if np.any(np.asarray(x) % p == 0):
        raise _Resample
    return power(x, p - 2, p)


def rational(v: int, p: int) -> sympy.Rational:
    """The small fraction a/b congruent to v mod p (rational reconstruction), for printing.

    >>> p = PRIMES[0]
    >>> rational(3 * pow(8, -1, p) % p, p), rational(p - 5, p)
    (3/8, -5)
    """
    r0, r1, t0, t1 = p, v % p, 0, 1
    bound = math.isqrt(p // 2)
    while r1 > bound:
        q = r0 // r1
        r0, r1, t0, t1 = r1, r0 - q * r1, t1, t0 - q * t1
    if t1 == 0 or abs(t1) > bound:
        return sympy.Integer(v)
    return sympy.Rational(r1, t1)


# ---- evaluation ---------------------------------------------------------------------------


def uniform(key: tuple, shape: tuple[int, int], rng: np.random.Generator, p: int) -> np.ndarray:
    """Independent uniform entries in 0..p-1: the default point of a trial.

    31 random bits per entry, redrawn where they reach p (at most 61 values of 2^31), so the
    entries are exactly uniform; about twice as fast as `rng.integers` for W_O's 512 x 512.
    """
    if p <= 1 << 30:  # far below 2^31 the redraws would never end
        return rng.integers(0, p, size=shape, dtype=np.int64)
    count = shape[0] * shape[1]
    out = _bits31(rng, count)
    bad = np.flatnonzero(out >= p)
    while len(bad):
        out[bad] = _bits31(rng, len(bad))
        bad = bad[out[bad] >= p]
    return out.reshape(shape)


def _bits31(rng: np.random.Generator, count: int) -> np.ndarray:
    raw = rng.bit_generator.random_raw((count + 1) // 2).view(np.uint32)[:count]
    return (raw >> np.uint32(1)).astype(np.int64)


class Field:
    """One evaluation point: leaf matrices, atoms and the values of the indices in scope."""

    def __init__(
        self,
        p: int,
        rng: np.random.Generator,
        shapes: Mapping[str, tuple[int, int]],
        draw: Draw = uniform,
    ):
        self.p, self.rng, self.shapes, self.draw = p, rng, dict(shapes), draw
        self.leaves: dict[tuple, np.ndarray] = {}
        self.env: dict[sympy.Symbol, Any] = {}
        self.depth = 0
        self.cache: dict[tuple, np.ndarray] = {}
        self.products: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        self.oracle: dict[int, int] = {}
        self.atoms: dict[sympy.Basic, int] = {}
        self._free: dict[sympy.Basic, tuple[sympy.Symbol, ...]] = {}

    # -- leaves and atoms --
    def leaf(self, key: tuple, shape: tuple[int, int]) -> np.ndarray:
        arr = self.leaves.get(key)
        if arr is None:
            arr = np.asarray(self.draw(key, shape, self.rng, self.p))
            if self.draw is not uniform:
                arr = arr % self.p
            self.leaves[key] = arr
        if arr.shape != shape:
            raise Unsupported(f"{key[0]} is used with shapes {arr.shape} and {shape}")
        return arr

    def atom(self, key: sympy.Basic) -> int:
        """A free element for an algebraic number such as sqrt(2) (not a real value of it)."""
        if key not in self.atoms:
            self.atoms[key] = int(self.rng.integers(1, self.p))
        return self.atoms[key]

    def variable(self, s: sympy.Symbol) -> int:
        """A free scalar such as `c` in `c A`: a genuine variable, drawn like an entry."""
        return int(self.leaf(("scalar", s.name), (1, 1))[0, 0])

    def probe(self, width: int) -> np.ndarray:
        """A random column vector (the same one for both sides of the claim)."""
        key = ("probe", width)
        if key not in self.leaves:
            self.leaves[key] = self.rng.integers(0, self.p, size=(width, 1), dtype=np.int64)
        return self.leaves[key]

    def exp(self, x: object) -> Any:
        """A random function of the value: the same argument always gets the same exp."""
        arr = np.asarray(x, dtype=np.int64)
        flat = arr.ravel()
        out = np.empty_like(flat)
        for k, v in enumerate(flat.tolist()):
            e = self.oracle.get(v)
            if e is None:
                e = self.oracle[v] = int(self.rng.integers(1, self.p))
            out[k] = e
        return out.reshape(arr.shape) if arr.ndim else int(out[0])

    # -- indices --
    def deps(self, e: sympy.Basic) -> tuple[sympy.Symbol, ...]:
        syms = self._free.get(e)
        if syms is None:
            syms = self._free[e] = tuple(sorted(e.free_symbols, key=str))
        return tuple(s for s in syms if s in self.env)

    def index(self, e: sympy.Expr) -> Any:
        """An index expression as an int (or an int array when it ranges over an axis)."""
        if e.is_Integer:
            return int(e)
        if isinstance(e, sympy.Symbol):
            if e in self.env:
                return self.env[e]
            raise Unsupported(f"no value for the index {e}")
        if isinstance(e, sympy.Add):
            return sum((self.index(a) for a in e.args), 0)
        if isinstance(e, sympy.Mul):
            return math.prod((self.index(a) for a in e.args), start=1)
        raise Unsupported(f"cannot use {e} as an index")

    def one(self, e: sympy.Expr) -> int:
        """An index expression that must be a single int here."""
        v = self.index(e)
        if isinstance(v, np.ndarray):
            raise _Loop(next(s for s in self.deps(e) if isinstance(self.env[s], np.ndarray)))
        return int(v)

    # -- matrices --
    def mat(self, m: MatExpr) -> np.ndarray:
        """A matrix expression as a reduced int64 array; cached per values of its indices."""
        values = []
        for s in self.deps(m):
            v = self.env[s]
            if isinstance(v, np.ndarray):
                raise _Loop(s)
            values.append(v)
        key = (m, tuple(values))
        out = self.cache.get(key)
        if out is None:
            f = _MATRIX.get(type(m))
            if f is None:
                raise Unsupported(f"{type(m).__name__} has no exact field evaluation")
            out = self.cache[key] = f(self, m)
        return out

    def size(self, e: sympy.Expr) -> int:
        v = self.one(e)
        if v < 1:
            raise Unsupported(f"size {e} is {v}")
        return v

    def shape(self, m: MatExpr) -> tuple[int, int]:
        return (self.size(m.rows), self.size(m.cols))

    # -- scalars --
    def scalar(self, e: sympy.Basic) -> Any:
        """A scalar as a field element (an array when it ranges over index axes)."""
        p = self.p
        if e.is_Rational:
            return int(e.p) % p * pow(int(e.q) % p, -1, p) % p
        f = _SCALAR.get(type(e))
        if f is not None:
            return f(self, e)
        for cls, g in _SCALAR_BASES:
            if isinstance(e, cls):
                return g(self, e)
        raise Unsupported(f"{type(e).__name__} has no exact field evaluation")

    def bind(self, v: sympy.Symbol, lo: int, hi: int, body: Callable[[], Any]) -> Any:
        """Run `body` with `v` bound to the axis lo..hi (or value by value if it must)."""
        old, d = self.env.get(v, _MISSING), self.depth
        self.env[v] = np.arange(lo, hi + 1, dtype=np.int64).reshape((-1,) + (1,) * d)
        self.depth = d + 1
        try:
            return body()
        finally:
            self.depth = d
            if old is _MISSING:
                self.env.pop(v, None)
            else:
                self.env[v] = old

    def fix(self, v: sympy.Symbol, value: int, body: Callable[[], Any]) -> Any:
        old = self.env.get(v, _MISSING)
        self.env[v] = value
        try:
            return body()
        finally:
            if old is _MISSING:
                self.env.pop(v, None)
            else:
                self.env[v] = old


_MISSING = object()


# ---- matrix nodes -------------------------------------------------------------------------


def _leaf(f: Field, m: MatSym) -> np.ndarray:
    return f.leaf((_label(m),), f.shape(m))


def _head(f: Field, m: HeadSym) -> np.ndarray:
    return f.leaf((_label(m), f.one(m.head)), f.shape(m))


def _column(f: Field, m: FromColumn) -> np.ndarray:
    rows, cols = f.shape(m)
    return np.repeat(f.leaf((_label(m), "column"), (rows, 1)), cols, axis=1)


def _label(m: MatExpr) -> str:
    return m.args[0].name  # the Str's text, without sympy's printer


def _scale(f: Field, m: Scale) -> np.ndarray:
    return int(_scale_value(f, m)) * f.mat(m.args[1]) % f.p


def _scale_value(f: Field, m: Scale) -> Any:
    c = f.scalar(m.scalar)
    if isinstance(c, np.ndarray) and c.ndim:
        raise Unsupported(f"scale {m.scalar} is not a single number here")
    return c


def _softmax(f: Field, m: MatExpr, axis: int) -> np.ndarray:
    s = m.args[0]
    keep = None
    if isinstance(s, CausalMask):
        rows, cols = f.shape(s)
        tri = np.triu if s.upper else np.tril
        keep = tri(np.ones((rows, cols), dtype=np.int64))
        s = s.args[0]
    e = np.asarray(f.exp(f.mat(s)), dtype=np.int64)
    if keep is not None:
        e = e * keep  # exp(-inf) is exactly 0
    total = e.sum(axis=axis, keepdims=True) % f.p
    return e * inverse(total, f.p) % f.p


def _mask(f: Field, m: CausalMask) -> np.ndarray:
    raise Unsupported("a causal mask outside a softmax has entries -oo")


def _row(f: Field, m: Row) -> np.ndarray:
    a = f.mat(m.args[0])
    i = _in_range(f.one(m.index), a.shape[0], m)
    return a[i - 1 : i]


def _rowblock(f: Field, m: RowBlock) -> np.ndarray:
    a = f.mat(m.args[0])
    h, size = f.one(m.head), f.size(m.args[2])
    _in_range((h - 1) * size + 1, a.shape[0], m)
    _in_range(h * size, a.shape[0], m)
    return a[(h - 1) * size : h * size]


def _concat(f: Field, m: Concat) -> np.ndarray:
    return np.hstack([f.mat(m.member(h)) for h in range(1, f.size(m.count) + 1)])


def _matsum(f: Field, m: MatSum) -> np.ndarray:
    v, lo, hi = m.limits
    total = np.zeros(f.shape(m), dtype=np.int64)
    for k in summation_range(f.one(lo), f.one(hi), v):
        total = (total + f.fix(v, k, lambda: f.mat(m.body))) % f.p  # type: ignore[operator]
    return total


def _in_range(i: int, size: int, where: object) -> int:
    if not 1 <= i <= size:
        raise Unsupported(f"index {i} outside 1..{size} in {where}")
    return i


_MATRIX: dict[type, Callable[[Field, MatExpr], np.ndarray]] = {
    MatSym: _leaf,  # type: ignore[dict-item]
    HeadSym: _head,  # type: ignore[dict-item]
    FromColumn: _column,  # type: ignore[dict-item]
    Ones: lambda f, m: np.ones(f.shape(m), dtype=np.int64),
    MatMul: lambda f, m: matmul(f.mat(m.args[0]), f.mat(m.args[1]), f.p),
    MatAdd: lambda f, m: (f.mat(m.args[0]) + f.mat(m.args[1])) % f.p,
    Scale: _scale,  # type: ignore[dict-item]
    Transpose: lambda f, m: f.mat(m.args[0]).T,
    Softmax: lambda f, m: _softmax(f, m, 1),
    ColSoftmax: lambda f, m: _softmax(f, m, 0),
    CausalMask: _mask,  # type: ignore[dict-item]
    Row: _row,  # type: ignore[dict-item]
    RowBlock: _rowblock,  # type: ignore[dict-item]
    Concat: _concat,  # type: ignore[dict-item]
    MatSum: _matsum,  # type: ignore[dict-item]
}


# ---- scalar nodes -------------------------------------------------------------------------


def _symbol(f: Field, e: sympy.Symbol) -> Any:
    if e in f.env:
        return f.env[e] % f.p  # type: ignore[operator]
    if e.is_integer:
        raise Unsupported(f"no value for {e}")
    return f.variable(e)


def _add(f: Field, e: sympy.Add) -> Any:
    acc: Any = 0
    for a in e.args:
        acc = (acc + f.scalar(a)) % f.p  # type: ignore[operator]
    return acc


def _mul(f: Field, e: sympy.Mul) -> Any:
    acc: Any = 1
    for a in e.args:
        acc = acc * f.scalar(a) % f.p  # type: ignore[operator]
    return acc


def _pow(f: Field, e: sympy.Pow) -> Any:
    if e.exp.is_Integer:
        k = int(e.exp)
        base = f.scalar(e.base)
        if k < 0:
            base, k = inverse(base, f.p), -k
        return power(base, k, f.p)
    if e.is_number and e.is_algebraic:
        return f.atom(e)  # sqrt(2): a free element, the same one wherever it appears
    raise Unsupported(f"cannot evaluate the power {e} exactly")


def _sum(f: Field, e: sympy.Sum) -> Any:
    return _sum_limits(f, e.function, list(e.limits))


def _sum_limits(f: Field, body: sympy.Expr, limits: list) -> Any:
    if not limits:
        return f.scalar(body)
    v, lo, hi = limits[-1]  # sympy lists the innermost limit first
    a, b = f.one(lo), f.one(hi)
    if b < a:
        summation_range(a, b, v)  # refuses a reversed range; hi = lo - 1 is the empty sum
        return 0
    d = f.depth
    try:
        val = f.bind(v, a, b, lambda: _sum_limits(f, body, limits[:-1]))
    except _Loop as exc:
        if exc.var != v:
            raise
        total = 0
        for k in range(a, b + 1):
            x = f.fix(v, k, lambda: _sum_limits(f, body, limits[:-1]))
            total = (total + x) % f.p  # type: ignore[operator]
        return total
    return _reduce(np.asarray(val), d, b - a + 1, f.p)


def _reduce(val: np.ndarray, d: int, length: int, p: int) -> Any:
    """Sum over the axis at position d from the right (absent or broadcast: times length)."""
    if val.ndim <= d:
        return val * length % p
    if val.shape[0] == 1:
        return val[0] * length % p
    return val.sum(axis=0) % p  # length * 2^31 < 2^63


def _indexed(f: Field, e: sympy.Indexed) -> Any:
    name = str(e.base.label)
    idx = [f.index(k) for k in e.indices]
    if name not in f.shapes:
        raise Unsupported(f"no shape known for {name}")
    rows, cols = f.shapes[name]
    if name.endswith("^()") and len(idx) == 3:
        h, i, j = idx
        top = int(np.max(h))
        _check(h, top + 1, name)
        arr = np.stack([f.leaf((name[:-3], k), (rows, cols)) for k in range(1, top + 1)])
        return arr[_at(h), _at(_check(i, rows, name)), _at(_check(j, cols, name))]
    if len(idx) == 1:
        col = f.leaf((name, "column"), (rows, 1))
        return col[_at(_check(idx[0], rows, name)), 0]
    if len(idx) != 2:
        raise Unsupported(f"{e} has {len(idx)} indices")
    arr = f.leaf((name,), (rows, cols))
    return arr[_at(_check(idx[0], rows, name)), _at(_check(idx[1], cols, name))]


def _check(i: Any, size: int, name: object) -> Any:
    if isinstance(i, int):
        bad = not 1 <= i <= size
    else:
        bad = bool(np.min(i) < 1 or np.max(i) > size)
    if bad:
        raise Unsupported(f"an index of {name} leaves 1..{size}")
    return i


def _at(i: object) -> Any:
    return i - 1  # type: ignore[operator]


def _entry(f: Field, e: Entry) -> Any:
    m = f.mat(e.matrix)
    i = _check(f.index(e.args[1]), m.shape[0], e.matrix)
    j = _check(f.index(e.args[2]), m.shape[1], e.matrix)
    return m[_at(i), _at(j)]


def _rows(f: Field, u: MatExpr) -> np.ndarray:
    """A row vector, or a stack of rows when its row index ranges over an axis."""
    if isinstance(u, Row) and not any(isinstance(f.env[s], np.ndarray) for s in f.deps(u.args[0])):
        m = f.mat(u.args[0])
        return m[_at(_check(f.index(u.index), m.shape[0], u))]
    return f.mat(u)[0]


def _dot(f: Field, e: Dot) -> Any:
    u, v = _rows(f, e.args[0]), _rows(f, e.args[1])
    return (u * v % f.p).sum(axis=-1) % f.p


def _piecewise(f: Field, e: sympy.Piecewise) -> Any:
    out: Any = None
    for value, cond in reversed(e.args):
        if value in (sympy.oo, -sympy.oo):
            raise Unsupported("an infinite branch has no field value")
        x = f.scalar(value)
        out = x if out is None else np.where(_truth(f, cond), x, out)
    return out


def _truth(f: Field, cond: sympy.Basic) -> Any:
    if cond in (sympy.true, sympy.false):
        return bool(cond)
    if isinstance(cond, sympy.core.relational.Relational):
        a, b = f.index(cond.lhs), f.index(cond.rhs)
        ops = {"<=": np.less_equal, ">=": np.greater_equal, "<": np.less, ">": np.greater}
        ops |= {"==": np.equal, "!=": np.not_equal}
        return ops[cond.rel_op](a, b)
    if isinstance(cond, (sympy.And, sympy.Or)):
        # the parts may range over different index axes: combine them by broadcasting
        op = np.logical_and if isinstance(cond, sympy.And) else np.logical_or
        return functools.reduce(op, [_truth(f, c) for c in cond.args])
    raise Unsupported(f"cannot decide {cond}")


_SCALAR: dict[type, Callable[[Field, sympy.Basic], Any]] = {
    sympy.Add: _add,  # type: ignore[dict-item]
    sympy.Mul: _mul,  # type: ignore[dict-item]
    sympy.Pow: _pow,  # type: ignore[dict-item]
    sympy.exp: lambda f, e: f.exp(f.scalar(e.args[0])),
    sympy.Sum: _sum,  # type: ignore[dict-item]
    sympy.Indexed: _indexed,  # type: ignore[dict-item]
    Entry: _entry,  # type: ignore[dict-item]
    Dot: _dot,  # type: ignore[dict-item]
    sympy.Piecewise: _piecewise,  # type: ignore[dict-item]
}
_SCALAR_BASES: tuple[tuple[type, Callable], ...] = ((sympy.Symbol, _symbol),)


# ---- degree bound -------------------------------------------------------------------------


@dataclass
class _Deg:
    """Degrees (numerator, denominator) of an entry as a rational function of leaves and atoms."""

    sizes: Callable[[sympy.Expr], int]
    score: int = 0  # largest degree of an exp argument (for collisions of the exp atoms)

    def mat(self, m: MatExpr) -> tuple[int, int]:
        if isinstance(m, (MatSym, HeadSym, FromColumn)):
            return (1, 0)
        if isinstance(m, Ones):
            return (0, 0)
        if isinstance(m, MatMul):
            a, b = self.mat(m.args[0]), self.mat(m.args[1])
            return _repeat((a[0] + b[0], a[1] + b[1]), self.sizes(m.args[0].cols))
        if isinstance(m, MatAdd):
            return _plus(self.mat(m.args[0]), self.mat(m.args[1]))
        if isinstance(m, Scale):
            c, a = self.scalar(m.scalar), self.mat(m.args[1])
            return (c[0] + a[0], c[1] + a[1])
        if isinstance(m, (Softmax, ColSoftmax)):
            s = m.args[0]
            s = s.args[0] if isinstance(s, CausalMask) else s
            inner = self.mat(s)
            self.score = max(self.score, inner[0] + inner[1])
            return (1, 1)
        if isinstance(m, MatSum):
            return _repeat(self.mat(m.body), self._count(m.args[2], m.args[3]))
        if isinstance(m, Concat):
            return self.mat(m.body)
        if isinstance(m, (Transpose, Row, RowBlock, CausalMask)):
            return self.mat(m.args[0])
        raise Unsupported(f"no degree bound for {type(m).__name__}")

    def _count(self, lo: sympy.Expr, hi: sympy.Expr) -> int:
        # Index-dependent bounds (sum_{j <= i}): the largest count the sizes allow.
        low = 1 if lo.free_symbols else self.sizes(lo)
        return max(self.sizes(hi) - low + 1, 1)

    def scalar(self, e: sympy.Basic) -> tuple[int, int]:
        if e.is_Rational:
            return (0, 0)
        if e.is_number and not isinstance(e, (sympy.Add, sympy.Mul, sympy.Pow)):
            return (1, 0)  # pi, E: one free element
        if e.is_number and isinstance(e, sympy.Pow) and not e.exp.is_Integer:
            return (1, 0)  # sqrt(2): one free element; (1 + sqrt(2))^5 has degree 5
        if isinstance(e, sympy.Symbol):
            return (0, 0) if e.is_integer else (1, 0)
        if isinstance(e, sympy.Add):
            out = (0, 0)
            for a in e.args:
                out = _plus(out, self.scalar(a))
            return out
        if isinstance(e, sympy.Mul):
            parts = [self.scalar(a) for a in e.args]
            return (sum(x for x, _ in parts), sum(y for _, y in parts))
        if isinstance(e, sympy.Pow) and e.exp.is_Integer:
            b, k = self.scalar(e.base), int(e.exp)
            return (k * b[0], k * b[1]) if k >= 0 else (-k * b[1], -k * b[0])
        if isinstance(e, sympy.exp):
            a = self.scalar(e.args[0])
            self.score = max(self.score, a[0] + a[1])
            return (1, 0)
        if isinstance(e, sympy.Sum):
            out = self.scalar(e.function)
            for _, lo, hi in e.limits:
                out = _repeat(out, self._count(lo, hi))
            return out
        if isinstance(e, sympy.Indexed):
            return (1, 0)
        if isinstance(e, Entry):
            return self.mat(e.matrix)
        if isinstance(e, Dot):
            u, v = self.mat(e.args[0]), self.mat(e.args[1])
            return _repeat((u[0] + v[0], u[1] + v[1]), self.sizes(e.args[0].cols))
        if isinstance(e, sympy.Piecewise):
            parts = [self.scalar(x) for x, _ in e.args if x not in (sympy.oo, -sympy.oo)]
            return (max(x for x, _ in parts), max(y for _, y in parts))
        raise Unsupported(f"no degree bound for {type(e).__name__}")


def _plus(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    if a[1] == 0 and b[1] == 0:
        return (max(a[0], b[0]), 0)
    return (max(a[0] + b[1], b[0] + a[1]), a[1] + b[1])


def _repeat(a: tuple[int, int], count: int) -> tuple[int, int]:
    """A sum of `count` terms of degrees `a` (worst case: no shared denominators)."""
    if a[1] == 0 or count <= 1:
        return a if count >= 1 else (0, 0)
    return (a[0] + (count - 1) * a[1], count * a[1])


# ---- the check ----------------------------------------------------------------------------


@dataclass(frozen=True)
class FieldCheck:
    """What the mod-p evaluation found: equal at every trial, or a point where the sides differ."""

    equal: bool
    trials: int
    primes: tuple[int, ...]
    degree: int
    bound: float
    points: int
    where: tuple[tuple[str, int], ...] = ()
    left: int | None = None
    right: int | None = None
    uses_atoms: bool = False

    def detail(self) -> str:
        """The verdict's wording, with the probability bound of a false 'equal'."""
        ps = ", ".join(str(p) for p in self.primes)
        if self.equal:
            return (
                f"equal mod p at {self.trials} independent random points (p = {ps}; "
                f"{self.points} index points each); chance of a false 'equal' <= "
                f"{self.bound:.1e} (degree <= {self.degree}, at most degree/p per trial)"
            )
        at = ", ".join(f"{k}={v}" for k, v in self.where)
        return f"differ mod {self.primes[-1]} at {at or 'the claim'}: {self.left} vs {self.right}"


def check(
    lhs: sympy.Basic,
    rhs: sympy.Basic,
    ranges: Mapping[sympy.Symbol, Range],
    *,
    trials: int = 3,
    seed: int = 0,
    assuming: Sequence[sympy.Basic] = (),
) -> FieldCheck:
    """Compare two sides at explicit sizes by exact evaluation mod p at random points.

    Free indices range over `ranges`; every index point is compared. Raises `Unsupported`
    for nodes with no field meaning (the caller then expands symbolically).

    >>> from symattn.attention import single_head
    >>> from symattn.expr import Dot, index
    >>> s = single_head(n=7, d=512, d_k=64, d_v=64); i, j = index("i"), index("j")
    >>> r = {i: (1, 7), j: (1, 7)}
    >>> check(s.scores[i, j], Dot(s.Q.row(i), s.K.row(j)), r).equal
    True
    >>> check(s.scores[i, j], Dot(s.Q.row(j), s.K.row(i)), r).where
    (('i', 2), ('j', 1))
    """
    shapes = learn_shapes(lhs, rhs)
    try:
        free = [(s, ranges[s]) for s in dependency_order(ranges)]
    except ValueError as exc:
        raise Unsupported(str(exc)) from None
    bound, degree = 1.0, 0
    used: list[int] = []
    points = 1
    for t in range(trials):
        p = PRIMES[t % len(PRIMES)]
        used.append(p)
        f, found, points = _trial(lhs, rhs, free, shapes, p, seed + t, assuming)
        if found is not None:
            where, left, right = found
            return FieldCheck(
                False,
                t + 1,
                tuple(used),
                degree,
                1.0,
                points,
                where,
                left,
                right,
                uses_atoms=bool(f.atoms or f.oracle),
            )
        if t == 0:
            degree, denominators, score = degree_bound(lhs, rhs, f)
            degree += isinstance(lhs, MatExpr)  # the random probe vector
        collisions = len(f.oracle) * (len(f.oracle) - 1) // 2 * score
        bound *= min(1.0, (degree + denominators + collisions) / p)
    return FieldCheck(True, trials, tuple(used), degree, bound, points)


def learn_shapes(*terms: sympy.Basic) -> dict[str, tuple[int, int]]:
    """Explicit shapes of the named matrices, so bare entries like `Q[i, r]` can be evaluated."""
    return {
        label: (int(rows), int(cols))
        for label, (rows, cols) in named_shapes(*terms).items()
        if rows.is_Integer and cols.is_Integer
    }


def degree_bound(lhs: sympy.Basic, rhs: sympy.Basic, f: Field) -> tuple[int, int, int]:
    """(degree of lhs - rhs cleared of denominators, degree of the denominators, exp-arg degree)."""

    def sizes(e: sympy.Expr) -> int:
        return f.size(e) if not e.free_symbols else _largest(e, f)

    deg = _Deg(sizes)
    a = deg.mat(lhs) if isinstance(lhs, MatExpr) else deg.scalar(lhs)
    b = deg.mat(rhs) if isinstance(rhs, MatExpr) else deg.scalar(rhs)
    return max(a[0] + b[1], b[0] + a[1], 1), a[1] + b[1], deg.score


def _largest(e: sympy.Expr, f: Field) -> int:
    # An index-dependent bound (sum_{j <= i}): bounded by the largest size in the claim.
    biggest = max((max(s) for s in f.shapes.values()), default=1)
    return max(int(e.xreplace({s: biggest for s in e.free_symbols})), 1)


def _trial(lhs, rhs, free, shapes, p, seed, assuming):  # type: ignore[no-untyped-def]
    for attempt in range(8):
        f = Field(p, np.random.default_rng([seed, attempt]), shapes)
        try:
            found, points = _compare(f, lhs, rhs, free, assuming)
            return f, found, points
        except _Resample:
            continue
        except _Loop as exc:  # an index bound nowhere we can loop over
            raise Unsupported(f"index {exc.var} has no single value here") from None
    raise Unsupported("a denominator vanished mod p at every point drawn")


def _compare(f: Field, lhs, rhs, free, assuming):  # type: ignore[no-untyped-def]
    """(first differing point or None, number of index points compared)."""
    matrix = isinstance(lhs, MatExpr)
    return _walk(f, lhs, rhs, list(free), assuming, matrix, ())


def _walk(f: Field, lhs, rhs, free, assuming, matrix, fixed):  # type: ignore[no-untyped-def]
    if not free:
        return _leaf_compare(f, lhs, rhs, assuming, matrix, fixed)
    (v, (lo, hi)), rest = free[0], free[1:]
    a, b = f.one(sympy.sympify(lo)), f.one(sympy.sympify(hi))
    if b < a:
        return None, 0
    if not matrix:
        try:
            return f.bind(v, a, b, lambda: _walk(f, lhs, rhs, rest, assuming, matrix, fixed))
        except _Loop as exc:
            if exc.var != v:
                raise
    total = 0
    for k in range(a, b + 1):
        here = fixed + ((v.name, k),)
        found, count = f.fix(v, k, partial(_walk, f, lhs, rhs, rest, assuming, matrix, here))
        total += count
        if found is not None:
            return found, total
    return None, total


def _leaf_compare(f: Field, lhs, rhs, assuming, matrix, fixed):  # type: ignore[no-untyped-def]
    if matrix:
        if not all(bool(_truth(f, c)) for c in assuming):
            return None, 0
        # Freivalds: L x = R x for a random vector x, one more variable of degree 1. Both
        # sides are linear in x, so a difference here is a difference of the matrices.
        probe = f.probe(f.size(lhs.cols))
        if np.array_equal(matvec(f, lhs, probe), matvec(f, rhs, probe)):
            return None, 1
        x, y = f.mat(lhs), f.mat(rhs)
    else:
        x, y = np.asarray(f.scalar(lhs)), np.asarray(f.scalar(rhs))
    keep = np.asarray(True)
    for cond in assuming:
        keep = keep & np.asarray(_truth(f, cond))
    x, y, keep = np.broadcast_arrays(x, y, keep)
    axes = _axes(f)
    count = int(np.prod([len(np.ravel(f.env[s])) for s in axes], dtype=np.int64)) if axes else 1
    bad = np.argwhere((x != y) & keep)
    if len(bad) == 0:
        return None, count
    pos = tuple(int(k) for k in bad[0])
    where = list(fixed)
    if matrix:
        where += [("row", pos[-2] + 1), ("col", pos[-1] + 1)]
    else:
        for k, s in enumerate(reversed(axes)):
            arr = np.ravel(f.env[s])
            at = len(pos) - 1 - k
            where.append((s.name, int(arr[pos[at] if 0 <= at < len(pos) else 0])))
        where.sort()
    return (tuple(where), int(x[tuple(bad[0])]), int(y[tuple(bad[0])])), count


def matvec(f: Field, m: MatExpr, x: np.ndarray) -> np.ndarray:
    """`m @ x mod p` for a column vector x, right to left, never forming a product of matrices."""
    if isinstance(m, MatMul):
        return matvec(f, m.args[0], _matvec_cached(f, m.args[1], x))
    if isinstance(m, MatAdd):
        return (matvec(f, m.args[0], x) + matvec(f, m.args[1], x)) % f.p
    if isinstance(m, Scale) and not any(isinstance(f.env[s], np.ndarray) for s in f.deps(m)):
        return int(_scale_value(f, m)) * matvec(f, m.args[1], x) % f.p
    if isinstance(m, Concat):
        width = f.size(m.body.cols)
        total = np.zeros((f.size(m.rows), 1), dtype=np.int64)
        for h in range(1, f.size(m.count) + 1):
            part = x[(h - 1) * width : h * width]
            total = (total + matvec(f, m.member(h), part)) % f.p
        return total
    if isinstance(m, MatSum):
        v, lo, hi = m.limits
        total = np.zeros((f.size(m.rows), 1), dtype=np.int64)
        for k in summation_range(f.one(lo), f.one(hi), v):
            total = (total + f.fix(v, k, partial(matvec, f, m.body, x))) % f.p
        return total
    if isinstance(m, RowBlock):
        # W_O^{(h)} x is a block of W_O x: one product of W_O serves every head and both sides
        h, size = f.one(m.head), f.size(m.args[2])
        whole = _matvec_cached(f, m.args[0], x)
        _in_range(h * size, whole.shape[0], m)
        return whole[(h - 1) * size : h * size]
    return matmul(f.mat(m), x, f.p)


def _matvec_cached(f: Field, m: MatExpr, x: np.ndarray) -> np.ndarray:
    key = (m, tuple(f.env[s] for s in f.deps(m)), id(x))
    hit = f.products.get(key)
    if hit is None or hit[0] is not x:  # the id of a freed vector may be reused
        hit = f.products[key] = (x, matvec(f, m, x))
    return hit[1]


def _axes(f: Field) -> list[sympy.Symbol]:
    """Index symbols bound to axes, outermost (depth 0) last."""
    arrays = [(np.ndim(v), s) for s, v in f.env.items() if isinstance(v, np.ndarray)]
    return [s for _, s in sorted(arrays, key=lambda x: -x[0])]


# ---- a small readable counterexample ------------------------------------------------------


@dataclass(frozen=True)
class Sparse:
    """Entries (all others 0) at which the two sides differ, with both exact values."""

    entries: tuple[tuple[str, int], ...]
    left: sympy.Rational
    right: sympy.Rational


def shrink(
    lhs: sympy.Basic,
    rhs: sympy.Basic,
    where: Sequence[tuple[str, int]],
    *,
    budget: int = 600,
    seed: int = 0,
) -> Sparse | None:
    """Few small nonzero integer entries at which the sides differ at the point `where`.

    For sides without free atoms (no exp, no algebraic numbers): start from small random
    integers, then zero out blocks of entries (halving the blocks) while the sides still differ,
    then try 1 for what is left. A difference mod p of these small values is a real difference.

    >>> from symattn.attention import single_head
    >>> from symattn.expr import Dot, index
    >>> s = single_head(n=7, d=512, d_k=64, d_v=64); i, j = index("i"), index("j")
    >>> shrink(s.scores[i, j], Dot(s.Q.row(j), s.K.row(i)), (("i", 2), ("j", 1)))
    Sparse(entries=(('K[1,4]', 1), ('Q[2,4]', 1)), left=1, right=0)
    """
    shapes = learn_shapes(lhs, rhs)
    names = {s.name: s for t in (lhs, rhs) for s in t.free_symbols if isinstance(s, sympy.Symbol)}
    at = dict(where)
    cell = (at.pop("row") - 1, at.pop("col") - 1) if isinstance(lhs, MatExpr) else ()
    point = {names[k]: v for k, v in at.items() if k in names}
    for attempt in range(5):
        values: dict[tuple, np.ndarray] = {}
        gen = np.random.default_rng([seed, attempt])

        def draw(key, shape, _rng, _p, values=values, gen=gen):  # type: ignore[no-untyped-def]
            if key not in values:
                values[key] = gen.integers(-2, 4, size=shape, dtype=np.int64)
            return values[key]

        def differs(draw=draw, primes=PRIMES[:1]):  # type: ignore[no-untyped-def]
            # one prime while minimising: a difference mod p is already a real difference
            return _differs(lhs, rhs, point, cell, shapes, draw, primes)

        if differs(primes=PRIMES[:2]) is None:
            continue
        _minimise(values, differs, budget)
        found = differs()
        if found is None:  # pragma: no cover - _minimise keeps the difference
            return None
        left, right, p = found
        entries = tuple(
            (_name(key, int(idx), arr.shape), int(arr.flat[idx]))
            for key, arr in sorted(values.items(), key=lambda kv: str(kv[0]))
            for idx in np.flatnonzero(arr)
        )
        return Sparse(entries, rational(left, p), rational(right, p))
    return None


def _differs(lhs, rhs, point, cell, shapes, draw, primes=PRIMES[:2]):  # type: ignore[no-untyped-def]
    for p in primes:
        f = Field(p, np.random.default_rng(0), shapes, draw)
        f.env.update(point)
        try:
            if cell:
                x, y = int(f.mat(lhs)[cell]), int(f.mat(rhs)[cell])
            else:
                x, y = int(np.asarray(f.scalar(lhs))), int(np.asarray(f.scalar(rhs)))
        except _Resample:
            return None
        if x != y:
            return x, y, p
    return None


def _minimise(values: dict[tuple, np.ndarray], differs: Callable, budget: int) -> None:
    """Zero blocks of entries, halving the block size, while `differs()` stays true."""
    keys = list(values)
    sizes = [values[k].size for k in keys]
    flat = np.concatenate([values[k].ravel() for k in keys])
    start = 0
    for k, size in zip(keys, sizes, strict=True):
        values[k] = flat[start : start + size].reshape(values[k].shape)  # a view into flat
        start += size
    items = np.flatnonzero(flat)
    chunk, evals = max(len(items), 1), 0
    while len(items) and evals < budget:
        kept = []
        for s in range(0, len(items), chunk):
            part = items[s : s + chunk]
            old = flat[part].copy()
            flat[part] = 0
            evals += 1
            if evals > budget or differs() is None:
                flat[part] = old
                kept.append(part)
        items = np.concatenate(kept) if kept else items[:0]
        if chunk == 1:
            break
        chunk = max(1, chunk // 2)
    for i in items:
        old = flat[i]
        if old != 1 and evals < budget:
            flat[i] = 1
            evals += 1
            if differs() is None:
                flat[i] = old


def _name(key: tuple, idx: int, shape: tuple[int, ...]) -> str:
    r, c = divmod(idx, shape[1])
    if key[0] == "scalar":
        return str(key[1])
    if len(key) == 2 and key[1] == "column":
        return f"{key[0]}[{r + 1}]"
    if len(key) == 2:
        return f"{key[0]}^({key[1]})[{r + 1},{c + 1}]"
    return f"{key[0]}[{r + 1},{c + 1}]"
