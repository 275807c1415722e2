"""A recurrence over a symbolic count: as data (`Recurrence`, `Segment`), as a term (`Recurrent`).

Imports only sympy and the kernel below it (expr, text, evaluate, the witnesses' tables, maxima);
must not import proof, induction or anything above the kernel.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import sympy
from sympy import Basic
from sympy.core.symbol import Str

from symattn.kernel import evaluate
from symattn.kernel.dims import dim
from symattn.kernel.errors import ShapeError
from symattn.kernel.expr import Entry, MatExpr
from symattn.kernel.maxima import _MaxOver
from symattn.kernel.text import PLAIN, plain
from symattn.kernel.witness import exact, field

Operands = Mapping[str, MatExpr]


State = tuple[sympy.Expr, ...]


@dataclass(frozen=True)
class Segment:
    """Segment t of the count: the positions start+1 .. start+size (a key block, or a token)."""

    t: sympy.Expr
    start: sympy.Expr
    size: sympy.Expr

    @property
    def lo(self) -> sympy.Expr:
        return self.start + 1

    @property
    def hi(self) -> sympy.Expr:
        return self.start + self.size

    def sum(self, body: Callable[[sympy.Symbol], sympy.Expr]) -> sympy.Expr:
        """Σ over the segment's positions (a token's segment holds the one position t)."""
        j = sympy.Dummy("j", integer=True, positive=True)
        return _sum(body(j), j, self.lo, self.hi)

    def max(self, body: Callable[[sympy.Symbol], sympy.Expr]) -> _MaxOver:
        j = sympy.Dummy("j", integer=True, positive=True)
        return _MaxOver(body(j), j, self.lo, self.hi)


def prefix_sum(body: Callable[[sympy.Symbol], sympy.Expr], hi: sympy.Expr) -> sympy.Expr:
    """Σ_{j=1}^{hi} body(j), the closed forms' prefix sums.

    >>> prefix_sum(lambda j: j, 3).doit()
    6
    """
    j = sympy.Dummy("j", integer=True, positive=True)
    return _sum(body(j), j, sympy.Integer(1), hi)


_LIGHT: contextvars.ContextVar[bool] = contextvars.ContextVar("light", default=False)


def _sum(body: sympy.Expr, j: sympy.Symbol, lo: sympy.Expr, hi: sympy.Expr) -> sympy.Expr:
    """A sum; while unrolling (explicit bounds, evaluated by `_Eval` only) without sympy's
    folding of masks into it, which costs more than the evaluation."""
    if _LIGHT.get():  # what AddWithLimits.__new__ keeps, without its rewriting of the body
        obj = sympy.Expr.__new__(sympy.Sum)
        obj._args = (body, sympy.Tuple(j, lo, hi))
        obj.is_commutative = True
        return obj
    return sympy.Sum(body, (j, lo, hi))


@dataclass(frozen=True)
class Recurrence:
    """A state computed segment by segment over a symbolic count, with its claimed closed form.

    - `operands(keys)`: the matrices, for `keys` positions in all;
    - `step(ops, state, segment)`: the state after the segment from the state before it;
    - `invariant(ops, hi)`: the claimed state after the positions 1..hi;
    - `claim(ops, state, hi)`: the two sides read from the state after 1..hi (the output and
      its target); `at="end"` states it after all positions, `at="every"` after every t;
    - `tokens=True`: segments of one position (t = 1..T), else key blocks of symbolic sizes.
    """

    name: str
    components: tuple[str, ...]
    initial: State
    step: Callable[[Operands, State, Segment], State]
    invariant: Callable[[Operands, sympy.Expr], State]
    claim: Callable[[Operands, State, sympy.Expr], tuple[sympy.Basic, sympy.Basic]]
    operands: Callable[[sympy.Expr], Operands]
    tokens: bool = False
    at: Literal["end", "every"] = "end"
    note: str = ""
    row: sympy.Symbol = dim("i")  # the output's row index
    col: sympy.Symbol = dim("c")  # and its column index
    shape: Callable[[Operands], tuple[sympy.Expr, sympy.Expr]] | None = None
    target: Callable[[Operands], MatExpr] | None = None  # the claim's right side as a matrix

    def statement(self, **sizes: object) -> tuple[Recurrent, MatExpr]:
        """`Recurrent(self) = target` at n keys (or the sizes given), for prove_equal."""
        if self.target is None:
            raise ShapeError(f"the claim of {self.name} is not a matrix")
        n = dim("n")
        ops = dict(self.operands(n))
        if sizes:
            values = {dim(k): sympy.sympify(v, strict=True) for k, v in sizes.items()}
            ops = {k: m.xreplace(values) for k, m in ops.items()}
        return Recurrent(self, *ops.values()), self.target(ops)

    scores: tuple[str, ...] = ("S",)  # matrices whose entries go into exp (logs when unrolled)
    abstract: tuple[str, ...] = ()  # operands the base and step hold for whatever their value

    @property
    def count(self) -> str:
        return "T" if self.tokens else "B"

    @property
    def unit(self) -> str:
        return "tokens" if self.tokens else "key blocks"


_REGISTRY: dict[str, Recurrence] = {}


def known(rec: Recurrence) -> Recurrence:
    """Make `rec` known by its name, so that a `Recurrent` node can name it; a name stands for
    one recurrence only (verdicts are remembered by the node, which holds the name)."""
    other = _REGISTRY.setdefault(rec.name, rec)
    if other is not rec:
        raise ShapeError(
            f"another recurrence is already called {rec.name!r}: give yours a name of its own"
        )
    return rec


class Recurrent(MatExpr):
    """The output a recurrence computes over a symbolic count, as a kernel term: row i (or the
    row of step t) of what `rec` reads from its state, from the operands given.

    It has a shape and no closed entry: `prove_equal(Recurrent(...), target)` proves it by
    induction on the count (`prove_recurrence`).

    >>> from symattn.kernel.recurrences import split_kv_merge
    >>> lhs, rhs = split_kv_merge().statement()
    >>> lhs, lhs.shape == rhs.shape
    (split_kv_merge(S, V), True)
    """

    def __new__(cls, rec: object, *operands: MatExpr) -> Recurrent:
        name = rec.name if isinstance(rec, Recurrence) else str(getattr(rec, "name", rec))
        if isinstance(rec, Recurrence):
            known(rec)
        if name not in _REGISTRY:
            raise ShapeError(f"unknown recurrence {name!r}")
        r = _REGISTRY[name]
        if not operands:
            n = dim("n")
            operands = tuple(r.operands(n).values())
        if len(operands) != len(r.operands(_KEYS)):
            raise ShapeError(
                f"the recurrence {name} takes the operands {', '.join(r.operands(_KEYS))}"
            )
        return Basic.__new__(cls, Str(name), *operands)

    @property
    def recurrence(self) -> Recurrence:
        return _REGISTRY[str(self.args[0].name)]

    @property
    def operands(self) -> dict[str, MatExpr]:
        return dict(zip(self.recurrence.operands(_KEYS), self.args[1:], strict=True))

    @property
    def shape(self) -> tuple[sympy.Expr, sympy.Expr]:
        rec = self.recurrence
        if rec.shape is None:
            raise ShapeError(f"the recurrence {rec.name} has no output shape")
        return rec.shape(self.operands)

    def _entry(self, i: sympy.Expr, j: sympy.Expr, fresh: object) -> sympy.Expr:
        raise NotImplementedError(
            f"{self.recurrence.name} over a symbolic count has no closed entry (it is proved "
            "by induction on the count)"
        )


def _no_closed_value(_: object, e: Recurrent, *rest: object) -> Any:
    raise NotImplementedError(
        f"{e.recurrence.name} over a symbolic count has no closed value: prove_equal proves "
        "it by induction on the count when it is a whole side of the claim"
    )


evaluate.MATRIX.register(Recurrent)(_no_closed_value)


field.DEGREE.register(Recurrent)(_no_closed_value)


@exact.TERMS.register(Recurrent)
def _terms_recurrent(e: Recurrent, at: Mapping) -> int:
    return 1  # never expanded: a side that holds one is decided by the induction or not at all


@PLAIN.register(Recurrent)
def _plain_recurrent(e: Recurrent) -> str:
    return f"{e.recurrence.name}({', '.join(plain(x) for x in e.args[1:])})"


_KEYS = dim("keys")


def _claimed(
    rec: Recurrence, ops: Operands, state: State, hi: sympy.Expr, target: MatExpr | None
) -> tuple[sympy.Basic, sympy.Basic]:
    """The claim's two sides: the output read from the state, and the recurrence's own target
    or the entry of the one given (at row i, or at row t for a claim at every t)."""
    lhs, rhs = rec.claim(ops, state, hi)
    if target is None:
        return lhs, rhs
    row = hi if rec.at == "every" else rec.row
    return lhs, Entry(target, row, rec.col)
