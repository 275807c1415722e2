"""The numeric backend: numpy attention, and evaluation of any kernel expression on random data.

Imports numpy, sympy and the kernel (expr); floats live here and nowhere else in the kernel.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import sympy

from symattn.errors import SymattnError
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
from symattn.semantics import summation_range

RTOL = 1e-9
ATOL = 1e-12


def softmax_rows(s: np.ndarray) -> np.ndarray:
    """Row-wise softmax, stabilised by subtracting each row's max (exact in real arithmetic).

    >>> softmax_rows(np.array([[0.0, 0.0]])).tolist()
    [[0.5, 0.5]]
    """
    m = np.max(s, axis=-1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    e = np.exp(s - m)
    return e / np.sum(e, axis=-1, keepdims=True)


def causal_mask(s: np.ndarray) -> np.ndarray:
    """Scores with entries above the diagonal (j > i) set to -inf."""
    n = s.shape[-1]
    keep = np.tril(np.ones((s.shape[-2], n), dtype=bool))
    return np.where(keep, s, -np.inf)


def attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, *, causal: bool = False) -> np.ndarray:
    """Scaled dot-product attention `softmax(QK^T / sqrt(d_k)) V`, optionally causal.

    >>> q = k = np.eye(2); v = np.array([[1.0], [3.0]])
    >>> attention(q, k, v, causal=True)[0].tolist()
    [1.0]
    """
    s = q @ k.T / np.sqrt(q.shape[-1])
    return softmax_rows(causal_mask(s) if causal else s) @ v


def multi_head_attention(
    x: np.ndarray,
    w_q: Sequence[np.ndarray],
    w_k: Sequence[np.ndarray],
    w_v: Sequence[np.ndarray],
    w_o: np.ndarray,
    *,
    causal: bool = False,
) -> np.ndarray:
    """`Concat(Z^{(1)},...,Z^{(H)}) W_O` with each head `Z^{(h)} = Attention(XW_Q^{(h)}, ...)`."""
    triples = zip(w_q, w_k, w_v, strict=True)
    heads = [attention(x @ a, x @ b, x @ c, causal=causal) for a, b, c in triples]
    return np.concatenate(heads, axis=1) @ w_o


# ---- evaluating kernel expressions ---------------------------------------------------------


class EvalError(SymattnError):
    """An expression cannot be evaluated numerically (unknown node or unbound symbol)."""


class IllFormed(EvalError):
    """The expression is ill-formed at these sizes: it reads outside a matrix, gives one name
    two shapes, or divides by zero. Unlike a plain EvalError, this says something about the claim.
    """


@dataclass
class Env:
    """Sizes of dims, values of free indices, and the random data behind every named matrix."""

    sizes: Mapping[sympy.Symbol, int]
    indices: dict[sympy.Symbol, int] = field(default_factory=dict)
    seed: int = 0
    data: dict[tuple, np.ndarray] = field(default_factory=dict)
    shapes: dict[str, tuple[sympy.Expr, sympy.Expr]] = field(default_factory=dict)
    scalars: dict[sympy.Symbol, float] = field(default_factory=dict)
    _values: dict[tuple, np.ndarray] = field(default_factory=dict, repr=False)
    _frees: dict[sympy.Basic, tuple[sympy.Symbol, ...]] = field(default_factory=dict, repr=False)

    def forget(self) -> None:
        """Drop computed values (after the data behind them changed)."""
        self._values.clear()

    def value(self, m: MatExpr) -> np.ndarray:
        """`matrix(m, self)`, computed once per values of the indices it depends on."""
        frees = self._frees.get(m)
        if frees is None:
            frees = self._frees[m] = tuple(sorted(m.free_symbols, key=str))
        key = (m, tuple(self.indices.get(s) for s in frees))
        out = self._values.get(key)
        if out is None:
            out = self._values[key] = matrix(m, self)
        return out

    def learn(self, *exprs: sympy.Basic) -> None:
        """Record the shapes of the named matrices in `exprs`, so bare entries can be evaluated."""
        for label, shape in named_shapes(*exprs).items():
            self.shapes.setdefault(label, shape)

    def size(self, e: sympy.Expr) -> int:
        if isinstance(e, sympy.Integer):
            v = float(e)
            if v < 1:
                raise EvalError(f"size {e} is not a positive integer")
            return int(e)
        v = scalar(sympy.sympify(e, strict=True), self)
        if abs(v - round(v)) > 1e-9 or round(v) < 1:
            raise EvalError(f"size {e} evaluates to {v}, not a positive integer")
        return int(round(v))

    def matrix(self, key: tuple, shape: tuple[int, int]) -> np.ndarray:
        if key not in self.data:
            rng = np.random.default_rng([self.seed, _stable_hash(key)])
            self.data[key] = rng.standard_normal(shape)
        arr = self.data[key]
        if arr.shape != shape:
            raise IllFormed(f"{key[0]} is {arr.shape}, expected {shape}")
        return arr


_SMALL_PRODUCT = 1 << 22  # multiply-adds below which einsum beats threaded BLAS here


def product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """`a @ b`; small products with einsum, since multithreaded BLAS is erratic (up to 30x
    slower) on a busy 2-core machine, and the kernel's products are small.

    >>> product(np.eye(2), np.ones((2, 1))).tolist()
    [[1.0], [1.0]]
    """
    if a.shape[0] * a.shape[1] * b.shape[1] <= _SMALL_PRODUCT:
        return np.einsum("ik,kj->ij", a, b)
    return a @ b


def _stable_hash(key: tuple) -> int:
    # Python's hash() of str is salted per process; this must not be.
    text = repr(key).encode()
    h = 1469598103934665603
    for b in text:
        h = ((h ^ b) * 1099511628211) % (1 << 63)
    return h


def matrix(m: MatExpr, env: Env) -> np.ndarray:
    """Evaluate a matrix expression to a float64 array."""
    f = _MATRIX.get(type(m))
    if f is None:
        raise EvalError(f"cannot evaluate {type(m).__name__} numerically")
    return f(m, env)


def _sym(m: MatSym, env: Env) -> np.ndarray:
    return env.matrix((m.name,), (env.size(m.rows), env.size(m.cols)))


def _head(m: HeadSym, env: Env) -> np.ndarray:
    h = env.size(m.head)
    return env.matrix((m.name, "head", h), (env.size(m.rows), env.size(m.cols)))


def _col(m: FromColumn, env: Env) -> np.ndarray:
    c = env.matrix((m.name, "column"), (env.size(m.rows), 1))
    return np.repeat(c, env.size(m.cols), axis=1)


def _concat(m: Concat, env: Env) -> np.ndarray:
    return np.concatenate(
        [matrix(m.member(h), env) for h in range(1, env.size(m.count) + 1)], axis=1
    )


def _rowblock(m: RowBlock, env: Env) -> np.ndarray:
    a = matrix(m.args[0], env)
    h, size = env.size(m.head), env.size(m.args[2])
    if h * size > a.shape[0]:
        raise IllFormed(f"block {h} of {size} rows is out of range for {a.shape[0]} rows")
    return a[(h - 1) * size : h * size]


def _matsum(m: MatSum, env: Env) -> np.ndarray:
    v, lo, hi = m.limits
    total = np.zeros((env.size(m.rows), env.size(m.cols)))
    for value in _range(lo, hi, env, v):
        total = total + _with_index(env, v, value, lambda: matrix(m.body, env))
    return total


def _with_index(env: Env, v: sympy.Symbol, value: int, f):  # type: ignore[no-untyped-def]
    old = env.indices.get(v)
    env.indices[v] = value
    try:
        return f()
    finally:
        if old is None:
            env.indices.pop(v, None)
        else:
            env.indices[v] = old


def _range(lo: sympy.Expr, hi: sympy.Expr, env: Env, var: object = "the index") -> range:
    return summation_range(int(round(scalar(lo, env))), int(round(scalar(hi, env))), var)


def _row(m: Row, env: Env) -> np.ndarray:
    a = matrix(m.args[0], env)
    i = int(round(scalar(m.index, env)))
    if not 1 <= i <= a.shape[0]:
        raise IllFormed(f"row {i} is out of range for a matrix of {a.shape[0]} rows")
    return a[i - 1 : i]


_MATRIX = {
    MatSym: _sym,
    HeadSym: _head,
    FromColumn: _col,
    Ones: lambda m, env: np.ones((env.size(m.rows), env.size(m.cols))),
    MatMul: lambda m, env: product(matrix(m.args[0], env), matrix(m.args[1], env)),
    MatAdd: lambda m, env: matrix(m.args[0], env) + matrix(m.args[1], env),
    Scale: lambda m, env: scalar(m.scalar, env) * matrix(m.args[1], env),
    Transpose: lambda m, env: matrix(m.args[0], env).T,
    Softmax: lambda m, env: softmax_rows(matrix(m.args[0], env)),
    ColSoftmax: lambda m, env: softmax_rows(matrix(m.args[0], env).T).T,
    CausalMask: lambda m, env: _mask(m, env),
    Row: _row,
    RowBlock: _rowblock,
    Concat: _concat,
    MatSum: _matsum,
}


def _mask(m: CausalMask, env: Env) -> np.ndarray:
    s = matrix(m.args[0], env)
    return causal_mask(s.T).T if m.upper else causal_mask(s)


def scalar(e: sympy.Basic, env: Env) -> float:
    """Evaluate a scalar (sums, entries, exp, Piecewise) with the sizes and data of `env`."""
    if e.is_Number:
        return float(e)
    if isinstance(e, sympy.Symbol):
        if e in env.indices:
            return float(env.indices[e])
        if e in env.sizes:
            return float(env.sizes[e])
        if e in env.scalars:
            return env.scalars[e]
        raise EvalError(f"no value for {e}")
    if isinstance(e, sympy.Add):
        return float(sum(scalar(a, env) for a in e.args))
    if isinstance(e, sympy.Mul):
        out = 1.0
        for a in e.args:
            out *= scalar(a, env)
        return out
    if isinstance(e, sympy.Pow):
        base, power = scalar(e.base, env), scalar(e.exp, env)
        if base == 0 and power < 0:
            raise IllFormed(f"division by zero in {e}")
        return float(base**power)
    if isinstance(e, sympy.exp):
        return float(np.exp(scalar(e.args[0], env)))
    if isinstance(e, sympy.Sum):
        return _sum(e, env)
    if isinstance(e, sympy.Indexed):
        return _indexed(e, env)
    if isinstance(e, Entry):
        m = env.value(e.matrix)
        i, j = (int(round(scalar(x, env))) for x in e.args[1:])
        if not (1 <= i <= m.shape[0] and 1 <= j <= m.shape[1]):
            rows, cols = m.shape
            raise IllFormed(f"entry ({i}, {j}) is out of range for a {rows} × {cols} matrix")
        return float(m[i - 1, j - 1])
    if isinstance(e, Dot):
        return float(product(env.value(e.args[0]), env.value(e.args[1]).T)[0, 0])
    if isinstance(e, sympy.Piecewise):
        for value, cond in e.args:
            if _truth(cond, env):
                return scalar(value, env)
        raise EvalError(f"no branch of {e} applies")
    if e in (sympy.oo, -sympy.oo):
        return float(e)
    raise EvalError(f"cannot evaluate {type(e).__name__} numerically")


def _truth(cond: sympy.Basic, env: Env) -> bool:
    if cond in (sympy.true, sympy.false):
        return bool(cond)
    if isinstance(cond, sympy.core.relational.Relational):
        a, b = scalar(cond.lhs, env), scalar(cond.rhs, env)
        ops = {"<=": a <= b, ">=": a >= b, "<": a < b, ">": a > b, "==": a == b, "!=": a != b}
        return ops[cond.rel_op]
    raise EvalError(f"cannot decide {cond}")


def _sum(e: sympy.Sum, env: Env) -> float:
    def go(limits: list, k: int) -> float:
        if k < 0:
            return scalar(e.function, env)
        v, lo, hi = limits[k]
        total = 0.0
        for value in _range(lo, hi, env, v):
            total += _with_index(env, v, value, lambda: go(limits, k - 1))
        return total

    return go(list(e.limits), len(e.limits) - 1)


def _indexed(e: sympy.Indexed, env: Env) -> float:
    name = str(e.base.label)
    idx = [int(round(scalar(x, env))) for x in e.indices]
    if name.endswith("^()"):
        key: tuple = (name[:-3], "head", idx[0])
        idx = idx[1:]
    elif len(idx) == 1:
        key = (name, "column")
        idx = [idx[0], 1]
    else:
        key = (name,)
    if key not in env.data:
        if name not in env.shapes:
            raise EvalError(f"no shape known for {name}")
        rows, cols = env.shapes[name]
        shape = (env.size(rows), 1 if key[-1] == "column" else env.size(cols))
        env.matrix(key, shape)
    arr = env.data[key]
    i, j = idx
    if not (1 <= i <= arr.shape[0] and 1 <= j <= arr.shape[1]):
        raise IllFormed(f"index ({i}, {j}) out of range for {name} of shape {arr.shape}")
    return float(arr[i - 1, j - 1])


def far(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The positions at which two arrays differ beyond the stated tolerances."""
    return np.argwhere(~np.isclose(a, b, rtol=RTOL, atol=ATOL))


def close(a: float | np.ndarray, b: float | np.ndarray) -> bool:
    """Agreement within the stated tolerances: |a - b| <= ATOL + RTOL * |b|."""
    if isinstance(a, float) and isinstance(b, float):  # np.allclose costs 50 us a call
        if a == b:
            return True
        return bool(abs(a - b) <= ATOL + RTOL * abs(b))  # nan and inf compare False
    return bool(np.allclose(a, b, rtol=RTOL, atol=ATOL))
