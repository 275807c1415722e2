"""The oracle's evaluator: both sides of a claim with numpy at one plan and one point.

Imports only numpy, the standard library and the oracle's own modules; nothing else from symattn
(a test checks it).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

import numpy as np

from symattn.soundness.oracle.claims import (
    MAT_TYPES,
    Add,
    Block,
    ColSoftmax,
    Concat,
    Dot,
    Entry,
    FromCol,
    HeadMat,
    Ix,
    Mask,
    MatMul,
    MSum,
    Node,
    Num,
    Ones,
    Row,
    SAdd,
    Scale,
    SMul,
    Softmax,
    Sqrt,
    SSum,
    Sym,
    Tr,
    nodes,
)
from symattn.soundness.oracle.plans import Context
from symattn.soundness.oracle.shapes import IllFormed, IllTyped, Shapes

RTOL = 1e-8


ATOL = 1e-11


class NotExact(Exception):
    """The claim has a value that is not rational at this plan (an exp, a square root of a
    size that is no square): it is evaluated in floats instead."""


# ---- evaluation ----------------------------------------------------------------------------


class Evaluator:
    """Both sides of a claim at one plan, one seed: numpy arrays and Python loops. With `exact`,
    entries are random integers and every value a Python integer or `Fraction` (numpy object
    arrays), so two sides are compared exactly; a value that is not rational raises NotExact.

    A masked entry is -inf. A mask, a transpose, a row, a block leave it a value; arithmetic on it
    (a sum, a positive scaling) is defined only inside a softmax (`scoring` counts the softmaxes
    around the node being evaluated), and nowhere else: `_infinite_operand` says what is refused.
    """

    def __init__(
        self,
        plan: Mapping[str, int],
        seed: int,
        written: Mapping[str, np.ndarray] | None = None,
        exact: bool = False,
    ):
        self.plan = dict(plan)
        self.exact = exact
        self.rng = np.random.default_rng(seed)
        self.data: dict[tuple[str, int], np.ndarray] = {
            (name, 0): _ints(arr) if exact else arr for name, arr in (written or {}).items()
        }
        self._names: dict[int, tuple[str, ...]] = {}
        self._memo: dict[tuple[Any, ...], np.ndarray] = {}
        self.scoring = 0

    def _leaf(self, key: str, head: int, rows: int, cols: int) -> np.ndarray:
        arr = self.data.get((key, head))
        if arr is None:
            if self.exact:
                ints = self.rng.integers(-(10**6), 10**6, size=(rows, cols), endpoint=True)
                arr = np.array([[int(v) for v in row] for row in ints], dtype=object)
                arr = arr.reshape(rows, cols)
            else:
                arr = self.rng.uniform(-1.0, 1.0, size=(rows, cols))
            self.data[(key, head)] = arr
        if arr.shape != (rows, cols):
            raise IllTyped(f"{key} at two shapes")
        return arr

    def ix(self, e: Ix, env: Mapping[str, int]) -> int:
        full = {**self.plan, **env}
        missing = e.names() - set(full)
        if missing:
            raise IllFormed(f"index {sorted(missing)} is neither free nor bound")
        return e.value(full)

    def mat(self, x: Node, env: Mapping[str, int]) -> np.ndarray:
        """The value of a matrix node (memoised on the index values its subtree reads)."""
        names = self._names.get(id(x))
        if names is None:
            names = self._names[id(x)] = tuple(sorted(_index_names(x)))
        key = (id(x), self.scoring > 0, *(env.get(k) for k in names))
        out = self._memo.get(key)
        if out is None:
            out = self._memo[key] = self._mat(x, env)
        return out

    def _mat(self, x: Node, env: Mapping[str, int]) -> np.ndarray:
        f = _MATRIX.get(type(x))
        if f is None:
            raise IllTyped(f"a scalar where a matrix is needed: {type(x).__name__}")
        return f(self, x, env)

    def zeros(self, shape: tuple[int, int]) -> np.ndarray:
        return np.zeros(shape, dtype=object if self.exact else float)

    def _shape_at(self, body: Node, env: Mapping[str, int]) -> tuple[int, int]:
        s = Shapes(Context("at", explicit=self.plan)).mat(body)
        return (s[0].value(self.plan), s[1].value(self.plan))

    def scalar(self, x: Node, env: Mapping[str, int]) -> float:
        f = _SCALAR.get(type(x))
        if f is None:
            raise IllTyped(f"a matrix where a scalar is needed: {type(x).__name__}")
        return f(self, x, env)

    def value(self, x: Node, env: Mapping[str, int]) -> Any:
        if isinstance(x, MAT_TYPES):
            return self.mat(x, env)
        return self.scalar(x, env)


# The value of each node, by its class: matrices as numpy arrays, scalars as floats.
Value = Callable[[Evaluator, Any, Mapping[str, int]], Any]


_MATRIX: dict[type, Value] = {}


_SCALAR: dict[type, Value] = {}


def _value_of(table: dict[type, Value], *classes: type) -> Callable[[Value], Value]:
    def add(f: Value) -> Value:
        table.update(dict.fromkeys(classes, f))
        return f

    return add


@_value_of(_MATRIX, Sym)
def _sym(ev: Evaluator, x: Sym, env: Mapping[str, int]) -> np.ndarray:
    p = ev.plan
    return ev._leaf(x.name, 0, x.rows.value(p), x.cols.value(p))


@_value_of(_MATRIX, HeadMat)
def _head(ev: Evaluator, x: HeadMat, env: Mapping[str, int]) -> np.ndarray:
    p = ev.plan
    h = ev.ix(x.head, env)
    if not 1 <= h <= p["H"]:
        raise IllFormed(f"head {h} of {x.name} outside 1..H")
    return ev._leaf(x.name + "^(h)", h, x.rows.value(p), x.cols.value(p))


@_value_of(_MATRIX, Ones)
def _ones(ev: Evaluator, x: Ones, env: Mapping[str, int]) -> np.ndarray:
    p = ev.plan
    return np.ones((x.rows.value(p), x.cols.value(p)), dtype=object if ev.exact else float)


@_value_of(_MATRIX, FromCol)
def _fromcol(ev: Evaluator, x: FromCol, env: Mapping[str, int]) -> np.ndarray:
    p = ev.plan
    col = ev._leaf(x.name + "1^T", 0, x.rows.value(p), 1)
    return np.repeat(col, x.cols.value(p), axis=1)


def _infinite_operand(ev: Evaluator, what: str, *operands: Any, sums: bool = False) -> None:
    """Refuse arithmetic on a masked (-inf) operand: everywhere for products, dot products,
    scalar arithmetic and sums over heads; outside a softmax for sums and positive scalings
    (`sums`), where -inf + x = -inf and c · (-inf) = -inf are the scores' extended reals."""
    if all(np.all(np.isfinite(np.asarray(v, dtype=float))) for v in operands):
        return
    if not sums:
        raise IllFormed(f"{what} of a masked (-inf) entry")
    if ev.scoring == 0:
        raise IllFormed(f"{what} of a masked (-inf) entry outside a softmax")


@_value_of(_MATRIX, MatMul)
def _matmul(ev: Evaluator, x: MatMul, env: Mapping[str, int]) -> np.ndarray:
    a, b = ev.mat(x.a, env), ev.mat(x.b, env)
    _infinite_operand(ev, "a product", a, b)
    if a.shape[1] != b.shape[0]:
        raise IllTyped("inner dims")
    out = ev.zeros((a.shape[0], b.shape[1]))
    for i in range(a.shape[0]):
        for j in range(b.shape[1]):
            out[i, j] = sum(a[i, k] * b[k, j] for k in range(a.shape[1]))
    return out


@_value_of(_MATRIX, Tr)
def _tr(ev: Evaluator, x: Tr, env: Mapping[str, int]) -> np.ndarray:
    return ev.mat(x.a, env).T.copy()


@_value_of(_MATRIX, Add)
def _add(ev: Evaluator, x: Add, env: Mapping[str, int]) -> np.ndarray:
    a, b = ev.mat(x.a, env), ev.mat(x.b, env)
    if a.shape != b.shape:
        raise IllTyped("sum of two shapes")
    _infinite_operand(ev, "a sum", a, b, sums=True)
    return a + b


@_value_of(_MATRIX, Scale)
def _scale(ev: Evaluator, x: Scale, env: Mapping[str, int]) -> np.ndarray:
    c, a = ev.scalar(x.c, env), ev.mat(x.a, env)
    if not math.isfinite(c):
        raise IllFormed(f"the scaling factor {c} is not finite")
    if c <= 0:
        _infinite_operand(ev, f"a scaling by {c}", a)
    _infinite_operand(ev, "a scaling", a, sums=True)
    return c * a


@_value_of(_MATRIX, Softmax)
def _softmax(ev: Evaluator, x: Softmax, env: Mapping[str, int]) -> np.ndarray:
    if ev.exact:
        raise NotExact("exp")
    return _softmax_rows(_scores(ev, x.a, env))


@_value_of(_MATRIX, ColSoftmax)
def _colsoftmax(ev: Evaluator, x: ColSoftmax, env: Mapping[str, int]) -> np.ndarray:
    if ev.exact:
        raise NotExact("exp")
    return _softmax_rows(_scores(ev, x.a, env).T).T.copy()


def _scores(ev: Evaluator, a: Node, env: Mapping[str, int]) -> np.ndarray:
    ev.scoring += 1
    try:
        return ev.mat(a, env)
    finally:
        ev.scoring -= 1


@_value_of(_MATRIX, Mask)
def _mask(ev: Evaluator, x: Mask, env: Mapping[str, int]) -> np.ndarray:
    a = ev.mat(x.a, env).copy()
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            if (j < i) if x.upper else (j > i):
                a[i, j] = -math.inf
    return a


@_value_of(_MATRIX, Row)
def _row(ev: Evaluator, x: Row, env: Mapping[str, int]) -> np.ndarray:
    a = ev.mat(x.a, env)
    i = ev.ix(x.i, env)
    if not 1 <= i <= a.shape[0]:
        raise IllFormed(f"row {i} of a matrix with {a.shape[0]} rows")
    return a[i - 1 : i, :].copy()


@_value_of(_MATRIX, Concat)
def _concat(ev: Evaluator, x: Concat, env: Mapping[str, int]) -> np.ndarray:
    p = ev.plan
    parts = [ev.mat(x.body, {**env, x.var: h}) for h in range(1, x.count.value(p) + 1)]
    _infinite_operand(ev, "a concatenation", *parts)
    return np.hstack(parts)


@_value_of(_MATRIX, Block)
def _block(ev: Evaluator, x: Block, env: Mapping[str, int]) -> np.ndarray:
    p = ev.plan
    a = ev.mat(x.a, env)
    h, m, count = ev.ix(x.head, env), x.m.value(p), x.count.value(p)
    if a.shape[0] != m * count:
        raise IllTyped("block size")
    if not 1 <= h <= count:
        raise IllFormed(f"block {h} of {count}")
    return a[(h - 1) * m : h * m, :].copy()


@_value_of(_MATRIX, MSum)
def _msum(ev: Evaluator, x: MSum, env: Mapping[str, int]) -> np.ndarray:
    lo, hi = ev.ix(x.lo, env), ev.ix(x.hi, env)
    if hi < lo - 1:
        raise IllFormed(f"reversed sum range {lo}..{hi}")
    if hi < lo:
        return ev.zeros(ev._shape_at(x.body, env))
    total = None
    for k in range(lo, hi + 1):
        term = ev.mat(x.body, {**env, x.var: k})
        _infinite_operand(ev, "a sum over heads", term)
        total = term if total is None else total + term
    assert total is not None
    return total


@_value_of(_SCALAR, Num)
def _num(ev: Evaluator, x: Num, env: Mapping[str, int]) -> Any:
    return Fraction(x.value) if ev.exact else float(x.value)


@_value_of(_SCALAR, Sqrt)
def _sqrt(ev: Evaluator, x: Sqrt, env: Mapping[str, int]) -> Any:
    v = x.dim.value(ev.plan)
    if not ev.exact:
        return float(v) ** (x.power / 2)
    if x.power % 2 == 0:
        return Fraction(v) ** (x.power // 2)
    root = math.isqrt(v)
    if root * root != v:
        raise NotExact(f"sqrt({v})")
    return Fraction(root) ** x.power


@_value_of(_SCALAR, Entry)
def _entry(ev: Evaluator, x: Entry, env: Mapping[str, int]) -> float:
    m = ev.mat(x.m, env)
    i, j = ev.ix(x.i, env), ev.ix(x.j, env)
    if not (1 <= i <= m.shape[0] and 1 <= j <= m.shape[1]):
        raise IllFormed(f"entry ({i},{j}) of a {m.shape} matrix")
    return m[i - 1, j - 1] if ev.exact else float(m[i - 1, j - 1])


@_value_of(_SCALAR, Dot)
def _dot(ev: Evaluator, x: Dot, env: Mapping[str, int]) -> float:
    u, v = ev.mat(x.u, env), ev.mat(x.v, env)
    if u.shape != v.shape or 1 not in u.shape:
        raise IllTyped("dot of two shapes")
    _infinite_operand(ev, "a dot product", u, v)
    total = sum(a * b for a, b in zip(u.ravel(), v.ravel(), strict=True))
    return total if ev.exact else float(total)


@_value_of(_SCALAR, SMul)
def _smul(ev: Evaluator, x: SMul, env: Mapping[str, int]) -> float:
    a, b = ev.scalar(x.a, env), ev.scalar(x.b, env)
    _infinite_operand(ev, "a scalar product", a, b)
    return a * b


@_value_of(_SCALAR, SAdd)
def _sadd(ev: Evaluator, x: SAdd, env: Mapping[str, int]) -> float:
    a, b = ev.scalar(x.a, env), ev.scalar(x.b, env)
    _infinite_operand(ev, "a scalar sum", a, b)
    return a + b


@_value_of(_SCALAR, SSum)
def _ssum(ev: Evaluator, x: SSum, env: Mapping[str, int]) -> float:
    lo, hi = ev.ix(x.lo, env), ev.ix(x.hi, env)
    if hi < lo - 1:
        raise IllFormed(f"reversed sum range {lo}..{hi}")
    terms = [ev.scalar(x.body, {**env, x.var: k}) for k in range(lo, hi + 1)]
    _infinite_operand(ev, "a scalar sum", *terms)
    total = sum(terms)
    return total if ev.exact else float(total)


def _index_names(x: Node) -> set[str]:
    out: set[str] = set()
    for y in nodes(x):
        for v in vars(y).values():
            if isinstance(v, Ix):
                out |= v.names()
    return out


def _softmax_rows(a: np.ndarray) -> np.ndarray:
    out = np.zeros_like(a, dtype=float)
    for i in range(a.shape[0]):
        row = a[i]
        if np.any(np.isnan(row)) or np.any(row == math.inf):
            raise IllFormed("a softmax of +inf or nan")
        top = max(row)
        if top == -math.inf:
            raise IllFormed("softmax of a fully masked row")
        ex = [0.0 if v == -math.inf else math.exp(v - top) for v in row]
        total = sum(ex)
        out[i] = [e / total for e in ex]
    return out


def _close(x: Any, y: Any) -> bool:
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if np.any(np.isnan(a)) or np.any(np.isnan(b)) or np.any(a == math.inf) or np.any(b == math.inf):
        raise IllFormed("a value is +inf or nan")
    if a.shape != b.shape:
        if a.size == 1 and b.size == 1:
            a, b = a.reshape(()), b.reshape(())
        else:
            return False
    return bool(np.allclose(a, b, rtol=RTOL, atol=ATOL))


def _ints(arr: np.ndarray) -> np.ndarray:
    """Integer entries written out, as Python integers (exact arithmetic)."""
    out = np.empty(arr.shape, dtype=object)
    for k, v in np.ndenumerate(arr):
        if v != int(v):
            raise NotExact(f"entry {v}")
        out[k] = int(v)
    return out


def _equal(x: Any, y: Any) -> bool:
    """Exact equality of two values of the exact evaluator (1 x 1 against a scalar allowed)."""
    a, b = np.asarray(x, dtype=object), np.asarray(y, dtype=object)
    for v in (*a.ravel(), *b.ravel()):
        # a masked entry (-inf) is a value, as in `_close`; arithmetic on one was refused
        if isinstance(v, float) and (math.isnan(v) or v == math.inf):
            raise IllFormed("a value is +inf or nan")
    if a.shape != b.shape and not (a.size == 1 and b.size == 1):
        return False
    return all(p == q for p, q in zip(a.ravel(), b.ravel(), strict=True))
