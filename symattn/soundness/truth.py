"""Truth by an independent route: a claim evaluated with numpy at two size plans, all points.

Imports the kernel's nodes and numeric backend, never proof or the witnesses; not cli.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np
import sympy

from symattn.kernel import expr as E
from symattn.kernel import modern as M
from symattn.kernel.dims import H, d, d_k, d_v, n
from symattn.kernel.expr import (
    HeadSym,
    MatExpr,
    Row,
    RowBlock,
    walk,
)
from symattn.kernel.ranges import bound_indices, infer_ranges
from symattn.kernel.witness import numeric

Truth = Literal["true", "false", "undecided"]


m, p, q = (sympy.Symbol(s, integer=True, positive=True) for s in ("m", "p", "q"))
# the dims of modern attention (symattn.kernel.identities): K/V heads, group size, features,
# valid keys, block size
G, R, D, ell, b = (
    sympy.Symbol(s, integer=True, positive=True) for s in ("G", "R", "D", "ell", "b")
)


DIMS: tuple[sympy.Symbol, ...] = (n, d, d_k, d_v, H, m, p, q, G, R, D, ell, b)


# Two plans: within the first all dims differ, so a dim confused for another shows.
TRUTH_PLANS: tuple[dict[sympy.Symbol, int], ...] = (
    {n: 3, d: 4, d_k: 2, d_v: 5, H: 2, m: 7, p: 6, q: 8, G: 2, R: 3, D: 9, ell: 10, b: 11},
    {n: 4, d: 6, d_k: 3, d_v: 2, H: 3, m: 5, p: 2, q: 3, G: 3, R: 2, D: 2, ell: 1, b: 3},
)


_MAX_POINTS = 120


_FREE_SHAPE = 12  # rows/cols of an IndexedBase with no matrix behind it (a generic f_ij)


def truth(lhs: sympy.Basic, rhs: sympy.Basic, defs: Mapping = {}, assuming: Sequence = ()) -> Truth:  # noqa: B006
    """Decide `lhs = rhs` with numpy on random data at both TRUTH_PLANS, at every index point.

    Independent of the kernel's canonical forms and witnesses. An index outside its matrix is
    an ill-formed claim, hence not a true one.

    >>> from symattn.kernel.attention import single_head
    >>> from symattn.kernel.expr import Dot, index
    >>> s = single_head(); i, j = index("i"), index("j")
    >>> truth(s.scores[i, j], Dot(s.Q.row(i), s.K.row(j))), truth(s.scores[i, j], s.scores[j, i])
    ('true', 'false')
    """
    a, b = _unfold(lhs, defs), _unfold(rhs, defs)
    if isinstance(a, MatExpr) != isinstance(b, MatExpr):
        return "false"
    free = _ranges(a, b)
    decided = False
    for plan in TRUTH_PLANS:
        for seed in (0, 1):
            verdict = _truth_at(a, b, free, plan, seed, assuming)
            if verdict == "false":
                return "false"
            decided = decided or verdict == "true"
            if verdict == "undecided":
                return "undecided"
    return "true" if decided else "undecided"


def _unfold(e: sympy.Basic, defs: Mapping) -> sympy.Basic:
    for _ in range(len(defs) + 1):
        new = e.xreplace(dict(defs))
        if new == e:
            break
        e = new
    return e


def _ranges(a: sympy.Basic, b: sympy.Basic) -> dict[sympy.Symbol, tuple[sympy.Expr, sympy.Expr]]:
    out = dict(infer_ranges(a, b))
    bound = bound_indices(a, b)
    for x in itertools.chain(walk(a), walk(b)):
        if isinstance(x, RowBlock) and isinstance(x.head, sympy.Symbol):
            out.setdefault(x.head, (sympy.Integer(1), x.args[3]))
        if isinstance(x, HeadSym) and isinstance(x.head, sympy.Symbol) and x.head in DIMS:
            continue
    for x in itertools.chain(walk(a), walk(b)):
        if isinstance(x, sympy.Symbol) and x.is_integer and x not in DIMS and x not in bound:
            out.setdefault(x, (sympy.Integer(1), sympy.Integer(3)))
    return out


def _truth_at(a, b, free, plan, seed, assuming) -> Truth:
    env = numeric.Env(sizes=dict(plan), seed=seed)
    env.learn(a, b)
    for base in itertools.chain(a.atoms(sympy.IndexedBase), b.atoms(sympy.IndexedBase)):
        env.shapes.setdefault(str(base.label), (sympy.Integer(_FREE_SHAPE),) * 2)
    free_syms = [s for s in itertools.chain(walk(a), walk(b)) if isinstance(s, sympy.Symbol)]
    env.scalars = {
        c: 0.5 + k
        for k, c in enumerate(sorted({s for s in free_syms if not s.is_integer}, key=str))
    }
    points = _points(free, plan, seed)
    checked = 0
    for point in points:
        values = {**plan, **point}
        if not all(
            bool(cond.xreplace({k: sympy.Integer(v) for k, v in values.items()}))
            for cond in assuming
        ):
            continue
        env.indices = dict(point)
        try:
            x, y = _value(a, env), _value(b, env)
        except numeric.IllFormed:
            return "false"  # reads outside a matrix, two shapes for one name, or divides by 0
        except numeric.EvalError:
            return "undecided"
        except (IndexError, ValueError, ZeroDivisionError, OverflowError):
            return "false"
        if getattr(x, "shape", None) != getattr(y, "shape", None) or not numeric.close(x, y):
            return "false"
        checked += 1
    return "true" if checked else "undecided"


def _value(e: sympy.Basic, env: numeric.Env) -> Any:
    if _is_modern(e):
        return _Numpy(env).value(e)
    if isinstance(e, MatExpr):
        arr = numeric.matrix(e, env)
        if isinstance(e, Row):
            i = env.size(e.index)
            if not 1 <= i <= env.size(e.args[0].rows):
                raise numeric.EvalError(f"row {i} out of range")
        return arr
    return numeric.scalar(e, env)


def _points(free, plan, seed) -> list[dict[sympy.Symbol, int]]:
    names = sorted(free, key=lambda s: s.name)
    axes = []
    for s in names:
        subs = {k: sympy.Integer(v) for k, v in plan.items()}
        lo, hi = (sympy.sympify(v, strict=True).xreplace(subs) for v in free[s])
        if not (lo.is_Integer and hi.is_Integer):
            lo, hi = sympy.Integer(1), sympy.Integer(3)
        axes.append(range(int(lo), int(hi) + 1))
    points = [dict(zip(names, vals, strict=True)) for vals in itertools.product(*axes)]
    if len(points) > _MAX_POINTS:
        rng = random.Random(seed)
        points = [points[0], points[-1], *rng.sample(points[1:-1], _MAX_POINTS - 2)]
    return points


# ---- modern attention, evaluated with numpy by its own route --------------------------------
#
# Claims with a node of symattn.kernel.modern are evaluated here, written from the papers rather
# than from the nodes' `entry`: FlashAttention's loop with the true running maximum (the kernel
# leaves the maxima free), torch's repeat_interleave, 2 × 2 rotation matrices, boolean masks.


def _is_modern(e: sympy.Basic) -> bool:
    return any(type(x).__module__ == M.__name__ for x in walk(e))


class _Numpy:
    """A small numpy evaluator of matrix expressions, independent of kernel.evaluate."""

    def __init__(self, env: numeric.Env):
        self.env = env
        self.bound: dict[sympy.Symbol, int] = {}

    def num(self, e: sympy.Expr) -> float:
        values = {**self.env.sizes, **self.env.indices, **self.bound}
        subs: dict[sympy.Basic, sympy.Basic] = {k: sympy.Integer(v) for k, v in values.items()}
        subs.update({k: sympy.Float(v) for k, v in self.env.scalars.items()})
        v = sympy.sympify(e, strict=True).xreplace(subs)
        if v.free_symbols:
            raise numeric.EvalError(f"no value for {v.free_symbols} in {e}")
        return float(sympy.N(v))

    def int(self, e: sympy.Expr) -> int:
        x = self.num(e)
        if x != int(x):
            raise numeric.IllFormed(f"{e} is not an integer here")
        return int(x)

    def value(self, e: sympy.Basic) -> Any:
        if isinstance(e, MatExpr):
            return self.mat(e)
        if isinstance(e, E.Entry):
            a = self.mat(e.matrix)
            i, j = self.int(e.args[1]), self.int(e.args[2])
            if not (1 <= i <= a.shape[0] and 1 <= j <= a.shape[1]):
                raise numeric.IllFormed(f"entry ({i}, {j}) outside {a.shape}")
            return float(a[i - 1, j - 1])
        return self.num(e)

    def leaf(self, key: tuple, rows: sympy.Expr, cols: sympy.Expr) -> np.ndarray:
        return self.env.matrix(key, (self.int(rows), self.int(cols)))

    def mat(self, e: MatExpr) -> np.ndarray:  # noqa: C901 - one branch per node, flat
        if isinstance(e, E.MatSum):
            v, lo, hi = e.limits
            total, outer = None, self.bound.get(v)
            for k in range(self.int(lo), self.int(hi) + 1):
                self.bound[v] = k
                x = self.mat(e.body)
                total = x if total is None else total + x
            self.bound.pop(v, None)
            if outer is not None:
                self.bound[v] = outer
            if total is None:
                return np.zeros((self.int(e.rows), self.int(e.cols)))
            return total
        a: list[Any] = [self.mat(x) if isinstance(x, MatExpr) else None for x in e.args]
        if isinstance(e, M.FeatureMap):
            return self.leaf((e.name,), *e.shape)
        if isinstance(e, E.MatSym):
            return self.leaf((e.name,), *e.shape)
        if isinstance(e, E.HeadSym):
            return self.leaf((e.name, "head", self.int(e.head)), *e.shape)
        if isinstance(e, E.FromColumn):
            col = self.leaf((e.name, "column"), e.rows, sympy.Integer(1))
            return np.repeat(col, self.int(e.cols), axis=1)
        if isinstance(e, E.Ones):
            return np.ones((self.int(e.rows), self.int(e.cols)))
        if isinstance(e, E.MatMul):
            if a[0].shape[1] != a[1].shape[0]:
                raise numeric.IllFormed("inner sizes differ")
            return a[0] @ a[1]
        if isinstance(e, E.MatAdd):
            return a[0] + a[1]
        if isinstance(e, E.Scale):
            return self.num(e.scalar) * a[1]
        if isinstance(e, E.Transpose):
            return a[0].T
        if isinstance(e, E.Row):
            i = self.int(e.index)
            if not 1 <= i <= a[0].shape[0]:
                raise numeric.IllFormed(f"row {i} outside {a[0].shape}")
            return a[0][i - 1 : i]
        if isinstance(e, E.RowBlock):
            h, size = self.int(e.head), self.int(e.args[2])
            if not 1 <= h <= self.int(e.args[3]):
                raise numeric.IllFormed(f"block {h} outside 1..{e.args[3]}")
            return a[0][(h - 1) * size : h * size]
        if isinstance(e, (E.Softmax, E.ColSoftmax)):
            return self.softmax(e)
        if isinstance(e, E.CausalMask):
            keep = (
                np.tril(np.ones(a[0].shape, bool))
                if not e.upper
                else np.triu(np.ones(a[0].shape, bool))
            )
            return np.where(keep, a[0], -np.inf)
        return self.modern(e, a)

    def softmax(self, e: MatExpr) -> np.ndarray:
        s = self.mat(e.args[0])
        if isinstance(e, E.ColSoftmax):
            return numeric.softmax_rows(s.T, fully_masked="zero").T
        return numeric.softmax_rows(s, fully_masked="zero")

    def modern(self, e: MatExpr, a: list) -> np.ndarray:
        if isinstance(e, M.PositionBias):
            pos = np.arange(1, self.int(e.args[0]) + 1, dtype=float)
            return self.num(e.row_coef) * pos[:, None] + self.num(e.col_coef) * pos[None, :]
        if isinstance(e, M.PadMask):
            keep = np.arange(1, a[0].shape[1] + 1) <= self.int(e.valid)
            return np.where(keep[None, :], a[0], -np.inf)
        if isinstance(e, M.CausalZero):
            return np.tril(a[0])
        if isinstance(e, M.FirstRows):
            t = self.int(e.args[1])
            if t > a[0].shape[0]:
                raise numeric.IllFormed("more rows than the matrix has")
            return a[0][:t]
        if isinstance(e, M.RepeatKV):
            g, r, w = self.int(e.groups), self.int(e.r), self.int(e.width)
            heads = a[0].reshape(a[0].shape[0], g, w)
            out = np.tile(heads, (1, r, 1)) if e.order == "tile" else np.repeat(heads, r, axis=1)
            return out.reshape(a[0].shape[0], g * r * w)
        if isinstance(e, M.Rope):
            theta = self.leaf((e.theta.name, "column"), e.theta.rows, sympy.Integer(1))[:, 0]
            ang = self.num(e.pos) * theta
            x = a[0]
            out = np.empty_like(x)
            for k in range(x.shape[0]):
                rot = np.array(
                    [[np.cos(ang[k]), -np.sin(ang[k])], [np.sin(ang[k]), np.cos(ang[k])]]
                )
                out[k] = rot @ x[k]
            return out
        if isinstance(e, M.PairDots):
            return np.sum(a[0] * a[1], axis=1, keepdims=True)
        if isinstance(e, M.OnlineSoftmax):
            return _flash(a[0], a[1], [self.int(x) for x in e.blocks], e.rescale)
        raise numeric.EvalError(f"no independent evaluation of {type(e).__name__}")


def _flash(s: np.ndarray, v: np.ndarray, sizes: list[int], rescale: bool) -> np.ndarray:
    """FlashAttention's forward loop over key blocks, with the true running maximum."""
    rows = s.shape[0]
    m_run, l_run = np.full((rows, 1), -np.inf), np.zeros((rows, 1))
    out = np.zeros((rows, v.shape[1]))
    start = 0
    for size in sizes:
        blk = slice(start, start + size)
        m_new = np.maximum(m_run, s[:, blk].max(axis=1, keepdims=True))
        alpha = np.exp(m_run - m_new)
        e = np.exp(s[:, blk] - m_new)
        l_run = alpha * l_run + e.sum(axis=1, keepdims=True)
        out = (alpha if rescale else 1.0) * out + e @ v[blk]
        m_run, start = m_new, start + size
    return out / l_run
