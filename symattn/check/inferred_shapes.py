"""The verdict on a claim read with shapes the reader inferred for names the text never declares.
Imports nothing of the kernel, reader or cli.

A shape error the kernel finds there rests on shapes other formulas gave those names, which
may use the letters otherwise: it is undecided, as the reader makes its own such errors
(`reader.claims.inferred`). A false verdict stands: the inferred shapes are sizes of their
own, for every value, so a claim false at them fails for the shapes the text means too.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["with_inferred_shapes", "with_unfixed_sizes"]


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


#: `rows(Y_•)`: a size of a family that the text's definition of it leaves open
_OPEN = re.compile(r"\b(?:rows|cols)\([^()\s]+_•\)")


def with_unfixed_sizes(
    status: str, message: str, witnesses: tuple[str, ...], cex: Any
) -> tuple[str, str, tuple[str, ...], Any]:
    """A shape error that names a size a family's definition leaves open (`Y_2 = Y_1 W`: the
    rows of Y_•) is undecided: the text may mean any size there.

    >>> with_unfixed_sizes("shape_error", "B_2 is rows(B_•) × d and XW is n × d", (), None)[:2]
    ('unknown', "not decided: B_2 is rows(B_•) × d and XW is n × d; but rows(B_•) is a size \
the definition of the family leaves open (declare the family's shape)")
    """
    found = sorted(set(_OPEN.findall(message))) if status == "shape_error" else []
    if not found:
        return status, message, witnesses, cex
    names = ", ".join(found)
    verb = "is a size" if len(found) == 1 else "are sizes"
    message = (
        f"not decided: {message}; but {names} {verb} the definition of the family leaves "
        "open (declare the family's shape)"
    )
    return "unknown", message, (), None
