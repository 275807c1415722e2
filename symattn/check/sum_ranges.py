"""The verdict on a claim with a sum whose range the text does not write (`\\sum_i u_i w_i`).

The reader reads such a sum over the size of the axes its summand indexes when they all agree
(forced: the sum could range over nothing else without indexing past them), else over the
chapter's convention for its letter (`\\sum_j` over the n positions). The verdict names the
range; a false claim or a shape error that rests on a convention is undecided, as the text may
mean another range. Imports nothing of the kernel, reader or cli.
"""

from __future__ import annotations

from typing import Any

__all__ = ["with_sum_ranges"]

_ALARMS = ("false", "shape_error")


def with_sum_ranges(
    claim: Any, status: str, message: str, witnesses: tuple[str, ...], cex: Any
) -> tuple[str, str, tuple[str, ...], Any]:
    """The verdict with the ranges read for the claim's unbounded sums named.

    >>> class C:
    ...     sum_ranges = ((r"\\sum_j read as j = 1..n, the chapter's convention for j", False),)
    >>> with_sum_ranges(C(), "false", "the two sides differ", (), "n=2")[:2]
    ('unknown', "undecided: the two sides differ, with \\\\sum_j read as j = 1..n, the chapter's \
convention for j; but the text writes no bounds and may mean another range")
    >>> C.sum_ranges = ((r"\\sum_i read as i = 1..m, the size of every axis it indexes", True),)
    >>> with_sum_ranges(C(), "false", "the two sides differ", (), "m=2")[:2]
    ('false', 'the two sides differ, with \\\\sum_i read as i = 1..m, the size of every axis it \
indexes')
    """
    readings = getattr(claim, "sum_ranges", ())
    if not readings or status in ("not_understood", "malformed"):
        return status, message, witnesses, cex
    notes = ", ".join(note for note, _ in readings)
    guessed = [note for note, forced in readings if not forced]
    if status in _ALARMS and guessed:
        message = (
            f"undecided: {message}, with {notes}; but the text writes no bounds and may mean "
            "another range"
        )
        return "unknown", message, (), None
    return status, f"{message}, with {notes}", witnesses, cex
