"""Exact evaluation of kernel expressions at random points over a prime field (Schwartz–Zippel).

The arithmetic mod p (`ModP`) for the one evaluator (`kernel.evaluate`), the degree bound, the
check and the shrinking of a difference to a small counterexample. Imports only numpy, sympy and
the kernel below it (dispatch, expr, modern, evaluate); must not import the other witnesses, proof
or anything above.

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

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy

from symattn.kernel.compare import compare, ordered
from symattn.kernel.dispatch import Dispatcher
from symattn.kernel.evaluate import (
    Arithmetic,
    Evaluator,
    Resample,
    Unsupported,
    _Loop,
    learn_shapes,
)
from symattn.kernel.expr import (
    CausalMask,
    ColSoftmax,
    Concat,
    Dot,
    Entry,
    FromColumn,
    Hadamard,
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
)
from symattn.kernel.modern import (
    CausalZero,
    FeatureMap,
    FirstRows,
    OnlineSoftmax,
    PadMask,
    PairDots,
    PositionBias,
    RepeatKV,
    Rope,
)

# Primes below 2^31: a product of two reduced values is below 2^62 and fits in int64.
PRIMES: tuple[int, ...] = (2_147_483_647, 2_147_483_629, 2_147_483_587)
_LIMB = 11  # limb width of the smaller matmul factor
_CHUNK = 1 << 11  # inner dimension per float64 product: 2^11 * 2^11 * 2^31 = 2^53
_SMALL = 1 << 16  # products with at most this many multiplications skip the limbs

Range = tuple[sympy.Expr, sympy.Expr]
Draw = Callable[[tuple, tuple[int, int], np.random.Generator, int], np.ndarray]


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
            result = result * base % p
        base = base * base % p
        k >>= 1
    return result


def inverse(x: Any, p: int) -> Any:
    """The modular inverse (Fermat); a zero anywhere means this trial must be drawn again."""
    if np.any(np.asarray(x) % p == 0):
        raise Resample
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


class ModP(Arithmetic):
    """Exact arithmetic mod a prime p below 2^31 (every product of two values fits in int64).

    `exp(x)` is a random function of the value of x (one fresh element per distinct value, the
    same on both sides); an algebraic number such as `sqrt(2)` is one fresh element; softmax
    divides by the modular inverse of the row sum; masked entries are exact zeros in a softmax.
    """

    name = "mod p"
    dtype = np.int64
    probes = True

    def __init__(self, p: int):
        self.p = p

    def draw(self, key: tuple, shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
        return uniform(key, shape, rng, self.p)

    def adopt(self, arr: np.ndarray) -> np.ndarray:
        return np.asarray(arr, dtype=np.int64) % self.p

    def constant(self, e: sympy.Basic, ev: Evaluator) -> Any:
        p = self.p
        if e.is_Rational:
            return int(e.p) % p * pow(int(e.q) % p, -1, p) % p
        if e in (sympy.oo, -sympy.oo):
            raise Unsupported(
                "an infinite value (a causal mask outside a softmax) has no field value"
            )
        if e.is_number and e.is_algebraic:
            if e not in ev.atoms:  # sqrt(2): a free element, the same one wherever it appears
                ev.atoms[e] = int(ev.rng.integers(1, p))
            return ev.atoms[e]
        raise Unsupported(f"cannot evaluate the number {e} exactly")

    def index(self, v: Any) -> Any:
        return v % self.p

    def add(self, a: Any, b: Any) -> Any:
        return (a + b) % self.p

    def mul(self, a: Any, b: Any) -> Any:
        return a * b % self.p

    def inverse(self, a: Any) -> Any:
        return inverse(a, self.p)

    def power(self, a: Any, k: int) -> Any:
        return power(a, k, self.p)

    def exp(self, x: Any, ev: Evaluator) -> Any:
        """A random function of the value: the same argument always gets the same exp."""
        arr = np.asarray(x, dtype=np.int64)
        flat = arr.ravel()
        out = np.empty_like(flat)
        for k, v in enumerate(flat.tolist()):
            e = ev.oracle.get(v)
            if e is None:
                e = ev.oracle[v] = int(ev.rng.integers(1, self.p))
            out[k] = e
        return out.reshape(arr.shape) if arr.ndim else int(out[0])

    def trig(self, name: str, x: Any, ev: Evaluator) -> Any:
        """cos and sin as two more random functions (a rotary identity that needs only the
        addition formulas holds with them as variables)."""
        arr = np.asarray(x, dtype=np.int64)
        flat = arr.ravel()
        out = np.empty_like(flat)
        for k, v in enumerate(flat.tolist()):
            e = ev.oracle.get((name, v))
            if e is None:
                e = ev.oracle[(name, v)] = int(ev.rng.integers(1, self.p))
            out[k] = e
        return out.reshape(arr.shape) if arr.ndim else int(out[0])

    def matmul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return matmul(a, b, self.p)

    def total(self, a: np.ndarray, axis: int, keepdims: bool = False) -> Any:
        # reduced values below 2^31: a sum of fewer than 2^32 of them fits in int64
        return np.asarray(a).sum(axis=axis, keepdims=keepdims) % self.p

    def times(self, a: Any, count: int) -> Any:
        return a * count % self.p

    def softmax(self, s: np.ndarray, keep: np.ndarray | None, axis: int, ev: Evaluator) -> Any:
        e = np.asarray(self.exp(s, ev), dtype=np.int64)
        if keep is not None:
            e = e * keep  # exp(-inf) is exactly 0
        return e * inverse(self.total(e, axis, keepdims=True), self.p) % self.p

    def equal(self, x: Any, y: Any) -> Any:
        return np.asarray(x) == np.asarray(y)


# ---- degree bound -------------------------------------------------------------------------


@dataclass
class _Deg:
    """Degrees (numerator, denominator) of an entry as a rational function of leaves and atoms."""

    sizes: Callable[[sympy.Expr], int]
    score: int = 0  # largest degree of an exp argument (for collisions of the exp atoms)

    def mat(self, m: MatExpr) -> tuple[int, int]:
        f = DEGREE.find(type(m))
        if f is None:
            raise Unsupported(f"no degree bound for {type(m).__name__}")
        return f(self, m)

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
        f = DEGREE.find(type(e))
        if f is None:
            raise Unsupported(f"no degree bound for {type(e).__name__}")
        return f(self, e)


Degree = Callable[[_Deg, Any], tuple[int, int]]
DEGREE: Dispatcher[Degree] = Dispatcher("degree bound")


@DEGREE.register(MatSym, FeatureMap, HeadSym, FromColumn)
def _deg_leaf(deg: _Deg, m: MatExpr) -> tuple[int, int]:
    return (1, 0)


@DEGREE.register(Ones)
def _deg_ones(deg: _Deg, m: Ones) -> tuple[int, int]:
    return (0, 0)


@DEGREE.register(MatMul)
def _deg_matmul(deg: _Deg, m: MatMul) -> tuple[int, int]:
    a, b = deg.mat(m.args[0]), deg.mat(m.args[1])
    return _repeat((a[0] + b[0], a[1] + b[1]), deg.sizes(m.args[0].cols))


@DEGREE.register(MatAdd)
def _deg_matadd(deg: _Deg, m: MatAdd) -> tuple[int, int]:
    return _plus(deg.mat(m.args[0]), deg.mat(m.args[1]))


@DEGREE.register(Hadamard)
def _deg_hadamard(deg: _Deg, m: Hadamard) -> tuple[int, int]:
    a, b = deg.mat(m.args[0]), deg.mat(m.args[1])
    return (a[0] + b[0], a[1] + b[1])


@DEGREE.register(Scale)
def _deg_scale(deg: _Deg, m: Scale) -> tuple[int, int]:
    c, a = deg.scalar(m.scalar), deg.mat(m.args[1])
    return (c[0] + a[0], c[1] + a[1])


@DEGREE.register(Softmax, ColSoftmax)
def _deg_softmax(deg: _Deg, m: MatExpr) -> tuple[int, int]:
    s = m.args[0]
    s = s.args[0] if isinstance(s, (CausalMask, PadMask)) else s
    inner = deg.mat(s)
    deg.score = max(deg.score, inner[0] + inner[1])
    return (1, 1)


@DEGREE.register(MatSum)
def _deg_matsum(deg: _Deg, m: MatSum) -> tuple[int, int]:
    return _repeat(deg.mat(m.body), deg._count(m.args[2], m.args[3]))


@DEGREE.register(Concat)
def _deg_concat(deg: _Deg, m: Concat) -> tuple[int, int]:
    return deg.mat(m.body)


@DEGREE.register(Transpose, Row, RowBlock, CausalMask, RepeatKV, FirstRows)
def _deg_first_arg(deg: _Deg, m: MatExpr) -> tuple[int, int]:
    return deg.mat(m.args[0])


@DEGREE.register(PositionBias, PadMask, CausalZero, Rope, PairDots, OnlineSoftmax)
def _deg_by_entries(deg: _Deg, m: MatExpr) -> tuple[int, int]:
    i, j = sympy.Dummy("i", integer=True), sympy.Dummy("j", integer=True)
    return deg.scalar(m.entry(i, j))


@DEGREE.register(sympy.Symbol)
def _deg_symbol(deg: _Deg, e: sympy.Symbol) -> tuple[int, int]:
    return (0, 0) if e.is_integer else (1, 0)


@DEGREE.register(sympy.Add)
def _deg_add(deg: _Deg, e: sympy.Add) -> tuple[int, int]:
    out = (0, 0)
    for a in e.args:
        out = _plus(out, deg.scalar(a))
    return out


@DEGREE.register(sympy.Mul)
def _deg_mul(deg: _Deg, e: sympy.Mul) -> tuple[int, int]:
    parts = [deg.scalar(a) for a in e.args]
    return (sum(x for x, _ in parts), sum(y for _, y in parts))


@DEGREE.register(sympy.Pow)
def _deg_pow(deg: _Deg, e: sympy.Pow) -> tuple[int, int]:
    if not e.exp.is_Integer:
        raise Unsupported(f"no degree bound for {type(e).__name__}")
    b, k = deg.scalar(e.base), int(e.exp)
    return (k * b[0], k * b[1]) if k >= 0 else (-k * b[1], -k * b[0])


@DEGREE.register(sympy.exp, sympy.cos, sympy.sin)
def _deg_exp(deg: _Deg, e: sympy.Basic) -> tuple[int, int]:
    a = deg.scalar(e.args[0])
    deg.score = max(deg.score, a[0] + a[1])
    return (1, 0)


@DEGREE.register(sympy.Sum)
def _deg_sum(deg: _Deg, e: sympy.Sum) -> tuple[int, int]:
    out = deg.scalar(e.function)
    for _, lo, hi in e.limits:
        out = _repeat(out, deg._count(lo, hi))
    return out


@DEGREE.register(sympy.Indexed)
def _deg_indexed(deg: _Deg, e: sympy.Indexed) -> tuple[int, int]:
    return (1, 0)


@DEGREE.register(Entry)
def _deg_entry(deg: _Deg, e: Entry) -> tuple[int, int]:
    return deg.mat(e.matrix)


@DEGREE.register(Dot)
def _deg_dot(deg: _Deg, e: Dot) -> tuple[int, int]:
    u, v = deg.mat(e.args[0]), deg.mat(e.args[1])
    return _repeat((u[0] + v[0], u[1] + v[1]), deg.sizes(e.args[0].cols))


@DEGREE.register(sympy.Piecewise)
def _deg_piecewise(deg: _Deg, e: sympy.Piecewise) -> tuple[int, int]:
    parts = [deg.scalar(x) for x, _ in e.args if x not in (sympy.oo, -sympy.oo)]
    return (max(x for x, _ in parts), max(y for _, y in parts))


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

    >>> from symattn.kernel.attention import single_head
    >>> from symattn.kernel.expr import Dot, index
    >>> s = single_head(n=7, d=512, d_k=64, d_v=64); i, j = index("i"), index("j")
    >>> r = {i: (1, 7), j: (1, 7)}
    >>> check(s.scores[i, j], Dot(s.Q.row(i), s.K.row(j)), r).equal
    True
    >>> check(s.scores[i, j], Dot(s.Q.row(j), s.K.row(i)), r).where
    (('i', 2), ('j', 1))
    """
    shapes = learn_shapes(lhs, rhs)
    free = ordered(ranges)
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


def degree_bound(lhs: sympy.Basic, rhs: sympy.Basic, f: Evaluator) -> tuple[int, int, int]:
    """(degree of lhs - rhs cleared of denominators, degree of the denominators, exp-arg degree)."""

    def sizes(e: sympy.Expr) -> int:
        return f.size(e) if not e.free_symbols else _largest(e, f)

    deg = _Deg(sizes)
    a = deg.mat(lhs) if isinstance(lhs, MatExpr) else deg.scalar(lhs)
    b = deg.mat(rhs) if isinstance(rhs, MatExpr) else deg.scalar(rhs)
    return max(a[0] + b[1], b[0] + a[1], 1), a[1] + b[1], deg.score


def _largest(e: sympy.Expr, f: Evaluator) -> int:
    # An index-dependent bound (sum_{j <= i}): bounded by the largest size in the claim.
    biggest = max((max(s) for s in f.shapes.values()), default=1)
    return max(int(e.xreplace({s: biggest for s in e.free_symbols})), 1)


def _trial(lhs, rhs, free, shapes, p, seed, assuming):
    for attempt in range(8):
        f = Evaluator(ModP(p), np.random.default_rng([seed, attempt]), shapes)
        try:
            found, points = compare(f, lhs, rhs, free, assuming)
        except Resample:
            continue
        except _Loop as exc:  # an index bound nowhere we can loop over
            raise Unsupported(f"index {exc.var} has no single value here") from None
        if found is not None:
            where, left, right = found
            found = (where, int(left), int(right))
        return f, found, points
    raise Unsupported("a denominator vanished mod p at every point drawn")
