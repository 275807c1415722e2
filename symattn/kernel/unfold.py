"""A family of matrices defined by a recurrence (`X_0` given, `X_t = step(X_{t-1}, t)`): `Unfold`.

Imports only sympy and the kernel up to proof (dims, errors, expr, ranges, text, proof); must not
import rules, derivation, induction's named recurrences or anything above the kernel.

`member(...)` is the member `X_t` of such a family: at a whole-number index it is the recurrence
written out (a closed term, decided like any other); at a letter it is an `Unfold` node, which
has no closed entry and is decided as a whole side of a claim `X_t = G(t)` by induction on t:

- base: the first member (`step(X_0, 1)`, or the base itself when it is `X_1`) equals `G(1)`;
- step: for t >= 2, `step(G(t-1), t) = G(t)` (the claim at t-1 assumed), t a letter;
- cross-checks: the claim written out at t = 1..4, decided by `prove_equal` without the
  induction; a difference there is a counterexample at that explicit t, and the claim is false.

A sum whose upper limit is t on the claimed side may be split into its last term
(`sum_last_term`: `Σ_{j=lo}^{t} f_j = Σ_{j=lo}^{t-1} f_j + f_t`, for t >= lo), so that the step's
new term meets the sum it extends.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import sympy
from sympy import Basic
from sympy.core.symbol import Str

from symattn.kernel import evaluate
from symattn.kernel.dims import current, dim, dims_equal, shape_str
from symattn.kernel.errors import ShapeError
from symattn.kernel.expr import (
    MatAdd,
    MatExpr,
    MatSum,
    MatSym,
    Ones,
    Scale,
    dims_in,
    index,
    named_leaves,
    walk,
)
from symattn.kernel.proof import DECIDERS, Verdict, Witness, check_shapes, prove_equal
from symattn.kernel.ranges import infer_ranges
from symattn.kernel.text import PLAIN, plain
from symattn.kernel.witness import exact, field

__all__ = ["Unfold", "member", "zeros"]

_VAR = index("t_step")  # the step's own index, a positive integer like i, j
_CHECKED_COUNTS = 4  # members written out and decided without the induction


def zeros(rows: object, cols: object) -> MatExpr:
    """The zero matrix of a shape (a base case `S_0 = 0`)."""
    return Scale(sympy.Integer(0), Ones(rows, cols))


class Unfold(MatExpr):
    """Member `index` of the family `name` with `name_start = base` and
    `name_t = step(name_{t-1}, t)`; in `step` the previous member is `prev` and t is `var`.

    >>> from symattn.kernel.expr import MatSym, Row
    >>> from symattn.kernel.dims import n, d_k, d_v
    >>> t = sympy.Symbol("t", integer=True, positive=True)
    >>> K, V = MatSym("K", n, d_k), MatSym("V", n, d_v)
    >>> prev = MatSym("S_prev", d_k, d_v)
    >>> s = member("S", t, zeros(d_k, d_v), prev + Row(K, t).T @ Row(V, t), prev, t)
    >>> s.shape, plain(s)
    ((d_k, d_v), 'S_t')
    """

    def __new__(
        cls,
        name: str,
        index: object,
        base: MatExpr,
        step: MatExpr,
        prev: MatExpr,
        var: sympy.Symbol,
        start: int = 0,
    ) -> Unfold:
        base, step, prev = _checked(f"{name}_{plain(var)}", base, step, prev)
        named = named_after(var, step, base)
        if named:
            raise ShapeError(
                f"the step of {name}_{plain(var)} names {named}, one matrix for every "
                f"{plain(var)}: write a member at {plain(var)} as a row of a matrix "
                f"(k_{plain(var)} of K), so that each {plain(var)} has its own"
            )
        own = MatSym(f"{name}_prev", *base.shape)
        step = step.xreplace({prev: own, var: _VAR})
        return Basic.__new__(
            cls, Str(name), sympy.sympify(index, strict=True), base, step, own, sympy.Integer(start)
        )

    @property
    def name(self) -> str:
        return str(self.args[0])

    @property
    def index(self) -> sympy.Expr:
        return self.args[1]

    @property
    def base(self) -> MatExpr:
        return self.args[2]

    @property
    def start(self) -> int:
        return int(self.args[5])

    @property
    def shape(self) -> tuple[sympy.Expr, sympy.Expr]:
        return self.base.shape

    def after(self, previous: MatExpr, t: object) -> MatExpr:
        """The step from `previous` (the member before t) to member t."""
        return self.args[3].xreplace({self.args[4]: previous, _VAR: sympy.sympify(t, strict=True)})

    def written_out(self, t: int) -> MatExpr:
        """Member t as a closed term: the base, then the step applied t - start times."""
        value = self.base
        for k in range(self.start + 1, t + 1):
            value = self.after(value, k)
        return value

    def at(self, t: object) -> MatExpr:
        return member(self.name, t, self.base, self.args[3], self.args[4], _VAR, self.start)

    def _entry(self, i: sympy.Expr, j: sympy.Expr, fresh: object) -> sympy.Expr:
        raise NotImplementedError(
            f"{plain(self)} at a letter has no closed entry: a claim `{plain(self)} = ...` "
            "is proved by induction on its index"
        )


def named_after(t: sympy.Symbol, *terms: sympy.Basic) -> str:
    """The first matrix whose name has the index t below it (`k_t`): to the kernel one matrix,
    the same at every t. "" when there is none.

    >>> t = sympy.Symbol("t")
    >>> named_after(t, MatSym("k_t", 3, 1)), named_after(t, MatSym("W_Q", 3, 1))
    ('k_t', '')
    """
    for name, _ in named_leaves(*terms):
        _, _, sub = name.partition("_")
        if str(t) in re.findall(r"[A-Za-z]+|\d+", sub):
            return name
    return ""


def _checked(name: str, base: MatExpr, step: MatExpr, prev: MatExpr) -> tuple[MatExpr, ...]:
    """The three parts of family `name` (`S_t`, its index written in), each a matrix of the base
    case's shape."""
    for what, m in (("base case", base), ("step", step), ("previous member", prev)):
        if not isinstance(m, MatExpr):
            raise ShapeError(f"the {what} of {name} is {plain(m)}, a scalar, not a matrix")
    for what, m in (("step", step), ("previous member", prev)):
        if not (dims_equal(m.rows, base.rows) and dims_equal(m.cols, base.cols)):
            raise ShapeError(
                f"the {what} of {name} is {shape_str(m.shape)} ({plain(m)}), its base case "
                f"{shape_str(base.shape)}"
            )
    return base, step, prev


def member(
    name: str,
    index: object,
    base: MatExpr,
    step: MatExpr,
    prev: MatExpr,
    var: sympy.Symbol,
    start: int = 0,
) -> MatExpr:
    """Member `index` of the family: written out at a whole number, else an `Unfold`."""
    node = Unfold(name, index, base, step, prev, var, start)
    t = node.index
    if t.is_Integer:
        if int(t) < start:
            raise ShapeError(f"{name}_{t} comes before the base case {name}_{start}")
        return node.written_out(int(t))
    return node


# ---- the decision: induction on the index, cross-checked written out ----------------------


@DECIDERS.register(Unfold)
def _decide_unfold(lhs: Unfold, rhs: sympy.Basic) -> Verdict:
    problem = check_shapes(lhs, rhs)
    if problem is not None:
        return Verdict("shape_error", reason=problem)
    t = lhs.index
    label = plain(lhs)
    name = plain(t)  # the verdict names the count the induction runs on
    if not isinstance(t, sympy.Symbol):
        return Verdict("unknown", reason=f"{label}: induction needs a letter as the index")
    if t in dims_in(lhs) | dims_in(rhs):
        return Verdict(
            "unknown",
            reason=f"{label}: the index {name} is also a size; induction runs on an index",
        )
    named = named_after(t, rhs)
    if named:
        return Verdict(
            "unknown",
            reason=f"{label} is compared with {named}, one matrix for every {name} (a name, "
            f"not a row of a matrix): the claim at each {name} is not known",
        )
    if lhs.start > 1:
        return Verdict("unknown", reason=f"{label}: members before {lhs.start} do not exist")
    if t in lhs.base.free_symbols | lhs.args[3].free_symbols:
        return Verdict("unknown", reason=f"{label}: its base case or step names {name} itself")
    if any(_binds(x, t) for x in walk(rhs)):
        return Verdict("unknown", reason=f"{label}: the claimed side binds {name} itself")
    if any(isinstance(x, Unfold) for x in walk(rhs)):
        return Verdict("unknown", reason=f"{label} is compared with another member of a family")
    assert isinstance(rhs, MatExpr)

    def claimed(x: object) -> MatExpr:
        return rhs.xreplace({t: sympy.sympify(x, strict=True)})

    first = max(lhs.start, 1)
    hi = _upper(lhs, rhs, t)
    # cross-checks: the claim at explicit t, without the induction (a counterexample there is
    # a counterexample to the claim)
    checks: list[str] = []
    shown: set[Witness] = set()
    for k in range(first, first + _CHECKED_COUNTS):
        sizes = _room(hi, k, dims_in(lhs.written_out(k)) | dims_in(claimed(k)))
        if sizes is None:
            break
        a, b = lhs.written_out(k).xreplace(sizes), claimed(k).xreplace(sizes)
        v = prove_equal(a, b)
        at = f"{name} = {k}" + "".join(f", {plain(s)} = {x}" for s, x in sizes.items())
        where = f"{name} = {k}" + (
            " (" + ", ".join(f"{plain(s)} = {x}" for s, x in sizes.items()) + ")" if sizes else ""
        )
        if v.status == "false":
            return Verdict(
                "false",
                v.witnesses,
                reason=f"refuted at {at} (the claim written out, without the induction): "
                f"{v.reason or 'the two sides differ'}",
                counterexample=v.counterexample,
            )
        checks.append(f"{where} {v.status}")
        if v.status in ("proved", "checked"):
            shown |= {w for w in v.witnesses if w != "symbolic"}
    # the induction
    base = lhs.base if lhs.start >= 1 else lhs.after(lhs.base, 1)
    parts = [
        _part(f"base ({label} at {name} = {first})", base, claimed(first), {}, peel=_written_sums)
    ]
    ranges = {t: (sympy.Integer(first + 1), hi)}
    previous = claimed(t - 1)
    parts.append(
        _part(
            f"step ({name}-1 -> {name} for {first + 1} <= {name} <= {plain(hi)}, "
            f"the claim at {name}-1 assumed)",
            lhs.after(previous, t),
            claimed(t),
            ranges,
            peel=lambda m: _peel(m, t, first + 1),
        )
    )
    text = "; ".join(f"{part}: {how}" for part, _, how in parts)
    said = "; written out without the induction: " + ", ".join(checks) if checks else ""
    if all(ok for _, ok, _ in parts):
        witnesses: tuple[Witness, ...] = ("symbolic", *sorted(shown))
        return Verdict("proved", witnesses, reason=f"proved by induction on {name}: {text}{said}")
    return Verdict("unknown", reason=f"not proved by induction on {name}: {text}{said}")


def _part(
    name: str,
    got: MatExpr,
    want: MatExpr,
    ranges: dict,
    peel: Callable[[MatExpr], MatExpr | None] | None = None,
) -> tuple[str, bool, str]:
    v = prove_equal(got, want, ranges=ranges or None, witnesses=("symbolic",))
    if v.status == "proved":
        return name, True, "proved [symbolic]"
    split = peel(want) if peel is not None else None
    if split is not None:
        w = prove_equal(got, split, ranges=ranges or None, witnesses=("symbolic",))
        if w.status == "proved":
            how = "written out" if not ranges else "split into the rest and its last term"
            rule = "" if not ranges else " (sum_last_term)"
            return name, True, f"proved [symbolic], the claimed sum {how}{rule}"
    return name, False, "not shown (" + v.summary().splitlines()[0][:200] + ")"


def _peel(m: MatExpr, t: sympy.Symbol, least: int) -> MatExpr | None:
    """`Σ_{j=lo}^{t} f_j` -> `Σ_{j=lo}^{t-1} f_j + f_t` in every matrix sum of `m` whose upper
    limit is t and whose lower limit is a number <= `least` (the smallest t of the step); None
    when there is none."""
    found = {}
    for x in walk(m):
        if isinstance(x, MatSum):
            j, lo, top = x.limits
            if top == t and lo.is_Integer and int(lo) <= least:
                found[x] = MatAdd(MatSum(x.body, j, lo, t - 1), x.body.xreplace({j: t}))
    return m.xreplace(found) if found else None


def _binds(x: sympy.Basic, t: sympy.Symbol) -> bool:
    """Whether `x` is a sum over t (a matrix sum or a scalar one)."""
    if isinstance(x, MatSum):
        return x.var == t
    if isinstance(x, sympy.Sum):
        return any(limit[0] == t for limit in x.limits)
    return False


def _written_sums(m: MatExpr) -> MatExpr | None:
    """Every matrix sum of `m` with whole-number limits written out term by term (the claimed
    side at t = 1: `Σ_{j=1}^{1} f_j = f_1`); None when there is none."""
    found = {}
    for x in walk(m):
        if isinstance(x, MatSum):
            j, lo, top = x.limits
            if lo.is_Integer and top.is_Integer and int(top) - int(lo) < 8:
                terms = [x.body.xreplace({j: sympy.Integer(k)}) for k in range(lo, top + 1)]
                total = terms[0] if terms else zeros(*x.shape)
                for term in terms[1:]:
                    total = MatAdd(total, term)
                found[x] = total
    return m.xreplace(found) if found else None


def _upper(lhs: Unfold, rhs: MatExpr, t: sympy.Symbol) -> sympy.Expr:
    """The largest t the claim speaks of: the rows its step and claimed side index by t (`k_t`
    of an n-row K: n), else every t (a size of its own, `t_last`)."""
    step = lhs.after(MatSym(f"{lhs.name}_prev", *lhs.shape), t)
    found = infer_ranges(step, rhs)
    if t in found:
        return sympy.sympify(found[t][1], strict=True)
    return dim(f"{t}_last")  # a size of its own, in no other claim: every t


def _room(
    hi: sympy.Expr, k: int, others: set[sympy.Symbol]
) -> dict[sympy.Symbol, sympy.Expr] | None:
    """Explicit sizes under which member k exists: the bound, if it is one size, set to k + 1
    at least, the other sizes to 2, 3, 2, ... (one plan: a difference there is a
    counterexample, agreement is only a cross-check); sizes that a declared equality relates
    stay as they are. None when the bound is a number below k."""
    if hi.is_Integer and int(hi) < k:
        return None
    related = set(current().equalities)
    for value in current().equalities.values():
        related |= sympy.sympify(value, strict=True).free_symbols
    sizes: dict[sympy.Symbol, sympy.Expr] = {}
    if isinstance(hi, sympy.Symbol) and hi not in related:
        sizes[hi] = sympy.Integer(max(k, 2) + 1)
    free = sorted((s for s in others if s not in related and s != hi), key=str)
    for at, s in enumerate(free):
        sizes[s] = sympy.Integer(2 + at % 2)
    return sizes


# ---- the walkers: no closed value --------------------------------------------------------


def _no_closed_value(_: object, e: Unfold, *rest: object) -> Any:
    raise NotImplementedError(
        f"{plain(e)} at a letter has no closed value: prove_equal proves a claim about it by "
        "induction when it is a whole side of the claim"
    )


evaluate.MATRIX.register(Unfold)(_no_closed_value)
field.DEGREE.register(Unfold)(_no_closed_value)


@exact.TERMS.register(Unfold)
def _terms_unfold(e: Unfold, at: object) -> int:
    return 1  # never expanded: decided by the induction or not at all


@PLAIN.register(Unfold)
def _plain_unfold(e: Unfold) -> str:
    index = plain(e.index) if not isinstance(e.index, sympy.Symbol) else str(e.index)
    return f"{e.name}_{index}" if len(index) == 1 else f"{e.name}_{{{index}}}"
