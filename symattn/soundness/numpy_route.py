"""The truth's numpy route: every kernel node evaluated with numpy from its meaning.

Imports numpy, sympy and the kernel's node classes only (expr, modern, dispatch, errors);
must not import the kernel's evaluator, witnesses, canonical forms, ranges or proof (a test checks
it).
"""

from __future__ import annotations

import itertools
import math
import operator
import zlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any, NoReturn

import numpy as np
import sympy

from symattn.kernel import expr as E
from symattn.kernel import modern as M
from symattn.kernel.dispatch import Dispatcher
from symattn.kernel.errors import Signal
from symattn.soundness.numpy_loops import (
    _flash,
    _flash_causal,
    _kv_decode,
    _linear_recurrent,
    _split_merge,
)

# ---- the numpy route ------------------------------------------------------------------------
#
# Every node is evaluated here, written from its meaning rather than from the kernel's
# evaluator or the nodes' `entry`: numpy products and masks, sums as Python loops over their
# range, FlashAttention's loop with the true running maximum (the kernel leaves the maxima
# free), torch's repeat_interleave, 2 × 2 rotation matrices, boolean masks.


_FREE_SHAPE = 12  # rows/cols of an IndexedBase with no matrix behind it (a generic f_ij)


class IllFormed(Signal):
    """The claim reads outside a matrix, gives one name two shapes, or divides by zero: not true."""


class Undecided(Signal):
    """A node or symbol this route has no value for: the claim's truth is left undecided."""


def _walk(e: sympy.Basic) -> Iterator[sympy.Basic]:
    stack = [e]
    while stack:
        x = stack.pop()
        yield x
        stack.extend(reversed(x.args))


class _Numpy:
    """Both sides of a claim at one plan and one seed: random data behind every named matrix."""

    def __init__(self, plan: Mapping[sympy.Symbol, int], seed: int, *terms: sympy.Basic):
        self.sizes = {k: int(v) for k, v in plan.items()}
        self.seed = seed
        self.indices: dict[sympy.Symbol, int] = {}
        self.bound: dict[sympy.Symbol, int] = {}
        self.data: dict[tuple, np.ndarray] = {}
        self.shapes: dict[str, tuple[sympy.Expr, sympy.Expr]] = {}
        self._free: dict[sympy.Basic, tuple[sympy.Symbol, ...]] = {}
        self._memo: dict[tuple, np.ndarray] = {}
        self.scoring = 0  # softmaxes around the node being evaluated (masks: docs/kernel.md)
        reals: set[sympy.Symbol] = set()
        for x in itertools.chain.from_iterable(_walk(t) for t in terms):
            if isinstance(x, (E.MatSym, E.FromColumn)):
                self.shapes.setdefault(x.name, x.shape)
            elif isinstance(x, E.HeadSym):
                self.shapes.setdefault(x.name + "^()", x.shape)
            elif isinstance(x, sympy.Symbol) and not x.is_integer:
                reals.add(x)
        # a free real scalar (c in c A, a slope λ): a fixed value per name
        self.reals = {s: 0.5 + k for k, s in enumerate(sorted(reals, key=str))}

    # -- numbers --
    def whole(self, e: sympy.Basic) -> int:
        """An index or size: a whole number at this point."""
        x = self.num(e)
        if x != int(x):
            raise IllFormed(f"{e} is not an integer here")
        return int(x)

    def symbol(self, s: sympy.Symbol) -> float:
        for scope in (self.bound, self.indices, self.sizes):
            if s in scope:
                return scope[s]
        if s in self.reals:
            return self.reals[s]
        raise Undecided(f"no value for {s}")

    def num(self, e: sympy.Basic) -> Any:
        """A scalar's value (a float; an int for indices and sizes)."""
        f = SCALAR.find(type(e))
        if f is not None:
            return f(self, e)
        if e.is_number:
            return float(sympy.N(e))
        raise Undecided(f"no independent evaluation of {type(e).__name__}")

    def value(self, e: sympy.Basic) -> Any:
        return self.mat(e) if isinstance(e, E.MatExpr) else float(self.num(e))

    # -- matrices --
    def leaf(self, key: tuple, rows: int, cols: int) -> np.ndarray:
        arr = self.data.get(key)
        if arr is None:
            rng = np.random.default_rng([self.seed, zlib.crc32(repr(key).encode())])
            arr = self.data[key] = rng.standard_normal((rows, cols))
        if arr.shape != (rows, cols):
            raise IllFormed(f"{key[0]} is used with shapes {arr.shape} and {(rows, cols)}")
        return arr

    def shape(self, e: E.MatExpr) -> tuple[int, int]:
        rows, cols = (self.whole(s) for s in e.shape)
        if rows < 1 or cols < 1:
            raise IllFormed(f"{e} has {rows} x {cols} entries here")
        return rows, cols

    def mat(self, e: E.MatExpr) -> np.ndarray:
        """A matrix's value, remembered for the values of the symbols it depends on."""
        syms = self._free.get(e)
        if syms is None:
            syms = self._free[e] = tuple(sorted(e.free_symbols, key=str))
        key = (e, self.scoring > 0, *(self.bound.get(s, self.indices.get(s)) for s in syms))
        out = self._memo.get(key)
        if out is None:
            f = MATRIX.find(type(e))
            if f is None:
                raise Undecided(f"no independent evaluation of {type(e).__name__}")
            out = self._memo[key] = f(self, e)
        return out

    def over(self, v: sympy.Symbol, lo: sympy.Basic, hi: sympy.Basic) -> Iterator[int]:
        """Bind `v` to lo, ..., hi in turn: an empty range (hi = lo - 1) gives nothing, a
        reversed one is ill-formed."""
        a, z = self.whole(lo), self.whole(hi)
        if z < a - 1:
            raise IllFormed(f"the sum over {v} runs from {a} down to {z}")
        outer = self.bound.get(v)
        try:
            for k in range(a, z + 1):
                self.bound[v] = k
                yield k
        finally:
            if outer is None:
                self.bound.pop(v, None)
            else:
                self.bound[v] = outer


Handler = Callable[[_Numpy, Any], Any]


# a recurrence's output (kernel.recurrent.Recurrent) and a recurrence's member
# (kernel.unfold.Unfold, evaluated from its base case and step) are found by their class names:
# truth imports none of the modules that prove them
MATRIX: Dispatcher[Handler] = Dispatcher(
    "truth (matrices)", modules=("symattn.kernel.recurrent", "symattn.kernel.unfold")
)


SCALAR: Dispatcher[Handler] = Dispatcher("truth (scalars)", modules=("symattn.kernel.partial",))


@SCALAR.register("Partial")  # by name: the truth imports only the kernel's nodes
def _partial(route: Any, e: Any) -> NoReturn:
    raise Undecided("a partial derivative has no independent evaluation")


def _args(ev: _Numpy, e: E.MatExpr) -> list[np.ndarray]:
    return [ev.mat(x) for x in e.args if isinstance(x, E.MatExpr)]


def _finite(ev: _Numpy, what: str, *operands: Any, scores: bool = False) -> None:
    """A masked entry (-inf) in arithmetic: a sum or a positive scaling (`scores`) is defined
    only inside a softmax, every other operation nowhere."""
    if all(np.all(np.isfinite(np.asarray(x, dtype=float))) for x in operands):
        return
    if not scores or ev.scoring == 0:
        raise IllFormed(f"{what} of a masked entry (-inf)")


def _scores(ev: _Numpy, e: E.MatExpr) -> np.ndarray:
    ev.scoring += 1
    try:
        return ev.mat(e)
    finally:
        ev.scoring -= 1


def _in(k: int, size: int, what: str) -> int:
    if not 1 <= k <= size:
        raise IllFormed(f"{what} {k} outside 1..{size}")
    return k


def _softmax_rows(s: np.ndarray) -> np.ndarray:
    """Softmax of each row; a row whose every entry is masked gets weights 0."""
    out = np.zeros(s.shape)
    for i, row in enumerate(s):
        top = row.max()
        if top == -np.inf:
            continue
        e = np.exp(row - top)
        out[i] = e / e.sum()
    return out


@MATRIX.register(E.MatSym, M.FeatureMap)
def _mat_sym(ev: _Numpy, e: E.MatSym) -> np.ndarray:
    return ev.leaf((e.name,), *ev.shape(e))


@MATRIX.register(E.HeadSym)
def _head_sym(ev: _Numpy, e: E.HeadSym) -> np.ndarray:
    return ev.leaf((e.name, "head", ev.whole(e.head)), *ev.shape(e))


@MATRIX.register(E.FromColumn)
def _from_column(ev: _Numpy, e: E.FromColumn) -> np.ndarray:
    rows, cols = ev.shape(e)
    return np.repeat(ev.leaf((e.name, "column"), rows, 1), cols, axis=1)


@MATRIX.register(E.Ones)
def _ones(ev: _Numpy, e: E.Ones) -> np.ndarray:
    return np.ones(ev.shape(e))


@MATRIX.register(E.MatMul)
def _mat_mul(ev: _Numpy, e: E.MatMul) -> np.ndarray:
    a, b = _args(ev, e)
    if a.shape[1] != b.shape[0]:
        raise IllFormed("inner sizes differ")
    _finite(ev, "a product", a, b)
    return a @ b


@MATRIX.register(E.MatAdd)
def _mat_add(ev: _Numpy, e: E.MatAdd) -> np.ndarray:
    a, b = _args(ev, e)
    if a.shape != b.shape:
        raise IllFormed(f"a sum of a {a.shape} and a {b.shape} matrix")
    _finite(ev, "a sum", a, b, scores=True)
    return a + b


@MATRIX.register(E.Hadamard)
def _hadamard(ev: _Numpy, e: E.Hadamard) -> np.ndarray:
    a, b = _args(ev, e)
    if a.shape != b.shape:
        raise IllFormed(f"an entrywise product of a {a.shape} and a {b.shape} matrix")
    _finite(ev, "an entrywise product", a, b)
    return a * b


@MATRIX.register(E.Scale)
def _scale(ev: _Numpy, e: E.Scale) -> np.ndarray:
    c, a = float(ev.num(e.scalar)), ev.mat(e.args[1])
    _finite(ev, "a scaling", a, scores=math.isfinite(c) and c > 0)
    return c * a


@MATRIX.register(E.Transpose)
def _transpose(ev: _Numpy, e: E.Transpose) -> np.ndarray:
    return ev.mat(e.args[0]).T


@MATRIX.register(E.Softmax)
def _softmax(ev: _Numpy, e: E.Softmax) -> np.ndarray:
    return _softmax_rows(_scores(ev, e.args[0]))


@MATRIX.register(E.ColSoftmax)
def _col_softmax(ev: _Numpy, e: E.ColSoftmax) -> np.ndarray:
    return _softmax_rows(_scores(ev, e.args[0]).T).T


@MATRIX.register(E.CausalMask)
def _causal_mask(ev: _Numpy, e: E.CausalMask) -> np.ndarray:
    a = ev.mat(e.args[0])
    keep = np.triu(np.ones(a.shape, bool)) if e.upper else np.tril(np.ones(a.shape, bool))
    return np.where(keep, a, -np.inf)


@MATRIX.register(E.Row)
def _row(ev: _Numpy, e: E.Row) -> np.ndarray:
    a = ev.mat(e.args[0])
    i = _in(ev.whole(e.index), a.shape[0], "row")
    return a[i - 1 : i]


@MATRIX.register(E.RowBlock)
def _row_block(ev: _Numpy, e: E.RowBlock) -> np.ndarray:
    a = ev.mat(e.args[0])
    h, size = _in(ev.whole(e.head), ev.whole(e.args[3]), "block"), ev.whole(e.args[2])
    if a.shape[0] != size * ev.whole(e.args[3]):
        raise IllFormed(f"{a.shape[0]} rows are not {e.args[3]} blocks of {size}")
    return a[(h - 1) * size : h * size]


@MATRIX.register(E.Concat)
def _concat(ev: _Numpy, e: E.Concat) -> np.ndarray:
    parts = [ev.mat(e.body) for _ in ev.over(e.head, sympy.Integer(1), e.count)]
    _finite(ev, "a concatenation", *parts)
    return np.hstack(parts)


@MATRIX.register(E.MatSum)
def _mat_sum(ev: _Numpy, e: E.MatSum) -> np.ndarray:
    total = np.zeros(ev.shape(e))
    for _ in ev.over(*e.limits):
        x = ev.mat(e.body)
        if x.shape != total.shape:
            raise IllFormed("a sum of matrices of two shapes")
        _finite(ev, "a sum over heads", x)
        total = total + x
    return total


@MATRIX.register(M.PositionBias)
def _position_bias(ev: _Numpy, e: M.PositionBias) -> np.ndarray:
    pos = np.arange(1, ev.whole(e.args[0]) + 1, dtype=float)
    return float(ev.num(e.row_coef)) * pos[:, None] + float(ev.num(e.col_coef)) * pos[None, :]


@MATRIX.register(M.PadMask)
def _pad_mask(ev: _Numpy, e: M.PadMask) -> np.ndarray:
    a = ev.mat(e.args[0])
    keep = np.arange(1, a.shape[1] + 1) <= ev.whole(e.valid)
    return np.where(keep[None, :], a, -np.inf)


@MATRIX.register(M.CausalZero)
def _causal_zero(ev: _Numpy, e: M.CausalZero) -> np.ndarray:
    return np.tril(ev.mat(e.args[0]))


@MATRIX.register(M.FirstRows)
def _first_rows(ev: _Numpy, e: M.FirstRows) -> np.ndarray:
    a, t = ev.mat(e.args[0]), ev.whole(e.args[1])
    if t > a.shape[0]:
        raise IllFormed("more rows than the matrix has")
    return a[:t]


@MATRIX.register(M.RepeatKV)
def _repeat_kv(ev: _Numpy, e: M.RepeatKV) -> np.ndarray:
    a = ev.mat(e.args[0])
    g, r, w = ev.whole(e.groups), ev.whole(e.r), ev.whole(e.width)
    heads = a.reshape(a.shape[0], g, w)
    out = np.tile(heads, (1, r, 1)) if e.order == "tile" else np.repeat(heads, r, axis=1)
    return out.reshape(a.shape[0], g * r * w)


@MATRIX.register(M.Rope)
def _rope(ev: _Numpy, e: M.Rope) -> np.ndarray:
    x = ev.mat(e.args[0])
    ang = float(ev.num(e.pos)) * ev.mat(e.theta)[:, 0]
    out = np.empty_like(x)
    for k in range(x.shape[0]):
        rot = np.array([[np.cos(ang[k]), -np.sin(ang[k])], [np.sin(ang[k]), np.cos(ang[k])]])
        out[k] = rot @ x[k]
    return out


@MATRIX.register(M.PairDots)
def _pair_dots(ev: _Numpy, e: M.PairDots) -> np.ndarray:
    a, b = _args(ev, e)
    return np.sum(a * b, axis=1, keepdims=True)


@MATRIX.register(M.OnlineSoftmax)
def _online_softmax(ev: _Numpy, e: M.OnlineSoftmax) -> np.ndarray:
    s, v = ev.mat(e.args[0]), ev.mat(e.args[1])
    return _flash(s, v, [ev.whole(x) for x in e.blocks], e.rescale)


@MATRIX.register("Unfold")
def _unfold(ev: _Numpy, e: Any) -> np.ndarray:
    """A recurrence's member: the base case, then the step, as many times as the index says
    (each step's terms evaluated here, from the previous member's value)."""
    t, start = ev.whole(e.args[1]), int(e.args[5])
    if t < start:
        raise IllFormed(f"{e.name}_{t} comes before its base case")
    return ev.mat(e.written_out(t))


@MATRIX.register("Recurrent")
def _recurrent(ev: _Numpy, e: Any) -> np.ndarray:
    name = str(e.args[0].name)
    ops = [ev.mat(x) for x in e.args[1:]]
    if name.startswith("flash_"):
        return _flash_causal(ops[0], ops[1], name)
    if name.startswith("split_kv"):
        return _split_merge(ops[0], ops[1], name)
    if name in ("linear_state", "linear_not_accumulated"):
        return _linear_recurrent(ops[0], ops[1], ops[2], name)
    if name.startswith("kv_cache"):
        return _kv_decode(ops[3], ops[2], name)
    raise Undecided(f"no independent evaluation of the recurrence {name}")


# ---- scalars ----------------------------------------------------------------------------------


@SCALAR.register(E.Entry)
def _entry(ev: _Numpy, e: E.Entry) -> float:
    a = ev.mat(e.matrix)
    i, j = ev.whole(e.args[1]), ev.whole(e.args[2])
    _in(i, a.shape[0], "row")
    _in(j, a.shape[1], "column")
    return float(a[i - 1, j - 1])


@SCALAR.register(E.Dot)
def _dot(ev: _Numpy, e: E.Dot) -> float:
    u, v = _args(ev, e)
    if u.shape != v.shape or u.shape[0] != 1:
        raise IllFormed(f"a dot product of a {u.shape} and a {v.shape} matrix")
    _finite(ev, "a dot product", u, v)
    return float(np.sum(u * v))


@SCALAR.register(sympy.Number, sympy.NumberSymbol)
def _number(ev: _Numpy, e: sympy.Basic) -> Any:
    return int(e) if e.is_Integer else float(e)


@SCALAR.register(sympy.Symbol)
def _symbol(ev: _Numpy, e: sympy.Symbol) -> Any:
    return ev.symbol(e)


@SCALAR.register(sympy.Add)
def _add(ev: _Numpy, e: sympy.Add) -> Any:
    terms = [ev.num(a) for a in e.args]
    _finite(ev, "a scalar sum", *terms)
    return sum(terms, 0)


@SCALAR.register(sympy.Mul)
def _mul(ev: _Numpy, e: sympy.Mul) -> Any:
    factors = [ev.num(a) for a in e.args]
    _finite(ev, "a scalar product", *factors)
    return math.prod(factors, start=1)


@SCALAR.register(sympy.Pow)
def _pow(ev: _Numpy, e: sympy.Pow) -> Any:
    base, exp = ev.num(e.base), ev.num(e.exp)
    if base == 0 and exp < 0:
        raise IllFormed(f"division by zero in {e}")
    return float(base) ** exp


@SCALAR.register(sympy.exp)
def _exp(ev: _Numpy, e: sympy.exp) -> float:
    x = ev.num(e.args[0])
    return 0.0 if x == -math.inf else math.exp(x)


@SCALAR.register(sympy.cos, sympy.sin)
def _trig(ev: _Numpy, e: sympy.Basic) -> float:
    return (math.cos if isinstance(e, sympy.cos) else math.sin)(ev.num(e.args[0]))


@SCALAR.register(sympy.ceiling)
def _ceiling(ev: _Numpy, e: sympy.ceiling) -> int:
    num, den = sympy.fraction(sympy.together(e.args[0]))
    return -((-ev.whole(num)) // ev.whole(den))


@SCALAR.register(sympy.Mod)
def _mod(ev: _Numpy, e: sympy.Mod) -> int:
    return ev.whole(e.args[0]) % ev.whole(e.args[1])


@SCALAR.register(sympy.Sum)
def _sum(ev: _Numpy, e: sympy.Sum) -> float:
    return _sum_over(ev, e.function, list(reversed(e.limits)))


def _sum_over(ev: _Numpy, body: sympy.Basic, limits: list) -> float:
    """The outermost limit first (sympy lists the innermost first)."""
    if not limits:
        return float(ev.num(body))
    (v, lo, hi), rest = limits[0], limits[1:]
    terms = [_sum_over(ev, body, rest) for _ in ev.over(v, lo, hi)]
    _finite(ev, "a scalar sum", *terms)
    return math.fsum(terms)


@SCALAR.register(sympy.Indexed)
def _indexed(ev: _Numpy, e: sympy.Indexed) -> float:
    name = str(e.base.label)
    idx = [ev.whole(k) for k in e.indices]
    shape = ev.shapes.get(name)
    rows, cols = (_FREE_SHAPE, _FREE_SHAPE) if shape is None else (ev.whole(s) for s in shape)
    if name.endswith("^()") and len(idx) == 3:
        h, i, j = idx
        arr = ev.leaf((name[:-3], "head", h), rows, cols)
    elif len(idx) == 1:
        arr, (i, j) = ev.leaf((name, "column"), rows, 1), (idx[0], 1)
    elif len(idx) == 2:
        arr, (i, j) = ev.leaf((name,), rows, cols), idx
    else:
        raise Undecided(f"{e} has {len(idx)} indices")
    _in(i, arr.shape[0], f"row of {name}")
    _in(j, arr.shape[1], f"column of {name}")
    return float(arr[i - 1, j - 1])


@SCALAR.register(sympy.Piecewise)
def _piecewise(ev: _Numpy, e: sympy.Piecewise) -> Any:
    for value, cond in e.args:
        if _holds(ev, cond):
            return ev.num(value)
    raise IllFormed(f"no case of {e} applies")


_RELATIONS: dict[str, Callable[[Any, Any], bool]] = {
    "<=": operator.le,
    "<": operator.lt,
    ">=": operator.ge,
    ">": operator.gt,
    "==": operator.eq,
    "!=": operator.ne,
}


def _holds(ev: _Numpy, cond: sympy.Basic) -> bool:
    if cond in (sympy.true, sympy.false):
        return bool(cond)
    if isinstance(cond, sympy.core.relational.Relational):
        return _RELATIONS[cond.rel_op](ev.num(cond.lhs), ev.num(cond.rhs))
    if isinstance(cond, sympy.And):
        return all(_holds(ev, c) for c in cond.args)
    if isinstance(cond, sympy.Or):
        return any(_holds(ev, c) for c in cond.args)
    if isinstance(cond, sympy.Not):
        return not _holds(ev, cond.args[0])
    raise Undecided(f"cannot decide {cond}")
