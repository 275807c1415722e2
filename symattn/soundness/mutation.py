"""The soundness suite: wrong variants (mutants) of every true identity, judged by the kernel.

Imports the kernel, the reader, check and derivations (all at the top); must not import cli.
Run: `python -m symattn.soundness [--sample N] [--seed S] [--json]`,
`python -m symattn.soundness fuzz --examples N` and `python -m symattn.soundness diff ...`.

Each mutant's truth is decided by an independent route (numpy on random data at two explicit
size plans, every index point), never by the kernel and never by a hand-written list. The kernel
then judges it with `prove_equal`; a false mutant it reports `proved` or `checked` is an escape.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import sympy

from symattn.check import check_formula
from symattn.derivations import sections
from symattn.derivations.blocks import ProofBlock
from symattn.kernel.attention import multi_head, single_head
from symattn.kernel.canon import bound_indices, infer_ranges
from symattn.kernel.dims import H, d, d_k, d_v, n
from symattn.kernel.errors import ParseError, SoundnessAlarm, SymattnError
from symattn.kernel.expr import (
    CausalMask,
    ColSoftmax,
    Dot,
    Entry,
    FromColumn,
    HeadSym,
    MatExpr,
    MatMul,
    MatSum,
    MatSym,
    Ones,
    Row,
    RowBlock,
    Scale,
    Softmax,
    Transpose,
    index,
    walk,
)
from symattn.kernel.limits import TimeBudgetExceeded, time_budget
from symattn.kernel.proof import prove_within
from symattn.kernel.rules import registry
from symattn.kernel.text import plain
from symattn.kernel.witness import numeric
from symattn.reader import parse_formula

Truth = Literal["true", "false", "undecided"]

m, p, q = (sympy.Symbol(s, integer=True, positive=True) for s in ("m", "p", "q"))
DIMS: tuple[sympy.Symbol, ...] = (n, d, d_k, d_v, H, m, p, q)
# Two plans: within the first all dims differ, so a dim confused for another shows.
TRUTH_PLANS: tuple[dict[sympy.Symbol, int], ...] = (
    {n: 3, d: 4, d_k: 2, d_v: 5, H: 2, m: 7, p: 6, q: 8},
    {n: 4, d: 6, d_k: 3, d_v: 2, H: 3, m: 5, p: 2, q: 3},
)
_MAX_POINTS = 120
_FREE_SHAPE = 12  # rows/cols of an IndexedBase with no matrix behind it (a generic f_ij)


# ---- the corpus of true claims --------------------------------------------------------------


@dataclass(frozen=True)
class Claim:
    """A true identity `lhs = rhs` the project proves, with its definitions and hypotheses."""

    name: str
    lhs: sympy.Basic
    rhs: sympy.Basic
    defs: Mapping[MatSym, MatExpr] = field(default_factory=dict)
    assuming: tuple[sympy.Basic, ...] = ()


def rule_claims() -> list[Claim]:
    """Every kernel rule's statement.

    >>> len(rule_claims()) >= 20
    True
    """

    out = []
    for name, rule in registry().items():
        lhs, rhs = rule.sides()
        out.append(Claim(f"rule {name}", lhs, rhs, {}, tuple(rule.assuming())))
    return out


def chapter_claims() -> list[Claim]:
    """The chapter's identities (as in tests/kernel/test_identities.py), written as data.

    >>> [c.name for c in chapter_claims()][:2]
    ['chapter score entry = sum', 'chapter score entry = dot']
    """
    i, j, r, u = (index(x) for x in "ijru")
    s = single_head()
    Q, K, V, A, X = s.Q, s.K, s.V, s.A, s.X
    w, cw = s.weights, single_head(causal=True).weights
    sn = MatSym("S", n, n)
    mh, mh3 = multi_head(), multi_head(n=2, d=2, d_v=2, H=3)
    s5 = single_head(n=5, d=8, d_k=64, d_v=64)
    gt = (sympy.StrictGreaterThan(j, i),)
    rows = [
        ("score entry = sum", s.scores[i, j], sympy.Sum(Q[i, r] * K[j, r], (r, 1, d_k)), {}, ()),
        ("score entry = dot", s.scores[i, j], Dot(Q.row(i), K.row(j)), {}, ()),
        ("AV entry", (A @ V)[i, u], sympy.Sum(A[i, j] * V[j, u], (j, 1, n)), {}, ()),
        ("rows of Z", s.Z.row(i), MatSum(Scale(A[i, j], V.row(j)), j, 1, n), {s.Z: A @ V}, ()),
        ("projection row", Q.row(i), X.row(i) @ s.W_Q, {Q: X @ s.W_Q}, ()),
        ("weights rowsum", w @ Ones(n, 1), Ones(n, 1), {}, ()),
        ("convex combination", (w @ V).row(i), MatSum(Scale(w[i, j], V.row(j)), j, 1, n), {}, ()),
        ("causal zero", cw[i, j], sympy.Integer(0), {}, gt),
        ("causal rowsum", cw @ Ones(n, 1), Ones(n, 1), {}, ()),
        ("causal z_i", (cw @ V).row(i), MatSum(Scale(cw[i, j], V.row(j)), j, 1, i), {}, ()),
        ("shift invariance", Softmax(sn + FromColumn("c", n, n)), Softmax(sn), {}, ()),
        ("block identity", mh.output, mh.blockwise, {}, ()),
        ("block identity H=3", mh3.output, mh3.blockwise, {}, ()),
        ("worked example", s5.scores[i, j], Dot(s5.Q.row(i), s5.K.row(j)), {}, ()),
    ]
    return [Claim(f"chapter {name}", lhs, rhs, defs, asm) for name, lhs, rhs, defs, asm in rows]


def derivation_claims() -> list[Claim]:
    """Every step of every Proof in symattn.derivations."""
    out = []
    for sec in sections():
        for block in sec.blocks:
            if not isinstance(block, ProofBlock):
                continue
            pr = block.proof
            for k, st in enumerate(pr.steps, start=1):
                name = f"derivation {pr.title}, step {k} ({st.by})"
                out.append(Claim(name, st.before, st.after, dict(pr.defs), pr.assuming))
    return out


def corpus(derivations: bool = True) -> list[Claim]:
    """Rules, chapter identities and (optionally) derivation steps.

    >>> len(corpus(derivations=False)) == len(rule_claims()) + len(chapter_claims())
    True
    """
    return rule_claims() + chapter_claims() + (derivation_claims() if derivations else [])


# ---- mutation -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mutant:
    """A variant of `base` with one change; `error` is set when it cannot even be built."""

    base: Claim
    operator: str
    where: str
    lhs: sympy.Basic | None
    rhs: sympy.Basic | None
    error: str | None = None

    @property
    def label(self) -> str:
        return f"{self.base.name} | {self.operator}: {self.where}"


Edit = tuple[str, str, Callable[[], sympy.Basic]]  # operator, description, builder


def _nodes(e: sympy.Basic) -> Iterator[tuple[tuple[int, ...], sympy.Basic]]:
    stack: list[tuple[tuple[int, ...], sympy.Basic]] = [((), e)]
    while stack:
        path, x = stack.pop()
        yield path, x
        for k in reversed(range(len(x.args))):
            if isinstance(x.args[k], sympy.Basic):
                stack.append((path + (k,), x.args[k]))


def _replace(e: sympy.Basic, path: tuple[int, ...], new: sympy.Basic) -> sympy.Basic:
    if not path:
        return new
    args = list(e.args)
    args[path[0]] = _replace(args[path[0]], path[1:], new)
    return e.func(*args)


def _short(x: object) -> str:

    text = plain(x) if isinstance(x, sympy.Basic) else str(x)
    return text if len(text) <= 60 else text[:57] + "..."


def _dims_of_claim(c: Claim) -> list[sympy.Symbol]:
    found = set()
    for side in (c.lhs, c.rhs):
        for x in walk(side):
            if isinstance(x, sympy.Symbol) and x in DIMS:
                found.add(x)
    return sorted(found, key=lambda s: s.name)


def _core(x: MatExpr) -> tuple[MatSym | None, bool]:
    if isinstance(x, Transpose) and isinstance(x.args[0], MatSym):
        return x.args[0], True
    return (x, False) if isinstance(x, MatSym) else (None, False)


def _edits(x: sympy.Basic, c: Claim, indices: Sequence[sympy.Symbol]) -> list[Edit]:
    out: list[Edit] = []
    if isinstance(x, Transpose):
        out.append(("transpose_dropped", f"{_short(x)} -> {_short(x.args[0])}", lambda: x.args[0]))
    if isinstance(x, (MatSym, HeadSym)):
        out.append(("transpose_added", f"{_short(x)} -> {_short(x)}^T", lambda: Transpose(x)))
    if isinstance(x, sympy.Indexed) and len(x.indices) >= 2 and x.indices[-1] != x.indices[-2]:
        *head, a, b = x.indices
        out.append(("indices_swapped", f"{x} -> swap", lambda: x.base[(*head, b, a)]))
    if isinstance(x, Entry) and x.args[1] != x.args[2]:
        e = x
        out.append(
            ("indices_swapped", f"{_short(x)} -> swap", lambda: Entry(e.matrix, *e.args[:0:-1]))
        )
    out.extend(_row_edits(x, indices))
    out.extend(_sum_edits(x, c))
    out.extend(_scale_edits(x))
    out.extend(_product_edits(x))
    if isinstance(x, Softmax):
        out.append(("softmax_over_columns", _short(x), lambda: ColSoftmax(x.args[0])))
    if isinstance(x, CausalMask) and not x.upper:
        out.append(("mask_wrong_triangle", _short(x), lambda: CausalMask(x.args[0], upper=True)))
    if isinstance(x, RowBlock):
        rb = x
        out.append(
            (
                "block_wrong_offset",
                f"{_short(x)} -> head {rb.head + 1}",
                lambda: RowBlock(rb.args[0], rb.head + 1, rb.args[2], rb.args[3]),
            )
        )
    if isinstance(x, MatSym) and x.name == "W_O":
        out.extend(_wo_edits(x))
    return out


def _row_edits(x: sympy.Basic, indices: Sequence[sympy.Symbol]) -> list[Edit]:
    out: list[Edit] = []
    if isinstance(x, Dot):
        u, v = x.args
        out.append(("factors_reordered", f"{_short(x)} -> v·u", lambda: Dot(v, u)))
        if isinstance(u, Row) and isinstance(v, Row) and u.index != v.index:
            out.append(
                (
                    "indices_swapped",
                    f"{_short(x)} -> rows swapped",
                    lambda: Dot(Row(u.args[0], v.index), Row(v.args[0], u.index)),
                )
            )
    if isinstance(x, Row):
        others = [k for k in indices if k != x.index]
        if others:
            k = others[0]
            out.append(("row_index_changed", f"{_short(x)} -> row {k}", lambda: Row(x.args[0], k)))
    return out


def _sum_edits(x: sympy.Basic, c: Claim) -> list[Edit]:
    if isinstance(x, sympy.Sum):
        limits = [tuple(lim) for lim in x.limits]

        def rebuild(k: int, lo: sympy.Expr, hi: sympy.Expr) -> Callable[[], sympy.Basic]:
            new = list(limits)
            new[k] = (limits[k][0], lo, hi)
            return lambda: sympy.Sum(x.function, *new)

    elif isinstance(x, MatSum):
        limits = [x.limits]

        def rebuild(k: int, lo: sympy.Expr, hi: sympy.Expr) -> Callable[[], sympy.Basic]:
            return lambda: MatSum(x.body, x.var, lo, hi)

    else:
        return []
    out: list[Edit] = []
    dims = _dims_of_claim(c)
    for k, (v, lo, hi) in enumerate(limits):
        out.append(("sum_bound_off_by_one", f"{v} up to {hi - 1}", rebuild(k, lo, hi - 1)))
        out.append(("sum_bound_off_by_one", f"{v} up to {hi + 1}", rebuild(k, lo, hi + 1)))
        out.append(("sum_bound_off_by_one", f"{v} from {lo + 1}", rebuild(k, lo + 1, hi)))
        if hi in DIMS:
            for other in (dim for dim in dims if dim != hi):
                out.append(("sum_over_wrong_dim", f"{v} up to {other}", rebuild(k, lo, other)))
    return out


def _scale_edits(x: sympy.Basic) -> list[Edit]:
    if not (isinstance(x, sympy.Pow) and x.base == d_k and x.exp in (sympy.S.Half, -sympy.S.Half)):
        return []
    sign = 1 if x.exp > 0 else -1
    return [
        ("scale_changed", f"sqrt(d_k) -> sqrt({s})", lambda s=s: s ** (sign * sympy.S.Half))
        for s in (d_v, n)
    ] + [("scale_changed", "sqrt(d_k) -> d_k", lambda: d_k**sign)]


def _product_edits(x: sympy.Basic) -> list[Edit]:
    if not isinstance(x, MatMul):
        return []
    a, b = x.args
    out: list[Edit] = [
        ("factors_reordered", f"{_short(x)} -> {_short(b)}{_short(a)}", lambda: b @ a)
    ]
    (ca, ta), (cb, tb) = _core(a), _core(b)
    if ca is not None and cb is not None and ca != cb and ca.shape == cb.shape:

        def swapped() -> sympy.Basic:
            return (cb.T if ta else cb) @ (ca.T if tb else ca)

        out.append(("factors_reordered", f"{_short(x)} -> letters swapped", swapped))
    return out


def _wo_edits(x: MatSym) -> list[Edit]:
    rows, cols = x.shape
    out: list[Edit] = []
    if rows.has(d_v):
        wrong = rows.xreplace({d_v: d_k})
        out.append(
            ("w_o_wrong_shape", f"W_O rows {rows} -> {wrong}", lambda: MatSym("W_O", wrong, cols))
        )
    out.append(("w_o_wrong_shape", f"W_O cols {cols} -> d_v", lambda: MatSym("W_O", rows, d_v)))
    return out


def _free_indices(c: Claim) -> list[sympy.Symbol]:
    bound = bound_indices(c.lhs, c.rhs)
    found = {
        s
        for side in (c.lhs, c.rhs)
        for x in walk(side)
        for s in ([x] if isinstance(x, sympy.Symbol) else [])
        if s.is_integer and s not in DIMS and s not in bound
    }
    return sorted(found, key=lambda s: s.name)


def mutants(c: Claim) -> list[Mutant]:
    """Every single-edit variant of `c` that differs from it, without duplicates.

    >>> c = chapter_claims()[1]
    >>> sorted({x.operator for x in mutants(c)})[:3]
    ['factors_reordered', 'indices_swapped', 'row_index_changed']
    """
    out: list[Mutant] = []
    seen = {sympy.srepr((c.lhs, c.rhs))}
    indices = _free_indices(c)
    for side in ("lhs", "rhs"):
        root = getattr(c, side)
        for path, node in _nodes(root):
            for op, where, build in _edits(node, c, indices):
                mutant = _apply(c, side, root, path, op, where, build)
                key = mutant.error or sympy.srepr((mutant.lhs, mutant.rhs))
                if mutant.error is None and key in seen:
                    continue
                seen.add(key)
                out.append(mutant)
    return out


def _apply(c: Claim, side: str, root: sympy.Basic, path, op: str, where: str, build) -> Mutant:
    where = f"{side}: {where}"
    try:
        new = _replace(root, path, build())
    except SymattnError as exc:
        return Mutant(c, op, where, None, None, error=f"{type(exc).__name__}: {exc}")
    lhs, rhs = (new, c.rhs) if side == "lhs" else (c.lhs, new)
    return Mutant(c, op, where, lhs, rhs)


# ---- truth by an independent route ----------------------------------------------------------


def truth(lhs: sympy.Basic, rhs: sympy.Basic, defs: Mapping = {}, assuming: Sequence = ()) -> Truth:  # noqa: B006
    """Decide `lhs = rhs` with numpy on random data at both TRUTH_PLANS, at every index point.

    Independent of the kernel's canonical forms and witnesses. An index outside its matrix is
    an ill-formed claim, hence not a true one.

    >>> s = single_head(); i, j = index("i"), index("j")
    >>> truth(s.scores[i, j], Dot(s.Q.row(i), s.K.row(j))), truth(s.scores[i, j], s.scores[j, i])
    ('true', 'false')
    """
    a, b = _unfold(lhs, defs), _unfold(rhs, defs)
    if isinstance(a, MatExpr) != isinstance(b, MatExpr):
        return "false"
    free = _ranges(a, b)
    decided = False
    for plan in TRUTH_PLANS:
        for seed in (0, 1):
            verdict = _truth_at(a, b, free, plan, seed, assuming)
            if verdict == "false":
                return "false"
            decided = decided or verdict == "true"
            if verdict == "undecided":
                return "undecided"
    return "true" if decided else "undecided"


def _unfold(e: sympy.Basic, defs: Mapping) -> sympy.Basic:
    for _ in range(len(defs) + 1):
        new = e.xreplace(dict(defs))
        if new == e:
            break
        e = new
    return e


def _ranges(a: sympy.Basic, b: sympy.Basic) -> dict[sympy.Symbol, tuple[sympy.Expr, sympy.Expr]]:
    out = dict(infer_ranges(a, b))
    bound = bound_indices(a, b)
    for x in itertools.chain(walk(a), walk(b)):
        if isinstance(x, RowBlock) and isinstance(x.head, sympy.Symbol):
            out.setdefault(x.head, (sympy.Integer(1), x.args[3]))
        if isinstance(x, HeadSym) and isinstance(x.head, sympy.Symbol) and x.head in DIMS:
            continue
    for x in itertools.chain(walk(a), walk(b)):
        if isinstance(x, sympy.Symbol) and x.is_integer and x not in DIMS and x not in bound:
            out.setdefault(x, (sympy.Integer(1), sympy.Integer(3)))
    return out


def _truth_at(a, b, free, plan, seed, assuming) -> Truth:
    env = numeric.Env(sizes=dict(plan), seed=seed)
    env.learn(a, b)
    for base in itertools.chain(a.atoms(sympy.IndexedBase), b.atoms(sympy.IndexedBase)):
        env.shapes.setdefault(str(base.label), (sympy.Integer(_FREE_SHAPE),) * 2)
    free_syms = [s for s in itertools.chain(walk(a), walk(b)) if isinstance(s, sympy.Symbol)]
    env.scalars = {
        c: 0.5 + k
        for k, c in enumerate(sorted({s for s in free_syms if not s.is_integer}, key=str))
    }
    points = _points(free, plan, seed)
    checked = 0
    for point in points:
        values = {**plan, **point}
        if not all(
            bool(cond.xreplace({k: sympy.Integer(v) for k, v in values.items()}))
            for cond in assuming
        ):
            continue
        env.indices = dict(point)
        try:
            x, y = _value(a, env), _value(b, env)
        except numeric.IllFormed:
            return "false"  # reads outside a matrix, two shapes for one name, or divides by 0
        except numeric.EvalError:
            return "undecided"
        except (IndexError, ValueError, ZeroDivisionError, OverflowError):
            return "false"
        if getattr(x, "shape", None) != getattr(y, "shape", None) or not numeric.close(x, y):
            return "false"
        checked += 1
    return "true" if checked else "undecided"


def _value(e: sympy.Basic, env: numeric.Env) -> Any:
    if isinstance(e, MatExpr):
        arr = numeric.matrix(e, env)
        if isinstance(e, Row):
            i = env.size(e.index)
            if not 1 <= i <= env.size(e.args[0].rows):
                raise numeric.EvalError(f"row {i} out of range")
        return arr
    return numeric.scalar(e, env)


def _points(free, plan, seed) -> list[dict[sympy.Symbol, int]]:
    names = sorted(free, key=lambda s: s.name)
    axes = []
    for s in names:
        subs = {k: sympy.Integer(v) for k, v in plan.items()}
        lo, hi = (sympy.sympify(v, strict=True).xreplace(subs) for v in free[s])
        if not (lo.is_Integer and hi.is_Integer):
            lo, hi = sympy.Integer(1), sympy.Integer(3)
        axes.append(range(int(lo), int(hi) + 1))
    points = [dict(zip(names, vals, strict=True)) for vals in itertools.product(*axes)]
    if len(points) > _MAX_POINTS:
        rng = random.Random(seed)
        points = [points[0], points[-1], *rng.sample(points[1:-1], _MAX_POINTS - 2)]
    return points


# ---- running the kernel ---------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """One mutant: its truth, the kernel's status, and whether they agree."""

    mutant: Mutant
    truth: Truth
    status: str
    reason: str
    seconds: float

    @property
    def accepted(self) -> bool:
        return self.status in ("proved", "checked")

    @property
    def escape(self) -> bool:
        """A false claim the kernel reports proved or checked: a soundness bug."""
        return self.truth == "false" and self.accepted

    def as_dict(self) -> dict[str, Any]:
        return {
            "claim": self.mutant.base.name,
            "operator": self.mutant.operator,
            "where": self.mutant.where,
            "truth": self.truth,
            "status": self.status,
            "reason": self.reason[:300],
            "seconds": round(self.seconds, 2),
        }


def judge(mutant: Mutant, seconds: float = 30.0) -> Outcome:
    """Decide the mutant's truth independently, then ask the kernel (under a time budget).

    >>> mu = [x for x in mutants(chapter_claims()[1]) if x.operator == "indices_swapped"][0]
    >>> o = judge(mu); o.truth, o.status
    ('false', 'false')
    """

    start = time.monotonic()
    if mutant.error is not None or mutant.lhs is None or mutant.rhs is None:
        return Outcome(mutant, "false", "rejected_at_construction", mutant.error or "", 0.0)
    c = mutant.base
    try:
        t = truth(mutant.lhs, mutant.rhs, c.defs, c.assuming)
    except SymattnError:
        t = "undecided"
    try:
        v = prove_within(mutant.lhs, mutant.rhs, seconds=seconds, defs=c.defs, assuming=c.assuming)
        status, reason = v.status, v.reason
    except SoundnessAlarm as exc:  # the kernel's own soundness alarm
        status, reason = "alarm", str(exc)
    except SymattnError as exc:
        status, reason = "error", f"{type(exc).__name__}: {exc}"
    except Exception as exc:  # a crash is a bug to report, not a verdict
        status, reason = "crash", f"{type(exc).__name__}: {exc} ({_where(exc)})"
    return Outcome(mutant, t, status, reason, time.monotonic() - start)


def _stratified(pool: list[Mutant], size: int, seed: int) -> list[Mutant]:
    """A seeded sample that takes the operators in turn, so a small sample still covers each."""
    rng = random.Random(seed)
    groups: dict[str, list[Mutant]] = {}
    for mutant in pool:
        groups.setdefault(mutant.operator, []).append(mutant)
    for group in groups.values():
        rng.shuffle(group)
    out: list[Mutant] = []
    while len(out) < size:
        for name in sorted(groups):
            if groups[name] and len(out) < size:
                out.append(groups[name].pop())
    return out


def _where(exc: BaseException) -> str:
    """The innermost symattn frames of a traceback, as `file:line` (where a crash happened)."""

    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/symattn/" in f.filename]
    return " < ".join(f"{f.filename.rsplit('/', 1)[-1]}:{f.lineno}" for f in frames[::-1][:3])


@dataclass
class Report:
    """Figures over a run; `escapes` must be empty."""

    outcomes: list[Outcome]
    bases: int
    base_problems: list[str]
    seconds: float

    def _of(self, truth: Truth) -> list[Outcome]:
        return [o for o in self.outcomes if o.truth == truth]

    @property
    def escapes(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.escape or o.status == "alarm"]

    def figures(self) -> dict[str, Any]:
        false, true = self._of("false"), self._of("true")
        return {
            "claims": self.bases,
            "mutants": len(self.outcomes),
            "false": len(false),
            "false_rejected": sum(not o.accepted for o in false),
            "false_accepted": sum(o.accepted for o in false),
            "rejected_at_construction": sum(
                o.status == "rejected_at_construction" for o in self.outcomes
            ),
            "true": len(true),
            "true_accepted": sum(o.accepted for o in true),
            "undecided": len(self._of("undecided")),
            "crashes": sum(o.status == "crash" for o in self.outcomes),
            "status": dict(sorted(Counter(o.status for o in self.outcomes).items())),
            "operators": dict(sorted(Counter(o.mutant.operator for o in self.outcomes).items())),
            "seconds": round(self.seconds, 1),
        }

    def disagreements(self) -> list[Outcome]:
        """False accepted, true not accepted, and undecided: every case worth reading."""
        return [
            o
            for o in self.outcomes
            if o.escape
            or o.status in ("alarm", "crash")
            or (o.truth == "true" and not o.accepted)
            or o.truth == "undecided"
        ]

    def text(self) -> str:
        f = self.figures()
        pct = lambda a, b: f"{100.0 * a / b:.1f}%" if b else "n/a"  # noqa: E731
        lines = [
            f"soundness: {f['mutants']} mutants of {f['claims']} true claims in {f['seconds']} s",
            f"  false mutants rejected: {f['false_rejected']}/{f['false']} "
            f"({pct(f['false_rejected'], f['false'])}); "
            f"{f['rejected_at_construction']} of them refused at construction, "
            f"{f['crashes']} only by a crash",
            f"  false mutants reported proved/checked (escapes): {len(self.escapes)}",
            f"  true mutants accepted: {f['true_accepted']}/{f['true']} "
            f"({pct(f['true_accepted'], f['true'])})",
            f"  undecided by the independent route: {f['undecided']}",
            f"  kernel crashes (an exception that is not a SymattnError): {f['crashes']}",
            f"  kernel statuses: {f['status']}",
        ]
        for prob in self.base_problems:
            lines.append(f"  base claim problem: {prob}")
        for o in self.disagreements():
            tag: str = "ESCAPE" if o.escape or o.status == "alarm" else o.truth
            tag = "CRASH" if o.status == "crash" else tag
            lines.append(f"  [{tag}] {o.mutant.label} -> {o.status}: {o.reason[:160]}")
        return "\n".join(lines)

    def to_json(self) -> str:
        return json.dumps(
            {
                "figures": self.figures(),
                "escapes": [o.as_dict() for o in self.escapes],
                "disagreements": [o.as_dict() for o in self.disagreements()],
                "base_problems": self.base_problems,
                "outcomes": [o.as_dict() for o in self.outcomes],
            },
            indent=1,
            ensure_ascii=False,
            sort_keys=True,
        )


def run(
    claims: Sequence[Claim] | None = None,
    *,
    sample: int | None = None,
    seed: int = 0,
    seconds: float = 30.0,
    progress: Callable[[str], None] | None = None,
) -> Report:
    """Mutate every claim, judge every mutant (or a seeded sample of them), and sum up.

    >>> r = run([chapter_claims()[1]], sample=2, seed=0)
    >>> r.figures()["mutants"], r.escapes
    (2, [])
    """
    start = time.monotonic()
    claims = corpus() if claims is None else list(claims)
    problems: list[str] = []
    pool: list[Mutant] = []
    for c in claims:
        t = truth(c.lhs, c.rhs, c.defs, c.assuming)
        if t != "true":
            problems.append(f"{c.name}: the independent route says {t}; its mutants are skipped")
            continue
        pool.extend(mutants(c))
    if sample is not None and sample < len(pool):
        pool = _stratified(pool, sample, seed)
    outcomes = []
    for k, mutant in enumerate(pool, start=1):
        o = judge(mutant, seconds)
        outcomes.append(o)
        if progress is not None:
            progress(
                f"[{k}/{len(pool)}] {o.truth:9} {o.status:24} {o.seconds:5.1f}s {mutant.label}"
            )
    return Report(outcomes, len(claims), problems, time.monotonic() - start)


# ---- fuzzing the reader (and the checker) ---------------------------------------------------

# Words of the dialect (docs/reader.md), used to grow formulas and to mangle them.
ATOMS = (
    "Q",
    "K",
    "V",
    "X",
    "A",
    "Z",
    "W_Q",
    "W_K",
    "W_V",
    "W_O",
    "q_i",
    "k_j",
    "v_j",
    "z_i",
    "a_{ij}",
    "Q_{ir}",
    "K_{jr}",
    "V_{ju}",
    "Z^{(h)}",
    "W_O^{(h)}",
    "d_k",
    "d_v",
    "n",
    "H",
    "\\mathbf q_i",
    "\\alpha",
    "2",
    "64",
    "0.5",
    "i",
    "j",
    "r",
)
TOKENS = ATOMS + (
    "=",
    "\\in",
    ",",
    ".",
    ";",
    "\\cdot",
    "\\times",
    "+",
    "-",
    "/",
    "^T",
    "^{\\top}",
    "^{(h)}",
    "_{ij}",
    "_i",
    "(",
    ")",
    "\\left(",
    "\\right)",
    "[",
    "]",
    "{",
    "}",
    "\\frac{",
    "}{",
    "\\sqrt{",
    "\\sum_{r=1}^{d_k}",
    "\\sum_j",
    "\\operatorname{softmax}",
    "\\mathrm{softmax}",
    "\\exp",
    "\\mathbb R^{",
    "\\times",
    "\\begin{bmatrix}",
    "\\end{bmatrix}",
    "&",
    "\\\\",
    "\\ldots",
    "\\text{ for all }",
    "\\quad",
    "\\le",
    "\\neq",
    "\\boxed{",
    "\\,",
    " ",
)
UNICODE = (
    "患者",
    "é",
    "\u0301",
    "\u200b",
    "\u202e",
    "\ufeff",
    "\x00",
    "\ud800",
    "😀",
    "∑",
    "√",
    "ℝ",
    "\u2028",
    "\t",
    "\r\n",
    "$",
    "%",
    "#",
    "~",
    "'",
    "!",
    "`",
    "\\",
    "\\foo",
)


def random_formula(rng: random.Random, depth: int = 3) -> str:
    """A formula grown from the dialect's grammar (usually valid, never huge).

    >>> random_formula(random.Random(1)) == random_formula(random.Random(1))
    True
    """
    kind = rng.randrange(4)
    if kind == 0:
        names = ",".join(rng.sample(["Q", "K", "V", "X", "W_O"], rng.randint(1, 3)))
        a, b = (
            rng.choice(["n", "d", "d_k", "d_v", "Hd_v", "5", "64"]),
            rng.choice(["d_k", "d_v", "d", "n"]),
        )
        return f"{names}\\in\\mathbb R^{{{a}\\times {b}}}"
    lhs, rhs = _expr(rng, depth), _expr(rng, depth)
    if kind == 1:
        return f"{lhs}={rhs}"
    if kind == 2:
        return f"{lhs}={rhs}={_expr(rng, depth - 1)}"
    return f"\\left({lhs}\\right)_{{ij}}={rhs}"


def _expr(rng: random.Random, depth: int) -> str:
    if depth <= 0 or rng.random() < 0.3:
        return rng.choice(ATOMS)
    a, b = _expr(rng, depth - 1), _expr(rng, depth - 1)
    forms = (
        f"{a}{b}",
        f"{a}+{b}",
        f"{a}\\cdot {b}",
        f"\\frac{{{a}}}{{{b}}}",
        f"({a})",
        f"{a}^T",
        f"\\sqrt{{{a}}}",
        f"\\sum_{{r=1}}^{{d_k}}{a}",
        f"\\operatorname{{softmax}}\\left({a}\\right)",
        f"\\begin{{bmatrix}}{a}&{b}\\\\{b}&{a}\\end{{bmatrix}}",
        f"{a}^{{(h)}}",
        f"({a})_{{ij}}",
    )
    return rng.choice(forms)


def mangle(text: str, rng: random.Random) -> str:
    """One random damage: delete, duplicate or swap a piece, unbalance a bracket, insert unicode.

    >>> mangle("QK^T", random.Random(0)) != "QK^T" or True
    True
    """
    if not text:
        return rng.choice(TOKENS)
    a = rng.randrange(len(text) + 1)
    b = min(len(text), a + rng.randint(1, 6))
    op = rng.randrange(7)
    if op == 0:
        return text[:a] + text[b:]
    if op == 1:
        return text[:b] + text[a:b] + text[b:]
    if op == 2:
        c = rng.randrange(len(text) + 1)
        x, y = sorted((a, c))
        return text[:x] + text[y:] + text[x:y]
    if op == 3:
        return text[:a] + rng.choice("{}()[]") + text[a:]
    if op == 4:
        return text[:a] + rng.choice(UNICODE) + text[a:]
    if op == 5:
        return text[:a] + rng.choice(TOKENS) + text[a:]
    return text[:a]


@dataclass(frozen=True)
class FuzzProblem:
    """A formula the reader (or checker) mishandled: crash, diagnostic without position, slow."""

    text: str
    stage: str
    problem: str


def fuzz_one(text: str, *, checker: bool = False, seconds: float = 2.0) -> FuzzProblem | None:
    """Feed one formula to the reader (and the checker); None when it behaved.

    >>> fuzz_one("QK^T=") is None
    True
    """

    start = time.monotonic()
    try:
        parse_formula(text)
    except ParseError as exc:
        pos = exc.position
        if pos is None or pos.line < 1 or pos.column < 1 or not 0 <= pos.offset <= len(text):
            return FuzzProblem(text, "reader", f"ParseError without a valid position: {exc}")
    except Exception as exc:
        return FuzzProblem(text, "reader", f"uncaught {type(exc).__name__}: {exc}")
    if time.monotonic() - start > seconds:
        return FuzzProblem(text, "reader", f"took {time.monotonic() - start:.1f} s")
    if checker:
        return _fuzz_checker(text, seconds)
    return None


def _fuzz_checker(text: str, seconds: float) -> FuzzProblem | None:

    try:
        with time_budget(seconds):
            results = check_formula(text, "Q,K: n x d_k; V: n x d_v")
    except TimeBudgetExceeded:
        return FuzzProblem(text, "checker", f"gave up after {seconds:g} s")
    except SymattnError:
        return None
    except Exception as exc:
        return FuzzProblem(text, "checker", f"uncaught {type(exc).__name__}: {exc}")
    if not isinstance(results, list):
        return FuzzProblem(text, "checker", f"returned {type(results).__name__}")
    return None


def fuzz(
    examples: int, seed: int = 0, *, checker: bool = False, seconds: float = 2.0
) -> list[FuzzProblem]:
    """`examples` formulas (half valid, half mangled one to three times); every problem found."""
    rng = random.Random(seed)
    problems = []
    for k in range(examples):
        text = random_formula(rng)
        for _ in range(0 if k % 2 == 0 else rng.randint(1, 3)):
            text = mangle(text, rng)
        found = fuzz_one(text, checker=checker, seconds=seconds)
        if found is not None:
            problems.append(found)
    return problems


def fuzz_main(argv: Sequence[str]) -> int:
    """`python -m symattn.soundness fuzz --examples N [--seed S] [--checker]`."""
    ap = argparse.ArgumentParser(prog="python -m symattn.soundness fuzz")
    ap.add_argument("--examples", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--checker", action="store_true", help="also run symattn.check on each")
    ap.add_argument("--seconds", type=float, default=2.0, help="time bound per formula")
    opts = ap.parse_args(list(argv))
    start = time.monotonic()
    problems = fuzz(opts.examples, opts.seed, checker=opts.checker, seconds=opts.seconds)
    for prob in problems:
        print(f"[{prob.stage}] {prob.problem}\n    formula: {prob.text!r}")
    mode = "on" if opts.checker else "off"
    took = time.monotonic() - start
    print(f"fuzz: {opts.examples} formulas (seed {opts.seed}, checker {mode}) in {took:.1f} s: ")
    print(f"  {len(problems)} problems")
    return 1 if problems else 0


# ---- command line ---------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m symattn.soundness [fuzz] ...`; exit 1 when a false claim escaped."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["fuzz"]:
        return fuzz_main(args[1:])
    ap = argparse.ArgumentParser(prog="python -m symattn.soundness", description=__doc__)
    ap.add_argument("--sample", type=int, default=None, help="judge a seeded sample of N mutants")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true", help="print the full report as JSON")
    ap.add_argument("--seconds", type=float, default=30.0, help="time budget per mutant")
    ap.add_argument("--no-derivations", action="store_true", help="rules and chapter only")
    ap.add_argument("--verbose", action="store_true", help="one line per mutant on stderr")
    ap.add_argument("--only", default="", help="only claims whose name contains this text")
    opts = ap.parse_args(args)
    claims = [c for c in corpus(derivations=not opts.no_derivations) if opts.only in c.name]
    report = run(
        claims,
        sample=opts.sample,
        seed=opts.seed,
        seconds=opts.seconds,
        progress=(lambda s: print(s, file=sys.stderr, flush=True)) if opts.verbose else None,
    )
    print(report.to_json() if opts.json else report.text())
    return 1 if report.escapes else 0


if __name__ == "__main__":
    raise SystemExit(main())
