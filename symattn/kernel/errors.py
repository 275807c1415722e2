"""The exception hierarchy of symattn: every error a user can see is a SymattnError.

Imports nothing from symattn; every other module may import it.

The tree (every class below is raised on purpose and names the problem in the user's notation)::

    SymattnError                  base of every error symattn raises on purpose
    ├── InputError                input that cannot be used as given; `.where` says where, if known
    │   ├── ParseError            a formula or document that cannot be read (`.position`)
    │   ├── DimError              a dimension that is not a positive integer, a bad binding
    │   └── ...                   one per front end: settings, files, scripts' sources, macros
    ├── ShapeError                two shapes that must agree are not provably equal
    ├── UnknownNameError          a rule, symbol or dim name that is not known (close matches)
    ├── ResourceError             a size or time budget would be exceeded (limits exceeded)
    ├── NotSupported              a construct symattn does not handle (yet): never "false"
    ├── ProofError                a derivation step is false or not proved (`.step`)
    └── InternalError             symattn failed on its own: a bug to report
        └── SoundnessAlarm        two witnesses contradict each other

`Signal` is apart on purpose: an exception that one module raises and catches to steer a
computation (this arithmetic cannot take the node, draw the point again, no plan exists). It is
not a SymattnError, so one that escapes by mistake is reported as an internal error, never read as
a user's error or a verdict.
"""

from __future__ import annotations

from dataclasses import dataclass


class SymattnError(Exception):
    """Base class of every error symattn raises on purpose."""


class InputError(SymattnError, ValueError):
    """Input that cannot be used as given (a file, an option, a formula, a setting, an array).

    `where` is where the problem is (`chapter.md:3:1`, `--dims`, `front matter, line 3`) when the
    raiser knows it; the message itself already names it. Front ends exit with code 2.
    """

    def __init__(self, message: str = "", *args: object, where: str | None = None):
        super().__init__(message, *args)
        self.where = where


class ShapeError(SymattnError, ValueError):
    """Two shapes that must agree are not provably equal."""


class DimError(InputError):
    """A dimension is not a positive integer expression, or a binding is inconsistent."""


class ProofError(SymattnError):
    """A derivation step could not be established; says which step and why."""

    def __init__(self, message: str, *, step: int | None = None, counterexample: object = None):
        super().__init__(message)
        self.step = step
        self.counterexample = counterexample


class InternalError(SymattnError):
    """symattn failed on its own (not the input's fault); the message asks for a report."""


class SoundnessAlarm(InternalError):
    """Two witnesses contradict each other (one says proved, another found a difference).

    Never turned into a verdict: front ends report it as an internal error (exit 2).
    """


class ResourceError(SymattnError):
    """A request would exceed a size or time budget; the message says what to do instead."""


class NotSupported(SymattnError):
    """A construct symattn does not handle (yet); a claim that needs it stays undecided."""


class UnknownNameError(SymattnError, KeyError):
    """A name (rule, symbol, dim) is not known; the message lists close matches."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class Signal(Exception):
    """Raised and caught inside symattn to steer a computation; never meant to reach a user.

    Deliberately not a SymattnError: one that escapes is a bug and is reported as one.
    """


@dataclass(frozen=True)
class Position:
    """A place in a source text: 1-based line and column, 0-based offset."""

    line: int
    column: int
    offset: int = 0

    def __str__(self) -> str:
        return f"{self.line}:{self.column}"


class ParseError(InputError):
    """A formula or document could not be read; carries the position of the problem."""

    def __init__(self, message: str, position: Position | None = None):
        super().__init__(message, where=None if position is None else str(position))
        self.message = message
        self.position = position

    def __str__(self) -> str:
        if self.position is None:
            return self.message
        return f"{self.position}: {self.message}"
