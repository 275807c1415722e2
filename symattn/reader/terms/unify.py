"""Shapes while they are solved: dims as variables, a union-find over them, a matrix or a vector.
Imports sympy, the kernel's dims and the reader's syntax; must not import claims or the checker.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TypeAlias

import sympy

from symattn.kernel.dims import dim
from symattn.kernel.errors import SymattnError
from symattn.reader.terms.sizes_equal import sizes_differ

#: A dim while it is solved: a variable (an int) or a known size (a sympy expression).
Dim: TypeAlias = "int | sympy.Expr"


class Clash(SymattnError):
    """Two uses give one dim two different sizes."""


class Unifier:
    """Dims as a union-find: a class of variables, possibly bound to one known size.

    >>> from symattn.kernel.dims import d_k
    >>> u = Unifier(); a, b = u.fresh("a"), u.fresh("b")
    >>> u.unify(a, b); u.unify(b, d_k); u.value(a)
    d_k
    """

    def __init__(self) -> None:
        self.parent: list[int] = []
        self.bound: dict[int, sympy.Expr] = {}
        self.labels: list[str] = []

    def fresh(self, label: str) -> int:
        while label in self.labels:
            label += "'"  # two names shown alike (`\\mathbf a`, `\\vec a`) keep two sizes
        self.parent.append(len(self.parent))
        self.labels.append(label)
        return len(self.parent) - 1

    def find(self, x: int) -> int:
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def resolve(self, x: Dim) -> Dim:
        if isinstance(x, int):
            root = self.find(x)
            return self.bound.get(root, root)
        return x

    def unify(self, a: Dim, b: Dim) -> None:
        """Make `a` and `b` one size; raises `Clash` when they are two different known sizes."""
        a, b = self.resolve(a), self.resolve(b)
        if isinstance(a, int) and isinstance(b, int):
            if a != b:
                self.parent[b] = a
        elif isinstance(a, int):
            self.bound[a] = b
        elif isinstance(b, int):
            self.bound[b] = a
        elif sizes_differ(a, b):
            raise Clash(f"need the sizes {a} and {b} to be equal")

    def value(self, x: Dim) -> sympy.Expr:
        """The size `x` stands for: a known size, or a fresh dim named after its variable."""
        got = self.resolve(x)
        if isinstance(got, int):
            return dim(self.labels[got])
        return got

    def snapshot(self) -> tuple[list[int], dict[int, sympy.Expr], int]:
        return list(self.parent), dict(self.bound), len(self.labels)

    def restore(self, snap: tuple[list[int], dict[int, sympy.Expr], int]) -> None:
        self.parent, self.bound = list(snap[0]), dict(snap[1])
        del self.labels[snap[2] :]
        del self.parent[snap[2] :]


@dataclass(frozen=True)
class Mat:
    rows: Dim
    cols: Dim


@dataclass(frozen=True)
class Vec:
    """A vector of `size` entries, row or column as the document says; `t`: written transposed."""

    size: Dim
    t: bool = False


SCALAR = "scalar"


Value: TypeAlias = "Mat | Vec | str | None"


def shown(name: str) -> str:
    """A name as the messages show it: `\\mathbf{q}` is q.

    >>> shown("\\\\mathbf{q}"), shown("W_q")
    ('q', 'W_q')
    """
    return re.sub(r"\\(?:mathbf|boldsymbol|bm|vec)\{(\w+)\}", r"\1", name)


def _shape(u: Unifier, value: Value) -> tuple[sympy.Expr, sympy.Expr] | None:
    if isinstance(value, Mat):
        return (u.value(value.rows), u.value(value.cols))
    if isinstance(value, Vec):
        return (u.value(value.size), sympy.Integer(1))
    return None


def _shown(u: Unifier, value: Value) -> str:
    return f"{type(value).__name__}{_shape(u, value)}"


def _fresh(u: Unifier, name: str, kind: str) -> Value:
    label = shown(name)
    if kind == "vector":
        return Vec(u.fresh(f"len({label})"))
    return Mat(u.fresh(f"rows({label})"), u.fresh(f"cols({label})"))
