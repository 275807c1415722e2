"""What the translator refuses: a formula not understood, a shape error, an undeclared name.
Imports the kernel's errors and the reader's AST; must not import the resolver or the checker.
"""

from __future__ import annotations

from typing import Literal

from symattn.kernel.errors import ShapeError, SymattnError
from symattn.reader.syntax import ast

Kind = Literal["not_understood", "shape_error"]


class Problem(SymattnError):
    """A formula the translator refuses: `not_understood` (cannot read it) or `shape_error`.

    `node` is what it is about; `span` (body offsets), when set, is narrower or wider than the
    node (the product up to the factor that does not fit); `detail` is the full message, hint
    lines included, where `message` is its first line.
    """

    def __init__(
        self,
        status: Kind,
        message: str,
        node: ast.Node | None,
        *,
        detail: str = "",
        span: tuple[int, int] | None = None,
    ):
        super().__init__(message)
        self.status: Kind = status
        self.message = message
        self.node = node
        self.detail = detail or message
        self.span = span

    @property
    def where(self) -> tuple[int, int] | None:
        if self.span is not None:
            return self.span
        return (self.node.start, self.node.end) if self.node is not None else None


class UnknownName(Problem):
    """A name with no shape in scope; `label` is how it was written, `near` the close names,
    `defined` whether the text defined it (its value unread)."""

    def __init__(
        self,
        message: str,
        node: ast.Node,
        label: str,
        near: list[str],
        defined: bool = False,
        applied: bool = False,
    ):
        super().__init__("not_understood", message, node)
        self.label = label
        self.near = near
        self.defined = defined  # defined by the text, with a value the checker did not read
        self.applied = applied  # a letter applied to arguments, `F(x)`: a function


class UnknownOperator(Problem):
    """An operator the checker does not know (`\\tanh`, `\\text{FFN}`): a function of the
    text's, around which the rest of a claim is read (not an `UnknownName`: `symattn shapes`
    asks for --dims only for names)."""

    def __init__(self, message: str, node: ast.Node, label: str):
        super().__init__("not_understood", message, node)
        self.label = label
        self.near: list[str] = []
        self.defined = False
        self.applied = True


#: What a reader may read around: a name or an operator the text never declared.
UNREAD = (UnknownName, UnknownOperator)


def not_understood(message: str, node: ast.Node | None) -> Problem:
    return Problem("not_understood", message, node)


def shape_problem(exc: ShapeError, node: ast.Node, span: tuple[int, int] | None = None) -> Problem:
    text = str(exc)
    return Problem("shape_error", _first_line(text), node, detail=text, span=span)


def _first_line(text: str) -> str:
    return text.splitlines()[0] if text else text
