"""The degree bound of the exact witness's formulas, as rational functions of leaves and atoms.

Imports only sympy and witness.values's `Unsupported`; must not import kernel.evaluate, whose fast
walker it checks, nor proof or anything above it.
"""

from __future__ import annotations

import sympy

from symattn.kernel.witness.values import Unsupported


def degree_bound(left: sympy.Basic, right: sympy.Basic, biggest: int) -> tuple[int, int, int]:
    """(degree of left - right cleared of denominators, degree of the denominators, largest
    degree of an atom's argument), as rational functions of the leaves and atoms; a sum whose
    bound depends on an index counts `biggest` terms."""
    d = _Degree(biggest)
    a, b = d.of(left), d.of(right)
    return max(a[0] + b[1], b[0] + a[1], 1), a[1] + b[1], d.score


class _Degree:
    def __init__(self, biggest: int) -> None:
        self.biggest, self.score = biggest, 0
        self.memo: dict[sympy.Basic, tuple[int, int]] = {}

    def of(self, e: sympy.Basic) -> tuple[int, int]:
        hit = self.memo.get(e)
        if hit is None:
            hit = self.memo[e] = self._of(e)
        return hit

    def _of(self, e: sympy.Basic) -> tuple[int, int]:
        if e.is_Rational or e in (sympy.oo, -sympy.oo):
            return (0, 0)
        if isinstance(e, sympy.Symbol):
            return (0, 0) if e.is_integer else (1, 0)
        if isinstance(e, sympy.Indexed):
            return (1, 0)
        if isinstance(e, sympy.Add):
            out = (0, 0)
            for a in e.args:
                out = _plus(out, self.of(a))
            return out
        if isinstance(e, sympy.Mul):
            parts = [self.of(a) for a in e.args]
            return (sum(x for x, _ in parts), sum(y for _, y in parts))
        if isinstance(e, sympy.Pow) and e.exp.is_Integer:
            b, k = self.of(e.base), int(e.exp)
            return (k * b[0], k * b[1]) if k >= 0 else (-k * b[1], -k * b[0])
        if isinstance(e, (sympy.exp, sympy.cos, sympy.sin)):
            a = self.of(e.args[0])
            self.score = max(self.score, a[0] + a[1])
            return (1, 0)
        if isinstance(e, sympy.Sum):
            out = self.of(e.function)
            for _, lo, hi in e.limits:
                out = _repeat(out, _count(lo, hi, self.biggest))
            return out
        if isinstance(e, sympy.Piecewise):
            parts = [self.of(x) for x, _ in e.args]
            return (max(x for x, _ in parts), max(y for _, y in parts))
        if e.is_number:
            return (1, 0)  # pi, sqrt(2): one free element (a power of it: its degree)
        raise Unsupported(f"no degree bound for {type(e).__name__}")


def _count(lo: sympy.Expr, hi: sympy.Expr, biggest: int) -> int:
    low = int(lo) if lo.is_Integer else 1
    high = int(hi) if hi.is_Integer else biggest
    return max(high - low + 1, 1)


def _plus(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    if a[1] == 0 and b[1] == 0:
        return (max(a[0], b[0]), 0)
    return (max(a[0] + b[1], b[0] + a[1]), a[1] + b[1])


def _repeat(a: tuple[int, int], count: int) -> tuple[int, int]:
    if a[1] == 0 or count <= 1:
        return a if count >= 1 else (0, 0)
    return (a[0] + (count - 1) * a[1], count * a[1])
