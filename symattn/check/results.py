"""What the checker reports: one `ClaimResult` per claim, its kinds, and the input errors.

Imports only the standard library and kernel.errors; must not import the reader or check's others.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from symattn.kernel import errors

SCHEMA = "symattn-check/1"

MAX_FILE_BYTES = 5_000_000

KINDS = (
    "verified",
    "false",
    "shape-error",
    "not-understood",
    "undecided",
    "declaration",
    "not-a-claim",
    "error",
    "malformed",
)

#: `malformed`: LaTeX that TeX itself would stop at (unbalanced braces, an environment or a
#: display never closed); it fails the run like a false claim.
PROBLEMS = ("false", "shape-error", "malformed")

#: The kernel failed (a soundness alarm, an internal error): never a verdict; exit code 2.
ERRORS = ("error",)

SOFT = ("not-understood", "undecided")


class FileError(errors.InputError):
    """A file cannot be checked at all (missing, a directory, not text); exit code 2."""


#: The name the checker's API has always given `FileError`.
InputError = FileError


@dataclass(frozen=True)
class ClaimResult:
    """The verdict on one claim of a document, where it is, and why.

    `kind` is one of `verified`, `false`, `shape-error`, `not-understood`, `undecided`,
    `declaration`, `not-a-claim`, `error`; `status` is the finer kernel status (`proved` for all
    sizes, `checked` at explicit sizes, `agreed` numerically only, `false`, `shape_error`,
    `unknown`, `not_understood`, `declared`, `prose`, and for `error` either `soundness_alarm`
    (two witnesses contradict each other) or `internal_error` (the kernel raised something that
    is not a SymattnError)). `witnesses` are those the kernel found.
    """

    file: str
    line: int
    col: int
    end_line: int
    end_col: int
    kind: str
    status: str
    message: str
    witnesses: tuple[str, ...] = ()
    counterexample: str | None = None
    source: str = ""
    source_lines: tuple[str, ...] = field(default=(), repr=False, compare=False)

    def __post_init__(self) -> None:
        # the kind is printed before the message: an inner "undecided: " would say it twice
        if self.kind == "undecided" and self.message.startswith("undecided: "):
            object.__setattr__(self, "message", self.message.removeprefix("undecided: "))

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    @property
    def failed(self) -> bool:
        return self.kind in PROBLEMS or self.kind in ERRORS

    def to_json(self) -> dict[str, Any]:
        """The stable JSON form (schema `symattn-check/1`)."""
        return {
            "file": self.file,
            "line": self.line,
            "col": self.col,
            "end": {"line": self.end_line, "col": self.end_col},
            "kind": self.kind,
            "status": self.status,
            "witnesses": list(self.witnesses),
            "message": self.message,
            "counterexample": self.counterexample,
            "source": self.source,
        }


def one_line(text: str) -> str:
    return " ".join(text.split())
