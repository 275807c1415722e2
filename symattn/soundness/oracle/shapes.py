"""The oracle's own shape logic: a claim's shapes at every plan, or why it is ill-typed.

Imports only numpy, the standard library and the oracle's own modules; nothing else from symattn
(a test checks it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from symattn.soundness.oracle.claims import (
    Add,
    Block,
    ClaimSpec,
    ColSoftmax,
    Concat,
    D,
    Dim,
    Dot,
    Entry,
    FromCol,
    HeadMat,
    Mask,
    MatMul,
    MSum,
    Node,
    Num,
    Ones,
    Row,
    SAdd,
    Scale,
    SMul,
    Softmax,
    Sqrt,
    SSum,
    Sym,
    Tr,
)
from symattn.soundness.oracle.plans import Context, shape_plans

# ---- shapes -------------------------------------------------------------------------------


class IllTyped(Exception):
    """A shape mismatch under the context (products, sums, masks, blocks, two shapes for a name)."""


class IllFormed(Exception):
    """An index outside its matrix, a head outside its family, or a reversed sum range."""


Shape = tuple[Dim, Dim]


class Shapes:
    """Shape logic of the AST under a context (no evaluation of data)."""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self.plans = shape_plans(ctx)
        self.names: dict[str, Shape] = {}

    def eq(self, a: Dim, b: Dim) -> bool:
        return all(a.value(p) == b.value(p) for p in self.plans)

    def _name(self, name: str, shape: Shape) -> None:
        old = self.names.setdefault(name, shape)
        if not (self.eq(old[0], shape[0]) and self.eq(old[1], shape[1])):
            raise IllTyped(f"{name} used with two shapes {old} and {shape}")

    def of(self, x: Node) -> Shape | None:
        """The shape of a matrix node; None for a scalar. Raises IllTyped."""
        f = _SHAPE.get(type(x))
        if f is None:
            raise TypeError(f"not a claim node: {x!r}")
        return f(self, x)

    def mat(self, x: Node) -> Shape:
        s = self.of(x)
        if s is None:
            raise IllTyped("a scalar where a matrix is needed")
        return s

    def claim(self, c: ClaimSpec) -> None:
        """Raise IllTyped unless both sides typecheck and have the same shape (or 1x1 vs scalar)."""
        a, b = self.of(c.lhs), self.of(c.rhs)
        one = D(1)
        if a is None and b is None:
            return
        if a is None or b is None:
            m = a if a is not None else b
            assert m is not None
            if self.eq(m[0], one) and self.eq(m[1], one):
                return
            raise IllTyped(f"a scalar compared with a {m[0]} x {m[1]} matrix")
        if not (self.eq(a[0], b[0]) and self.eq(a[1], b[1])):
            raise IllTyped(f"shapes {a} and {b} differ")


# The shape of each node, by its class (the AST's classes have no subclasses: exact lookup).
ShapeOf = Callable[[Shapes, Any], "Shape | None"]


_SHAPE: dict[type, ShapeOf] = {}


def _shape_of(*classes: type) -> Callable[[ShapeOf], ShapeOf]:
    def add(f: ShapeOf) -> ShapeOf:
        _SHAPE.update(dict.fromkeys(classes, f))
        return f

    return add


@_shape_of(Sym)
def _sym_shape(sh: Shapes, x: Sym) -> Shape:
    sh._name(x.name, (x.rows, x.cols))
    return (x.rows, x.cols)


@_shape_of(HeadMat)
def _head_shape(sh: Shapes, x: HeadMat) -> Shape:
    sh._name(x.name + "^(h)", (x.rows, x.cols))
    return (x.rows, x.cols)


@_shape_of(Ones)
def _ones_shape(sh: Shapes, x: Ones) -> Shape:
    return (x.rows, x.cols)


@_shape_of(FromCol)
def _fromcol_shape(sh: Shapes, x: FromCol) -> Shape:
    sh._name(x.name + "1^T", (x.rows, x.cols))
    return (x.rows, x.cols)


@_shape_of(MatMul)
def _matmul_shape(sh: Shapes, x: MatMul) -> Shape:
    a, b = sh.mat(x.a), sh.mat(x.b)
    if not sh.eq(a[1], b[0]):
        raise IllTyped(f"product inner dims {a[1]} and {b[0]}")
    return (a[0], b[1])


@_shape_of(Tr)
def _tr_shape(sh: Shapes, x: Tr) -> Shape:
    a = sh.mat(x.a)
    return (a[1], a[0])


@_shape_of(Add)
def _add_shape(sh: Shapes, x: Add) -> Shape:
    a, b = sh.mat(x.a), sh.mat(x.b)
    if not (sh.eq(a[0], b[0]) and sh.eq(a[1], b[1])):
        raise IllTyped(f"sum of {a} and {b}")
    return a


@_shape_of(Scale)
def _scale_shape(sh: Shapes, x: Scale) -> Shape:
    if sh.of(x.c) is not None:
        raise IllTyped("scale by a matrix")
    return sh.mat(x.a)


@_shape_of(Softmax, ColSoftmax)
def _softmax_shape(sh: Shapes, x: Any) -> Shape:
    return sh.mat(x.a)


@_shape_of(Mask)
def _mask_shape(sh: Shapes, x: Mask) -> Shape:
    a = sh.mat(x.a)
    if not sh.eq(a[0], a[1]):
        raise IllTyped("mask of a non-square matrix")
    return a


@_shape_of(Row)
def _row_shape(sh: Shapes, x: Row) -> Shape:
    a = sh.mat(x.a)
    return (D(1), a[1])


@_shape_of(Concat)
def _concat_shape(sh: Shapes, x: Concat) -> Shape:
    a = sh.mat(x.body)
    return (
        a[0],
        Dim(x.count.coef * a[1].coef, tuple(sorted(x.count.factors + a[1].factors))),
    )


@_shape_of(Block)
def _block_shape(sh: Shapes, x: Block) -> Shape:
    a = sh.mat(x.a)
    total = Dim(x.m.coef * x.count.coef, tuple(sorted(x.m.factors + x.count.factors)))
    if not sh.eq(a[0], total):
        raise IllTyped(f"cannot cut {a[0]} rows into {x.count} blocks of {x.m}")
    return (x.m, a[1])


@_shape_of(MSum)
def _msum_shape(sh: Shapes, x: MSum) -> Shape:
    return sh.mat(x.body)


@_shape_of(Num, Sqrt)
def _number_shape(sh: Shapes, x: Any) -> None:
    return None


@_shape_of(Entry)
def _entry_shape(sh: Shapes, x: Entry) -> None:
    sh.mat(x.m)
    return None


@_shape_of(Dot)
def _dot_shape(sh: Shapes, x: Dot) -> None:
    u, v = sh.mat(x.u), sh.mat(x.v)
    if not (sh.eq(u[0], D(1)) and sh.eq(v[0], D(1)) and sh.eq(u[1], v[1])):
        raise IllTyped(f"dot of {u} and {v}")
    return None


@_shape_of(SMul, SAdd)
def _scalar_op_shape(sh: Shapes, x: Any) -> None:
    if sh.of(x.a) is not None or sh.of(x.b) is not None:
        raise IllTyped("scalar operation on a matrix")
    return None


@_shape_of(SSum)
def _ssum_shape(sh: Shapes, x: SSum) -> None:
    if sh.of(x.body) is not None:
        raise IllTyped("scalar sum of a matrix")
    return None
