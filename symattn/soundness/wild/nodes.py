"""The wild claims' AST: scalars, sizes, vectors and their components, matrices, a state's family.

Imports only numpy, the standard library and the wild classes' own modules; nothing else from
symattn (a test checks it).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

# ---- the AST ----------------------------------------------------------------------------------


class Node:
    """A node of a wild claim: scalars, vectors and small matrices."""


@dataclass(frozen=True)
class Var(Node):  # a real number named by a letter the text never declares
    name: str


@dataclass(frozen=True)
class Size(Node):  # a size: a positive integer (n, d_k, d)
    name: str


@dataclass(frozen=True)
class Ix(Node):  # a bound or free index, an integer
    name: str


@dataclass(frozen=True)
class Num(Node):
    value: Fraction


@dataclass(frozen=True)
class Fn(Node):  # sin, cos, exp (also written e^{x}), log
    fn: str
    x: Node
    style: str = ""


@dataclass(frozen=True)
class Plus(Node):
    a: Node
    b: Node


@dataclass(frozen=True)
class Minus(Node):
    a: Node
    b: Node


@dataclass(frozen=True)
class Times(Node):
    a: Node
    b: Node


@dataclass(frozen=True)
class Neg(Node):
    a: Node


@dataclass(frozen=True)
class Power(Node):  # x^k, k a positive integer; `\sin^2 x` for a function
    a: Node
    k: int


@dataclass(frozen=True)
class Ratio(Node):
    a: Node
    b: Node


@dataclass(frozen=True)
class Sum(Node):
    var: str
    lo: Node
    hi: Node
    body: Node


@dataclass(frozen=True)
class Vec(Node):  # a vector of `size` components (a column)
    name: str
    size: str


@dataclass(frozen=True)
class Comp(Node):  # q_i: component i of a vector (`q[i]` with style "bracket")
    v: Vec
    i: Node
    style: str = ""


@dataclass(frozen=True)
class DotP(Node):
    a: Node
    b: Node
    style: str = "cdot"  # `a \cdot b`, or `angle`: `\langle a, b\rangle`


@dataclass(frozen=True)
class Mat(Node):
    name: str
    rows: str
    cols: str


@dataclass(frozen=True)
class Lit(Node):  # a matrix written out, entries scalar nodes; one row also as `[a, b]`, `(a, b)`
    rows: tuple[tuple[Node, ...], ...]
    style: str = "bmatrix"  # or "list", "tuple" (a row of numbers as a worked example writes it)


@dataclass(frozen=True)
class MMul(Node):
    a: Node
    b: Node


@dataclass(frozen=True)
class MT(Node):
    a: Node


@dataclass(frozen=True)
class Had(Node):
    a: Node
    b: Node


@dataclass(frozen=True)
class MEntry(Node):  # A_{ij}; of a named matrix also `A[i,j]` ("bracket"), `A[i][j]` ("nested")
    m: Node
    i: Node
    j: Node
    style: str = ""


@dataclass(frozen=True)
class State(Node):  # S_t of the recurrence S_0 = 0, S_t = S_{t-1} + v_t k_t^T
    t: int


@dataclass(frozen=True)
class FamVec(Node):  # v_t, k_t: the t-th vector of a family
    name: str
    t: int
    size: str


@dataclass(frozen=True)
class Ones(Node):  # the all-ones vector 1_n (a column)
    size: str


@dataclass(frozen=True)
class Eye(Node):  # the identity matrix of `size` rows, written I, \\mathbf{I} or I_n (`style`)
    size: str
    style: str = "bold"


@dataclass(frozen=True)
class VSoftmax(Node):  # the softmax over the entries of a column vector
    a: Node
    style: str = "operatorname"


@dataclass(frozen=True)
class VComp(Node):  # entry i of a vector expression: softmax(x)_i, (x + y)_i
    v: Node
    i: Node
    #: "component": the softmax written of the component, `softmax(x_i)`, as texts define it
    style: str = ""


@dataclass(frozen=True)
class Tr(Node):  # the trace of a square matrix, `\\mathrm{tr}(A)` (`style`: its command)
    a: Node
    style: str = "mathrm"


@dataclass(frozen=True)
class Frob(Node):  # the Frobenius inner product of two matrices, `\\langle A, B\\rangle_F`
    a: Node
    b: Node


@dataclass(frozen=True)
class Norm(Node):  # the Euclidean norm of a column vector, `\|x\|`
    a: Node


@dataclass(frozen=True)
class MaskedAttn(Node):  # A = softmax(S + M), S n x n, M the mask of `kind` the prose defines
    kind: str


@dataclass(frozen=True)
class WildSpec:
    lhs: Node
    rhs: Node
    free: tuple[tuple[str, str], ...] = ()  # free indices and the size each runs over


@dataclass(frozen=True)
class WildClaim:
    """A generated claim: its AST, its class, its mutations and how the texts state it."""

    ident: str
    template: str
    spec: WildSpec
    mutations: tuple[str, ...] = ()
    declare: bool = False  # the document declares the shapes (else they must be inferred)

    @property
    def label(self) -> str:
        muts = "+".join(self.mutations) if self.mutations else "unmutated"
        return f"{self.ident} {self.template} [{muts}]"


def walk(e: Any) -> Any:
    yield e
    for f in dataclasses.fields(e):
        v = getattr(e, f.name)
        if isinstance(v, Node):
            yield from walk(v)
        elif isinstance(v, tuple):
            for row in v:
                for x in row if isinstance(row, tuple) else (row,):
                    if isinstance(x, Node):
                        yield from walk(x)
