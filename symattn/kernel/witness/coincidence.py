"""Size plans that rule out a coincidence: degree bounds of a claim in its sizes, and enough plans.

Imports only the kernel below it (errors, dims, expr, modern, witness.sizes, .points, .field's
degree walker); must not import the other witnesses, proof or anything above them.

A size that enters a claim as a number (a coefficient, `sqrt(d_k)`, the bound of a sum) makes
each side a function of that size, the entries held fixed. Counting every term of a sum as one
more of the same kind (`sum_{j=1}^{n} x_j` as if it were `n x`), each side is a rational function
of the sizes whose degrees the walker here bounds (in `sqrt(s)` where a square root of `s`
appears). A nonzero polynomial of degree <= D_s in each size `s` and <= D in all of them vanishes
nowhere on every point of a lower set {a : a_s <= D_s, sum a <= D} of a grid of distinct values
per size (interpolation on lower sets), so equal sides at every such plan rule the coincidence
out. The values are above every constant of the claim (`n = 2, 3` are roots of `(n-2)(n-3)`),
derived sizes are not collapsed to 1 where the relations allow more (`d_k = d/8` with d = 8
makes `1/sqrt(d_k)` vanish from the claim), and every plan has an index point to look at.
Where no such bound exists (`exp` of a size, a sum of `1/j`) or the plans would be too many,
agreement is reported as what it is: no evidence for every size.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import sympy

from symattn.kernel.dims import current
from symattn.kernel.errors import Signal
from symattn.kernel.evaluate import Unsupported
from symattn.kernel.expr import (
    CausalMask,
    ColSoftmax,
    Concat,
    Dot,
    Entry,
    FromColumn,
    HeadSym,
    MatAdd,
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
    walk,
)
from symattn.kernel.modern import (
    CausalZero,
    FirstRows,
    OnlineSoftmax,
    PadMask,
    PairDots,
    PositionBias,
    RepeatKV,
    Rope,
)
from symattn.kernel.ranges import Range, dependency_order
from symattn.kernel.witness import sizes
from symattn.kernel.witness.evidence import WitnessResult
from symattn.kernel.witness.field import _Deg
from symattn.kernel.witness.points import (
    _enumerate,
    _holds,
    claim_bounds,
    dims_of,
    generic_entries,
    plan_fits,
    range_at,
    size_plans,
)

MAX_PLANS = 24  # plans evaluated, at most, to rule a coincidence out
_SEARCH = 1024  # values looked at, at most, above the floor for each size
_RAISES = 3  # times the floor is raised to give every plan an index point

Degrees = tuple[int, int]  # (numerator, denominator) degree of a rational function


class NotPolynomial(Signal):
    """A side is no rational function of bounded degree in a size; the message says why."""


@dataclass(frozen=True)
class Choice:
    """The plans to evaluate, and what agreement at all of them shows.

    `settles`: agreement at every plan rules out a coincidence (`why` says why); otherwise the
    plans serve only to find a counterexample and `why` says why they cannot settle the claim.
    """

    plans: list[sizes.Plan]
    why: str
    settles: bool
    # the claim to evaluate instead, with a size-dependent scale inside softmax made a free
    # number (equal for every value of it: equal at the size's); `fallback` when it is not equal
    general: tuple[sympy.Basic, sympy.Basic] | None = None
    fallback: Choice | None = None


def choose(lhs: MatExpr | sympy.Basic, rhs: sympy.Basic, ranges: Mapping[sympy.Symbol, Range]):
    """The size plans for the exact witness.

    >>> from symattn.kernel.expr import index
    >>> from symattn.kernel.dims import n
    >>> j = index("j")
    >>> c = choose(sympy.Sum(1, (j, 1, n)), (n - 2) * (n - 3) + 1, {})
    >>> c.settles, [p[n] for p in c.plans]  # the smallest plans, then 3 values above 3
    (True, [2, 3, 4, 5, 6])
    >>> c.why
    'degree <= 2 in n: 3 values of n (4, 5, 6), above every constant of the claim (3)'
    """
    generic = dict(ranges)
    a, b = generic_entries(lhs, rhs, generic)
    dims = dims_of(a, b, *claim_bounds(generic), indices=generic)
    if not dims:
        return Choice(size_plans(lhs, rhs, ranges), "no symbolic size", True)
    ctx = current()
    free, derived = sizes._relevant(dims, ctx)
    try:
        degrees, halves, total = _degrees(a, b, sorted(free, key=lambda s: s.name))
    except NotPolynomial as exc:
        fallback = _fallback(
            lhs, rhs, ranges, f"{exc}: no finite set of sizes rules out a coincidence"
        )
        general = _generalized(lhs, rhs, free)
        if general is None:
            return fallback
        gl, gr, named = general
        got = choose(gl, gr, ranges)
        if not got.settles or got.general is not None:
            return fallback
        why = f"{got.why}; with {named} inside the softmax taken as a free number"
        return Choice(got.plans, why, True, (gl, gr), fallback)
    floor = _floor(a, b, generic)
    counts = {s: max(d, 1) for s, d in degrees.items()}
    top = max(total, 1)
    lattice = [
        a_
        for a_ in itertools.product(*(range(counts[s] + 1) for s in sorted(counts, key=_name)))
        if sum(a_) <= top
    ]
    if len(lattice) > MAX_PLANS:
        shown = _degree_text(degrees, halves, total)
        return _fallback(
            lhs,
            rhs,
            ranges,
            f"ruling out a coincidence ({shown}) needs {len(lattice)} size plans, "
            f"more than the budget of {MAX_PLANS}",
        )
    order = sorted(counts, key=_name)
    for _ in range(_RAISES + 1):
        picked = _nodes(order, counts, derived, set(dims), floor)
        if picked is None:
            return _fallback(
                lhs,
                rhs,
                ranges,
                f"no sizes above {floor} satisfy the relations ({sizes.describe(ctx)}) at "
                "enough distinct values to rule out a coincidence",
            )
        nodes, collapsed = picked
        plans = [{s: nodes[s][k] for s, k in zip(order, a_, strict=True)} for a_ in lattice]
        if not all(plan_fits(lhs, rhs, p) for p in plans):
            # a shape such as d/H that is not whole at some plan, or a numbered head past H:
            # those plans cannot be evaluated, and the rest do not rule a coincidence out
            return _fallback(
                lhs,
                rhs,
                ranges,
                "some of the plans needed to rule out a coincidence make a shape fractional "
                "or leave out a numbered head",
            )
        if all(_has_point(generic, p) for p in plans):
            why = _why(degrees, halves, total, nodes, floor, len(plans), collapsed)
            # the smallest plans too, as the other witnesses use: a claim false there only is
            # false, and every witness sees it
            small = [p for p in size_plans(lhs, rhs, ranges)[:2] if _has_point(generic, p)]
            return Choice([p for p in small if p not in plans] + plans, why, True)
        floor += 1
    return _fallback(lhs, rhs, ranges, "some size plan has no index point to evaluate")


def conclude(choice: Choice | None, result: WitnessResult) -> WitnessResult:
    """The exact witness's result over `choice`'s plans, with what agreement there shows."""
    if choice is None or result.holds is not True:
        return result
    if not choice.settles:
        why = f"equal at the sizes evaluated, but {choice.why}"
        return WitnessResult(True, why, None, result.evidence, settles=False)
    done = [e for e in result.evidence if e.points]
    if len(done) < len(choice.plans) or not all(e.exhaustive for e in done):
        why = (
            "equal where evaluated, but not at every index point of every plan needed to rule "
            f"out a coincidence ({choice.why})"
        )
        return WitnessResult(True, why, None, result.evidence, settles=False)
    if choice.why == "no symbolic size":
        return result
    return WitnessResult(
        True,
        f"{result.detail}; the plans rule out a coincidence: {choice.why}",
        None,
        result.evidence,
    )


def _generalized(lhs, rhs, free) -> tuple[sympy.Basic, sympy.Basic, str] | None:
    """Both sides with every scale that depends on a size, inside a softmax, a fresh number."""
    ctx = current()
    found: dict[sympy.Expr, sympy.Symbol] = {}
    swaps: dict[sympy.Basic, sympy.Basic] = {}
    for side in (lhs, rhs):
        for x in walk(side):
            if not isinstance(x, (Softmax, ColSoftmax)):
                continue
            for y in walk(x.args[0]):
                if isinstance(y, Scale):
                    c = y.scalar
                    touched = {t for v in c.free_symbols for t in ctx.resolve(v).free_symbols}
                    if touched & set(free):
                        lam = found.setdefault(c, sympy.Dummy(f"c{len(found) + 1}", real=True))
                        swaps[y] = Scale(lam, y.args[1])
    if not swaps:
        return None
    named = ", ".join(str(c) for c in found)
    return lhs.xreplace(swaps), rhs.xreplace(swaps), named


def _fallback(lhs, rhs, ranges, why: str) -> Choice:
    return Choice(size_plans(lhs, rhs, ranges), why, False)


def _name(s: sympy.Symbol) -> str:
    return s.name


# ---- degree bounds in the sizes -------------------------------------------------------------


class _SizeDegree(_Deg):
    """Degrees of an entry as a rational function of some sizes (the entries held fixed).

    The field witness's walker with other leaves: a named matrix's entry is a constant, a size
    has degree `weight` (2 in half units, so that `sqrt(s)` has degree 1), a sum of `c` terms
    whose body has degree k in its index has degree (k + 1)·deg c more than its body (Faulhaber).
    """

    def __init__(self, weights: Mapping[sympy.Symbol, int]):
        super().__init__(sizes=_no_sizes)
        self.weights = dict(weights)
        self.odd = False  # a half power (sqrt of a size) was met
        self.ctx = current()

    def _exponent(self, e: sympy.Basic, what: str) -> None:
        inner = _SizeDegree(self.weights)
        d = inner.mat(e) if isinstance(e, MatExpr) else inner.scalar(e)
        if d != (0, 0):
            raise NotPolynomial(f"{what} of an argument that depends on {self._named()}")

    def mat(self, m: MatExpr) -> Degrees:
        if isinstance(m, (MatSym, HeadSym, FromColumn, Ones)):
            return (0, 0)
        if isinstance(m, MatMul):
            a, b = self.mat(m.args[0]), self.mat(m.args[1])
            k = max(_index_degree(m.args[0]), _index_degree(m.args[1]))
            body = (a[0] + b[0], a[1] + b[1])
            if _varies(m.args[0], 1) or _varies(m.args[1], 0):
                return body  # distinct terms A_ik B_kj: no coefficient grows with their count
            return self._summed(body, k, 1, m.args[0].cols)
        if isinstance(m, (Softmax, ColSoftmax)):
            self._exponent(m.args[0], "a softmax")
            axis = 1 if isinstance(m, Softmax) else 0
            if _varies(m.args[0], axis):
                return (0, 0)  # exp(s_ij) over a sum of distinct exps: no number of the sizes
            row = self._summed((0, 0), 0, 1, m.cols if axis else m.rows)
            return (row[1], row[0])  # exp(s_ij) over the sum of its row
        if isinstance(m, MatSum):
            v, lo, hi = m.limits
            if _varies_with(m.body, v):
                return self.mat(m.body)
            k = _var_degree(m.body, v)
            return self._summed(self.mat(m.body), k, lo, hi)
        try:
            return super().mat(m)
        except Unsupported as exc:
            raise NotPolynomial(str(exc)) from None

    def scalar(self, e: sympy.Basic) -> Degrees:
        if e.is_number and not e.free_symbols:
            if isinstance(e, sympy.Pow) and not e.exp.is_Integer:
                return (0, 0)  # sqrt(2): a constant
            if not isinstance(e, (sympy.Add, sympy.Mul, sympy.Pow)):
                return (0, 0)
        if isinstance(e, sympy.Symbol):
            if e in self.weights:
                return (self.weights[e], 0)
            if e in self.ctx.equalities:
                return self.scalar(self.ctx.resolve(e))
            return (0, 0)  # an index or a scalar variable: fixed
        if isinstance(e, sympy.Indexed):
            return (0, 0)
        if isinstance(e, sympy.Pow) and not e.exp.is_Integer:
            return self._root(e)
        if isinstance(e, (sympy.exp, sympy.cos, sympy.sin)):
            self._exponent(e.args[0], type(e).__name__)
            return (0, 0)
        if isinstance(e, sympy.Sum):
            out = self.scalar(e.function)
            body = e.function
            for v, lo, hi in e.limits:  # innermost first
                if not _varies_with(body, v):
                    out = self._summed(out, _var_degree(body, v), lo, hi)
                body = sympy.Sum(body, (v, lo, hi))
            return out
        if isinstance(e, Dot):
            u, v = self.mat(e.args[0]), self.mat(e.args[1])
            k = max(_index_degree(e.args[0]), _index_degree(e.args[1]))
            body = (u[0] + v[0], u[1] + v[1])
            if _varies(e.args[0], 1) or _varies(e.args[1], 1):
                return body
            return self._summed(body, k, 1, e.args[0].cols)
        if isinstance(e, sympy.Piecewise) and any(self._touches(c) for _, c in e.args):
            # a case split on a size (keys padded beyond n - p) is a step, not a polynomial
            raise NotPolynomial(f"a case split on {self._named()}")
        if isinstance(e, (sympy.floor, sympy.ceiling, sympy.Mod, sympy.log, sympy.Abs)):
            if self._touches(e):
                raise NotPolynomial(f"{type(e).__name__} of {self._named()}")
            return (0, 0)
        try:
            return super().scalar(e)
        except Unsupported as exc:
            if isinstance(e, sympy.Function) and not self._touches(e):
                return (0, 0)  # a function of indices only (a Kronecker delta)
            raise NotPolynomial(str(exc)) from None

    def _named(self) -> str:
        return ", ".join(s.name for s in sorted(self.weights, key=_name))

    def _touches(self, e: sympy.Basic) -> bool:
        syms = e.free_symbols
        syms = syms | {
            x for s in syms if s in self.ctx.equalities for x in self.ctx.resolve(s).free_symbols
        }
        return bool(set(syms) & set(self.weights))

    def _root(self, e: sympy.Pow) -> Degrees:
        """`base^(p/q)` for a monomial base: its degree, when whole in the units used."""
        base = self.ctx.resolve(e.base)
        if not self._touches(base):
            return (0, 0)
        weight = 0
        for factor, power in base.as_powers_dict().items():
            if factor in self.weights:
                if not power.is_Integer:
                    raise NotPolynomial(f"a power {e} of {self._named()}")
                weight += self.weights[factor] * int(power)
            elif self._touches(factor):
                raise NotPolynomial(f"a root {e} of a sum of sizes")
        degree = Fraction(weight) * Fraction(int(e.exp.p), int(e.exp.q))
        if degree.denominator != 1:
            raise NotPolynomial(f"a power {e} of {self._named()}")
        whole = int(degree)
        if whole % 2:
            self.odd = True  # sqrt(s) with s of degree 2: a polynomial in sqrt(s)
        return (whole, 0) if whole >= 0 else (0, -whole)

    def _summed(self, body: Degrees, k: int, lo: object, hi: object) -> Degrees:
        """A sum over lo..hi of a body of degrees `body` and of degree k in its index."""
        low = self.scalar(sympy.sympify(lo, strict=True))
        high = self.scalar(sympy.sympify(hi, strict=True))
        count = max(low[0], low[1]) + max(high[0], high[1])
        if count == 0:
            return body
        return (body[0] + (k + 1) * count, body[1] + (k + 1) * (low[1] + high[1]))


def _varies(m: sympy.Basic, axis: int) -> bool:
    """Every entry of `m` a sum of terms that each hold a named matrix's entry that changes with
    the row (axis 0) or column (axis 1) index: a sum of such entries along that index has as
    many distinct terms as the index has values, and its coefficients do not grow with it."""
    if isinstance(m, (MatSym, HeadSym)):
        return True
    if isinstance(m, FromColumn):
        return axis == 0
    if isinstance(m, Transpose):
        return _varies(m.args[0], 1 - axis)
    if isinstance(m, MatMul):
        return _varies(m.args[axis], axis)
    if isinstance(m, MatAdd):
        return all(_varies(a, axis) for a in m.args)
    if isinstance(m, Scale):
        return _varies(m.args[1], axis)
    if isinstance(m, Row):
        return axis == 1 and _varies(m.args[0], 1)
    if isinstance(m, (RowBlock, CausalMask, Softmax, ColSoftmax)):
        return _varies(m.args[0], axis)  # softmax: exp of distinct entries
    if isinstance(m, (Concat, MatSum)):
        return _varies(m.body, axis)
    if isinstance(m, (FirstRows, CausalZero, PadMask)):
        return _varies(m.args[0], axis)
    if isinstance(m, RepeatKV):  # each column block R times: a column sum counts R copies
        return axis == 0 and _varies(m.args[0], 0)
    return False


def _varies_with(e: sympy.Basic, v: sympy.Symbol) -> bool:
    """Every term of `e` holds an entry of a named matrix that changes with the index v."""
    if isinstance(e, (sympy.Add, MatAdd)):
        return all(_varies_with(a, v) for a in e.args)
    if isinstance(e, (sympy.Mul, MatMul, Dot)):
        return any(_varies_with(a, v) for a in e.args)
    if isinstance(e, Scale):
        return _varies_with(e.args[1], v)
    if isinstance(e, sympy.Indexed):
        return any(v in x.free_symbols for x in e.indices)
    if isinstance(e, Entry):
        r, c = e.args[1], e.args[2]
        return (
            (v in sympy.sympify(r, strict=True).free_symbols and _varies(e.matrix, 0))
            or (v in sympy.sympify(c, strict=True).free_symbols and _varies(e.matrix, 1))
            or _varies_with(e.matrix, v)
        )
    if isinstance(e, HeadSym):
        return v in sympy.sympify(e.args[1], strict=True).free_symbols
    if isinstance(e, RowBlock):
        head = e.args[1]
        return v in sympy.sympify(head, strict=True).free_symbols or _varies_with(e.args[0], v)
    if isinstance(e, Row):
        return (
            v in sympy.sympify(e.args[1], strict=True).free_symbols and _varies(e.args[0], 0)
        ) or (_varies_with(e.args[0], v))
    if isinstance(e, (Transpose, CausalMask, Softmax, ColSoftmax)):
        return _varies_with(e.args[0], v)
    if isinstance(e, (sympy.Sum, MatSum, Concat)):
        return _varies_with(e.args[0], v)
    return False


def _no_sizes(e: sympy.Expr) -> int:
    raise Unsupported("a size bound is not used here")


def _var_degree(body: sympy.Basic, v: sympy.Symbol) -> int:
    """The degree of a sum's body in its index (as a number, not as a position)."""
    walker = _SizeDegree({v: 1})
    d = walker.mat(body) if isinstance(body, MatExpr) else walker.scalar(body)
    if d[1]:
        raise NotPolynomial(f"a sum over {v} of a fraction whose denominator depends on {v}")
    return d[0]


def _index_degree(m: MatExpr) -> int:
    """How the entries of `m` depend on their own indices as numbers (ALiBi's slope·(j - i))."""
    out = 0
    i, j = sympy.Dummy("i", integer=True), sympy.Dummy("j", integer=True)
    for x in walk(m):
        if isinstance(x, (PositionBias, Rope, PairDots, OnlineSoftmax)):
            walker = _SizeDegree({i: 1, j: 1})
            d = walker.scalar(x.entry(i, j))
            if d[1]:
                raise NotPolynomial(f"entries of {type(x).__name__} are fractions of their indices")
            out = max(out, d[0])
    return out


def _difference(walker: _SizeDegree, a: sympy.Basic, b: sympy.Basic) -> int:
    da = walker.mat(a) if isinstance(a, MatExpr) else walker.scalar(a)
    db = walker.mat(b) if isinstance(b, MatExpr) else walker.scalar(b)
    return max(da[0] + db[1], db[0] + da[1])


def _degrees(
    a: sympy.Basic, b: sympy.Basic, free: Sequence[sympy.Symbol]
) -> tuple[dict[sympy.Symbol, int], set[sympy.Symbol], int]:
    """(degree of the difference in each size, the sizes counted in sqrt, total degree)."""
    per: dict[sympy.Symbol, int] = {}
    halves: set[sympy.Symbol] = set()
    for s in free:
        walker = _SizeDegree({s: 2})
        half_units = _difference(walker, a, b)
        if walker.odd:
            halves.add(s)
            per[s] = half_units
        else:
            per[s] = math.ceil(half_units / 2)
    walker = _SizeDegree({s: 2 if s in halves else 1 for s in free})
    total = _difference(walker, a, b)
    return per, halves, total


def _floor(a: sympy.Basic, b: sympy.Basic, ranges: Mapping[sympy.Symbol, Range]) -> int:
    """The largest constant of the claim (exponents aside): every size is chosen above it."""
    found = 1
    stack: list[sympy.Basic] = [a, b, *claim_bounds(ranges)]
    while stack:
        x = stack.pop()
        if isinstance(x, sympy.Pow):
            stack.append(x.base)
            continue
        if isinstance(x, (MatSym, HeadSym, FromColumn, Ones)):
            continue  # the shape of a named matrix is no constant of the claim
        if isinstance(x, sympy.Rational):
            found = max(found, abs(int(x.p)), abs(int(x.q)))
            continue
        stack.extend(x.args)
    return found


# ---- the plans --------------------------------------------------------------------------


def _nodes(
    order: Sequence[sympy.Symbol],
    counts: Mapping[sympy.Symbol, int],
    derived: Mapping[sympy.Symbol, sympy.Expr],
    claimed: set[sympy.Symbol],
    floor: int,
) -> tuple[dict[sympy.Symbol, list[int]], bool] | None:
    """Distinct values for each free size, above the floor, such that every derived size is a
    positive integer at every combination; derived sizes of the claim kept above the floor and
    apart from the other values where the relations allow, else at least 2, else 1."""
    dens = set()
    for e in derived.values():
        dens |= sympy.fraction(sympy.together(e))[1].free_symbols
    order = sorted(order, key=lambda s: (s not in dens, s.name))
    for strict in (2, 1, 0):
        chosen: dict[sympy.Symbol, list[int]] = {}
        for s in order:
            firsts = {vs[0] for vs in chosen.values()}
            values: list[int] = []
            for v in range(floor + 1, floor + 1 + _SEARCH):
                if len(values) > counts[s]:
                    break
                if strict == 2 and not values and v in firsts:
                    continue  # the first plan keeps distinct sizes apart
                if _fits(s, v, chosen, derived, claimed, strict, floor):
                    values.append(v)
            if len(values) <= counts[s]:
                break
            chosen[s] = values
        else:
            return chosen, strict == 0
    return None


def _fits(s, v, chosen, derived, claimed, strict, floor) -> bool:
    names = list(chosen)
    for combo in itertools.product(*(chosen[k] for k in names)):
        env = {k: Fraction(x) for k, x in zip(names, combo, strict=True)}
        env[s] = Fraction(v)
        for d, e in derived.items():
            if not e.free_symbols <= set(env):
                continue
            try:
                value = sizes._compile(e)(env)
            except (KeyError, ZeroDivisionError, TypeError):
                return False
            if value.denominator != 1 or value < 1:
                return False
            if strict >= 1 and value < 2:
                return False
            if strict == 2 and d in claimed and value <= floor:
                return False
    return True


def _has_point(ranges: Mapping[sympy.Symbol, Range], plan: sizes.Plan) -> bool:
    try:
        subs = sizes.substitution(plan)
        names = dependency_order(ranges)
        bounds = {k: range_at(r, subs) for k, r in ranges.items()}
        for point in _enumerate(names, bounds, subs):
            if _holds((), subs, point):
                return True
    except (sizes.NoPlan, ValueError):
        return False
    return False


def _degree_text(degrees, halves, total) -> str:
    parts = [
        f"degree <= {d} in {_var(s, halves)}"
        for s, d in sorted(degrees.items(), key=lambda x: x[0].name)
    ]
    if len(degrees) > 1:
        parts.append(f"<= {total} in all")
    return ", ".join(parts)


def _var(s: sympy.Symbol, halves) -> str:
    return f"sqrt({s.name})" if s in halves else s.name


def _why(degrees, halves, total, nodes, floor, count, collapsed) -> str:
    shown = _degree_text(degrees, halves, total)
    if len(degrees) == 1:
        (s,) = degrees
        vs = nodes[s]
        text = (
            f"{shown}: {len(vs)} values of {s.name} ({', '.join(map(str, vs))}), "
            f"above every constant of the claim ({floor})"
        )
    else:
        grid = "; ".join(
            f"{s.name} in {', '.join(map(str, vs))}"
            for s, vs in sorted(nodes.items(), key=lambda x: x[0].name)
        )
        text = (
            f"{shown}: {count} plans on a lower set of the grid {grid}, on which no nonzero "
            f"polynomial of these degrees vanishes; above every constant of the claim ({floor})"
        )
    if collapsed:
        text += "; a derived size is 1 where the relations allow no other"
    return text
