"""The one evaluator of kernel expressions: a walker over the nodes with pluggable arithmetic.

Imports only numpy, sympy and the kernel below it (dispatch, semantics, expr, modern, arithmetic);
must not import the witnesses or anything above them. The arithmetics live in the witnesses
(`witness.field.ModP`: exact mod p; `witness.numeric.Float64`, both `arithmetic.Arithmetic`) and
are passed in, so there is one walker and one meaning of every node, sum and index, whatever the
numbers are. Each node's handler is found by its class (`MATRIX`, `SCALAR`: `kernel.dispatch`).

Free indices can be bound to whole axes (`bind`), so a claim is evaluated at every index point at
once; a matrix that depends on such an index is evaluated value by value instead (`_Loop`).
Sums follow `symattn.kernel.semantics`: an empty range is 0, a reversed range is refused. Two
sides are compared at every index point with this walker by `kernel.compare`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import sympy

from symattn.kernel.arithmetic import Arithmetic as Arithmetic
from symattn.kernel.arithmetic import Draw as Draw
from symattn.kernel.arithmetic import IllFormedHere as IllFormedHere
from symattn.kernel.arithmetic import Range as Range
from symattn.kernel.arithmetic import Resample as Resample
from symattn.kernel.arithmetic import Unsupported as Unsupported
from symattn.kernel.dispatch import Dispatcher
from symattn.kernel.errors import Signal
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
    named_shapes,
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
from symattn.kernel.semantics import summation_range


class _Loop(Signal):
    """A matrix depends on an index bound to a whole range: evaluate that index value by value."""

    def __init__(self, var: sympy.Symbol):
        super().__init__(str(var))
        self.var = var


class Evaluator:
    """One evaluation point: leaf matrices, atoms and the values of the indices in scope."""

    def __init__(
        self,
        arith: Arithmetic,
        rng: np.random.Generator,
        shapes: Mapping[str, tuple[int, int]],
        draw: Draw | None = None,
    ):
        self.arith, self.rng, self.shapes, self.draw = arith, rng, dict(shapes), draw
        self.leaves: dict[tuple, np.ndarray] = {}
        self.env: dict[sympy.Symbol, Any] = {}
        self.depth = 0
        self.cache: dict[tuple, np.ndarray] = {}
        self.products: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        self.oracle: dict[Any, Any] = {}  # exp as a random function, for exact arithmetics
        self.atoms: dict[sympy.Basic, Any] = {}  # algebraic numbers as free elements
        self._free: dict[sympy.Basic, tuple[sympy.Symbol, ...]] = {}

    # -- leaves --
    def leaf(self, key: tuple, shape: tuple[int, int]) -> np.ndarray:
        arr = self.leaves.get(key)
        if arr is None:
            if self.draw is not None:
                arr = self.arith.adopt(self.draw(key, shape, self.rng))
            else:
                arr = self.arith.draw(key, shape, self.rng)
            self.leaves[key] = arr
        if arr.shape != shape:
            raise IllFormedHere(f"{key[0]} is used with shapes {arr.shape} and {shape}")
        return arr

    def variable(self, s: sympy.Symbol) -> Any:
        """A free scalar such as `c` in `c A`: a genuine variable, drawn like an entry."""
        return self.leaf(("scalar", s.name), (1, 1))[0, 0]

    def probe(self, width: int) -> np.ndarray:
        """A random column vector (the same one for both sides of the claim)."""
        return self.leaf(("probe", width), (width, 1))

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
        if isinstance(e, sympy.ceiling):  # the K/V head of a query head: ceil(h/r)
            num, den = sympy.fraction(sympy.together(e.args[0]))
            return -((-self.index(num)) // self.index(den))
        if isinstance(e, sympy.Mod):
            return self.index(e.args[0]) % self.index(e.args[1])
        raise Unsupported(f"cannot use {e} as an index")

    def one(self, e: sympy.Expr) -> int:
        """An index expression that must be a single int here."""
        v = self.index(e)
        if isinstance(v, np.ndarray):
            raise _Loop(next(s for s in self.deps(e) if isinstance(self.env[s], np.ndarray)))
        return int(v)

    def size(self, e: sympy.Expr) -> int:
        v = self.one(e)
        if v < 1:
            raise Unsupported(f"size {e} is {v}")
        return v

    def shape(self, m: MatExpr) -> tuple[int, int]:
        return (self.size(m.rows), self.size(m.cols))

    # -- values --
    def mat(self, m: MatExpr) -> np.ndarray:
        """A matrix expression as an array; cached per values of the indices it depends on."""
        values = []
        for s in self.deps(m):
            v = self.env[s]
            if isinstance(v, np.ndarray):
                raise _Loop(s)
            values.append(v)
        key = (m, tuple(values))
        out = self.cache.get(key)
        if out is None:
            f = MATRIX.find(type(m))
            if f is None:
                raise Unsupported(f"{type(m).__name__} has no evaluation")
            out = self.cache[key] = f(self, m)
        return out

    def scalar(self, e: sympy.Basic) -> Any:
        """A scalar (an array when it ranges over index axes)."""
        if e.is_Number or e.is_NumberSymbol or e in (sympy.oo, -sympy.oo):
            return self.arith.constant(e, self)
        f = SCALAR.find(type(e))
        if f is not None:
            return f(self, e)
        if e.is_number:
            return self.arith.constant(e, self)
        raise Unsupported(f"{type(e).__name__} has no evaluation")

    def bind(self, v: sympy.Symbol, lo: int, hi: int, body: Callable[[], Any]) -> Any:
        """Run `body` with `v` bound to the axis lo..hi."""
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


def _label(m: MatExpr) -> str:
    return m.args[0].name  # the Str's text, without sympy's printer


def _leaf(f: Evaluator, m: MatSym) -> np.ndarray:
    return f.leaf((_label(m),), f.shape(m))


def _head(f: Evaluator, m: HeadSym) -> np.ndarray:
    return f.leaf((_label(m), f.one(m.head)), f.shape(m))


def _column(f: Evaluator, m: FromColumn) -> np.ndarray:
    rows, cols = f.shape(m)
    return np.repeat(f.leaf((_label(m), "column"), (rows, 1)), cols, axis=1)


def _scale(f: Evaluator, m: Scale) -> np.ndarray:
    return f.arith.mul(_scale_value(f, m), f.mat(m.args[1]))


def _scale_value(f: Evaluator, m: Scale) -> Any:
    c = f.scalar(m.scalar)
    if isinstance(c, np.ndarray) and c.ndim:
        raise Unsupported(f"scale {m.scalar} is not a single number here")
    return c


def _softmax(f: Evaluator, m: MatExpr, axis: int) -> np.ndarray:
    # Masks around the scores remove keys; every mask counts (a causal mask of padded scores
    # keeps j <= i and j <= valid). A line with no key left has weights 0 when the softmax's own
    # argument is a key mask (as PadMask defines it), and no value otherwise.
    s, keep = m.args[0], None
    zero_if_empty = isinstance(s, PadMask)
    while isinstance(s, (CausalMask, PadMask)):
        here = _keeps(f, s)
        keep = here if keep is None else keep & here
        s = s.args[0]
    scores = f.mat(s)
    if keep is None:
        return f.arith.softmax(scores, None, axis, f)
    live = keep.any(axis=axis)
    if not zero_if_empty or live.all():
        return f.arith.softmax(scores, keep, axis, f)
    out = np.zeros(scores.shape, dtype=f.arith.dtype)
    if not live.any():
        return out
    if axis == 1:
        out[live] = f.arith.softmax(scores[live], keep[live], 1, f)
    else:
        out[:, live] = f.arith.softmax(scores[:, live], keep[:, live], 0, f)
    return out


def _keeps(f: Evaluator, s: MatExpr) -> np.ndarray:
    """Where a mask keeps its argument's entry (True) rather than giving -inf."""
    rows, cols = f.shape(s)
    if isinstance(s, CausalMask):
        tri = np.triu if s.upper else np.tril
        return tri(np.ones((rows, cols), dtype=bool))
    valid = f.one(s.valid)
    return np.broadcast_to(np.arange(1, cols + 1) <= valid, (rows, cols))


def _online(f: Evaluator, m: OnlineSoftmax) -> np.ndarray:
    # The definition's o_B / l_B in a stable form, equal to it for every E with no zero entry:
    # rescaled at every block, the E's cancel and it is softmax(S) V; not rescaled, block c's
    # share is scaled by E_B / E_c. softmax subtracts each row's running maximum, so scores
    # beyond +-709 do not overflow as e^{S} / E would.
    weights, values = f.arith.softmax(f.mat(m.args[0]), None, 1, f), f.mat(m.args[1])
    if m.rescale:
        return f.arith.matmul(weights, values)
    e = f.mat(m.maxima)
    total = np.zeros(f.shape(m), dtype=f.arith.dtype)
    start = 0
    for c, block in enumerate(m.blocks):
        size = f.size(block)
        part = f.arith.matmul(weights[:, start : start + size], values[start : start + size])
        part = f.arith.mul(f.arith.mul(e[:, -1:], f.arith.inverse(e[:, c : c + 1])), part)
        total = f.arith.add(total, part)
        start += size
    return total


def _by_entries(f: Evaluator, m: MatExpr) -> np.ndarray:
    """A node evaluated through its own `entry(i, j)`: one meaning in every arithmetic."""
    rows, cols = f.shape(m)
    i, j = sympy.Dummy("i", integer=True, positive=True), sympy.Dummy("j", integer=True)
    e = m.entry(i, j)
    d = f.depth
    f.depth = 0
    try:
        val = f.bind(i, 1, rows, lambda: f.bind(j, 1, cols, lambda: f.scalar(e)))
    finally:
        f.depth = d
    val = np.broadcast_to(np.asarray(val, dtype=f.arith.dtype), (cols, rows))
    return np.ascontiguousarray(val.T)


def _repeat_kv(f: Evaluator, m: RepeatKV) -> np.ndarray:
    a = f.mat(m.args[0])
    g, r, w = f.size(m.groups), f.size(m.r), f.size(m.width)
    heads = a.reshape(a.shape[0], g, w)
    if m.order == "tile":
        out = np.tile(heads, (1, r, 1))
    else:
        out = np.repeat(heads, r, axis=1)
    return out.reshape(a.shape[0], g * r * w)


def _mask(f: Evaluator, m: CausalMask) -> np.ndarray:
    s = f.mat(m.args[0])
    tri = np.triu if m.upper else np.tril
    keep = tri(np.ones(s.shape, dtype=bool))
    return np.where(keep, s, f.arith.constant(-sympy.oo, f))


def _row(f: Evaluator, m: Row) -> np.ndarray:
    a = f.mat(m.args[0])
    i = _in_range(f.one(m.index), a.shape[0], m)
    return a[i - 1 : i]


def _rowblock(f: Evaluator, m: RowBlock) -> np.ndarray:
    a = f.mat(m.args[0])
    h, size = f.one(m.head), f.size(m.args[2])
    _in_range((h - 1) * size + 1, a.shape[0], m)
    _in_range(h * size, a.shape[0], m)
    return a[(h - 1) * size : h * size]


def _concat(f: Evaluator, m: Concat) -> np.ndarray:
    return np.hstack([f.mat(m.member(h)) for h in range(1, f.size(m.count) + 1)])


def _matsum(f: Evaluator, m: MatSum) -> np.ndarray:
    v, lo, hi = m.limits
    total = np.zeros(f.shape(m), dtype=f.arith.dtype)
    for k in summation_range(f.one(lo), f.one(hi), v):
        total = f.arith.add(total, f.fix(v, k, lambda: f.mat(m.body)))
    return total


def _in_range(i: int, size: int, where: object) -> int:
    if not 1 <= i <= size:
        raise IllFormedHere(f"index {i} outside 1..{size} in {where}")
    return i


_MATRIX: dict[type, Callable[[Evaluator, Any], np.ndarray]] = {
    MatSym: _leaf,
    HeadSym: _head,
    FromColumn: _column,
    Ones: lambda f, m: np.ones(f.shape(m), dtype=f.arith.dtype),
    MatMul: lambda f, m: f.arith.matmul(f.mat(m.args[0]), f.mat(m.args[1])),
    MatAdd: lambda f, m: f.arith.add(f.mat(m.args[0]), f.mat(m.args[1])),
    Scale: _scale,
    Hadamard: lambda f, m: f.arith.mul(f.mat(m.args[0]), f.mat(m.args[1])),
    Transpose: lambda f, m: f.mat(m.args[0]).T,
    Softmax: lambda f, m: _softmax(f, m, 1),
    ColSoftmax: lambda f, m: _softmax(f, m, 0),
    CausalMask: _mask,
    Row: _row,
    RowBlock: _rowblock,
    Concat: _concat,
    MatSum: _matsum,
    FeatureMap: lambda f, m: f.leaf((m.name,), f.shape(m)),
    RepeatKV: _repeat_kv,
    FirstRows: lambda f, m: f.mat(m.args[0])[: f.size(m.args[1])],
    PositionBias: _by_entries,
    PadMask: _by_entries,
    CausalZero: _by_entries,
    Rope: _by_entries,
    PairDots: _by_entries,
    OnlineSoftmax: _online,
}
MATRIX: Dispatcher[Callable[[Evaluator, Any], np.ndarray]] = Dispatcher(
    "evaluate (matrices)", _MATRIX
)


# ---- scalar nodes -------------------------------------------------------------------------


def _symbol(f: Evaluator, e: sympy.Symbol) -> Any:
    if e in f.env:
        return f.arith.index(f.env[e])
    if e.is_integer:
        raise Unsupported(f"no value for {e}")
    return f.variable(e)


def _add(f: Evaluator, e: sympy.Add) -> Any:
    acc: Any = None
    for a in e.args:
        x = f.scalar(a)
        acc = x if acc is None else f.arith.add(acc, x)
    return acc


def _mul(f: Evaluator, e: sympy.Mul) -> Any:
    acc: Any = None
    for a in e.args:
        x = f.scalar(a)
        acc = x if acc is None else f.arith.mul(acc, x)
    return acc


def _pow(f: Evaluator, e: sympy.Pow) -> Any:
    if e.exp.is_Integer:
        k = int(e.exp)
        base = f.scalar(e.base)
        if k < 0:
            base, k = f.arith.inverse(base), -k
        return f.arith.power(base, k)
    if e.is_number:
        return f.arith.constant(e, f)  # sqrt(2)
    return f.arith.real_power(f.scalar(e.base), f.scalar(e.exp), e)


def _sum(f: Evaluator, e: sympy.Sum) -> Any:
    return _sum_limits(f, e.function, list(e.limits))


def _sum_limits(f: Evaluator, body: sympy.Expr, limits: list) -> Any:
    if not limits:
        return f.scalar(body)
    v, lo, hi = limits[-1]  # sympy lists the innermost limit first
    a, b = f.one(lo), f.one(hi)
    if b < a:
        summation_range(a, b, v)  # refuses a reversed range; hi = lo - 1 is the empty sum
        return f.arith.constant(sympy.Integer(0), f)
    d = f.depth
    try:
        val = f.bind(v, a, b, lambda: _sum_limits(f, body, limits[:-1]))
    except _Loop as exc:
        if exc.var != v:
            raise
        total: Any = None
        for k in range(a, b + 1):
            x = f.fix(v, k, lambda: _sum_limits(f, body, limits[:-1]))
            total = x if total is None else f.arith.add(total, x)
        return total
    return _reduce(f, np.asarray(val), d, b - a + 1)


def _reduce(f: Evaluator, val: np.ndarray, d: int, length: int) -> Any:
    """Sum over the axis at position d from the right (absent or broadcast: times length)."""
    if val.ndim <= d:
        return f.arith.times(val, length)
    if val.shape[0] == 1:
        return f.arith.times(val[0], length)
    return f.arith.total(val, axis=0)


def _indexed(f: Evaluator, e: sympy.Indexed) -> Any:
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
        raise IllFormedHere(f"an index of {name} leaves 1..{size}")
    return i


def _at(i: Any) -> Any:
    return i - 1


def _entry(f: Evaluator, e: Entry) -> Any:
    m = f.mat(e.matrix)
    i = _check(f.index(e.args[1]), m.shape[0], e.matrix)
    j = _check(f.index(e.args[2]), m.shape[1], e.matrix)
    return m[_at(i), _at(j)]


def _rows(f: Evaluator, u: MatExpr) -> np.ndarray:
    """A row vector, or a stack of rows when its row index ranges over an axis."""
    if isinstance(u, Row) and not any(isinstance(f.env[s], np.ndarray) for s in f.deps(u.args[0])):
        m = f.mat(u.args[0])
        return m[_at(_check(f.index(u.index), m.shape[0], u))]
    return f.mat(u)[0]


def _dot(f: Evaluator, e: Dot) -> Any:
    u, v = _rows(f, e.args[0]), _rows(f, e.args[1])
    return f.arith.total(f.arith.mul(u, v), axis=-1)


def _piecewise(f: Evaluator, e: sympy.Piecewise) -> Any:
    out: Any = None
    for value, cond in reversed(e.args):
        x = f.scalar(value)
        out = x if out is None else np.where(_truth(f, cond), x, out)
    return out


def _truth(f: Evaluator, cond: sympy.Basic) -> Any:
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


_SCALAR: dict[type, Callable[[Evaluator, Any], Any]] = {
    sympy.Symbol: _symbol,
    sympy.Add: _add,
    sympy.Mul: _mul,
    sympy.Pow: _pow,
    sympy.exp: lambda f, e: f.arith.exp(f.scalar(e.args[0]), f),
    sympy.cos: lambda f, e: f.arith.trig("cos", f.scalar(e.args[0]), f),
    sympy.sin: lambda f, e: f.arith.trig("sin", f.scalar(e.args[0]), f),
    sympy.Sum: _sum,
    sympy.Indexed: _indexed,
    Entry: _entry,
    Dot: _dot,
    sympy.Piecewise: _piecewise,
}
SCALAR: Dispatcher[Callable[[Evaluator, Any], Any]] = Dispatcher("evaluate (scalars)", _SCALAR)


def learn_shapes(*terms: sympy.Basic) -> dict[str, tuple[int, int]]:
    """Explicit shapes of the named matrices, so bare entries like `Q[i, r]` can be evaluated."""
    return {
        label: (int(rows), int(cols))
        for label, (rows, cols) in named_shapes(*terms).items()
        if rows.is_Integer and cols.is_Integer
    }
