"""The wild claims' truth: both sides evaluated here, at every size value and data plan.

Imports only numpy, the standard library and the wild classes' own modules; nothing else from
symattn (a test checks it).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from symattn.soundness.wild.nodes import (
    MT,
    Comp,
    DotP,
    Eye,
    FamVec,
    Fn,
    Frob,
    Had,
    Ix,
    Lit,
    MaskedAttn,
    Mat,
    MEntry,
    Minus,
    MMul,
    Neg,
    Node,
    Norm,
    Num,
    Ones,
    Plus,
    Power,
    Ratio,
    Size,
    State,
    Sum,
    Times,
    Tr,
    Var,
    VComp,
    Vec,
    VSoftmax,
    WildSpec,
    walk,
)

# ---- evaluation: the truth ---------------------------------------------------------------------


class IllFormed(Exception):
    """An index outside its vector or matrix, a log of a non-positive number, a zero division."""


class IllTyped(Exception):
    """Shapes that do not fit."""


SIZE_VALUES = tuple(range(1, 13))


DATA_PLANS: tuple[dict[str, int], ...] = (
    {"n": 3, "m": 4, "d_k": 5, "d_v": 2, "d": 6},
    {"n": 4, "m": 2, "d_k": 3, "d_v": 5, "d": 7},
)


#: where each mask the prose defines keeps the score (1-based row i, column j); -inf elsewhere
MASK_KEEPS = {
    "causal": lambda i, j: j <= i,
    "causal_gt": lambda i, j: not j > i,
    "anti": lambda i, j: j >= i,
    "window": lambda i, j: i - 2 < j <= i,
    "strict": lambda i, j: j < i,
}


class _Env:
    def __init__(self, sizes: Mapping[str, int], seed: int):
        self.sizes = dict(sizes)
        self.rng = np.random.default_rng(seed)
        self.data: dict[tuple, Any] = {}
        self.ix: dict[str, int] = {}

    def draw(self, key: tuple, shape: tuple[int, ...] = ()) -> Any:
        if key not in self.data:
            self.data[key] = (
                self.rng.uniform(-1.5, 1.5, size=shape)
                if shape
                else float(self.rng.uniform(-1.5, 1.5))
            )
        return self.data[key]


def _int(x: Any) -> int:
    v = float(x)
    if abs(v - round(v)) > 1e-9:
        raise IllFormed(f"a non-integer index {v}")
    return int(round(v))


def value(e: Node, env: _Env) -> Any:
    """A float or a 2-d numpy array (vectors are columns)."""
    if isinstance(e, Var):
        return env.draw(("var", e.name))
    if isinstance(e, Size):
        return float(env.sizes[e.name])
    if isinstance(e, Ix):
        if e.name not in env.ix:
            raise IllFormed(f"the index {e.name} has no value")
        return float(env.ix[e.name])
    if isinstance(e, Num):
        return float(e.value)
    if isinstance(e, Fn):
        x = _scalar(value(e.x, env))
        if e.fn == "log":
            if x <= 0:
                raise IllFormed("a log of a non-positive number")
            return math.log(x)
        return {"sin": math.sin, "cos": math.cos, "exp": math.exp}[e.fn](x)
    if isinstance(e, (Plus, Minus)):
        a, b = value(e.a, env), value(e.b, env)
        if np.shape(a) != np.shape(b):
            raise IllTyped("a sum of different shapes")
        return a + b if isinstance(e, Plus) else a - b
    if isinstance(e, Neg):
        return -value(e.a, env)
    if isinstance(e, Times):
        a, b = value(e.a, env), value(e.b, env)
        if np.ndim(a) and np.ndim(b):
            raise IllTyped("a product of two matrices written without a product rule")
        return a * b
    if isinstance(e, Power):
        return _scalar(value(e.a, env)) ** e.k
    if isinstance(e, Ratio):
        a, b = _scalar(value(e.a, env)), _scalar(value(e.b, env))
        if abs(b) < 1e-300:
            raise IllFormed("a division by zero")
        return a / b
    if isinstance(e, Sum):
        lo, hi = _int(value(e.lo, env)), _int(value(e.hi, env))
        if hi < lo - 1:
            raise IllFormed("a reversed sum")
        total: Any = 0.0
        old = env.ix.get(e.var)
        for k in range(lo, hi + 1):
            env.ix[e.var] = k
            total = total + value(e.body, env)
        if old is None:
            env.ix.pop(e.var, None)
        else:
            env.ix[e.var] = old
        return total
    if isinstance(e, Vec):
        return env.draw(("vec", e.name), (env.sizes[e.size], 1))
    if isinstance(e, Comp):
        v = value(e.v, env)
        k = _int(value(e.i, env))
        if not 1 <= k <= v.shape[0]:
            raise IllFormed(f"component {k} of a vector of {v.shape[0]}")
        return float(v[k - 1, 0])
    if isinstance(e, DotP):
        a, b = value(e.a, env), value(e.b, env)
        if np.shape(a) != np.shape(b) or np.ndim(a) != 2 or a.shape[1] != 1:
            raise IllTyped("a dot product of vectors of different sizes")
        return float((a * b).sum())
    if isinstance(e, Mat):
        return env.draw(("mat", e.name), (env.sizes[e.rows], env.sizes[e.cols]))
    if isinstance(e, Lit):
        return np.array([[_scalar(value(x, env)) for x in row] for row in e.rows], dtype=float)
    if isinstance(e, MMul):
        # an identity written without its size is of the size the product needs (`I S = S`)
        if isinstance(e.a, Eye) and e.a.style != "sized":
            return value(e.b, env)
        if isinstance(e.b, Eye) and e.b.style != "sized":
            return value(e.a, env)
        a, b = value(e.a, env), value(e.b, env)
        if np.ndim(a) != 2 or np.ndim(b) != 2 or a.shape[1] != b.shape[0]:
            raise IllTyped("a product of matrices whose inner sizes differ")
        return a @ b
    if isinstance(e, MT):
        a = value(e.a, env)
        if np.ndim(a) != 2:
            raise IllTyped("a transposed scalar")
        return a.T
    if isinstance(e, Had):
        a, b = value(e.a, env), value(e.b, env)
        if np.ndim(a) != 2 or np.shape(a) != np.shape(b):
            raise IllTyped("an entrywise product of different shapes")
        return a * b
    if isinstance(e, MEntry):
        m = value(e.m, env)
        if np.ndim(m) != 2:
            raise IllTyped("an entry of a scalar")
        i, j = _int(value(e.i, env)), _int(value(e.j, env))
        if not (1 <= i <= m.shape[0] and 1 <= j <= m.shape[1]):
            raise IllFormed(f"entry ({i}, {j}) of a {m.shape[0]} x {m.shape[1]} matrix")
        return float(m[i - 1, j - 1])
    if isinstance(e, Ones):
        return np.ones((env.sizes[e.size], 1))
    if isinstance(e, Eye):
        return np.eye(env.sizes[e.size])
    if isinstance(e, VSoftmax):
        a = _column(value(e.a, env), "a softmax over the entries of a non-vector")
        w = np.exp(a - a.max())
        return w / w.sum()
    if isinstance(e, VComp):
        v = _column(value(e.v, env), "an entry of a non-vector")
        k = _int(value(e.i, env))
        if not 1 <= k <= v.shape[0]:
            raise IllFormed(f"entry {k} of a vector of {v.shape[0]}")
        return float(v[k - 1, 0])
    if isinstance(e, Tr):
        a = value(e.a, env)
        if np.ndim(a) != 2 or a.shape[0] != a.shape[1]:
            raise IllTyped("the trace of a matrix that is not square")
        return float(np.trace(a))
    if isinstance(e, Frob):
        a, b = value(e.a, env), value(e.b, env)
        if np.ndim(a) != 2 or np.shape(a) != np.shape(b):
            raise IllTyped("a Frobenius product of different shapes")
        return float((a * b).sum())
    if isinstance(e, Norm):
        a = _column(value(e.a, env), "the norm of a non-vector")
        return math.sqrt(float((a * a).sum()))
    if isinstance(e, MaskedAttn):
        n = env.sizes["n"]
        scores = env.draw(("mat", "S"), (n, n))
        out = np.zeros((n, n))
        keep = MASK_KEEPS[e.kind]
        for r in range(n):
            cols = [c for c in range(n) if keep(r + 1, c + 1)]
            if not cols:  # masked out entirely: 0/0, ill-formed where a claim uses it
                out[r, :] = np.nan
                continue
            w = np.exp(scores[r, cols] - scores[r, cols].max())
            out[r, cols] = w / w.sum()
        return out
    if isinstance(e, FamVec):
        return env.draw(("fam", e.name, e.t), (env.sizes[e.size], 1))
    if isinstance(e, State):
        s = np.zeros((env.sizes["d_v"], env.sizes["d_k"]))
        for t in range(1, e.t + 1):
            s = s + value(FamVec("v", t, "d_v"), env) @ value(FamVec("k", t, "d_k"), env).T
        return s
    raise TypeError(f"no value for {type(e).__name__}")


def _column(x: Any, what: str) -> Any:
    if np.ndim(x) != 2 or x.shape[1] != 1:
        raise IllTyped(what)
    return x


def _scalar(x: Any) -> float:
    if np.ndim(x) == 0:
        return float(x)
    if np.shape(x) == (1, 1):
        return float(x[0, 0])
    raise IllTyped("a matrix where a number is meant")


def _same(a: Any, b: Any) -> bool:
    if np.isnan(a).any() or np.isnan(b).any():
        raise IllFormed("a row of a softmax masked out entirely (0/0)")
    if np.ndim(a) == 0 and np.shape(b) == (1, 1):
        b = float(b[0, 0])
    if np.ndim(b) == 0 and np.shape(a) == (1, 1):
        a = float(a[0, 0])
    if np.shape(a) != np.shape(b):
        raise IllTyped("sides of different shapes")
    return bool(np.allclose(a, b, rtol=1e-9, atol=1e-9))


def sizes_in(*es: Node) -> set[str]:
    out: set[str] = set()
    for e in es:
        for x in walk(e):
            if isinstance(x, Size):
                out.add(x.name)
    return out


def decide(spec: WildSpec, at: Mapping[str, int] | None = None) -> str:
    """ "true", "false", "ill_typed" or "ill_formed", by evaluating both sides here; `at` fixes
    sizes (those a `checked` verdict lists)."""
    numeric = sorted(sizes_in(spec.lhs, spec.rhs) - set(at or {}))
    plans: list[dict[str, int]] = []
    if at:
        plans = [{**DATA_PLANS[0], **at}]
    elif numeric:
        # every value 1..12 of the sizes that enter as numbers (two at most), the rest fixed
        grid: list[dict[str, int]] = [{}]
        for name in numeric[:2]:
            grid = [{**g, name: v} for g in grid for v in SIZE_VALUES]
        plans = [{**DATA_PLANS[k % 2], **g} for k, g in enumerate(grid)]
    else:
        plans = list(DATA_PLANS)
    seeds = (0, 1) if not numeric else (0,)
    try:
        for plan in plans:
            for seed in seeds:
                env = _Env(plan, seed)
                for point in _points(spec.free, plan):
                    env.ix = dict(point)
                    if not _same(value(spec.lhs, env), value(spec.rhs, env)):
                        return "false"
    except IllTyped:
        return "ill_typed"
    except IllFormed:
        return "ill_formed"
    except OverflowError:
        return "ill_formed"
    return "true"


def _points(free: Sequence[tuple[str, str]], plan: Mapping[str, int]) -> list[dict[str, int]]:
    out: list[dict[str, int]] = [{}]
    for name, size in free:
        out = [{**p, name: v} for p in out for v in range(1, plan[size] + 1)]
    return out
