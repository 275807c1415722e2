"""An independent evaluator for the differential soundness suite: numpy and the standard library.

This module imports NOTHING from symattn (a test checks it). It defines the suite's own small
claim AST (dataclasses below), its own shape logic, its own size plans that satisfy a context's
size relations, and decides a claim `lhs = rhs` by evaluating both sides with numpy on random
data at every index point of several size plans.

Semantics (the project's decisions, written again here from the text, not from the kernel):

- matrices are 1-based; `Row(M, i)` is row i as a 1 x cols matrix (the row convention);
- `Softmax` is row-wise, `ColSoftmax` column-wise; `Mask(S)` is the causal mask: entries with
  j > i are excluded (exp of them is 0), so a masked row's softmax sums only over j <= i;
  `Mask(S, upper=True)` is the wrong triangle (keeps j >= i);
- `Block(W, h, m, count)` is rows (h-1)m+1 .. hm of W (W has count*m rows): `W_O^{(h)}`;
- `Concat(body, h, count)` puts body(h=1), ..., body(h=count) side by side;
- a sum over an empty range (hi = lo - 1) is 0; a reversed range (hi < lo - 1) is ill-formed;
- an index outside its matrix, a head outside 1..count, or a name used with two shapes makes the
  claim ill-formed / ill-typed, hence not true;
- a 1 x 1 matrix may be compared with a scalar (a textbook's `q_i k_j^T = q_i . k_j`).

Truth: `decide(claim, context)` returns `Decision.truth` in {"true", "false", "ill_typed",
"ill_formed"}: "true" when both sides agree (rtol 1e-8) at every index point of every plan.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

DIM_NAMES: tuple[str, ...] = ("n", "d", "d_k", "d_v", "H")
RTOL = 1e-8
ATOL = 1e-11
MAX_POINTS = 150

# ---- dims and index expressions ----------------------------------------------------------


@dataclass(frozen=True)
class Dim:
    """A monomial size: `coef * prod(factors)`, e.g. `H*d_v`, `n`, `5`."""

    coef: int = 1
    factors: tuple[str, ...] = ()

    def value(self, plan: Mapping[str, int]) -> int:
        v = self.coef
        for f in self.factors:
            v *= plan[f]
        return v

    def __str__(self) -> str:
        parts = ([str(self.coef)] if self.coef != 1 or not self.factors else []) + list(
            self.factors
        )
        return "*".join(parts)


def D(*factors: str | int) -> Dim:
    """`D("n")`, `D("H", "d_v")`, `D(5)`."""
    coef = 1
    names = []
    for f in factors:
        if isinstance(f, int):
            coef *= f
        else:
            names.append(f)
    return Dim(coef, tuple(sorted(names)))


@dataclass(frozen=True)
class Ix:
    """An affine index expression over index and dim names: `i`, `i - 1`, `n`, `h + 1`, `1`."""

    terms: tuple[tuple[str, int], ...] = ()
    const: int = 0

    def value(self, env: Mapping[str, int]) -> int:
        return self.const + sum(c * env[name] for name, c in self.terms)

    def names(self) -> set[str]:
        return {name for name, _ in self.terms}

    def shifted(self, k: int) -> Ix:
        return Ix(self.terms, self.const + k)

    def __str__(self) -> str:
        out = ""
        for name, c in self.terms:
            sign = "-" if c < 0 else ("+" if out else "")
            mag = "" if abs(c) == 1 else str(abs(c))
            out += f"{sign}{mag}{name}"
        if self.const or not out:
            out += f"{self.const:+d}" if out else str(self.const)
        return out


def I(x: str | int, k: int = 0) -> Ix:  # noqa: E743 - the name reads as "index"
    """`I("i")`, `I("i", -1)`, `I("n")`, `I(1)`."""
    if isinstance(x, int):
        return Ix((), x + k)
    return Ix(((x, 1),), k)


# ---- the claim AST -------------------------------------------------------------------------


@dataclass(frozen=True)
class Sym:
    name: str
    rows: Dim
    cols: Dim


@dataclass(frozen=True)
class HeadMat:
    """Member `head` of a per-head family `name^{(h)}` (one shape for every head)."""

    name: str
    head: Ix
    rows: Dim
    cols: Dim


@dataclass(frozen=True)
class MatMul:
    a: Mat
    b: Mat


@dataclass(frozen=True)
class Tr:
    a: Mat


@dataclass(frozen=True)
class Add:
    a: Mat
    b: Mat


@dataclass(frozen=True)
class Scale:
    c: Scalar
    a: Mat


@dataclass(frozen=True)
class Softmax:
    a: Mat


@dataclass(frozen=True)
class ColSoftmax:
    a: Mat


@dataclass(frozen=True)
class Mask:
    a: Mat
    upper: bool = False


@dataclass(frozen=True)
class Row:
    a: Mat
    i: Ix


@dataclass(frozen=True)
class Concat:
    body: Mat
    var: str
    count: Dim


@dataclass(frozen=True)
class Block:
    a: Mat
    head: Ix
    m: Dim
    count: Dim


@dataclass(frozen=True)
class MSum:
    body: Mat
    var: str
    lo: Ix
    hi: Ix


@dataclass(frozen=True)
class Ones:
    rows: Dim
    cols: Dim


@dataclass(frozen=True)
class FromCol:
    """`c 1^T`: row i is the constant c_i (a per-row shift)."""

    name: str
    rows: Dim
    cols: Dim


@dataclass(frozen=True)
class Num:
    value: Fraction


@dataclass(frozen=True)
class Sqrt:
    """`dim ** (power / 2)`: `Sqrt(D("d_k"), -1)` is `1/sqrt(d_k)`."""

    dim: Dim
    power: int = 1


@dataclass(frozen=True)
class Entry:
    m: Mat
    i: Ix
    j: Ix


@dataclass(frozen=True)
class Dot:
    u: Mat
    v: Mat


@dataclass(frozen=True)
class SMul:
    a: Scalar
    b: Scalar


@dataclass(frozen=True)
class SAdd:
    a: Scalar
    b: Scalar


@dataclass(frozen=True)
class SSum:
    body: Scalar
    var: str
    lo: Ix
    hi: Ix


# The node types, for isinstance; for the type checker a node is Any (the AST is small and
# checked by its own shape logic at run time).
MAT_TYPES = (
    Sym, HeadMat, MatMul, Tr, Add, Scale, Softmax, ColSoftmax, Mask, Row, Concat, Block, MSum,
    Ones, FromCol,
)  # fmt: skip
SCALAR_TYPES = (Num, Sqrt, Entry, Dot, SMul, SAdd, SSum)
Mat = Any
Scalar = Any
Node = Any


@dataclass(frozen=True)
class ClaimSpec:
    """`lhs = rhs`; `free` gives each free index its range 1..dim."""

    lhs: Node
    rhs: Node
    free: tuple[tuple[str, Dim], ...] = ()


def children(x: Node) -> list[Node]:
    """The sub-nodes of a node (matrices and scalars)."""
    return [v for v in vars(x).values() if isinstance(v, (*MAT_TYPES, *SCALAR_TYPES))]


def nodes(x: Node) -> Iterator[Node]:
    """Every node, pre-order."""
    stack = [x]
    while stack:
        y = stack.pop()
        yield y
        stack.extend(reversed(children(y)))


# ---- contexts and size plans ---------------------------------------------------------------


@dataclass(frozen=True)
class Context:
    """Size relations in force: `d_v = d/H` (`d` determined), `d_k = d_v`, or explicit sizes;
    and how the front ends are told to read vectors (`column`: the prose of the document says
    "every vector is a column vector", `prove` gets `--conventions vectors=column`, and the
    claim is written for columns: row i of Q is `q_i^\top`). The truth does not change."""

    name: str
    relation: str = ""  # "", "d_v=d/H", "d_k=d/H", "d_k=d_v"
    explicit: Mapping[str, int] | None = None
    kind: str = "symbolic"  # "symbolic", "explicit", "worked", "written"
    vectors: str = "row"  # "row" or "column"


NO_ASSUMPTION = Context("none")
EXPLICIT_SIZES: dict[str, int] = {"n": 5, "d": 7, "d_k": 4, "d_v": 3, "H": 2}
#: A worked example small enough to write every matrix out (`W_O` is 8 × 5), sizes distinct.
WRITTEN_SIZES: dict[str, int] = {"n": 3, "d": 5, "d_k": 2, "d_v": 4, "H": 2}
CONTEXTS: tuple[Context, ...] = (
    NO_ASSUMPTION,
    Context("d_v=d/H", "d_v=d/H"),
    Context("d_k=d/H", "d_k=d/H"),
    Context("d_k=d_v", "d_k=d_v"),
    Context("explicit", explicit=EXPLICIT_SIZES, kind="explicit"),
    Context("worked", explicit=EXPLICIT_SIZES, kind="worked"),
    Context("columns", vectors="column"),
    Context("written", explicit=WRITTEN_SIZES, kind="written"),
)


def written_values(name: str, rows: int, cols: int) -> list[list[int]]:
    """The entries a "written" worked example writes out for a matrix: small integers, the same
    for a name and shape every time (the document shows them, the oracle evaluates with them).

    >>> written_values("Q", 2, 2) == written_values("Q", 2, 2)
    True
    """
    rng = random.Random(f"{name}:{rows}x{cols}")
    return [[rng.randint(-3, 3) for _ in range(cols)] for _ in range(rows)]


def _complete(rel: str, free: dict[str, int]) -> dict[str, int]:
    plan = dict(free)
    if rel == "d_v=d/H":
        plan["d"] = plan["H"] * plan["d_v"]
    elif rel == "d_k=d/H":
        plan["d"] = plan["H"] * plan["d_k"]
    elif rel == "d_k=d_v":
        plan["d_k"] = plan["d_v"]
    return plan


def plans(ctx: Context, count: int = 3, seed: int = 0) -> list[dict[str, int]]:
    """`count` size plans satisfying the context; distinct dims get distinct values where the
    relations allow (so a dim confused for another shows).

    >>> all(p["d"] == p["H"] * p["d_v"] for p in plans(Context("x", "d_v=d/H")))
    True
    """
    if ctx.explicit is not None:
        return [dict(ctx.explicit)]
    # Hand-picked first plans (small, all distinct), then seeded random ones.
    base = [
        {"n": 3, "d": 5, "d_k": 4, "d_v": 6, "H": 2},
        {"n": 4, "d": 7, "d_k": 5, "d_v": 2, "H": 3},
        {"n": 4, "d": 3, "d_k": 5, "d_v": 6, "H": 2},
    ]
    out: list[dict[str, int]] = []
    rng = random.Random(seed)
    candidates = base + [
        {k: rng.randint(2, 6) for k in DIM_NAMES} | {"H": rng.randint(2, 3)} for _ in range(60)
    ]
    for free in candidates:
        plan = _complete(ctx.relation, free)
        if _distinct_enough(plan, ctx.relation) and plan not in out and max(plan.values()) <= 12:
            out.append(plan)
        if len(out) == count:
            break
    return out


def _distinct_enough(plan: Mapping[str, int], rel: str) -> bool:
    tied = {("d_k", "d_v")} if rel == "d_k=d_v" else set()
    for a, b in itertools.combinations(DIM_NAMES, 2):
        if (a, b) in tied or (b, a) in tied:
            continue
        if plan[a] == plan[b]:
            return False
    # Products a dim could be confused with (H*d_v against d, n, d_k) differ as well, unless tied.
    for prod in ("d_v", "d_k"):
        hp = plan["H"] * plan[prod]
        if not (rel in ("d_v=d/H", "d_k=d/H") and rel.startswith(prod)) and hp == plan["d"]:
            return False
        if hp in (plan["n"],):
            return False
    return True


def shape_plans(ctx: Context) -> list[dict[str, int]]:
    """Plans to decide equality of two dims under the context: two monomials are equal under the
    relations iff they agree at many plans that satisfy them (large, random, distinct values)."""
    if ctx.explicit is not None:
        return [dict(ctx.explicit)]
    rng = random.Random(12345)
    primes = [101, 103, 107, 109, 113, 127, 131, 137, 139, 149, 151, 157, 163, 167, 173]
    out = []
    for _ in range(4):
        vals = rng.sample(primes, len(DIM_NAMES))
        out.append(_complete(ctx.relation, dict(zip(DIM_NAMES, vals, strict=True))))
    return out


# ---- shapes -------------------------------------------------------------------------------


class IllTyped(Exception):
    """A shape mismatch under the context (products, sums, masks, blocks, two shapes for a name)."""


class IllFormed(Exception):
    """An index outside its matrix, a head outside its family, or a reversed sum range."""


Shape = tuple[Dim, Dim]


class Shapes:
    """Shape logic of the AST under a context (no evaluation of data)."""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self.plans = shape_plans(ctx)
        self.names: dict[str, Shape] = {}

    def eq(self, a: Dim, b: Dim) -> bool:
        return all(a.value(p) == b.value(p) for p in self.plans)

    def _name(self, name: str, shape: Shape) -> None:
        old = self.names.setdefault(name, shape)
        if not (self.eq(old[0], shape[0]) and self.eq(old[1], shape[1])):
            raise IllTyped(f"{name} used with two shapes {old} and {shape}")

    def of(self, x: Node) -> Shape | None:
        """The shape of a matrix node; None for a scalar. Raises IllTyped."""
        f = _SHAPE.get(type(x))
        if f is None:
            raise TypeError(f"not a claim node: {x!r}")
        return f(self, x)

    def mat(self, x: Node) -> Shape:
        s = self.of(x)
        if s is None:
            raise IllTyped("a scalar where a matrix is needed")
        return s

    def claim(self, c: ClaimSpec) -> None:
        """Raise IllTyped unless both sides typecheck and have the same shape (or 1x1 vs scalar)."""
        a, b = self.of(c.lhs), self.of(c.rhs)
        one = D(1)
        if a is None and b is None:
            return
        if a is None or b is None:
            m = a if a is not None else b
            assert m is not None
            if self.eq(m[0], one) and self.eq(m[1], one):
                return
            raise IllTyped(f"a scalar compared with a {m[0]} x {m[1]} matrix")
        if not (self.eq(a[0], b[0]) and self.eq(a[1], b[1])):
            raise IllTyped(f"shapes {a} and {b} differ")


# The shape of each node, by its class (the AST's classes have no subclasses: exact lookup).
ShapeOf = Callable[[Shapes, Any], "Shape | None"]
_SHAPE: dict[type, ShapeOf] = {}


def _shape_of(*classes: type) -> Callable[[ShapeOf], ShapeOf]:
    def add(f: ShapeOf) -> ShapeOf:
        _SHAPE.update(dict.fromkeys(classes, f))
        return f

    return add


@_shape_of(Sym)
def _sym_shape(sh: Shapes, x: Sym) -> Shape:
    sh._name(x.name, (x.rows, x.cols))
    return (x.rows, x.cols)


@_shape_of(HeadMat)
def _head_shape(sh: Shapes, x: HeadMat) -> Shape:
    sh._name(x.name + "^(h)", (x.rows, x.cols))
    return (x.rows, x.cols)


@_shape_of(Ones)
def _ones_shape(sh: Shapes, x: Ones) -> Shape:
    return (x.rows, x.cols)


@_shape_of(FromCol)
def _fromcol_shape(sh: Shapes, x: FromCol) -> Shape:
    sh._name(x.name + "1^T", (x.rows, x.cols))
    return (x.rows, x.cols)


@_shape_of(MatMul)
def _matmul_shape(sh: Shapes, x: MatMul) -> Shape:
    a, b = sh.mat(x.a), sh.mat(x.b)
    if not sh.eq(a[1], b[0]):
        raise IllTyped(f"product inner dims {a[1]} and {b[0]}")
    return (a[0], b[1])


@_shape_of(Tr)
def _tr_shape(sh: Shapes, x: Tr) -> Shape:
    a = sh.mat(x.a)
    return (a[1], a[0])


@_shape_of(Add)
def _add_shape(sh: Shapes, x: Add) -> Shape:
    a, b = sh.mat(x.a), sh.mat(x.b)
    if not (sh.eq(a[0], b[0]) and sh.eq(a[1], b[1])):
        raise IllTyped(f"sum of {a} and {b}")
    return a


@_shape_of(Scale)
def _scale_shape(sh: Shapes, x: Scale) -> Shape:
    if sh.of(x.c) is not None:
        raise IllTyped("scale by a matrix")
    return sh.mat(x.a)


@_shape_of(Softmax, ColSoftmax)
def _softmax_shape(sh: Shapes, x: Any) -> Shape:
    return sh.mat(x.a)


@_shape_of(Mask)
def _mask_shape(sh: Shapes, x: Mask) -> Shape:
    a = sh.mat(x.a)
    if not sh.eq(a[0], a[1]):
        raise IllTyped("mask of a non-square matrix")
    return a


@_shape_of(Row)
def _row_shape(sh: Shapes, x: Row) -> Shape:
    a = sh.mat(x.a)
    return (D(1), a[1])


@_shape_of(Concat)
def _concat_shape(sh: Shapes, x: Concat) -> Shape:
    a = sh.mat(x.body)
    return (
        a[0],
        Dim(x.count.coef * a[1].coef, tuple(sorted(x.count.factors + a[1].factors))),
    )


@_shape_of(Block)
def _block_shape(sh: Shapes, x: Block) -> Shape:
    a = sh.mat(x.a)
    total = Dim(x.m.coef * x.count.coef, tuple(sorted(x.m.factors + x.count.factors)))
    if not sh.eq(a[0], total):
        raise IllTyped(f"cannot cut {a[0]} rows into {x.count} blocks of {x.m}")
    return (x.m, a[1])


@_shape_of(MSum)
def _msum_shape(sh: Shapes, x: MSum) -> Shape:
    return sh.mat(x.body)


@_shape_of(Num, Sqrt)
def _number_shape(sh: Shapes, x: Any) -> None:
    return None


@_shape_of(Entry)
def _entry_shape(sh: Shapes, x: Entry) -> None:
    sh.mat(x.m)
    return None


@_shape_of(Dot)
def _dot_shape(sh: Shapes, x: Dot) -> None:
    u, v = sh.mat(x.u), sh.mat(x.v)
    if not (sh.eq(u[0], D(1)) and sh.eq(v[0], D(1)) and sh.eq(u[1], v[1])):
        raise IllTyped(f"dot of {u} and {v}")
    return None


@_shape_of(SMul, SAdd)
def _scalar_op_shape(sh: Shapes, x: Any) -> None:
    if sh.of(x.a) is not None or sh.of(x.b) is not None:
        raise IllTyped("scalar operation on a matrix")
    return None


@_shape_of(SSum)
def _ssum_shape(sh: Shapes, x: SSum) -> None:
    if sh.of(x.body) is not None:
        raise IllTyped("scalar sum of a matrix")
    return None


# ---- evaluation ----------------------------------------------------------------------------


class Evaluator:
    """Both sides of a claim at one plan, one seed: numpy arrays and Python loops."""

    def __init__(
        self, plan: Mapping[str, int], seed: int, written: Mapping[str, np.ndarray] | None = None
    ):
        self.plan = dict(plan)
        self.rng = np.random.default_rng(seed)
        self.data: dict[tuple[str, int], np.ndarray] = {
            (name, 0): arr for name, arr in (written or {}).items()
        }
        self._names: dict[int, tuple[str, ...]] = {}
        self._memo: dict[tuple[Any, ...], np.ndarray] = {}

    def _leaf(self, key: str, head: int, rows: int, cols: int) -> np.ndarray:
        arr = self.data.get((key, head))
        if arr is None:
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
        key = (id(x), *(env.get(k) for k in names))
        out = self._memo.get(key)
        if out is None:
            out = self._memo[key] = self._mat(x, env)
        return out

    def _mat(self, x: Node, env: Mapping[str, int]) -> np.ndarray:
        f = _MATRIX.get(type(x))
        if f is None:
            raise IllTyped(f"a scalar where a matrix is needed: {type(x).__name__}")
        return f(self, x, env)

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
    return np.ones((x.rows.value(p), x.cols.value(p)))


@_value_of(_MATRIX, FromCol)
def _fromcol(ev: Evaluator, x: FromCol, env: Mapping[str, int]) -> np.ndarray:
    p = ev.plan
    col = ev._leaf(x.name + "1^T", 0, x.rows.value(p), 1)
    return np.repeat(col, x.cols.value(p), axis=1)


@_value_of(_MATRIX, MatMul)
def _matmul(ev: Evaluator, x: MatMul, env: Mapping[str, int]) -> np.ndarray:
    a, b = ev.mat(x.a, env), ev.mat(x.b, env)
    if a.shape[1] != b.shape[0]:
        raise IllTyped("inner dims")
    out = np.zeros((a.shape[0], b.shape[1]))
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
    return a + b


@_value_of(_MATRIX, Scale)
def _scale(ev: Evaluator, x: Scale, env: Mapping[str, int]) -> np.ndarray:
    return ev.scalar(x.c, env) * ev.mat(x.a, env)


@_value_of(_MATRIX, Softmax)
def _softmax(ev: Evaluator, x: Softmax, env: Mapping[str, int]) -> np.ndarray:
    return _softmax_rows(ev.mat(x.a, env))


@_value_of(_MATRIX, ColSoftmax)
def _colsoftmax(ev: Evaluator, x: ColSoftmax, env: Mapping[str, int]) -> np.ndarray:
    return _softmax_rows(ev.mat(x.a, env).T).T.copy()


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
        return np.zeros(ev._shape_at(x.body, env))
    total = None
    for k in range(lo, hi + 1):
        term = ev.mat(x.body, {**env, x.var: k})
        total = term if total is None else total + term
    assert total is not None
    return total


@_value_of(_SCALAR, Num)
def _num(ev: Evaluator, x: Num, env: Mapping[str, int]) -> float:
    return float(x.value)


@_value_of(_SCALAR, Sqrt)
def _sqrt(ev: Evaluator, x: Sqrt, env: Mapping[str, int]) -> float:
    return float(x.dim.value(ev.plan)) ** (x.power / 2)


@_value_of(_SCALAR, Entry)
def _entry(ev: Evaluator, x: Entry, env: Mapping[str, int]) -> float:
    m = ev.mat(x.m, env)
    i, j = ev.ix(x.i, env), ev.ix(x.j, env)
    if not (1 <= i <= m.shape[0] and 1 <= j <= m.shape[1]):
        raise IllFormed(f"entry ({i},{j}) of a {m.shape} matrix")
    return float(m[i - 1, j - 1])


@_value_of(_SCALAR, Dot)
def _dot(ev: Evaluator, x: Dot, env: Mapping[str, int]) -> float:
    u, v = ev.mat(x.u, env), ev.mat(x.v, env)
    if u.shape != v.shape or 1 not in u.shape:
        raise IllTyped("dot of two shapes")
    return float(sum(a * b for a, b in zip(u.ravel(), v.ravel(), strict=True)))


@_value_of(_SCALAR, SMul)
def _smul(ev: Evaluator, x: SMul, env: Mapping[str, int]) -> float:
    return ev.scalar(x.a, env) * ev.scalar(x.b, env)


@_value_of(_SCALAR, SAdd)
def _sadd(ev: Evaluator, x: SAdd, env: Mapping[str, int]) -> float:
    return ev.scalar(x.a, env) + ev.scalar(x.b, env)


@_value_of(_SCALAR, SSum)
def _ssum(ev: Evaluator, x: SSum, env: Mapping[str, int]) -> float:
    lo, hi = ev.ix(x.lo, env), ev.ix(x.hi, env)
    if hi < lo - 1:
        raise IllFormed(f"reversed sum range {lo}..{hi}")
    return float(sum(ev.scalar(x.body, {**env, x.var: k}) for k in range(lo, hi + 1)))


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
        top = max(row)
        if top == -math.inf:
            raise IllFormed("softmax of a fully masked row")
        ex = [0.0 if v == -math.inf else math.exp(v - top) for v in row]
        total = sum(ex)
        out[i] = [e / total for e in ex]
    return out


def _close(x: Any, y: Any) -> bool:
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise IllFormed("a value is not finite (a masked entry used outside a softmax)")
    if a.shape != b.shape:
        if a.size == 1 and b.size == 1:
            a, b = a.reshape(()), b.reshape(())
        else:
            return False
    return bool(np.allclose(a, b, rtol=RTOL, atol=ATOL))


# ---- deciding a claim -----------------------------------------------------------------------


@dataclass(frozen=True)
class Decision:
    """The oracle's truth for a claim under a context, and where it was decided."""

    truth: str  # "true", "false", "ill_typed", "ill_formed"
    detail: str = ""
    plans: tuple[tuple[tuple[str, int], ...], ...] = ()
    points: int = 0
    witness: Mapping[str, Any] = field(default_factory=dict)


def points(free: Sequence[tuple[str, Dim]], plan: Mapping[str, int], seed: int) -> list[dict]:
    """Every index point (ranges 1..dim), or a seeded sample with the corners when too many."""
    names = [name for name, _ in free]
    axes = [range(1, dim.value(plan) + 1) for _, dim in free]
    pts = [dict(zip(names, vals, strict=True)) for vals in itertools.product(*axes)]
    if len(pts) > MAX_POINTS:
        rng = random.Random(seed)
        pts = [pts[0], pts[-1], *rng.sample(pts[1:-1], MAX_POINTS - 2)]
    return pts


def with_inferred_ranges(c: ClaimSpec, shapes: Shapes) -> ClaimSpec:
    """A free index ranges over the dim it indexes (rows of `M` in `M_{ij}` or `m_i`, cols of
    `M` in `M_{ij}`), as a reader of the claim infers it; the declared range is kept when the
    index indexes nothing, or dims that differ under the context."""
    found: dict[str, list[Dim]] = {}
    for side in (c.lhs, c.rhs):
        for x in nodes(side):
            pairs: list[tuple[Ix, Dim]] = []
            if isinstance(x, Entry):
                rows, cols = shapes.mat(x.m)
                pairs = [(x.i, rows), (x.j, cols)]
            elif isinstance(x, Row):
                pairs = [(x.i, shapes.mat(x.a)[0])]
            for e, dim in pairs:
                if len(e.terms) == 1 and e.terms[0][1] == 1 and e.const == 0:
                    found.setdefault(e.terms[0][0], []).append(dim)
    free = []
    for name, declared in c.free:
        dims = found.get(name, [])
        if dims and all(shapes.eq(dims[0], x) for x in dims[1:]):
            free.append((name, dims[0]))
        else:
            free.append((name, declared))
    return ClaimSpec(c.lhs, c.rhs, tuple(free))


def decide_at(c: ClaimSpec, plan: Mapping[str, int]) -> Decision:
    """Truth of the claim at one plan only (used for the sizes a 'checked' verdict lists)."""
    ctx = Context("at", explicit=dict(plan))
    try:
        shapes = Shapes(ctx)
        shapes.claim(c)
        c = with_inferred_ranges(c, shapes)
    except IllTyped as exc:
        return Decision("ill_typed", str(exc))
    return _evaluate(c, [dict(plan)], (0, 1))


def decide(c: ClaimSpec, ctx: Context = NO_ASSUMPTION) -> Decision:
    """Truth under a context: ill-typed by the shape logic, else evaluated at every index point
    of three plans (explicit contexts: their one plan, three seeds).

    >>> Q, K = Sym("Q", D("n"), D("d_k")), Sym("K", D("n"), D("d_k"))
    >>> c = ClaimSpec(Entry(MatMul(Q, Tr(K)), I("i"), I("j")), Dot(Row(Q, I("j")), Row(K, I("i"))),
    ...               (("i", D("n")), ("j", D("n"))))
    >>> decide(c).truth
    'false'
    """
    try:
        shapes = Shapes(ctx)
        shapes.claim(c)
        c = with_inferred_ranges(c, shapes)
    except IllTyped as exc:
        return Decision("ill_typed", str(exc))
    ps = plans(ctx, 3)
    if ctx.kind == "written":  # the claim at the values the worked example writes out
        return _evaluate(c, ps, (0,), _written(c, ps[0]))
    seeds = (0, 1, 2) if ctx.explicit is not None else (0, 1)
    return _evaluate(c, ps, seeds)


def _written(c: ClaimSpec, plan: Mapping[str, int]) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    for side in (c.lhs, c.rhs):
        for x in nodes(side):
            if isinstance(x, Sym) and x.name not in out:
                rows, cols = x.rows.value(plan), x.cols.value(plan)
                out[x.name] = np.array(written_values(x.name, rows, cols), dtype=float)
    return out


def _evaluate(
    c: ClaimSpec,
    ps: Sequence[Mapping[str, int]],
    seeds: Sequence[int],
    written: Mapping[str, np.ndarray] | None = None,
) -> Decision:
    total = 0
    for plan in ps:
        for seed in seeds:
            ev = Evaluator(plan, seed, written)
            for pt in points(c.free, plan, seed):
                try:
                    with np.errstate(all="ignore"):
                        a, b = ev.value(c.lhs, pt), ev.value(c.rhs, pt)
                        same = _close(a, b)
                except IllFormed as exc:
                    return Decision("ill_formed", str(exc), (tuple(sorted(plan.items())),), total)
                except IllTyped as exc:
                    return Decision("ill_typed", str(exc), (tuple(sorted(plan.items())),), total)
                total += 1
                if not same:
                    return Decision(
                        "false",
                        f"differ at {plan} {pt}: {np.ravel(a)[:3]} vs {np.ravel(b)[:3]}",
                        (tuple(sorted(plan.items())),),
                        total,
                        {"plan": dict(plan), "point": pt, "seed": seed},
                    )
    return Decision(
        "true", "", tuple(tuple(sorted(p.items())) for p in ps), total, {"plans": len(ps)}
    )
