"""The fast walker in interval arithmetic: a difference float64 found at explicit sizes, proved.

Imports only numpy, sympy, mpmath and the kernel below it (evaluate, witness.numeric,
witness.certify); must not import witness.counterexample, witness.exact, proof or anything above
them.

`counterexample.confirmed_counterexample` searches entries in float64 with the walker; its
candidate is a counterexample only when both sides, evaluated by the same walker in mpmath's
interval arithmetic (outward rounding: the true value is inside), give disjoint enclosures. A
difference 30-digit arithmetic sees is not enough: a cancellation of large terms can lose every
digit of a true claim.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import mpmath
import numpy as np
import sympy
from mpmath import iv, libmp

from symattn.kernel.evaluate import Evaluator
from symattn.kernel.witness import certify
from symattn.kernel.witness.numeric import Digits30, EvalError, at_point

_BITS = (113, 236)  # precisions tried in turn


class Intervals(Digits30):
    """Interval arithmetic (object arrays of mpmath `iv.mpf`) for the one walker.

    Every operation encloses its exact result; one that has no enclosure here (an inverse of an
    interval holding 0, a fractional power of one that is not positive, an exponent too large)
    raises `EvalError`, so no certificate is made from it.
    """

    name = "interval"

    def adopt(self, arr: np.ndarray) -> np.ndarray:
        flat = [iv.mpf(int(x)) for x in np.ravel(arr)]  # the search draws small integers
        return np.array(flat, dtype=object).reshape(np.shape(arr))

    def constant(self, e: sympy.Basic, ev: Evaluator) -> Any:
        if e in (sympy.oo, -sympy.oo):
            return iv.mpf("inf") if e == sympy.oo else iv.mpf("-inf")
        try:
            return certify.enclose(e, {})
        except (certify.Unsupported, ArithmeticError, ValueError, TypeError):
            raise EvalError(f"no enclosure of the constant {e}") from None

    def add(self, a: Any, b: Any) -> Any:
        return b + a if _array_second(a, b) else a + b

    def mul(self, a: Any, b: Any) -> Any:
        # an interval times an array would ask mpmath to convert the array: the array first
        return b * a if _array_second(a, b) else a * b

    def inverse(self, a: Any) -> Any:
        if any(_holds_zero(x) for x in np.ravel(np.asarray(a, dtype=object))):
            raise EvalError("an enclosure of a divisor holds 0")
        return 1 / a

    def exp(self, a: Any, ev: Evaluator) -> Any:
        return _each(a, lambda x: iv.exp(certify._moderate(x)))

    def trig(self, name: str, a: Any, ev: Evaluator) -> Any:
        return _each(a, iv.cos if name == "cos" else iv.sin)

    def real_power(self, base: Any, exponent: Any, e: sympy.Basic) -> Any:
        if not all(_positive(x) for x in np.ravel(np.asarray(base, dtype=object))):
            raise EvalError(f"{e}: a fractional power of an enclosure that is not positive")
        return base**exponent


def _array_second(a: Any, b: Any) -> bool:
    return isinstance(b, np.ndarray) and not isinstance(a, np.ndarray)


def _each(a: Any, fn: Any) -> Any:
    if isinstance(a, np.ndarray):
        return np.array([fn(x) for x in a.ravel()], dtype=object).reshape(a.shape)
    return fn(a)


def _ends(x: Any) -> tuple[Any, Any]:
    v = x if hasattr(x, "_mpi_") else iv.mpf(x)
    return v._mpi_


def _holds_zero(x: Any) -> bool:
    lo, hi = _ends(x)
    return not (libmp.mpf_lt(libmp.fzero, lo) or libmp.mpf_lt(hi, libmp.fzero))


def _positive(x: Any) -> bool:
    lo, _ = _ends(x)
    return bool(libmp.mpf_lt(libmp.fzero, lo))


def separated(
    sides: Sequence[sympy.Basic],
    cell: tuple[int, int] | None,
    point: Mapping[sympy.Symbol, int],
    values: Mapping[tuple, np.ndarray],
) -> tuple[mpmath.mpf, mpmath.mpf] | None:
    """Both sides at `point` (entry `cell` of a matrix) with the entries of `values` (keyed as
    in `numeric.Env.data`, every other entry 0), when their enclosures are disjoint: the
    midpoints of the two; None when they overlap or a step has no enclosure (never a guess)."""
    saved = iv.prec
    try:
        for bits in _BITS:
            iv.prec = bits
            try:
                left, right = (_ends(v) for v in _enclose(sides, cell, point, values))
            except (EvalError, ArithmeticError, ValueError, TypeError):
                return None
            ends = (*left, *right)
            if any(v in (libmp.finf, libmp.fninf, libmp.fnan) for v in ends):
                return None  # an infinite or undefined side is no certificate
            if libmp.mpf_lt(left[1], right[0]) or libmp.mpf_lt(right[1], left[0]):
                with mpmath.mp.workprec(bits + 10):
                    lo_l, hi_l, lo_r, hi_r = (mpmath.mpf(v) for v in ends)
                    return (lo_l + hi_l) / 2, (lo_r + hi_r) / 2
    finally:
        iv.prec = saved
    return None


def _enclose(sides, cell, point, values) -> list[Any]:
    return at_point(Intervals(), sides, cell, point, values)
