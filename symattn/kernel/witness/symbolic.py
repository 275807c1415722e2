"""The symbolic witness: equal canonical index forms, so the claim holds for every size.

Imports only the kernel below it (dims, canon, masked, witness.evidence, .points); must not import
proof or anything above it.
"""

from __future__ import annotations

from collections.abc import Mapping

import sympy

from symattn.kernel import masked
from symattn.kernel.canon import TooLarge, normal_form
from symattn.kernel.dims import current
from symattn.kernel.ranges import Range
from symattn.kernel.witness.evidence import Term, WitnessResult
from symattn.kernel.witness.points import generic_entries


def symbolic(lhs: Term, rhs: Term, ranges: Mapping[sympy.Symbol, Range]) -> WitnessResult:
    """Equal for all sizes when the canonical index forms agree (sound, not complete)."""
    key = (lhs, rhs, frozenset(ranges.items()), frozenset(current().equalities.items()))
    hit = _SYMBOLIC.get(key)
    if hit is None:
        hit = _SYMBOLIC[key] = _symbolic(lhs, rhs, dict(ranges))
        if len(_SYMBOLIC) > 1024:
            _SYMBOLIC.pop(next(iter(_SYMBOLIC)))
    return hit


_SYMBOLIC: dict[tuple, WitnessResult] = {}  # deterministic, so asked twice it answers once


def _symbolic(lhs: Term, rhs: Term, ranges: dict[sympy.Symbol, Range]) -> WitnessResult:
    infinite = masked.problem(lhs, rhs)
    if infinite is not None:
        return WitnessResult(None, f"ill-formed: {infinite}")
    try:
        a, b = generic_entries(lhs, rhs, ranges)
        diff = normal_form(a, ranges) - normal_form(b, ranges)
    except TooLarge as exc:
        return WitnessResult(None, f"symbolic expansion too large ({exc})")
    except NotImplementedError as exc:
        return WitnessResult(None, f"symbolic expansion not supported: {exc}")
    if diff == 0:
        return WitnessResult(True, "canonical index forms agree")
    return WitnessResult(None, "canonical index forms differ")


def forget() -> None:
    """Drop remembered symbolic verdicts (proof.forget calls this)."""
    _SYMBOLIC.clear()
