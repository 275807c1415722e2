"""The numeric backend: numpy attention, and evaluation of any kernel expression on random data
(`Env`; the user's own arrays go through `kernel.arrays.evaluate`).

Imports only numpy, sympy and the kernel below it (canon, expr, masked, evaluate, witness.evidence,
.sizes, .points); must not import proof or anything above it. Floats live here, nowhere else in
the kernel.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import mpmath
import numpy as np
import sympy

from symattn.kernel import errors, masked
from symattn.kernel.canon import Range
from symattn.kernel.compare import compare, ordered
from symattn.kernel.errors import SymattnError
from symattn.kernel.evaluate import (
    Arithmetic,
    Evaluator,
    IllFormedHere,
    Unsupported,
    _Loop,
    learn_shapes,
)
from symattn.kernel.expr import MatExpr, named_shapes
from symattn.kernel.semantics import ReversedRange
from symattn.kernel.witness import sizes
from symattn.kernel.witness.evidence import ATOL, RTOL, Evidence, Term, WitnessResult, supported
from symattn.kernel.witness.points import (
    no_plan,
    over_budget,
    plan_names,
    points_over_budget,
    range_at,
    size_plans,
    unit_of,
)

if TYPE_CHECKING:
    import numpy.typing as npt


FullyMasked = Literal["raise", "zero"]


def softmax_rows(s: npt.ArrayLike, *, fully_masked: FullyMasked = "raise") -> np.ndarray:
    """Softmax along the last axis in float64, stabilised by subtracting each row's max.

    A row that is entirely `-inf` (every key masked) has no softmax: by default this raises
    `MaskedRowError` naming the row; `fully_masked="zero"` gives that row zero weights instead.

    >>> softmax_rows(np.array([[0.0, 0.0]])).tolist()
    [[0.5, 0.5]]
    >>> softmax_rows([[0.0, 0.0], [-np.inf, -np.inf]], fully_masked="zero").tolist()
    [[0.5, 0.5], [0.0, 0.0]]
    """
    s = np.asarray(s, dtype=np.float64)
    dead = np.all(s == -np.inf, axis=-1, keepdims=True)
    if not dead.any():
        return _softmax_last(s)
    if fully_masked == "zero":
        return np.where(dead, 0.0, _softmax_last(np.where(dead, 0.0, s)))
    if fully_masked != "raise":
        raise errors.InputError(f"fully_masked must be 'raise' or 'zero', not {fully_masked!r}")
    at = ", ".join(str(int(i)) for i in np.argwhere(dead[..., 0])[0])
    raise MaskedRowError(
        f"row scores[{at}, :] is fully masked (every entry -inf): its softmax has no value; "
        "pass fully_masked='zero' for zero weights in such rows"
    )


def _softmax_last(s: np.ndarray) -> np.ndarray:
    m = np.max(s, axis=-1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    e = np.exp(s - m)
    return e / np.sum(e, axis=-1, keepdims=True)


def causal_mask(s: np.ndarray) -> np.ndarray:
    """Scores with entries above the diagonal (j > i) set to -inf (over the last two axes)."""
    n = s.shape[-1]
    keep = np.tril(np.ones((s.shape[-2], n), dtype=bool))
    return np.where(keep, s, -np.inf)


def attention(
    q: npt.ArrayLike,
    k: npt.ArrayLike,
    v: npt.ArrayLike,
    *,
    causal: bool = False,
    mask: npt.ArrayLike | None = None,
    fully_masked: FullyMasked = "raise",
) -> np.ndarray:
    """Scaled dot-product attention `softmax(QK^T / sqrt(d_k)) V` in float64, optionally masked.

    Rows are tokens (q: n × d_k, k: m × d_k, v: m × d_v); leading axes are batch axes. `mask` is
    boolean, broadcast to the scores (n × m), True where a query may attend to a key (as in
    PyTorch's `scaled_dot_product_attention`); a fully masked row follows `fully_masked`
    (`softmax_rows`).

    >>> q = k = np.eye(2); v = np.array([[1.0], [3.0]])
    >>> attention(q, k, v, causal=True)[0].tolist()
    [1.0]
    >>> attention(q, k, v, mask=[[True, False], [False, False]], fully_masked="zero").tolist()
    [[1.0], [0.0]]
    """
    q, k, v = (np.asarray(x, dtype=np.float64) for x in (q, k, v))
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if causal:
        s = causal_mask(s)
    if mask is not None:
        s = np.where(np.asarray(mask, dtype=bool), s, -np.inf)
    return softmax_rows(s, fully_masked=fully_masked) @ v


def multi_head_attention(
    x: npt.ArrayLike,
    w_q: Sequence[npt.ArrayLike],
    w_k: Sequence[npt.ArrayLike],
    w_v: Sequence[npt.ArrayLike],
    w_o: npt.ArrayLike,
    *,
    causal: bool = False,
) -> np.ndarray:
    """`Concat(Z^{(1)},...,Z^{(H)}) W_O` with each head `Z^{(h)} = Attention(XW_Q^{(h)}, ...)`.

    Row vectors throughout: `x` is n × d (leading axes are batch axes), `W_Q^{(h)}` is d × d_k.
    """
    x = np.asarray(x, dtype=np.float64)
    triples = zip(w_q, w_k, w_v, strict=True)
    heads = [attention(x @ _f64(a), x @ _f64(b), x @ _f64(c), causal=causal) for a, b, c in triples]
    return np.concatenate(heads, axis=-1) @ _f64(w_o)


def _f64(a: npt.ArrayLike) -> np.ndarray:
    return np.asarray(a, dtype=np.float64)


# ---- evaluating kernel expressions ---------------------------------------------------------


class EvalError(SymattnError):
    """An expression cannot be evaluated numerically (unknown node or unbound symbol)."""


class IllFormed(EvalError):
    """The expression is ill-formed at these sizes: it reads outside a matrix, gives one name
    two shapes, or divides by zero. Unlike a plain EvalError, this says something about the claim.
    """


class ArrayError(EvalError, errors.InputError):
    """The arrays given to `evaluate` do not fit the expression: an unknown or missing name, or a
    shape, dtype or value it cannot take. The message names the input."""


#: The name the numeric API has always given `ArrayError`.
InputError = ArrayError


class MaskedRowError(IllFormed):
    """A softmax over a row (or column) whose every entry is masked: it has no value."""


class Float64(Arithmetic):
    """float64 arithmetic for the one evaluator: standard-normal data, real exp, -inf masks.

    Each leaf's data depends only on the seed and the leaf's name (never on the order in which
    leaves are met), so both sides of a claim and every run see the same matrices.
    """

    name = "float64"
    dtype: Any = np.float64

    def __init__(self, seed: int = 0):
        self.seed = seed

    def draw(self, key: tuple, shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
        return np.random.default_rng([self.seed, _stable_hash(key)]).standard_normal(shape)

    def constant(self, e: sympy.Basic, ev: Evaluator) -> Any:
        if e == -sympy.oo:
            return -np.inf
        if e == sympy.oo:
            return np.inf
        return float(e) if e.is_Rational else float(sympy.N(e, 20))

    def index(self, v: Any) -> Any:
        return np.asarray(v, dtype=np.float64) if isinstance(v, np.ndarray) else float(v)

    def add(self, a: Any, b: Any) -> Any:
        return a + b

    def mul(self, a: Any, b: Any) -> Any:
        return a * b

    def inverse(self, a: Any) -> Any:
        if np.any(np.asarray(a) == 0):
            raise IllFormed("division by zero")
        return 1.0 / a

    def power(self, a: Any, k: int) -> Any:
        return a**k

    def exp(self, a: Any, ev: Evaluator) -> Any:
        return np.exp(a)

    def trig(self, name: str, a: Any, ev: Evaluator) -> Any:
        return np.cos(a) if name == "cos" else np.sin(a)

    def real_power(self, base: Any, exponent: Any, e: sympy.Basic) -> Any:
        if np.any(np.asarray(base) < 0):
            raise IllFormed(f"{e}: a negative number to a fractional power")
        if np.any(np.asarray(base) == 0) and np.any(np.asarray(exponent) < 0):
            raise IllFormed(f"division by zero in {e}")
        return np.power(base, exponent)

    def matmul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return product(a, b)

    def total(self, a: np.ndarray, axis: int, keepdims: bool = False) -> Any:
        return np.sum(a, axis=axis, keepdims=keepdims)

    def times(self, a: Any, count: int) -> Any:
        return a * count

    def softmax(self, s: np.ndarray, keep: np.ndarray | None, axis: int, ev: Evaluator) -> Any:
        if keep is not None:
            if not keep.any(axis=axis).all():
                raise MaskedRowError("a softmax over a fully masked row or column has no value")
            s = np.where(keep, s, -np.inf)
        if axis == 0:
            return _softmax_last(s.T).T
        return _softmax_last(s)

    def equal(self, x: Any, y: Any) -> Any:
        x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
        return (x == y) | np.isclose(x, y, rtol=RTOL, atol=ATOL)


class Digits30(Float64):
    """30-digit mpmath arithmetic (object arrays), to confirm a difference float64 found.

    Sums, products, powers and inverses are Float64's; values, exp, products of matrices and
    softmax are mpmath's.
    """

    name = "30-digit"
    dtype = object

    def __init__(self) -> None:
        super().__init__(seed=0)
        self.mp = mpmath

    def adopt(self, arr: np.ndarray) -> np.ndarray:
        flat = [self.mp.mpf(float(x)) for x in np.ravel(arr)]  # small integers: exact
        return np.array(flat, dtype=object).reshape(np.shape(arr))

    def constant(self, e: sympy.Basic, ev: Evaluator) -> Any:
        if e in (sympy.oo, -sympy.oo):
            return self.mp.mpf("inf") if e == sympy.oo else self.mp.mpf("-inf")
        if e.is_Rational:
            return self.mp.mpf(int(e.p)) / int(e.q)
        return self.mp.mpf(str(sympy.N(e, 40)))

    def index(self, v: Any) -> Any:
        return v

    def real_power(self, base: Any, exponent: Any, e: sympy.Basic) -> Any:
        return base**exponent

    def exp(self, a: Any, ev: Evaluator) -> Any:
        if isinstance(a, np.ndarray):
            return np.array([self.mp.exp(x) for x in a.ravel()], dtype=object).reshape(a.shape)
        return self.mp.exp(a)

    def trig(self, name: str, a: Any, ev: Evaluator) -> Any:
        fn = self.mp.cos if name == "cos" else self.mp.sin
        if isinstance(a, np.ndarray):
            return np.array([fn(x) for x in a.ravel()], dtype=object).reshape(a.shape)
        return fn(a)

    def matmul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.dot(a, b)

    def softmax(self, s: np.ndarray, keep: np.ndarray | None, axis: int, ev: Evaluator) -> Any:
        e = self.exp(s, ev)
        if keep is not None:
            e = np.where(keep, e, 0)
        return e / self.total(e, axis, keepdims=True)

    def equal(self, x: Any, y: Any) -> Any:
        return np.asarray(x == y)


def digits30(
    sides: Sequence[sympy.Basic],
    cell: tuple[int, int] | None,
    point: Mapping[sympy.Symbol, int],
    values: Mapping[tuple, np.ndarray],
) -> list[Any]:
    """Each side at `point` (entry `cell` of a matrix) with 30-digit arithmetic, the entries of
    `values` (keyed as in `Env.data`) and every other entry 0."""
    with mpmath.workdps(30):
        return at_point(Digits30(), sides, cell, point, values)


def at_point(
    arith: Any,
    sides: Sequence[sympy.Basic],
    cell: tuple[int, int] | None,
    point: Mapping[sympy.Symbol, int],
    values: Mapping[tuple, np.ndarray],
) -> list[Any]:
    """Each side at `point` (entry `cell` of a matrix) in the arithmetic `arith` (30 digits,
    intervals), the entries of `values` (keyed as in `Env.data`) and every other entry 0."""

    def draw(key: tuple, shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
        if len(key) == 2 and key[1] != "column":
            key = (key[0], "head", key[1])
        return np.asarray(values.get(key, np.zeros(shape)))

    ev = Evaluator(arith, np.random.default_rng(0), learn_shapes(*sides), draw)
    ev.env = dict(point)
    try:
        if cell is not None:
            return [ev.mat(side)[cell[0] - 1, cell[1] - 1] for side in sides]
        return [np.asarray(ev.scalar(side), dtype=object).item() for side in sides]
    except IllFormedHere as exc:
        raise IllFormed(str(exc)) from None
    except (Unsupported, _Loop) as exc:
        raise EvalError(str(exc)) from None


@dataclass
class Env:
    """Sizes of dims, values of free indices, and the random data behind every named matrix.

    A view of the one evaluator (`symattn.kernel.evaluate`) with float64 arithmetic, for the numeric
    backend's callers: `matrix(m, env)` and `scalar(e, env)`.
    """

    sizes: Mapping[sympy.Symbol, int]
    indices: dict[sympy.Symbol, int] = field(default_factory=dict)
    seed: int = 0
    data: dict[tuple, np.ndarray] = field(default_factory=dict)
    shapes: dict[str, tuple[sympy.Expr, sympy.Expr]] = field(default_factory=dict)
    scalars: dict[sympy.Symbol, float] = field(default_factory=dict)
    _evaluator: Evaluator | None = field(default=None, repr=False)

    def learn(self, *exprs: sympy.Basic) -> None:
        """Record the shapes of the named matrices in `exprs`, so bare entries can be evaluated."""
        for label, shape in named_shapes(*exprs).items():
            self.shapes.setdefault(label, shape)
        self._evaluator = None

    def size(self, e: sympy.Expr) -> int:
        values = {**self.sizes, **self.indices}
        v = sympy.sympify(e, strict=True).xreplace({k: sympy.Integer(x) for k, x in values.items()})
        if not (v.is_Integer and v >= 1):
            raise EvalError(f"size {e} evaluates to {v}, not a positive integer")
        return int(v)

    def matrix(self, key: tuple, shape: tuple[int, int]) -> np.ndarray:
        if key not in self.data:
            rng = np.random.default_rng([self.seed, _stable_hash(key)])
            self.data[key] = rng.standard_normal(shape)
        arr = self.data[key]
        if arr.shape != shape:
            raise IllFormed(f"{key[0]} is {arr.shape}, expected {shape}")
        return arr

    def forget(self) -> None:
        """Drop computed values (after the data behind them changed)."""
        self._evaluator = None

    def evaluator(self) -> Evaluator:
        """The evaluator behind this environment, with its sizes and indices in scope."""
        ev = self._evaluator
        if ev is None:
            shapes = {}
            for label, (rows, cols) in self.shapes.items():
                try:
                    shapes[label] = (self.size(rows), self.size(cols))
                except EvalError:
                    continue
            ev = Evaluator(Float64(self.seed), np.random.default_rng(self.seed), shapes, self._draw)
            self._evaluator = ev
        ev.env = {**{k: int(v) for k, v in self.sizes.items()}, **dict(self.indices)}
        return ev

    def _draw(self, key: tuple, shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
        if key[0] == "scalar":
            for sym, value in self.scalars.items():
                if sym.name == key[1]:
                    return np.full(shape, float(value))
            raise EvalError(f"no value for {key[1]}")
        if len(key) == 2 and key[1] != "column":  # a head: (name, h)
            return self.matrix((key[0], "head", key[1]), shape)
        return self.matrix(key, shape)


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
    """Evaluate a matrix expression to a float64 array (with the one evaluator)."""
    return _run(lambda ev: np.asarray(ev.mat(m), dtype=np.float64), env)


def scalar(e: sympy.Basic, env: Env) -> float:
    """Evaluate a scalar (sums, entries, exp, Piecewise) with the sizes and data of `env`."""
    return float(_run(lambda ev: np.asarray(ev.scalar(sympy.sympify(e, strict=True))), env))


def _run(f: Callable[[Evaluator], Any], env: Env) -> Any:
    try:
        return f(env.evaluator())
    except IllFormedHere as exc:
        raise IllFormed(str(exc)) from None
    except Unsupported as exc:
        raise EvalError(str(exc)) from None
    except _Loop as exc:
        raise EvalError(f"index {exc.var} has no single value here") from None


def close(a: float | np.ndarray, b: float | np.ndarray) -> bool:
    """Agreement within the stated tolerances: |a - b| <= ATOL + RTOL * |b|."""
    if isinstance(a, float) and isinstance(b, float):  # np.allclose costs 50 us a call
        if a == b:
            return True
        return bool(abs(a - b) <= ATOL + RTOL * abs(b))  # nan and inf compare False
    return bool(np.allclose(a, b, rtol=RTOL, atol=ATOL))


# ---- the numeric witness ---------------------------------------------------------------------


def numeric_check(
    lhs: Term,
    rhs: Term,
    ranges: Mapping[sympy.Symbol, Range],
    *,
    seed: int = 0,
    assuming: Sequence[sympy.Basic] = (),
) -> WitnessResult:
    """float64 random data: both sides agree within RTOL/ATOL at every index point.

    The fast walker (`symattn.kernel.evaluate`) with float64 arithmetic (`Float64`): every
    index point at once, every entry of a matrix claim.
    """
    infinite = masked.problem(lhs, rhs)
    if infinite is not None:
        return WitnessResult(None, f"ill-formed: {infinite}")
    ranges = dict(ranges)
    plans = size_plans(lhs, rhs, ranges)
    if not plans:
        return no_plan()
    evidence: list[Evidence] = []
    for plan in plans:
        if sum(1 for e in evidence if e.points) >= 2:
            break
        try:
            subs = sizes.substitution(plan)
        except sizes.NoPlan as exc:
            return WitnessResult(None, f"no evidence: {exc}")
        too_large = over_budget(lhs, rhs, subs) or points_over_budget(lhs, rhs, ranges, subs)
        if too_large is not None:
            return WitnessResult(None, f"not evaluated: {too_large}")
        at = {s: sympy.Integer(v) for s, v in subs.items()}
        left, right = lhs.xreplace(at), rhs.xreplace(at)
        rng = {v: range_at(r, at) for v, r in ranges.items()}
        f = Evaluator(Float64(seed), np.random.default_rng(seed), learn_shapes(left, right))
        try:
            found, points = compare(
                f, left, right, ordered(rng), [c.xreplace(at) for c in assuming]
            )
        except ReversedRange:
            raise
        except (Unsupported, _Loop, EvalError, ValueError) as exc:
            return WitnessResult(None, f"numeric evaluation failed: {exc}")
        if found is not None:
            where, x, y = found
            at_text = ", ".join(f"{k}={v}" for k, v in where) or "the claim"
            values = f"{float(x)!r} vs {float(y)!r}"
            if not (np.isfinite(float(x)) and np.isfinite(float(y))):
                # overflow or inf - inf: float64 cannot tell, which is no evidence either way
                return WitnessResult(None, f"float64 gave no finite value at {at_text}: {values}")
            return WitnessResult(False, f"differ numerically at {at_text}: {values}")
        if isinstance(lhs, MatExpr):
            points *= int(lhs.rows.xreplace(at)) * int(lhs.cols.xreplace(at))
        evidence.append(Evidence(plan_names(plan), "float64", points, points, unit_of(lhs)))
    return supported(evidence, f"agree within rtol={RTOL}, atol={ATOL}")
