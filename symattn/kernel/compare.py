"""Comparing two sides with the one evaluator at every index point: `compare`, the
matrix-vector products of Freivalds' check (`matvec`), and the order of free indices (`ordered`).

Imports only numpy, sympy and the kernel below it (expr, ranges, semantics, evaluate); must not
import the witnesses or anything above them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial

import numpy as np
import sympy

from symattn.kernel.evaluate import (
    Evaluator,
    Range,
    Unsupported,
    _in_range,
    _Loop,
    _scale_value,
    _truth,
)
from symattn.kernel.expr import Concat, MatAdd, MatExpr, MatMul, MatSum, RowBlock, Scale
from symattn.kernel.ranges import dependency_order
from symattn.kernel.semantics import summation_range


def compare(f: Evaluator, lhs, rhs, free, assuming):
    """(first differing point as ((name, value), ...), left, right) or None, and the number of
    index points compared (entries count once per point for a matrix claim)."""
    matrix = isinstance(lhs, MatExpr)
    return _walk(f, lhs, rhs, list(free), assuming, matrix, ())


def _walk(f: Evaluator, lhs, rhs, free, assuming, matrix, fixed):
    if not free:
        return _leaf_compare(f, lhs, rhs, assuming, matrix, fixed)
    (v, (lo, hi)), rest = free[0], free[1:]
    a, b = f.one(sympy.sympify(lo, strict=True)), f.one(sympy.sympify(hi, strict=True))
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


def _leaf_compare(f: Evaluator, lhs, rhs, assuming, matrix, fixed):
    if matrix:
        if not all(bool(_truth(f, c)) for c in assuming):
            return None, 0
        if f.arith.probes:
            # Freivalds: L x = R x for a random vector x, one more variable of degree 1. Both
            # sides are linear in x, so a difference here is a difference of the matrices.
            probe = f.probe(f.size(lhs.cols))
            if np.array_equal(matvec(f, lhs, probe), matvec(f, rhs, probe)):
                return None, 1
        x, y = f.mat(lhs), f.mat(rhs)
        if x.shape != y.shape:
            raise Unsupported(f"the sides are {x.shape} and {y.shape} here")
    else:
        x, y = np.asarray(f.scalar(lhs)), np.asarray(f.scalar(rhs))
    keep = np.asarray(True)
    for cond in assuming:
        keep = keep & np.asarray(_truth(f, cond))
    axes = _axes(f)
    if axes:  # count the points where the hypotheses hold, over every bound axis
        keep = np.broadcast_arrays(keep, *(f.env[s] for s in axes))[0]
    x, y, keep = np.broadcast_arrays(x, y, keep)
    count = 1 if matrix else int(np.count_nonzero(keep))
    bad = np.argwhere(~np.asarray(f.arith.equal(x, y), dtype=bool) & keep)
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
    return (tuple(where), x[tuple(bad[0])], y[tuple(bad[0])]), count


def matvec(f: Evaluator, m: MatExpr, x: np.ndarray) -> np.ndarray:
    """`m @ x` for a column vector x, right to left, never forming a product of matrices."""
    ar = f.arith
    if isinstance(m, MatMul):
        return matvec(f, m.args[0], _matvec_cached(f, m.args[1], x))
    if isinstance(m, MatAdd):
        return ar.add(matvec(f, m.args[0], x), matvec(f, m.args[1], x))
    if isinstance(m, Scale) and not any(isinstance(f.env[s], np.ndarray) for s in f.deps(m)):
        return ar.mul(_scale_value(f, m), matvec(f, m.args[1], x))
    if isinstance(m, Concat):
        width = f.size(m.body.cols)
        total = np.zeros((f.size(m.rows), 1), dtype=ar.dtype)
        for h in range(1, f.size(m.count) + 1):
            part = x[(h - 1) * width : h * width]
            total = ar.add(total, matvec(f, m.member(h), part))
        return total
    if isinstance(m, MatSum):
        v, lo, hi = m.limits
        total = np.zeros((f.size(m.rows), 1), dtype=ar.dtype)
        for k in summation_range(f.one(lo), f.one(hi), v):
            total = ar.add(total, f.fix(v, k, partial(matvec, f, m.body, x)))
        return total
    if isinstance(m, RowBlock):
        # W_O^{(h)} x is a block of W_O x: one product of W_O serves every head and both sides
        h, size = f.one(m.head), f.size(m.args[2])
        whole = _matvec_cached(f, m.args[0], x)
        _in_range(h * size, whole.shape[0], m)
        return whole[(h - 1) * size : h * size]
    return ar.matmul(f.mat(m), x)


def _matvec_cached(f: Evaluator, m: MatExpr, x: np.ndarray) -> np.ndarray:
    key = (m, tuple(f.env[s] for s in f.deps(m)), id(x))
    hit = f.products.get(key)
    if hit is None or hit[0] is not x:  # the id of a freed vector may be reused
        hit = f.products[key] = (x, matvec(f, m, x))
    return hit[1]


def _axes(f: Evaluator) -> list[sympy.Symbol]:
    """Index symbols bound to axes, outermost (depth 0) last."""
    arrays = [(np.ndim(v), s) for s, v in f.env.items() if isinstance(v, np.ndarray)]
    return [s for _, s in sorted(arrays, key=lambda x: -x[0])]


def ordered(ranges: Mapping[sympy.Symbol, Range]) -> Sequence[tuple[sympy.Symbol, Range]]:
    """Free indices with their ranges, an index before any range that mentions it."""

    try:
        return [(s, ranges[s]) for s in dependency_order(ranges)]
    except ValueError as exc:
        raise Unsupported(str(exc)) from None
