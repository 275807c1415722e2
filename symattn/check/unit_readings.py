"""The verdict on a quantity read in its stated unit (`= 14\\text{ GB}` as 14·10^9 bytes) where
that reading fails: its other readings (GB as 2^30 bytes, a count of bits) decide whether it is
false or undecided. Imports the kernel's `prove_close` only; never the reader or the CLI."""

from __future__ import annotations

from typing import Any

from symattn.kernel.proof import prove_close

__all__ = ["unit_readings"]


def unit_readings(
    claim: Any, status: str, message: str, witnesses: tuple[str, ...], cex: Any
) -> tuple[str, str, tuple[str, ...], Any]:
    """The kernel's verdict on the stated reading of a quantity, checked against the unit's
    other readings (`claim.units`): a claim that fails as stated but holds in another reading
    is undecided, naming it; a false stands only where every reading is false.

    >>> import sympy
    >>> class C:
    ...     pairs = ((sympy.Integer(2**35), sympy.Integer(32 * 10**9)),)
    ...     units = (("GB read as GiB, 1073741824 bytes", sympy.Integer(2**35), sympy.Integer(1)),)
    >>> unit_readings(C(), "false", "they differ", (), None)[:2]
    ('unknown', 'undecided: not so with the unit as stated (they differ), but it holds with GB \
read as GiB, 1073741824 bytes; the text does not say which it means')
    """
    readings = getattr(claim, "units", ())
    if not readings or status in ("proved", "checked") or len(claim.pairs) != 1:
        return status, message, witnesses, cex
    lhs = claim.pairs[0][0]
    # each reading's tolerance is scaled from the stated one: half a digit where that is
    rounded = bool(getattr(claim, "rounded", False))
    undecided = []
    for label, value, tolerance in readings:
        got = prove_close(lhs, value, tolerance, rounded)
        if got.status == "proved":
            msg = (
                f"undecided: not so with the unit as stated ({message}), but it holds with "
                f"{label}; the text does not say which it means"
            )
            return "unknown", msg, (), None
        if got.status != "false":
            undecided.append(label)
    if status == "false" and not undecided:
        return status, f"{message}; nor in any other reading of the unit", witnesses, cex
    if status == "false":
        msg = (
            f"undecided: false with the unit as stated ({message}), not decided with {undecided[0]}"
        )
        return "unknown", msg, (), None
    return status, message, witnesses, cex
