"""What every command shares: exit codes, colour, JSON, progress, optional front ends.

Imports only the standard library, kernel.errors and terminal; must not import a command module.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from typing import Any, TextIO

from symattn import terminal
from symattn.kernel.errors import SymattnError

OK, FALSE, USAGE = 0, 1, 2


_COLOURS = {
    "proved": "32",
    "checked": "36",
    "agreed": "33",
    "unknown": "33",
    "false": "31",
    "shape_error": "31",
    "error": "31",
    "ok": "32",
}


def use_colour(stream: TextIO, mode: str = "auto") -> bool:
    """Colour only on a terminal, never when NO_COLOR is set (unless forced with `always`).

    >>> import io
    >>> use_colour(io.StringIO()), use_colour(io.StringIO(), "always")
    (False, True)
    """
    if mode == "always":
        return True
    if mode == "never" or os.environ.get("NO_COLOR"):
        return False
    return hasattr(stream, "isatty") and stream.isatty()


def paint(word: str, key: str, on: bool) -> str:
    """`word` in the colour of `key` (a status) when `on`.

    >>> paint("false", "false", True), paint("false", "false", False)
    ('\\x1b[31mfalse\\x1b[0m', 'false')
    """
    return terminal.paint(word, _COLOURS.get(key), on)


def emit_json(data: object, out: TextIO) -> None:
    json.dump(data, out, ensure_ascii=False, indent=2)
    out.write("\n")


class Progress:
    """`k/N what` on one stderr line, rewritten in place; silent unless stderr is a terminal."""

    def __init__(self, total: int, what: str, stream: TextIO | None = None):
        self.total, self.what = total, what
        self.stream = stream if stream is not None else sys.stderr
        self.on = hasattr(self.stream, "isatty") and self.stream.isatty()

    def __call__(self, k: int, label: str) -> None:
        if self.on:
            self.stream.write(f"\r\033[K{self.what} {k}/{self.total}: {label}")
            self.stream.flush()

    def done(self) -> None:
        if self.on:
            self.stream.write("\r\033[K")
            self.stream.flush()


def import_optional(module: str, command: str) -> Any:
    """Import a front-end module for a subcommand, or say clearly that it is missing.

    >>> import_optional("symattn.no_such_front_end", "frob")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    symattn.cli.output.MissingCommand: 'frob' is not available in this installation (...)
    """

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingCommand(
            f"'{command}' is not available in this installation ({module}: {exc})"
        ) from None


class MissingCommand(SymattnError):
    """A subcommand whose module is not installed or could not be imported (exit 2)."""
