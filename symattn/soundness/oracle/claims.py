"""The oracle's claim AST: dims, index expressions, matrix and scalar nodes, claims.

Imports only numpy, the standard library and the oracle's own modules; nothing else from symattn
(a test checks it).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

DIM_NAMES: tuple[str, ...] = ("n", "d", "d_k", "d_v", "H")


# ---- dims and index expressions ----------------------------------------------------------


@dataclass(frozen=True)
class Dim:
    """A monomial size: `coef * prod(factors)`, e.g. `H*d_v`, `n`, `5`."""

    coef: int = 1
    factors: tuple[str, ...] = ()

    def value(self, plan: Mapping[str, int]) -> int:
        v = self.coef
        for f in self.factors:
            v *= plan[f]
        return v

    def __str__(self) -> str:
        parts = ([str(self.coef)] if self.coef != 1 or not self.factors else []) + list(
            self.factors
        )
        return "*".join(parts)


def D(*factors: str | int) -> Dim:
    """`D("n")`, `D("H", "d_v")`, `D(5)`."""
    coef = 1
    names = []
    for f in factors:
        if isinstance(f, int):
            coef *= f
        else:
            names.append(f)
    return Dim(coef, tuple(sorted(names)))


@dataclass(frozen=True)
class Ix:
    """An affine index expression over index and dim names: `i`, `i - 1`, `n`, `h + 1`, `1`."""

    terms: tuple[tuple[str, int], ...] = ()
    const: int = 0

    def value(self, env: Mapping[str, int]) -> int:
        return self.const + sum(c * env[name] for name, c in self.terms)

    def names(self) -> set[str]:
        return {name for name, _ in self.terms}

    def shifted(self, k: int) -> Ix:
        return Ix(self.terms, self.const + k)

    def __str__(self) -> str:
        out = ""
        for name, c in self.terms:
            sign = "-" if c < 0 else ("+" if out else "")
            mag = "" if abs(c) == 1 else str(abs(c))
            out += f"{sign}{mag}{name}"
        if self.const or not out:
            out += f"{self.const:+d}" if out else str(self.const)
        return out


def I(x: str | int, k: int = 0) -> Ix:  # noqa: E743 - the name reads as "index"
    """`I("i")`, `I("i", -1)`, `I("n")`, `I(1)`."""
    if isinstance(x, int):
        return Ix((), x + k)
    return Ix(((x, 1),), k)


# ---- the claim AST -------------------------------------------------------------------------


@dataclass(frozen=True)
class Sym:
    name: str
    rows: Dim
    cols: Dim


@dataclass(frozen=True)
class HeadMat:
    """Member `head` of a per-head family `name^{(h)}` (one shape for every head)."""

    name: str
    head: Ix
    rows: Dim
    cols: Dim


@dataclass(frozen=True)
class MatMul:
    a: Mat
    b: Mat


@dataclass(frozen=True)
class Tr:
    a: Mat


@dataclass(frozen=True)
class Add:
    a: Mat
    b: Mat


@dataclass(frozen=True)
class Scale:
    c: Scalar
    a: Mat


@dataclass(frozen=True)
class Softmax:
    a: Mat


@dataclass(frozen=True)
class ColSoftmax:
    a: Mat


@dataclass(frozen=True)
class Mask:
    a: Mat
    upper: bool = False


@dataclass(frozen=True)
class Row:
    a: Mat
    i: Ix


@dataclass(frozen=True)
class Concat:
    body: Mat
    var: str
    count: Dim


@dataclass(frozen=True)
class Block:
    a: Mat
    head: Ix
    m: Dim
    count: Dim


@dataclass(frozen=True)
class MSum:
    body: Mat
    var: str
    lo: Ix
    hi: Ix


@dataclass(frozen=True)
class Ones:
    rows: Dim
    cols: Dim


@dataclass(frozen=True)
class FromCol:
    """`c 1^T`: row i is the constant c_i (a per-row shift)."""

    name: str
    rows: Dim
    cols: Dim


@dataclass(frozen=True)
class Num:
    value: Fraction


@dataclass(frozen=True)
class Sqrt:
    """`dim ** (power / 2)`: `Sqrt(D("d_k"), -1)` is `1/sqrt(d_k)`."""

    dim: Dim
    power: int = 1


@dataclass(frozen=True)
class Entry:
    m: Mat
    i: Ix
    j: Ix


@dataclass(frozen=True)
class Dot:
    u: Mat
    v: Mat


@dataclass(frozen=True)
class SMul:
    a: Scalar
    b: Scalar


@dataclass(frozen=True)
class SAdd:
    a: Scalar
    b: Scalar


@dataclass(frozen=True)
class SSum:
    body: Scalar
    var: str
    lo: Ix
    hi: Ix


# The node types, for isinstance; for the type checker a node is Any (the AST is small and
# checked by its own shape logic at run time).
MAT_TYPES = (
    Sym, HeadMat, MatMul, Tr, Add, Scale, Softmax, ColSoftmax, Mask, Row, Concat, Block, MSum,
    Ones, FromCol,
)  # fmt: skip


SCALAR_TYPES = (Num, Sqrt, Entry, Dot, SMul, SAdd, SSum)


Mat = Any


Scalar = Any


Node = Any


@dataclass(frozen=True)
class ClaimSpec:
    """`lhs = rhs`; `free` gives each free index its range 1..dim."""

    lhs: Node
    rhs: Node
    free: tuple[tuple[str, Dim], ...] = ()


def children(x: Node) -> list[Node]:
    """The sub-nodes of a node (matrices and scalars)."""
    return [v for v in vars(x).values() if isinstance(v, (*MAT_TYPES, *SCALAR_TYPES))]


def nodes(x: Node) -> Iterator[Node]:
    """Every node, pre-order."""
    stack = [x]
    while stack:
        y = stack.pop()
        yield y
        stack.extend(reversed(children(y)))
