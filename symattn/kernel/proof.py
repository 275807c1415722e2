"""Claims and verdicts: `prove_equal` decides `lhs = rhs` with the witnesses, and how surely.

Imports only the kernel below it (dims, expr, canon, ranges, limits, the witnesses); must not
import rules, derivation or anything above the kernel.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import sympy

from symattn.kernel import masked
from symattn.kernel.dims import current, dims_equal, only, relevant, shape_str
from symattn.kernel.dispatch import Dispatcher
from symattn.kernel.errors import ProofError, ShapeError, SoundnessAlarm
from symattn.kernel.expr import Entry, MatExpr, MatSym, substitute_definitions, walk
from symattn.kernel.limits import (
    ADVICE,
    DEFAULT_SECONDS,
    MAX_DEPTH,
    ResourceError,
    TimeBudgetExceeded,
    time_budget,
)
from symattn.kernel.partial import NOT_EVALUATED, has_partial
from symattn.kernel.ranges import (
    Range,
    index_range_problem,
    infer_ranges,
    name_clash,
    reversed_range,
)
from symattn.kernel.semantics import ReversedRange
from symattn.kernel.text import plain
from symattn.kernel.witness import symbolic as symbolic_witness
from symattn.kernel.witness.counterexample import Counterexample
from symattn.kernel.witness.evidence import Evidence, WitnessResult
from symattn.kernel.witness.exact import exact
from symattn.kernel.witness.numeric import numeric_check
from symattn.kernel.witness.reals import decide_close, decide_reals, is_real_claim
from symattn.kernel.witness.symbolic import symbolic

Status = Literal["proved", "checked", "agreed", "false", "unknown", "shape_error"]
Witness = Literal["symbolic", "exact", "numeric"]
ALL_WITNESSES: tuple[Witness, ...] = ("symbolic", "exact", "numeric")


@dataclass(frozen=True)
class Verdict:
    """What the kernel concluded about one claim, and on what evidence.

    - `proved`: the symbolic witness holds, so the claim is true for every size;
    - `checked`: not proved for all sizes, but the exact witness evaluated every index point
      at the sizes listed and found the sides equal;
    - `agreed`: evidence, not proof: float64 agreement, or exact agreement at sampled points;
    - `false`: a counterexample shows the sides differ;
    - `shape_error`: the two sides cannot even be compared;
    - `unknown`: nothing decided; `reason` says why.
    """

    status: Status
    witnesses: tuple[Witness, ...] = ()
    reason: str = ""
    counterexample: Counterexample | None = None
    sizes: tuple[tuple[tuple[str, int], ...], ...] = ()
    evidence: tuple[Evidence, ...] = ()  # what the exact and numeric witnesses evaluated

    def __post_init__(self) -> None:
        if self.status == "checked" and not self.sizes:
            raise ValueError("a 'checked' verdict needs the sizes it was checked at")

    @property
    def ok(self) -> bool:
        return self.status in ("proved", "checked")

    def summary(self) -> str:
        """One line of status and witnesses; the evidence follows for checked and agreed."""
        w = "+".join(self.witnesses) or "none"
        text = f"{self.status} [{w}]"
        if self.status == "checked" and self.sizes:
            plans = (", ".join(f"{k}={v}" for k, v in s) or "the sizes given" for s in self.sizes)
            text += " at " + "; ".join(plans)
        if self.reason and self.status not in ("proved",):
            text += f": {self.reason}"
        if self.status in ("checked", "agreed") and self.evidence:
            text += "\n  evidence: " + "; ".join(str(e) for e in self.evidence)
        if self.counterexample is not None:
            text += f"\n  counterexample: {self.counterexample}"
        return text


def unfold(term: sympy.Basic, defs: Mapping[MatSym, MatExpr] | None) -> sympy.Basic:
    """Replace defined names by what they stand for (`Z -> AV`), until none is left."""
    if not defs:
        return term
    for name, value in defs.items():
        problem = check_shapes(name, value)
        if problem is not None:
            what = f"{plain(name)} = {plain(value)}"
            raise ShapeError(f"definition {what} does not typecheck: {problem}")
    term, done = substitute_definitions(term, defs, len(defs) + 1)
    if done:
        return term
    raise ProofError("definitions are circular: " + ", ".join(plain(k) for k in defs))


def check_shapes(lhs: sympy.Basic, rhs: sympy.Basic) -> str | None:
    """None when the two sides are comparable, else a message naming the clash."""
    lm, rm = isinstance(lhs, MatExpr), isinstance(rhs, MatExpr)
    if lm != rm:
        kind = ("a matrix", "a scalar") if lm else ("a scalar", "a matrix")
        return f"cannot compare {kind[0]} with {kind[1]}: {plain(lhs)} vs {plain(rhs)}"
    if lm:
        for k, what in ((0, "rows"), (1, "cols")):
            if not dims_equal(lhs.shape[k], rhs.shape[k]):
                return (
                    f"shapes differ: {plain(lhs)} is {shape_str(lhs.shape)} and "
                    f"{plain(rhs)} is {shape_str(rhs.shape)} ({what} {lhs.shape[k]} and "
                    f"{rhs.shape[k]} are not provably equal)"
                )
    return None


def prove_equal(
    lhs: sympy.Basic,
    rhs: sympy.Basic,
    *,
    defs: Mapping[MatSym, MatExpr] | None = None,
    ranges: Mapping[sympy.Symbol, Range] | None = None,
    assuming: Sequence[sympy.Basic] = (),
    witnesses: Sequence[Witness] = ALL_WITNESSES,
) -> Verdict:
    """Decide `lhs = rhs` (matrices or scalars), with the witnesses asked for.

    >>> from symattn.kernel.attention import single_head
    >>> from symattn.kernel.expr import Dot, index
    >>> s = single_head(); i, j = index("i"), index("j")
    >>> prove_equal(s.scores[i, j], Dot(s.Q.row(i), s.K.row(j))).summary()
    'proved [symbolic+exact+numeric]'
    >>> prove_equal(s.scores[i, j], Dot(s.Q.row(j), s.K.row(i))).status
    'false'
    """
    lhs, rhs = _sympify(lhs), _sympify(rhs)
    if has_partial(lhs, rhs):
        return Verdict("unknown", (), NOT_EVALUATED)
    in_force = current().equalities
    reached = _reached(in_force, lhs, rhs, defs, ranges, assuming)
    key = (
        lhs,
        rhs,
        frozenset((defs or {}).items()),
        frozenset((ranges or {}).items()),
        tuple(assuming),
        tuple(witnesses),
        frozenset(reached.items()),
        (symbolic, exact, numeric_check),  # a replaced witness (in a test) is another kernel
    )
    hit = _DECIDED.get(key)
    if hit is not None:
        _DECIDED.move_to_end(key)
        return hit
    if len(reached) < len(in_force):
        with only(reached):  # the relations about other dims cannot change the verdict
            verdict = _decide(lhs, rhs, defs, ranges, assuming, witnesses)
    else:
        verdict = _decide(lhs, rhs, defs, ranges, assuming, witnesses)
    _DECIDED[key] = verdict
    if len(_DECIDED) > _DECIDED_SIZE:
        _DECIDED.popitem(last=False)
    return verdict


def _reached(
    in_force: Mapping[sympy.Symbol, sympy.Expr],
    lhs: sympy.Basic,
    rhs: sympy.Basic,
    defs: Mapping[MatSym, MatExpr] | None,
    ranges: Mapping[sympy.Symbol, Range] | None,
    assuming: Sequence[sympy.Basic],
) -> dict[sympy.Symbol, sympy.Expr]:
    """The dim equalities in force that the claim can reach (`dims.relevant`): every symbol of
    its terms counts (shapes are arguments of the nodes, so `atoms` sees them)."""
    if not in_force:
        return {}
    terms: list[Any] = [lhs, rhs, *(defs or {}).keys(), *(defs or {}).values(), *assuming]
    for v, r in (ranges or {}).items():
        terms += [v, *r]
    symbols: set[sympy.Symbol] = set()
    for t in terms:
        if isinstance(t, sympy.Basic):
            symbols |= t.atoms(sympy.Symbol)
    return relevant(in_force, symbols)


# The kernel is deterministic (seeded evaluation points), so the same claim in the same context
# always gets the same verdict: a document, the plugin and the CLI asking twice pay once. The
# context is the part of the relations in force that the claim reaches: a claim about Q and K
# gets one verdict with or without `d_v = d/H`.
_DECIDED: OrderedDict[tuple, Verdict] = OrderedDict()
_DECIDED_SIZE = 512


def forget() -> None:
    """Drop remembered verdicts (after replacing a witness, as tests of the alarm do)."""
    _DECIDED.clear()
    symbolic_witness.forget()


#: Claims whose left side has no closed entry (a recurrence over a symbolic count) are decided
#: by the module that defines the node, which registers its decider here by the node's class.
DECIDERS: Dispatcher[Any] = Dispatcher("decide")


def _decide(lhs, rhs, defs, ranges, assuming, witnesses) -> Verdict:
    a, b = unfold(lhs, defs), unfold(rhs, defs)
    if DECIDERS.find(type(b)) is not None and DECIDERS.find(type(a)) is None:
        a, b = b, a  # equality is symmetric: the node's decider takes it as its left side
    special = DECIDERS.find(type(a))
    if special is not None:
        if ranges or assuming or DECIDERS.find(type(b)) is not None:
            return Verdict(
                "unknown",
                reason=f"{plain(a)} is decided by its own rule, against a closed term and "
                "without hypotheses or index ranges",
            )
        return special(a, b)
    inner = next((x for side in (a, b) for x in walk(side) if DECIDERS.find(type(x))), None)
    if inner is not None:
        return Verdict(
            "unknown",
            reason=f"{plain(inner)} has no closed entry: it is decided by its own rule only as a "
            "whole side of a claim",
        )
    lhs, rhs = _as_scalar(lhs, rhs), _as_scalar(rhs, lhs)
    problem = check_shapes(lhs, rhs)
    if problem is not None:
        return Verdict("shape_error", reason=problem)
    a, b = unfold(lhs, defs), unfold(rhs, defs)
    if not assuming and is_real_claim(a, b):
        return _real_verdict(a, b)
    rng: dict[sympy.Symbol, Range] = {**infer_ranges(a, b), **dict(ranges or {})}
    a, b, rng = _assume(a, b, assuming, rng)
    clash = name_clash(lhs, rhs, *(defs or {}).keys(), *(defs or {}).values(), a, b)
    if clash is not None:
        return Verdict("shape_error", reason=clash)
    bad_index = index_range_problem((a, b), rng)
    if bad_index is not None:
        return Verdict("shape_error", reason=bad_index)
    if a.has(sympy.nan) or b.has(sympy.nan):
        return Verdict("unknown", reason=_NO_VALUE)
    infinite = masked.problem(a, b)
    if infinite is not None:
        return Verdict("shape_error", reason=f"ill-formed: {infinite}")
    results: dict[str, WitnessResult] = {}
    try:
        if "symbolic" in witnesses:
            results["symbolic"] = symbolic(a, b, dict(rng))
        if "exact" in witnesses or results.get("symbolic", WitnessResult(None)).holds is not True:
            results["exact"] = exact(a, b, rng)
        if "numeric" in witnesses:
            results["numeric"] = numeric_check(a, b, rng)
    except ReversedRange as exc:
        return _reversed(a, b, exc)
    return _combine(results, requested=witnesses)


def _reversed(a: sympy.Basic, b: sympy.Basic, exc: ReversedRange) -> Verdict:
    """A witness met a reversed range: ill-formed when the range is reversed whatever the sizes
    and free indices; otherwise the text means it where it is not (`\\sum_{j=i+1}^{t}` for
    i < t), which the witnesses did not single out, so nothing is decided."""
    found = reversed_range(a, b)
    if found is None or found[1]:
        return Verdict("shape_error", reason=f"ill-formed: {exc}")
    return Verdict(
        "unknown",
        reason=f"not decided: {found[0]}; the claim is read only where every sum runs upward "
        "(or is empty), which is not checked",
    )


#: Why a side that evaluates to nan is not decided: texts state conventions at such points.
_NO_VALUE = (
    "a side has no value (nan, as 0 · log 0 or 0/0): the text may state a convention or a limit "
    "there (0 log 0 = 0), which is not checked"
)


def _real_verdict(a: sympy.Expr, b: sympy.Expr) -> Verdict:
    """A claim between real numbers (no size, no index, no matrix): `witness.reals` decides it,
    exactly (proved), by a certified point (false), or not at all (unknown)."""
    v = decide_reals(a, b)
    if v.status == "proved":
        return Verdict("proved", witnesses=("symbolic", "numeric"), reason=v.reason)
    if v.status == "false":
        return Verdict("false", ("numeric",), v.reason, v.counterexample)
    return Verdict("unknown", reason=v.reason)


def prove_close(
    value: sympy.Expr, written: sympy.Expr, unit: sympy.Rational, rounded: bool = False
) -> Verdict:
    """`value \\approx written` between two numbers, `written` given to `unit`: proved within
    one unit of its last digit, false when far off (`witness.reals.decide_close`). `rounded`:
    `unit` is half a unit of the last digit of a result written with `=` (`= 13e9`).

    >>> import sympy
    >>> prove_close(sympy.sqrt(2), sympy.Rational(1414, 1000), sympy.Rational(1, 1000)).status
    'proved'
    """
    v = decide_close(value, written, unit, rounded)
    if v.status == "proved":
        return Verdict("proved", witnesses=("numeric",), reason=v.reason)
    if v.status == "false":
        return Verdict("false", ("numeric",), v.reason)
    return Verdict("unknown", reason=v.reason)


def _as_scalar(side: sympy.Basic, other: sympy.Basic) -> sympy.Basic:
    """A provably 1 x 1 matrix compared with a scalar stands for its one entry (`q_i k_j^T`, as
    textbooks write it); any other matrix against a scalar stays a shape error."""
    if isinstance(side, MatExpr) and not isinstance(other, MatExpr):
        if dims_equal(side.rows, 1) and dims_equal(side.cols, 1):
            return Entry(side, sympy.Integer(1), sympy.Integer(1))
    return side


def _sympify(x: object) -> sympy.Basic:
    if isinstance(x, sympy.Basic):
        return x
    if isinstance(x, (int, sympy.Rational)):
        return sympy.Integer(x) if isinstance(x, int) else x
    raise TypeError(f"expected a kernel expression, got {type(x).__name__}")


def _assume(
    a: sympy.Basic,
    b: sympy.Basic,
    assuming: Sequence[sympy.Basic],
    rng: dict[sympy.Symbol, Range],
) -> tuple[sympy.Basic, sympy.Basic, dict[sympy.Symbol, Range]]:
    """Use hypotheses on free indices, soundly and decidably:

    - between two indices (`j > i`, `i < j`, `j >= i + 1`, `i <= j`): the larger is written as
      the smaller plus a new index over the rest of its range (j = i + t, t >= 1 for `j > i`);
    - an index against a number or a size (`j > 2`, `j <= n`, `1 <= i`): its range is narrowed,
      when the new bound is provably inside or equal to the old one.
    """
    if any(c == sympy.false for c in assuming):
        raise ProofError("a hypothesis is false for every index: the claim would hold vacuously")
    assuming = [c for c in assuming if c != sympy.true]  # `1 <= i`: already known
    # bounds by numbers and sizes first: they narrow ranges that a substitution then inherits
    order = sorted(assuming, key=lambda c: _hypothesis(c, rng)[0] == "between")
    done: dict[sympy.Symbol, sympy.Expr] = {}
    for cond in order:
        kind, big, small, gap = _hypothesis(cond.xreplace(done), rng)
        if kind == "between":
            lo, hi = rng.pop(big)
            # its assumptions are what its range gives: t >= gap
            sign = {"positive": True} if gap >= 1 else {"nonnegative": True}
            t = sympy.Dummy(f"{big.name}_minus_{small.name}", integer=True, **sign)
            a, b = a.xreplace({big: small + t}), b.xreplace({big: small + t})
            rng = {k: _replaced(r, {big: small + t}) for k, r in rng.items()}
            rng[t] = (gap, sympy.sympify(hi, strict=True) - small)
            done[big] = small + t
        else:
            rng[big] = _narrowed(cond, kind, rng[big], gap)
    return a, b, rng


def _narrowed(cond, kind, r, bound):
    """The range of an index under `index >= bound` (kind "above") or `<= bound` ("below")."""
    lo, hi = (sympy.sympify(x, strict=True) for x in r)
    old = lo if kind == "above" else hi
    slack = (bound - old) if kind == "above" else (old - bound)  # >= 0: the bound narrows
    if slack.is_nonpositive:
        return (lo, hi)  # the range already implies it
    if slack.is_nonnegative:
        return (bound, hi) if kind == "above" else (lo, bound)
    raise ProofError(
        f"hypothesis {cond} is not supported: cannot tell whether it narrows the range "
        f"{lo}..{hi} of its index"
    )


def _replaced(r: Range, values: Mapping) -> Range:
    lo, hi = (sympy.sympify(x, strict=True).xreplace(values) for x in r)
    return (lo, hi)


def _hypothesis(cond, rng):
    """(kind, index, other, bound): "between" means index - other >= bound; "above" means
    index >= bound; "below" means index <= bound."""
    strict = isinstance(cond, (sympy.StrictGreaterThan, sympy.StrictLessThan))
    if not isinstance(cond, (sympy.GreaterThan, sympy.LessThan)) and not strict:
        raise ProofError(f"hypothesis {cond} is not supported (only <, >, <=, >= between indices)")
    diff = sympy.expand(cond.gts - cond.lts) - (1 if strict else 0)  # the hypothesis: diff >= 0
    syms = diff.free_symbols
    up = [s for s in syms if s in rng and diff.coeff(s) == 1]
    down = [s for s in syms if s in rng and diff.coeff(s) == -1]
    rest = sympy.expand(diff - sum(up) + sum(down))
    sizes_only = not (rest.free_symbols & set(rng)) and all(
        s.is_integer and s.is_positive for s in rest.free_symbols
    )
    if len(up) + len(down) == len(syms & set(rng)) and sizes_only:
        if len(up) == 1 and len(down) == 1 and rest.is_Integer and -rest >= 0:
            return "between", up[0], down[0], sympy.Integer(-rest)  # up - down >= -rest
        if len(up) == 1 and not down and rest.is_Integer:
            return "above", up[0], None, -rest  # up >= -rest
        if len(down) == 1 and not up:
            return "below", down[0], None, rest  # down <= rest
    raise ProofError(
        f"hypothesis {cond} is not supported: it must compare a free index of the claim with "
        "another index (j > i, i < j, j >= i + 1) or bound one by a number or a size "
        "(j > 2, j <= n)"
    )


def _combine(results: Mapping[str, WitnessResult], requested: Sequence[Witness]) -> Verdict:
    evidence = tuple(e for r in results.values() for e in r.evidence)
    _alarm(results)
    for r in results.values():
        if r.holds is False:
            return Verdict("false", reason=r.detail, counterexample=r.counterexample)
    sym = results.get("symbolic")
    ex = results.get("exact")
    held = tuple(n for n in ALL_WITNESSES if n in results and results[n].holds)
    shown = tuple(w for w in held if w in requested or w == "exact")
    if sym is not None and sym.holds:
        return Verdict("proved", witnesses=shown, evidence=evidence)
    why = sym.detail if sym is not None else "symbolic witness not asked for"
    if ex is not None and ex.holds and ex.exhaustive and ex.settles:
        reason = f"not proved for all sizes: {why}; exact: {ex.detail}"
        return Verdict("checked", shown, reason, None, ex.sizes, evidence)
    if held:
        unsettled = "; ".join(f"{n}: {r.detail}" for n, r in results.items() if not r.holds)
        reason = f"evidence only, not a proof: {unsettled}" if unsettled else "evidence only"
        if ex is not None and ex.holds and not ex.settles:
            reason += f"; exact: {ex.detail}"
        elif ex is not None and ex.holds:
            reason += "; exact: not every index point was evaluated"
        return Verdict("agreed", held, reason, evidence=evidence)
    return Verdict(
        "unknown",
        reason="; ".join(f"{n}: {r.detail}" for n, r in results.items()),
        evidence=evidence,
    )


def _alarm(results: Mapping[str, WitnessResult]) -> None:
    """Two witnesses that contradict each other: a bug in one of them, never a verdict."""
    said = {n: r for n, r in results.items() if r.holds is not None}
    for name, r in said.items():
        if r.holds is not False:
            continue
        for other, o in said.items():
            settled = other == "symbolic" or (other == "exact" and o.exhaustive and o.settles)
            if o.holds is True and settled:
                raise SoundnessAlarm(
                    f"kernel soundness alarm: the {other} witness says equal "
                    f"({o.detail}), the {name} witness says different ({r.detail}); "
                    "please report this"
                )


def prove_within(lhs: Any, rhs: Any, *, seconds: float = DEFAULT_SECONDS, **options: Any) -> Any:
    """`proof.prove_equal` under a time budget: `unknown` ("gave up after N s") when it runs out.

    A size refused by a budget, deep recursion inside a library, or memory exhausted by a
    witness also becomes `unknown` with a message saying what to do, never a traceback.

    >>> from symattn.kernel.attention import single_head
    >>> from symattn.kernel.expr import Dot, index
    >>> s = single_head(); i, j = index("i"), index("j")
    >>> prove_within(s.scores[i, j], Dot(s.Q.row(i), s.K.row(j)), seconds=30).status
    'proved'
    """
    try:
        with time_budget(seconds):
            return prove_equal(lhs, rhs, **options)
    except (TimeBudgetExceeded, ResourceError) as exc:
        return Verdict("unknown", reason=str(exc))
    except RecursionError:
        return Verdict("unknown", reason=f"expression too deeply nested (limit {MAX_DEPTH})")
    except MemoryError:
        return Verdict("unknown", reason=f"ran out of memory at these sizes; {ADVICE}")
