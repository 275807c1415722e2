"""The verdict on `a \\ne b` between sizes or numbers the text leaves free: a counterexample to
`a = b` at some sizes does not show the two differ at the text's. Imports sympy and the kernel's
nodes only; must not import the reader's parser or the CLI.
"""

from __future__ import annotations

from typing import Any

import sympy

from symattn.kernel.expr import Dot, Entry, MatExpr

__all__ = ["with_negation"]


def with_negation(
    claim: Any, status: str, message: str, witnesses: tuple[str, ...], cex: Any
) -> tuple[str, str, tuple[str, ...], Any]:
    """`m \\ne n` over free sizes is undecided: the sides differ at some sizes and agree at
    others (m = n = 2), and the text does not say which it means; `n + 1 \\ne n` stays verified.

    >>> from types import SimpleNamespace
    >>> from symattn.kernel.dims import d, n
    >>> c = SimpleNamespace(negated=True, pairs=((n, d),))
    >>> with_negation(c, "checked", "the two sides differ: at n=3, d=2", ("exact",), None)[0]
    'unknown'
    >>> c = SimpleNamespace(negated=True, pairs=((n + 1, n),))
    >>> with_negation(c, "checked", "the two sides differ: at n=2", ("exact",), None)[0]
    'checked'
    """
    if not getattr(claim, "negated", False) or status != "checked":
        return status, message, witnesses, cex
    for a, b in getattr(claim, "pairs", ()):
        if not _free_scalar(a) or not _free_scalar(b):
            continue
        diff = sympy.simplify(a - b)
        if diff.free_symbols and diff.is_zero is not False:
            shown = message.removeprefix("the two sides differ: ")
            msg = (
                f"undecided: the two sides differ at some values ({shown}), but are equal at "
                "others; the claim holds only for values the text does not give"
            )
            return "unknown", msg, (), None
    return status, message, witnesses, cex


def _free_scalar(x: Any) -> bool:
    """A scalar made of numbers and free symbols (sizes, the text's numbers), no entries."""
    if not isinstance(x, sympy.Expr) or isinstance(x, MatExpr):
        return False
    return not x.has(Entry, Dot)
