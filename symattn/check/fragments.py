"""A formula that continues arithmetic the prose began: `$536{,}870{,}912$ bytes / $32 =
16{,}777{,}216$` says 536,870,912 / 32 = 16,777,216, and the span alone (`32 = 16,777,216`) is
only its tail. Its `false` is the span's, not the text's. Imports nothing of the project."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

__all__ = ["fragment"]

#: the prose before the formula ends with an operator (after a unit word or a closing `$`):
#: `bytes / `, `$2$ × `, `... * `
_OPERATOR = re.compile(r"(?:[/×*÷+−-]|\\times|\\cdot|\\div)\s*$")


def continues(claim: Any, lines: Sequence[str]) -> bool:
    """Whether `claim` starts its formula and the prose right before the formula, on its line,
    ends with an arithmetic operator.

    >>> from types import SimpleNamespace as N
    >>> span = N(start=N(line=1, column=31), body="32=16,777,216")
    >>> continues(N(span=span, start=0), ["We get $536,870,912$ bytes / $32=16,777,216$ bytes."])
    True
    >>> span = N(start=N(line=1, column=14), body="32=16,777,216")
    >>> continues(N(span=span, start=0), ["The heads: $32=16,777,216$"])
    False
    >>> span = N(start=N(line=1, column=21), body="2+2=5")
    >>> continues(N(span=span, start=0), ["$$\\\\begin{equation*} 2+2=5 \\\\end{equation*}$$"])
    False
    """
    span = getattr(claim, "span", None)
    start = getattr(span, "start", None)
    if span is None or start is None or not lines or start.line > len(lines):
        return False
    if span.body[: getattr(claim, "start", 0)].strip():
        return False  # the claim is not the formula's first
    line = lines[start.line - 1]
    at = start.column - 2  # the `$` that opens an inline formula
    if at < 0 or line[at : at + 1] != "$" or line[at - 1 : at] == "$":
        return False  # a display (`$$`, an environment) is no tail of a sentence
    return _OPERATOR.search(line[:at]) is not None


def fragment(
    claim: Any,
    lines: Sequence[str],
    status: str,
    message: str,
    witnesses: tuple[str, ...],
    cex: str | None,
) -> tuple[str, str, tuple[str, ...], str | None]:
    """The verdict, undecided when a `false` formula continues the prose's arithmetic."""
    if status != "false" or not continues(claim, lines):
        return status, message, witnesses, cex
    msg = (
        f"undecided: {message}; but the formula continues the arithmetic of the text before it "
        "(an operator precedes it), so it may be the tail of a longer equation"
    )
    return "unknown", msg, (), None
