"""The exact witness: a claim at explicit sizes, mod p, at every index point, from each `entry`.

Imports only sympy and the kernel below it (expr, ranges, the witness's points, draw, values,
degree_bound and field); must not import kernel.evaluate, whose fast walker it checks, nor proof.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import sympy

from symattn.kernel.expr import MatExpr, expand_entries, named_shapes
from symattn.kernel.ranges import Range
from symattn.kernel.witness.degree_bound import degree_bound
from symattn.kernel.witness.draw import Point
from symattn.kernel.witness.field import PRIMES, FieldCheck
from symattn.kernel.witness.points import generic_entries, index_points
from symattn.kernel.witness.values import NEG_INF as NEG_INF
from symattn.kernel.witness.values import IllFormed as IllFormed
from symattn.kernel.witness.values import Scalar, Unsupported, _Resample


def formulas(lhs: Any, rhs: Any, ranges: Mapping[sympy.Symbol, Range]):
    """(left formula, right formula, ranges with the generic entry's row and col, their names)."""
    rng = dict(ranges)
    given = set(rng)
    a, b = generic_entries(lhs, rhs, rng)
    cell = [s for s in rng if s not in given]
    try:
        return expand_entries(a), expand_entries(b), rng, cell
    except NotImplementedError as exc:  # an entry its node cannot write (a Concat column)
        raise Unsupported(str(exc)) from None


def shapes_of(*terms: sympy.Basic) -> dict[str, tuple[int, int]]:
    out = {}
    for label, (rows, cols) in named_shapes(*terms).items():
        if not (rows.is_Integer and cols.is_Integer):
            raise Unsupported(f"the shape of {label} is not explicit: {rows} x {cols}")
        out[label] = (int(rows), int(cols))
    return out


def value_at(
    term: Any,
    env: Mapping[sympy.Symbol, int],
    point: Point,
) -> Any:
    """A scalar formula (or a 1 x 1 entry formula) at one index point."""
    return Scalar(point, env).value(term)


def matrix(m: MatExpr, point: Point, env: Mapping[sympy.Symbol, int] | None = None) -> list:
    """Every entry of a matrix of explicit shape, from its definition (rows of values)."""
    i, j = sympy.Dummy("i", integer=True, positive=True), sympy.Dummy("j", integer=True)
    try:
        formula = expand_entries(m.entry(i, j))
    except NotImplementedError as exc:
        raise Unsupported(str(exc)) from None
    rows, cols = int(m.rows), int(m.cols)
    ev = Scalar(point, env or {})
    out = []
    for r in range(1, rows + 1):
        line = []
        for c in range(1, cols + 1):
            ev.env[i], ev.env[j] = r, c
            line.append(ev.value(formula))
        out.append(line)
    return out


def check(
    lhs: Any,
    rhs: Any,
    ranges: Mapping[sympy.Symbol, Range],
    *,
    trials: int = 3,
    seed: int = 0,
    assuming: Sequence[sympy.Basic] = (),
) -> FieldCheck:
    """Both sides at explicit sizes, compared at every index point (and every entry of a matrix
    claim) from the nodes' definitions, mod p at random points.

    The result depends on nothing but the arguments (the points are seeded and the sizes are
    numbers), so it is remembered under all of them: the same claim at the same sizes, asked
    again in another context or by another front end, is evaluated once."""
    key = (lhs, rhs, frozenset(ranges.items()), tuple(assuming), trials, seed)
    hit = _CHECKED.get(key)
    if hit is None:
        try:
            hit = _check(lhs, rhs, ranges, trials=trials, seed=seed, assuming=assuming)
        except Unsupported as exc:  # IllFormed too: the same input fails the same way
            hit = exc
        if len(_CHECKED) >= _CHECKED_SIZE:
            _CHECKED.pop(next(iter(_CHECKED)))
        _CHECKED[key] = hit
    if isinstance(hit, Unsupported):
        raise hit
    return hit


_CHECKED: dict[tuple, FieldCheck | Unsupported] = {}
_CHECKED_SIZE = 4096


def _check(
    lhs: Any,
    rhs: Any,
    ranges: Mapping[sympy.Symbol, Range],
    *,
    trials: int,
    seed: int,
    assuming: Sequence[sympy.Basic],
) -> FieldCheck:
    left, right, rng, cell = formulas(lhs, rhs, ranges)
    shapes = shapes_of(lhs, rhs)
    try:
        pts, total = index_points(rng, {}, assuming)
    except ValueError as exc:
        raise Unsupported(str(exc)) from None
    if total != len(pts):
        raise Unsupported("too many index points to evaluate every one from the definitions")
    biggest = max([1, *(max(s) for s in shapes.values())])
    degree, denominators, score = degree_bound(left, right, biggest)
    bound, used = 1.0, []
    names = {s: ("row", "col")[k] for k, s in enumerate(cell)}
    atoms = False
    for t in range(trials):
        p = PRIMES[t % len(PRIMES)]
        used.append(p)
        found = _trial(left, right, pts, shapes, p, seed + t)
        point, where = found
        atoms = atoms or bool(point.atoms)
        if where is not None:
            env, x, y = where
            at = tuple(sorted((s.name, v) for s, v in env.items() if s not in names))
            at += tuple((names[s], env[s]) for s in cell)
            return FieldCheck(False, t + 1, tuple(used), degree, 1.0, len(pts), at, x, y, atoms)
        collisions = len(point.atoms) * (len(point.atoms) - 1) // 2 * score
        bound *= min(1.0, (degree + denominators + collisions) / p)
    return FieldCheck(True, trials, tuple(used), degree, bound, len(pts), uses_atoms=atoms)


def _trial(left, right, pts, shapes, p, seed):
    for attempt in range(8):
        point = Point(p, seed * 8 + attempt, shapes)
        ev = Scalar(point, {})  # one memo for every point: a row sum is computed once
        try:
            for env in pts:
                ev.env = dict(env)
                x, y = ev.value(left), ev.value(right)
                if x != y:
                    return point, (env, _shown(x), _shown(y))
        except _Resample:
            continue
        return point, None
    raise Unsupported("a denominator vanished mod p at every point drawn")


def _shown(x: Any) -> Any:
    return -1 if x is NEG_INF else int(x)
