"""Recurrences over a symbolic count (key blocks b = 1..B, tokens t = 1..T), proved by induction.

Imports only the kernel up to proof (expr, text, proof) and the parts of an induction below it
(maxima, recurrent, unroll); must not import rules, derivation or anything above the kernel.

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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import sympy

from symattn.kernel.dims import dim
from symattn.kernel.expr import MatExpr, MatSym
from symattn.kernel.maxima import (
    _abstract_maxima,
    _canonical,
    _Infinite,
    _MaxOver,
    _merge_maxima,
    plain_max,
)
from symattn.kernel.maxima import prefix_max as prefix_max
from symattn.kernel.proof import DECIDERS, Verdict, Witness, check_shapes, prove_equal
from symattn.kernel.recurrent import _KEYS, Recurrence, Recurrent, Segment, _claimed
from symattn.kernel.recurrent import Operands as Operands
from symattn.kernel.recurrent import State as State
from symattn.kernel.recurrent import known as known
from symattn.kernel.recurrent import prefix_sum as prefix_sum
from symattn.kernel.text import plain
from symattn.kernel.unroll import _dims, _unroll_all


@DECIDERS.register(_MaxOver)
def _decide_running_max(lhs: _MaxOver, rhs: sympy.Basic) -> Verdict:
    """A running maximum as a side of a claim of its own: no witness evaluates one (its bound
    position would be taken for a size), so it is decided only inside an induction."""
    return Verdict(
        "unknown",
        reason=f"{plain_max(lhs)} is a running maximum: it is decided only inside a proof by "
        "induction (max_append), not as a claim of its own",
    )


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
            text = "refuted at " + self.counterexample.split("; with ")[0]
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


# ---- unrolling at explicit counts, on random data ----------------------------------------
