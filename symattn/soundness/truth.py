"""Truth by an independent route: a claim evaluated with numpy at two size plans, all points.

Imports numpy, sympy, the kernel's node classes only (expr, dims) and its numpy route
(soundness.numpy_route); must not import the kernel's evaluator, witnesses, canonical forms,
ranges or proof (a test checks it).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np
import sympy

from symattn.kernel import expr as E
from symattn.kernel.dims import D, G, H, P, R, b, d, d_k, d_v, ell, m, n, p, q
from symattn.soundness.numpy_route import MATRIX as MATRIX
from symattn.soundness.numpy_route import SCALAR as SCALAR
from symattn.soundness.numpy_route import IllFormed, Undecided, _Numpy, _walk

Truth = Literal["true", "false", "undecided"]

DIMS: tuple[sympy.Symbol, ...] = (n, d, d_k, d_v, H, m, p, q, G, R, D, ell, b, P)


# Two plans: within the first all dims differ, so a dim confused for another shows.
TRUTH_PLANS: tuple[dict[sympy.Symbol, int], ...] = (
    {n: 3, d: 4, d_k: 2, d_v: 5, H: 2, m: 7, p: 6, q: 8, G: 2, R: 3, D: 9, ell: 10, b: 11, P: 12},
    {n: 4, d: 6, d_k: 3, d_v: 2, H: 3, m: 5, p: 2, q: 3, G: 3, R: 2, D: 2, ell: 1, b: 3, P: 3},
)


_MAX_POINTS = 120


# float64 agreement, |a - b| <= ATOL + RTOL |b|, as numpy.isclose writes it
RTOL = 1e-9
ATOL = 1e-12


def truth(lhs: sympy.Basic, rhs: sympy.Basic, defs: Mapping = {}, assuming: Sequence = ()) -> Truth:  # noqa: B006
    """Decide `lhs = rhs` with numpy on random data at both TRUTH_PLANS, at every index point.

    Independent of the kernel's evaluator, canonical forms and witnesses: each node is evaluated
    from its documented meaning by handlers of this module. An index outside its matrix is an
    ill-formed claim, hence not a true one.

    >>> from symattn.kernel.attention import single_head
    >>> from symattn.kernel.expr import Dot, index
    >>> s = single_head(); i, j = index("i"), index("j")
    >>> truth(s.scores[i, j], Dot(s.Q.row(i), s.K.row(j))), truth(s.scores[i, j], s.scores[j, i])
    ('true', 'false')
    """
    a, b = _unfold(lhs, defs), _unfold(rhs, defs)
    if isinstance(a, E.MatExpr) != isinstance(b, E.MatExpr):
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
    # its own loop, not the kernel's substitute_definitions: the truth shares none of the
    # kernel's working code, only its node classes, dims, dispatch and errors
    for _ in range(len(defs) + 1):
        new = e.xreplace(dict(defs))
        if new == e:
            break
        e = new
    return e


def _ranges(a: sympy.Basic, b: sympy.Basic) -> dict[sympy.Symbol, tuple[sympy.Expr, sympy.Expr]]:
    """The range of each free index, read off where it indexes: the rows or cols of an entry, the
    rows of a row, the blocks of a block; a size in a shape is no index, and any other free
    integer symbol (a size of its own, such as t in the first t rows) runs over 1..3."""
    out: dict[sympy.Symbol, tuple[sympy.Expr, sympy.Expr]] = {}
    bound: set[sympy.Basic] = set()
    sizes: set[sympy.Basic] = set(DIMS)
    one = sympy.Integer(1)
    for x in itertools.chain(_walk(a), _walk(b)):
        if isinstance(x, sympy.Sum):
            bound |= {lim[0] for lim in x.limits}
        elif isinstance(x, (E.MatSum, E.Concat)):
            bound.add(x.args[1])
        if isinstance(x, E.MatExpr):
            for s in x.shape:
                sizes |= s.free_symbols
        if isinstance(x, E.Entry):
            rows, cols = x.matrix.shape
            for idx, size in ((x.args[1], rows), (x.args[2], cols)):
                if isinstance(idx, sympy.Symbol):
                    out.setdefault(idx, (one, size))
        elif isinstance(x, E.Row) and isinstance(x.index, sympy.Symbol):
            out.setdefault(x.index, (one, x.args[0].rows))
        elif isinstance(x, E.RowBlock):
            head = x.head
            syms = head.free_symbols
            if len(syms) == 1 and sympy.expand(head - next(iter(syms))).is_Integer:
                out.setdefault(next(iter(syms)), (one, x.args[3]))  # block h (+ c) of H
    out = {k: v for k, v in out.items() if k not in bound and k not in sizes}
    for x in itertools.chain(_walk(a), _walk(b)):
        if isinstance(x, sympy.Symbol) and x.is_integer and x not in DIMS and x not in bound:
            out.setdefault(x, (one, sympy.Integer(3)))
    return out


def _truth_at(a, b, free, plan, seed, assuming) -> Truth:
    ev = _Numpy(plan, seed, a, b)
    points = _points(free, plan, seed)
    checked = 0
    for point in points:
        values = {**plan, **point}
        if not all(
            bool(cond.xreplace({k: sympy.Integer(v) for k, v in values.items()}))
            for cond in assuming
        ):
            continue
        ev.indices = dict(point)
        try:
            with np.errstate(all="ignore"):
                x, y = ev.value(a), ev.value(b)
        except IllFormed:
            return "false"  # reads outside a matrix, two shapes for one name, or divides by 0
        except (Undecided, TypeError):
            return "undecided"
        except (IndexError, ValueError, ZeroDivisionError, OverflowError):
            return "false"
        if not _close(x, y):
            return "false"
        checked += 1
    return "true" if checked else "undecided"


def _close(x: Any, y: Any) -> bool:
    """Both values of one kind (a number, or arrays of one shape) and equal within tolerance."""
    if isinstance(x, np.ndarray) != isinstance(y, np.ndarray):
        return False
    if isinstance(x, np.ndarray) and x.shape != y.shape:
        return False
    return bool(np.allclose(x, y, rtol=RTOL, atol=ATOL))


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
