"""Names the text declared as arrays of order 3 or more, read as one matrix per element of
their leading sizes (`claims.array_claims`): the guess a claim that uses one rests on.
Imports the kernel's expressions only; never the scope, the claim readers or the checker.
"""

from __future__ import annotations

from typing import Any

from symattn.kernel.expr import MatSym, walk

__all__ = ["ARRAY_GUESS", "array_guess"]

#: the key of an array's guess among a claim's `entry_guesses` (`claims.entry_guesses`)
ARRAY_GUESS = "array "


def array_guess(scope: Any, name: str, entry: Any) -> str:
    """How `name` is read when it is an array (`X` of `X \\in \\mathbb R^{B\\times L\\times
    d}`) or was defined from one (`Q = X W_Q`); "" for any other name.

    >>> from types import SimpleNamespace
    >>> scope = SimpleNamespace(arrays={"X": ("B × L × d", "B")})
    >>> array_guess(scope, "X", None)
    'X as one matrix per element of B of its B × L × d array'
    """
    arrays: dict[str, tuple[str, str]] = getattr(scope, "arrays", {})
    if not arrays:
        return ""
    got = arrays.get(name)
    if got is not None:
        return f"{name} as one matrix per element of {got[1]} of its {got[0]} array"
    definition = getattr(entry, "definition", None)
    if definition is None:
        return ""
    for x in walk(definition):
        if isinstance(x, MatSym) and x.name in arrays:
            whole, lead = arrays[x.name]
            return (
                f"{name} as defined from {x.name}, read as one matrix per element of {lead} "
                f"of its {whole} array"
            )
    return ""
