"""The exception hierarchy of symattn: every error a user can see is a SymattnError.

Imports nothing from symattn; every other module may import it.
"""

from __future__ import annotations

from dataclasses import dataclass


class SymattnError(Exception):
    """Base class of every error symattn raises on purpose."""


class ShapeError(SymattnError, ValueError):
    """Two shapes that must agree are not provably equal."""


class DimError(SymattnError, ValueError):
    """A dimension is not a positive integer expression, or a binding is inconsistent."""


class ProofError(SymattnError):
    """A derivation step could not be established; says which step and why."""

    def __init__(self, message: str, *, step: int | None = None, counterexample: object = None):
        super().__init__(message)
        self.step = step
        self.counterexample = counterexample


class SoundnessAlarm(SymattnError):
    """Two witnesses contradict each other (one says proved, another found a difference).

    Never turned into a verdict: front ends report it as an internal error (exit 2).
    """


class ResourceError(SymattnError):
    """A request would exceed a size or time budget; the message says what to do instead."""


class UnknownNameError(SymattnError, KeyError):
    """A name (rule, symbol, dim) is not known; the message lists close matches."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


@dataclass(frozen=True)
class Position:
    """A place in a source text: 1-based line and column, 0-based offset."""

    line: int
    column: int
    offset: int = 0

    def __str__(self) -> str:
        return f"{self.line}:{self.column}"


class ParseError(SymattnError):
    """A formula or document could not be read; carries the position of the problem."""

    def __init__(self, message: str, position: Position | None = None):
        super().__init__(message)
        self.message = message
        self.position = position

    def __str__(self) -> str:
        if self.position is None:
            return self.message
        return f"{self.position}: {self.message}"
