"""Recurrences over a symbolic count (key blocks b = 1..B, tokens t = 1..T), proved by induction.

Imports only the kernel up to proof (expr, modern, evaluate, the witnesses' tables, proof); must
not import rules, derivation or anything above the kernel.

A `Recurrence` holds a state of scalar components (entries with free indices), an initial
state, a step from the state after segment t-1 to the state after segment t, and a claimed
closed form of the state after the positions 1..hi (the invariant). `prove_recurrence` shows

- the base: one step from the initial state gives the invariant after the first segment;
- the step: for t >= 2, with the invariant after t-1 segments as the hypothesis (substituted for
  the state), one step gives the invariant after t segments, for a symbolic start P >= 1 and a
  symbolic segment size b (so for every count and every block sizes);
- the conclusion: what the claim reads from the invariant equals its target (at the end, or at
  every t).

Components that are running maxima (`_MaxOver`) are shown by the lattice rule `max_append`; every
other component by `prove_equal`, with each finite running maximum M written as log E_M for a
positive E_M (the ring claims hold for every positive E). The exact and numeric cross-checks
unroll the recurrence at explicit counts and sizes and evaluate it on random data, without the
invariant: a false invariant or claim gets its counterexample there.
"""

from __future__ import annotations

import contextvars
import math
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from typing import Any, Literal

import sympy
from sympy import Basic
from sympy.core.symbol import Str

from symattn.kernel import evaluate
from symattn.kernel.dims import dim
from symattn.kernel.errors import ShapeError, Signal
from symattn.kernel.expr import Entry, MatExpr, MatSym, expand_entries, walk
from symattn.kernel.modern import FeatureMap
from symattn.kernel.proof import DECIDERS, Verdict, Witness, check_shapes, prove_equal
from symattn.kernel.ranges import infer_ranges
from symattn.kernel.text import PLAIN, plain
from symattn.kernel.witness import exact, field

Operands = Mapping[str, MatExpr]
State = tuple[sympy.Expr, ...]


class _MaxOver(sympy.Expr):
    """`max_{lo <= j <= hi} body`: a running maximum over a range of positions (-inf if empty).

    >>> from symattn.kernel.expr import index
    >>> j = sympy.Dummy("j", integer=True, positive=True)
    >>> _MaxOver(j**2, j, 1, 3).limits
    (_j, 1, 3)
    """

    is_commutative = True
    is_extended_real = True

    def __new__(cls, body: object, j: object, lo: object = None, hi: object = None) -> _MaxOver:
        if lo is None:  # rebuilt from its args (xreplace): (body, (j, lo, hi))
            j, lo, hi = j  # type: ignore[misc]
        return sympy.Expr.__new__(
            cls,
            sympy.sympify(body, strict=True),
            sympy.Tuple(j, sympy.sympify(lo, strict=True), sympy.sympify(hi, strict=True)),
        )

    @property
    def body(self) -> sympy.Expr:
        return self.args[0]

    @property
    def limits(self) -> tuple[sympy.Symbol, sympy.Expr, sympy.Expr]:
        j, lo, hi = self.args[1]
        return j, lo, hi

    @property
    def free_symbols(self) -> set[sympy.Basic]:  # the bound position is not free
        j, lo, hi = self.limits
        return (self.body.free_symbols - {j}) | lo.free_symbols | hi.free_symbols

    def _sympystr(self, printer: object) -> str:
        j, lo, hi = self.limits
        return f"max_{{{j}={lo}..{hi}}} {self.body}"


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


def prefix_max(body: Callable[[sympy.Symbol], sympy.Expr], hi: sympy.Expr) -> _MaxOver:
    """max_{j=1}^{hi} body(j), a running maximum (-inf for hi = 0).

    >>> prefix_max(lambda j: j, 3).limits[1:]
    (1, 3)
    """
    j = sympy.Dummy("j", integer=True, positive=True)
    return _MaxOver(body(j), j, 1, hi)


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


@DECIDERS.register(Recurrent)
def _decide_recurrent(lhs: Recurrent, rhs: sympy.Basic) -> Verdict:
    """prove_equal's route for a recurrence: the induction, its unrolled cross-checks, and a
    Verdict that names both."""
    problem = check_shapes(lhs, rhs)
    if problem is not None:
        return Verdict("shape_error", reason=problem)
    rec = lhs.recurrence
    iv = prove_recurrence(rec, operands=lhs.operands, target=rhs, claim_only=True)
    if iv.status == "proved":
        # symbolic: the induction; exact and numeric: the unrolled cross-checks that ran
        said = " ".join(iv.unrolled)
        shown: list[Witness] = ["symbolic"]
        if "exact" in said:
            shown.append("exact")
        if "float64" in said:
            shown.append("numeric")
        return Verdict("proved", tuple(shown), reason=iv.summary())
    if iv.status == "false":
        return Verdict("false", reason=iv.summary(), counterexample=None)
    return Verdict("unknown", reason=iv.summary())


# ---- the verdict -------------------------------------------------------------------------


@dataclass(frozen=True)
class Part:
    """One obligation of an induction (base, step or conclusion) and what its proof rests on."""

    name: str
    proved: bool
    rests_on: tuple[str, ...] = ()
    failed: str = ""


@dataclass(frozen=True)
class InductionVerdict:
    """`proved` (base, step and conclusion all shown), `false` (a counterexample found by
    unrolling at an explicit count) or `unknown` ("not proved", with the part that failed)."""

    status: Literal["proved", "false", "unknown"]
    count: str
    parts: tuple[Part, ...] = ()
    reason: str = ""
    counterexample: str = ""
    unrolled: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.status == "proved"

    def summary(self) -> str:
        """What was shown: proved by induction on the count, each part and what it rests on."""
        if self.status == "proved":
            text = f"proved by induction on {self.count}"
        elif self.status == "false":
            text = "false"
        else:
            text = f"not proved by induction on {self.count}: {self.reason}"
        for p in self.parts:
            mark = "shown" if p.proved else f"NOT shown ({p.failed})"
            text += f"\n  {p.name}: {mark}"
            if p.rests_on:
                text += "; rests on " + ", ".join(p.rests_on)
        if self.unrolled:
            text += "\n  unrolled: " + "; ".join(self.unrolled)
        if self.counterexample:
            text += f"\n  counterexample: {self.counterexample}"
        return text


# ---- the proof rule ----------------------------------------------------------------------

_P = dim("P_start")  # positions before segment t (t >= 2)
_B = dim("b")  # the size of segment t
_R = sympy.Symbol("r", integer=True, nonnegative=True)  # positions after it
_T = dim("t")


def prove_recurrence(
    rec: Recurrence,
    *,
    operands: Mapping[str, MatExpr] | None = None,
    target: MatExpr | None = None,
    counts: Sequence[int] = (1, 2, 3, 4),
    claim_only: bool = False,
) -> InductionVerdict:
    """Prove `rec` for every count by induction, and cross-check it unrolled at `counts`.

    Unrolled, the state after each segment is compared with the invariant and the output with
    the target; with `claim_only`, only the output (a false invariant of a true claim makes
    the induction fail, "not proved", never "false").

    `operands` are the matrices the claim is about (by default the recurrence's own at n keys;
    they must be an instance of them: other sizes, the same names) and `target` the matrix
    the output is claimed to equal (by default the recurrence's own claim).

    >>> from symattn.kernel.recurrences import linear_state
    >>> prove_recurrence(linear_state()).status
    'proved'
    """
    n = dim("n")
    ops = dict(rec.operands(n) if operands is None else operands)
    sizes = _instance(rec, ops)
    if sizes is None:
        what = ", ".join(f"{k} = {plain(v)}" for k, v in ops.items())
        return InductionVerdict(
            "unknown", rec.count, reason=f"the operands {what} are not those of {rec.name}"
        )
    size = sympy.Integer(1) if rec.tokens else _B
    parts = []
    # base: the first segment, from the initial state (where -inf and the empty sums enter)
    gen = _generic(rec, size + _R)
    first = rec.step(gen, rec.initial, Segment(sympy.Integer(1), sympy.Integer(0), size))
    parts.append(
        _obligation("base (t = 1, from the initial state)", first, rec.invariant(gen, size))
    )
    # step: t - 1 -> t, the hypothesis substituted for the state after t - 1
    gen = _generic(rec, _P + size + _R)
    after = rec.step(gen, rec.invariant(gen, _P), Segment(_P + 1, _P, size))
    parts.append(
        _obligation(
            "step (t-1 -> t for t >= 2, the invariant at t-1 assumed)",
            after,
            rec.invariant(gen, _P + size),
        )
    )
    # the conclusion, from the invariant after every position (or after every t)
    keys = sizes[_KEYS]
    hi = keys if rec.at == "end" else _T
    lhs, rhs = _claimed(rec, ops, rec.invariant(ops, hi), hi, target)
    where = f"t = {rec.count}" if rec.at == "end" else "every t"
    parts.append(_obligation(f"conclusion (at {where})", (lhs,), (rhs,)))
    bad = next((p for p in parts if not p.proved), None)
    unrolled, counter = _unroll_all(rec, ops, sizes, target, counts, claim_only)
    if counter:
        return InductionVerdict(
            "false", rec.count, tuple(parts), counterexample=counter, unrolled=unrolled
        )
    if bad is not None:
        return InductionVerdict(
            "unknown",
            rec.count,
            tuple(parts),
            reason=f"the {bad.name.split(' ')[0]} is not shown: {bad.failed}",
            unrolled=unrolled,
        )
    return InductionVerdict("proved", rec.count, tuple(parts), unrolled=unrolled)


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


def _instance(rec: Recurrence, ops: Mapping[str, MatExpr]) -> dict[sympy.Symbol, sympy.Expr] | None:
    """The sizes that make the recurrence's operands the ones given ({keys: n, d_v: 6}), or
    None when no sizes do (another name, another form)."""
    generic = dict(rec.operands(_KEYS))
    if set(generic) != set(ops):
        return None
    free = _dims(*generic.values()) | {_KEYS}
    found: dict[sympy.Symbol, sympy.Expr] = {}

    def bind(g: sympy.Basic, a: sympy.Basic) -> None:
        if g in free:
            found.setdefault(g, a)
        elif type(g) is type(a) and len(g.args) == len(a.args):
            for x, y in zip(g.args, a.args, strict=True):
                bind(x, y)

    for k in generic:
        bind(generic[k], ops[k])
    if _KEYS not in found:
        return None
    if any(generic[k].xreplace(found) != ops[k] for k in generic):
        return None
    return found


def _generic(rec: Recurrence, keys: sympy.Expr) -> dict[str, MatExpr]:
    """The operands of the base and the step, those in `rec.abstract` replaced by a matrix name
    of the same shape: shown for every matrix, they hold for the one the claim uses."""
    ops: dict[str, MatExpr] = dict(rec.operands(keys))
    for name in rec.abstract:
        ops[name] = MatSym(f"{name}_any", *ops[name].shape)
    return ops


def _obligation(name: str, got: Sequence[sympy.Basic], want: Sequence[sympy.Basic]) -> Part:
    rests: list[str] = []
    for k, (a, b) in enumerate(zip(got, want, strict=True)):
        ok, why = _same(a, b, rests)
        if not ok:
            return Part(name, False, tuple(dict.fromkeys(rests)), f"component {k + 1}: {why}")
    return Part(name, True, tuple(dict.fromkeys(rests)))


def _same(a: sympy.Basic, b: sympy.Basic, rests: list[str]) -> tuple[bool, str]:
    a, b = (
        _merge_maxima(sympy.sympify(a, strict=True)),
        _merge_maxima(sympy.sympify(b, strict=True)),
    )
    if isinstance(b, _MaxOver) or b == -sympy.oo:
        if _canonical(a) == _canonical(b):
            rests.append("max_append (max over 1..P, then over P+1..P+b, is max over 1..P+b)")
            return True, ""
        return False, f"the running maximum {plain_max(a)} is not {plain_max(b)}"
    try:
        a2, b2, used = _abstract_maxima(a, b)
    except _Infinite as exc:
        return False, str(exc)
    if used:
        rests.append("exp_max_finite (a running maximum that holds key 1 is finite: e^m > 0)")
    if a2.has(sympy.oo, -sympy.oo, sympy.zoo, sympy.nan):
        return False, f"an infinite value is left in {plain_max(a2)}"
    verdict = prove_equal(a2, b2, witnesses=("symbolic",))
    if verdict.status == "proved":
        rests.append("prove_equal: " + verdict.summary())
        return True, ""
    return False, "prove_equal says " + verdict.summary().split("\n")[0]


class _Infinite(Signal):
    pass


def plain_max(e: sympy.Basic) -> str:
    return sympy.sstr(e) if not isinstance(e, MatExpr) else plain(e)


def _canonical(e: sympy.Basic) -> sympy.Basic:
    """_MaxOver with its bound position renamed to one symbol, so equal ranges compare equal."""
    k = dim("_k_bound")

    def one(m: _MaxOver) -> _MaxOver:
        j, lo, hi = m.limits
        return _MaxOver(m.body.xreplace({j: k}), k, lo, hi)

    return e.replace(lambda x: isinstance(x, _MaxOver), one)


def _merge_maxima(e: sympy.Basic) -> sympy.Basic:
    """max_append: `max(max_{lo..mid} f, max_{mid+1..hi} f) = max_{lo..hi} f` when both ranges
    provably run forward (an empty range is the identity -inf of max)."""

    def merge(m: sympy.Max) -> sympy.Basic:
        items = [x for x in m.args if x != -sympy.oo]
        changed = True
        while changed:
            changed = False
            for x, y in product(items, items):
                if x is y or not (isinstance(x, _MaxOver) and isinstance(y, _MaxOver)):
                    continue
                (jx, lx, hx), (jy, ly, hy) = x.limits, y.limits
                if x.body.xreplace({jx: jy}) != y.body:
                    continue
                if sympy.expand(ly - hx - 1) != 0:
                    continue
                if not (_nonneg(hx - lx + 1) and _nonneg(hy - ly + 1)):
                    continue
                items = [z for z in items if z is not x and z is not y] + [
                    _MaxOver(y.body, jy, lx, hy)
                ]
                changed = True
                break
        return items[0] if len(items) == 1 else sympy.Max(*items, evaluate=False)

    return e.replace(lambda x: isinstance(x, sympy.Max), merge)


def _nonneg(x: sympy.Expr) -> bool:
    """x >= 0 provably, positive integers counted as 1 + a nonnegative integer (P + b - 1)."""
    x = sympy.expand(x)
    shift = {
        s: sympy.Symbol(f"{s.name}_minus_1", integer=True, nonnegative=True) + 1
        for s in x.free_symbols
        if s.is_integer and s.is_positive
    }
    return bool(sympy.expand(x.xreplace(shift)).is_nonnegative)


def _abstract_maxima(a: sympy.Basic, b: sympy.Basic) -> tuple[sympy.Basic, sympy.Basic, bool]:
    """Each running maximum M becomes log E_M (E_M > 0) when M is provably finite; then
    `e^{x - M}` is `e^x / E_M`, and the ring claim is decided for every positive E_M."""
    found: dict[sympy.Basic, _MaxOver] = {}
    instances: dict[_MaxOver, sympy.Basic] = {}  # each occurrence -> its class up to renaming
    for side in (a, b):
        for x in walk(side):
            if isinstance(x, _MaxOver) and x not in instances:
                instances[x] = _canonical(x)
                found.setdefault(instances[x], x)
    if not found:
        return a, b, False
    bound = {
        v
        for side in (a, b)
        for x in walk(side)
        if isinstance(x, (sympy.Sum, _MaxOver))
        for v in ([lim[0] for lim in x.limits] if isinstance(x, sympy.Sum) else [x.limits[0]])
    }
    for m in found.values():
        inside = m.free_symbols & bound
        if inside:  # one E for a maximum that changes with a bound index would be unsound
            raise _Infinite(
                f"the running maximum {plain_max(m)} depends on the bound index "
                f"{', '.join(map(str, inside))}: not supported"
            )
    names: dict[sympy.Basic, sympy.Basic] = {}
    for k, (canon, m) in enumerate(found.items(), start=1):
        problem = _finite_problem(m)
        if problem:
            raise _Infinite(problem)
        j, lo, hi = m.limits
        names[canon] = sympy.log(sympy.Symbol(f"E_max{k}({lo}..{hi})", positive=True))

    positive = {sympy.exp(x) for x in names.values()}
    by_instance = {x: names[c] for x, c in instances.items()}

    def swap(e: sympy.Basic) -> sympy.Basic:
        e = e.xreplace(by_instance)  # e^{x - log E} is e^x / E as sympy builds it
        return e.replace(lambda x: isinstance(x, sympy.Sum), lambda x: _factor_sum(x, positive))

    return swap(a), swap(b), True


def _factor_sum(s: sympy.Sum, positive: set[sympy.Basic]) -> sympy.Basic:
    """`Σ_j [c_j] E^k v_j = E^k Σ_j [c_j] v_j` (sympy folds a factor back into a mask inside a
    sum, so it comes out of both at once)."""
    body = s.function
    if not isinstance(body, sympy.Piecewise):
        return s
    pulled = _factor_out(body, positive)
    if pulled is body:
        return s
    args = sympy.Mul.make_args(pulled)
    masks = [f for f in args if isinstance(f, sympy.Piecewise)]
    if len(masks) != 1:
        return s
    factor = [f for f in args if not isinstance(f, sympy.Piecewise)]
    return sympy.Mul(*factor) * sympy.Sum(masks[0], *s.limits)


def _factor_out(pw: sympy.Piecewise, positive: set[sympy.Basic]) -> sympy.Basic:
    """`[c] E^k v = E^k [c] v` for the positive finite E = e^M of a running maximum: the mask
    gives 0 or the value, either way the factor comes out."""
    if len(pw.args) != 2 or pw.args[1].cond != sympy.true or pw.args[1].expr != 0:
        return pw
    value, cond = pw.args[0]
    out: list[sympy.Basic] = []
    keep: list[sympy.Basic] = []
    for f in sympy.Mul.make_args(value):
        base = f.base if isinstance(f, sympy.Pow) and f.exp.is_Integer else f
        (out if base in positive else keep).append(f)
    if not out:
        return pw
    return sympy.Mul(*out) * sympy.Piecewise((sympy.Mul(*keep), cond), (0, True))


def _finite_problem(m: _MaxOver) -> str:
    """Why the running maximum m may be -inf or +inf, or "" when it is provably finite: a
    nonempty range of finite terms, or a masked range that starts at key 1 (never masked)."""
    j, lo, hi = m.limits
    if m.body.has(sympy.oo, sympy.zoo, sympy.nan):
        return f"the running maximum {plain_max(m)} may be +inf"
    if not m.body.has(-sympy.oo, sympy.Piecewise):
        if _nonneg(hi - lo):
            return ""
        return f"cannot show that the range of the running maximum {plain_max(m)} is nonempty"
    if lo != 1 or not _nonneg(hi - 1):
        return f"cannot show that the running maximum {plain_max(m)} is finite (is key 1 in it?)"
    first = m.body.xreplace({j: sympy.Integer(1)})
    if first.has(sympy.oo, -sympy.oo, sympy.zoo, sympy.nan, sympy.Piecewise):
        return (
            f"cannot show that the running maximum {plain_max(m)} is finite: its first term "
            f"{plain_max(first)} may be masked (-inf)"
        )
    if m.body.has(sympy.oo, sympy.zoo, sympy.nan):
        return f"the running maximum {plain_max(m)} may be +inf"
    return ""


# ---- unrolling at explicit counts, on random data ----------------------------------------

_SIZES = (1, 2, 1, 3)  # block sizes of the explicit counts: unequal, and a block of one


def _unroll_all(
    rec: Recurrence,
    ops: Operands,
    sizes: Mapping[sympy.Symbol, sympy.Expr],
    target: MatExpr | None,
    counts: Sequence[int],
    claim_only: bool = False,
) -> tuple[tuple[str, ...], str]:
    done: list[str] = []
    keys = sizes[_KEYS]
    for count in counts:
        blocks = _blocks(rec, count, keys)
        if blocks is None:
            continue
        said = []
        for mode in ("exact", "float64"):
            token = _LIGHT.set(True)
            try:
                problem = _unroll(rec, ops, keys, target, blocks, mode, claim_only)
            except _NotExact as exc:
                if mode == "float64":  # float64 evaluates every node the recurrences use
                    said.append(f"float64 not evaluated ({exc})")
                continue  # exact: exp of a number that is not a log of a rational
            finally:
                _LIGHT.reset(token)
            if problem:
                where = f"{rec.count}={count}" + ("" if rec.tokens else f" (sizes {blocks})")
                return tuple(done), f"{where}, {mode}: {problem}"
            said.append(mode)
        done.append(f"{rec.count}={count} {' and '.join(said) or 'not evaluated'}")
    return tuple(done), ""


def _blocks(rec: Recurrence, count: int, keys: sympy.Expr) -> tuple[int, ...] | None:
    """The segments of an explicit count: unequal blocks with a block of one (or tokens); with
    an explicit number of keys, blocks that fill them and at most that many tokens."""
    if keys.is_Integer and count > int(keys):
        return None
    if rec.tokens:
        return (1,) * count
    if keys.is_Integer:
        return (1,) * (count - 1) + (int(keys) - count + 1,)
    return _SIZES[:count] if isinstance(keys, sympy.Symbol) else None


def _unroll(
    rec: Recurrence,
    ops: Operands,
    keys: sympy.Expr,
    target: MatExpr | None,
    blocks: Sequence[int],
    mode: str,
    claim_only: bool = False,
) -> str:
    """Run the recurrence segment by segment, and compare each state with the invariant and the
    claim's two sides, at every index point; the first difference, or ""."""
    total = sum(blocks)
    values = _explicit(ops, keys, total)
    ops = {k: m.xreplace(values) for k, m in ops.items()}
    goal = None if target is None else target.xreplace(values)
    scores = rec.scores
    if mode == "exact" and rec.abstract:
        # the claim holds for every value of these operands (the base and step say so): exactly,
        # they are matrices of log-rational scores, in the output and the target alike
        generic = {ops[k]: MatSym(f"{k}_any", *ops[k].shape) for k in rec.abstract}
        ops = {k: generic.get(m, m) for k, m in ops.items()}
        goal = None if goal is None else goal.xreplace(generic)
        scores = scores + tuple(f"{k}_any" for k in rec.abstract)
    data = _data(ops, mode, seed=total * 7 + len(blocks), scores=scores)
    state = rec.initial
    start = 0
    checks: list[tuple[str, sympy.Basic, sympy.Basic]] = []
    for t, size in enumerate(blocks, start=1):
        seg = Segment(sympy.Integer(t), sympy.Integer(start), sympy.Integer(size))
        state = rec.step(ops, state, seg)
        start += size
        want = rec.invariant(ops, sympy.Integer(start))
        for k, (a, b) in enumerate(zip(state, want, strict=True)):
            if not claim_only:
                checks.append((f"after segment {t}, {rec.components[k]}", a, b))
        if rec.at == "every" or t == len(blocks):
            lhs, rhs = _claimed(rec, ops, state, sympy.Integer(start), goal)
            checks.append((f"after segment {t}, the claim", lhs, rhs))
    ev = _Eval(data, exact=mode == "exact")
    for what, a, b in checks:
        problem = _compare(what, a, b, ev)
        if problem:
            return problem
    return ""


def _explicit(ops: Operands, keys: sympy.Expr, total: int) -> dict[sympy.Basic, sympy.Expr]:
    """Explicit sizes: the keys `total`, every other free size 2 or 3."""
    free = sorted(_dims(*ops.values()) - {keys}, key=str)
    values: dict[sympy.Basic, sympy.Expr] = {
        s: sympy.Integer(2 + k % 2) for k, s in enumerate(free)
    }
    if isinstance(keys, sympy.Symbol):
        values[keys] = sympy.Integer(total)
    return values


def _leaves(ops: Operands) -> Iterator[MatExpr]:
    seen = set()
    for m in ops.values():
        for x in walk(m):
            if isinstance(x, (MatSym, FeatureMap)) and x not in seen:
                seen.add(x)
                yield x


class _LogNum:
    """log q of a rational q >= 0 (q = 0 is -inf, None is +inf): scores drawn as logs of
    rationals keep e^{S - m} and the maxima exact."""

    __slots__ = ("q",)

    def __init__(self, q: Fraction | None) -> None:
        self.q = q

    def key(self) -> float | Fraction:
        return float("inf") if self.q is None else (float("-inf") if self.q == 0 else self.q)


class _NotExact(Signal):
    pass


def _data(ops: Operands, mode: str, seed: int, scores: Sequence[str]) -> dict[str, dict]:
    rng = random.Random(seed)
    out: dict[str, dict] = {}
    for leaf in _leaves(ops):
        table: dict[tuple[int, int], Any] = {}
        for r, c in product(range(1, int(leaf.rows) + 1), range(1, int(leaf.cols) + 1)):
            if mode == "exact" and leaf.name in scores:
                table[(r, c)] = _LogNum(Fraction(rng.randint(1, 9), rng.randint(1, 9)))
            elif mode == "exact":
                table[(r, c)] = Fraction(rng.randint(-9, 9), rng.randint(1, 9))
            else:
                table[(r, c)] = rng.gauss(0, 1.5)
        out[leaf.name] = table
    return out


_MISSING = object()


class _Eval:
    """Evaluate an index expression at explicit indices and data, in exact rationals (with
    `_LogNum` scores) or in float64; sums and maxima over explicit ranges are written out."""

    def __init__(self, data: dict[str, dict], exact: bool) -> None:
        self.data, self.exact = data, exact
        self.expanded: dict[sympy.Basic, sympy.Basic] = {}
        self.memo: dict[tuple, Any] = {}

    def __call__(self, e: sympy.Basic, env: dict) -> Any:
        f = (
            self._max_over
            if isinstance(e, _MaxOver)
            else getattr(self, "_" + type(e).__name__, None)
        )
        if f is not None:
            if not e.args:
                return f(e, env)
            # the states of later segments hold those of earlier ones: evaluate each once
            key = (e, frozenset(env.items()))
            hit = self.memo.get(key, _MISSING)
            if hit is _MISSING:
                hit = self.memo[key] = f(e, env)
            return hit
        if isinstance(e, sympy.Symbol):
            return env[e]
        if isinstance(e, sympy.Rational):
            return Fraction(int(e.p), int(e.q)) if self.exact else float(e)
        if isinstance(e, sympy.Number) or e.is_number and not e.free_symbols:
            if self.exact and e not in (sympy.oo, -sympy.oo):
                raise _NotExact(str(e))
            return float(e)
        raise _NotExact(f"cannot unroll {type(e).__name__}")

    def _Entry(self, e: Entry, env: dict) -> Any:
        x = self.expanded.get(e)
        if x is None:
            x = self.expanded[e] = expand_entries(e)
        return self(x, env)

    def _Indexed(self, e: sympy.Indexed, env: dict) -> Any:
        r, c = (int(self(x, env)) for x in e.indices)
        return self.data[str(e.base)][(r, c)]

    def _Add(self, e: sympy.Add, env: dict) -> Any:
        vals = [self(x, env) for x in e.args]
        if any(isinstance(v, _LogNum) for v in vals):
            if not all(isinstance(v, _LogNum) for v in vals):
                raise _NotExact("a score added to a number")
            q: Fraction | None = Fraction(1)
            for v in vals:
                if v.q is None or q is None:
                    if v.q == 0 or q == 0:
                        return float("nan")  # -inf + inf
                    q = None
                else:
                    q = q * v.q
            return _LogNum(q)
        total: Any = 0
        for v in vals:
            total = total + v
        return total

    def _Mul(self, e: sympy.Mul, env: dict) -> Any:
        vals = [self(x, env) for x in e.args]
        logs = [v for v in vals if isinstance(v, _LogNum)]
        if logs:
            rest = [v for v in vals if not isinstance(v, _LogNum)]
            k = math.prod(rest)
            # k log q = log q^k: sympy writes e^a e^b as e^{a+b}, so -2 m appears
            if len(logs) > 1 or not isinstance(k, (int, Fraction)) or int(k) != k or k == 0:
                raise _NotExact("a score times a number other than a whole one")
            return _power(logs[0], int(k))
        out: Any = 1
        for v in vals:
            out = _times(out, v)
        return out

    def _Pow(self, e: sympy.Pow, env: dict) -> Any:
        base, power = self(e.args[0], env), self(e.args[1], env)
        if base == 0 and power < 0:
            return float("nan") if base == 0 and not self.exact else _nan_or_inf(power)
        try:
            return base**power
        except (ZeroDivisionError, OverflowError):
            return float("nan")

    def _exp(self, e: sympy.exp, env: dict) -> Any:
        x = self(e.args[0], env)
        if isinstance(x, _LogNum):
            return float("inf") if x.q is None else x.q
        if self.exact and x not in (float("-inf"), float("inf")) and x == x:
            raise _NotExact("exp of a number")
        try:
            return math.exp(x)
        except OverflowError:
            return float("inf")

    def _Max(self, e: sympy.Max, env: dict) -> Any:
        return _max(self(x, env) for x in e.args)

    def _max_over(self, e: _MaxOver, env: dict) -> Any:
        j, lo, hi = e.limits
        vals = [
            self(e.body, {**env, j: k}) for k in range(int(self(lo, env)), int(self(hi, env)) + 1)
        ]
        return _max(vals) if vals else (_LogNum(Fraction(0)) if self.exact else float("-inf"))

    def _Sum(self, e: sympy.Sum, env: dict) -> Any:
        body, (j, lo, hi) = e.function, e.limits[0]
        total: Any = 0
        for k in range(int(self(lo, env)), int(self(hi, env)) + 1):
            total = total + self(body, {**env, j: k})
        return total

    def _Piecewise(self, e: sympy.Piecewise, env: dict) -> Any:
        for value, cond in e.args:
            if cond == sympy.true or self._truth(cond, env):
                return self(value, env)
        raise _NotExact("a Piecewise with no branch")

    def _truth(self, cond: sympy.Basic, env: dict) -> bool:
        if cond in (sympy.true, sympy.false):
            return bool(cond)
        a, b = (self(x, env) for x in cond.args)
        ops = {
            "LessThan": a <= b,
            "StrictLessThan": a < b,
            "Equality": a == b,
            "GreaterThan": a >= b,
            "StrictGreaterThan": a > b,
            "Unequality": a != b,
        }
        return ops[type(cond).__name__]

    def _NegativeInfinity(self, e: sympy.Basic, env: dict) -> Any:
        return _LogNum(Fraction(0)) if self.exact else float("-inf")

    def _Infinity(self, e: sympy.Basic, env: dict) -> Any:
        return _LogNum(None) if self.exact else float("inf")


def _power(x: _LogNum, k: int) -> _LogNum:
    """k · log q as log q^k, with log 0 = -inf and the +inf of None."""
    if x.q is None or x.q == 0:
        infinite = (x.q is None) == (k > 0)  # +inf times a positive k, -inf times a negative
        return _LogNum(None if infinite else Fraction(0))
    return _LogNum(x.q**k)


def _times(a: Any, b: Any) -> Any:
    if (a == 0 and _infinite(b)) or (b == 0 and _infinite(a)):
        return float("nan")
    return a * b


def _infinite(x: Any) -> bool:
    return isinstance(x, float) and (math.isinf(x) or math.isnan(x))


def _nan_or_inf(power: Any) -> Any:
    return float("nan")


def _max(vals) -> Any:
    vals = list(vals)
    if any(isinstance(v, _LogNum) for v in vals):
        return max(vals, key=lambda v: v.key() if isinstance(v, _LogNum) else v)
    return max(vals)


def _compare(what: str, a: sympy.Basic, b: sympy.Basic, ev: _Eval) -> str:
    a, b = sympy.sympify(a, strict=True), sympy.sympify(b, strict=True)
    free = sorted((a.free_symbols | b.free_symbols) - _dims(a, b), key=str)
    ranges = infer_ranges(a, b)
    axes = []
    for s in free:
        if s not in ranges:
            raise ValueError(f"cannot unroll {what}: {s} is neither an index nor an explicit size")
        lo, hi = ranges[s]
        axes.append([(s, v) for v in range(int(lo), int(hi) + 1)])
    for point in product(*axes):
        env = dict(point)
        x, y = ev(a, env), ev(b, env)
        if not _equal(x, y, ev.exact):
            at = ", ".join(f"{s}={v}" for s, v in point) or "the one entry"
            return f"{what} differ at {at}: unrolled {_show(x)}, claimed {_show(y)}"
    return ""


def _dims(*es: sympy.Basic) -> set[sympy.Basic]:
    out: set[sympy.Basic] = set()
    for e in es:
        for x in walk(e):
            if isinstance(x, MatExpr):
                for s in x.shape:
                    out |= sympy.sympify(s, strict=True).free_symbols
    return out


def _equal(x: Any, y: Any, exact: bool) -> bool:
    if isinstance(x, _LogNum) or isinstance(y, _LogNum):
        return isinstance(x, _LogNum) and isinstance(y, _LogNum) and x.q == y.q
    if _infinite(x) or _infinite(y):
        return False  # an undefined or infinite value is never the claimed finite one
    if exact:
        return x == y
    return abs(x - y) <= 1e-12 + 1e-9 * abs(y)


def _show(x: Any) -> str:
    if isinstance(x, _LogNum):
        return "-inf" if x.q == 0 else ("inf" if x.q is None else f"log({x.q})")
    if isinstance(x, Fraction):
        return str(x)
    return f"{x:.6g}"
