"""The verdict on `a \\approx b` read as `a = b` (`ResolvedClaim.approximate`): verified where the
two sides are exactly equal, undecided otherwise; a quantity's other units (`unit_readings`).
Imports only `check.unit_readings`; nothing of the reader or cli."""

from __future__ import annotations

from typing import Any

from symattn.check.unit_readings import unit_readings

__all__ = ["approximately"]


def approximately(
    claim: Any, status: str, message: str, witnesses: tuple[str, ...], cex: Any
) -> tuple[str, str, tuple[str, ...], Any]:
    """The kernel's verdict on `a = b` as one on `a \\approx b`: equal sides are approximately
    equal; sides that differ (or do not typecheck as equal) may still be close, in a regime the
    text means and does not state, so they are undecided, never false.

    >>> class C:
    ...     approximate = True
    >>> approximately(C(), "proved", "proved for all sizes", ("symbolic",), None)[:2]
    ('proved', 'proved for all sizes; the two sides are exactly equal')
    >>> approximately(C(), "false", "the two sides differ", (), "x=2")[:2]
    ('unknown', 'the two sides are not exactly equal (the two sides differ); how close they \
are is not decided')
    """
    status, message, witnesses, cex = unit_readings(claim, status, message, witnesses, cex)
    if not getattr(claim, "approximate", False):
        return status, message, witnesses, cex
    if status in ("proved", "checked"):
        return status, f"{message}; the two sides are exactly equal", witnesses, cex
    if status in ("false", "shape_error"):
        msg = f"the two sides are not exactly equal ({message}); how close they are is not decided"
        return "unknown", msg, (), None
    return status, message, witnesses, cex
