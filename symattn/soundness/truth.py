"""Truth by an independent route: a claim evaluated with numpy at two size plans, all points.

Imports the kernel's nodes and numeric backend, never proof or the witnesses; not cli.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import sympy

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


DIMS: tuple[sympy.Symbol, ...] = (n, d, d_k, d_v, H, m, p, q)


# Two plans: within the first all dims differ, so a dim confused for another shows.
TRUTH_PLANS: tuple[dict[sympy.Symbol, int], ...] = (
    {n: 3, d: 4, d_k: 2, d_v: 5, H: 2, m: 7, p: 6, q: 8},
    {n: 4, d: 6, d_k: 3, d_v: 2, H: 3, m: 5, p: 2, q: 3},
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
