"""The verdict on a claim read with shapes the reader inferred for names the text never declares.
Imports nothing of the kernel, reader or cli.

A shape error the kernel finds there rests on shapes other formulas gave those names, which
may use the letters otherwise: it is undecided, as the reader makes its own such errors
(`reader.claims.inferred`). A false verdict stands: the inferred shapes are sizes of their
own, for every value, so a claim false at them fails for the shapes the text means too.
"""

from __future__ import annotations

from typing import Any

__all__ = ["with_inferred_shapes"]


def with_inferred_shapes(
    claim: Any, status: str, message: str, witnesses: tuple[str, ...], cex: Any
) -> tuple[str, str, tuple[str, ...], Any]:
    """A kernel shape error in a claim read with inferred shapes is undecided, naming them.

    >>> class C:
    ...     inferred = "with w: d_v entries inferred from line 3"
    >>> with_inferred_shapes(C(), "shape_error", "cannot add w and v", (), None)[:2]
    ('unknown', 'not decided: cannot add w and v, with w: d_v entries \
inferred from line 3; the text does not declare these names and may mean other shapes here \
(declare them)')
    """
    note = getattr(claim, "inferred", "")
    if status != "shape_error" or not note:
        return status, message, witnesses, cex
    message = (
        f"not decided: {message}, {note}; the text does not declare these names and may mean "
        "other shapes here (declare them)"
    )
    return "unknown", message, (), None
