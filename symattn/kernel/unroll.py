"""A recurrence unrolled at explicit counts and sizes, evaluated exactly and in float64.

Imports only sympy and the kernel below it (expr, modern, ranges, maxima, recurrent); must not
import proof, induction or anything above the kernel.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Mapping, Sequence
from fractions import Fraction
from itertools import count as numbers
from itertools import product
from typing import Any

import sympy
from sympy.core.function import AppliedUndef
from sympy.core.relational import Relational
from sympy.functions.elementary.piecewise import ExprCondPair

from symattn.kernel.errors import Signal
from symattn.kernel.expr import Entry, MatExpr, MatSym, expand_entries, walk
from symattn.kernel.maxima import _MaxOver
from symattn.kernel.modern import FeatureMap
from symattn.kernel.ranges import infer_ranges
from symattn.kernel.recurrent import _KEYS, _LIGHT, Operands, Recurrence, Segment, _claimed

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
        built: dict[bool, _Unrolled] = {}
        for mode in ("exact", "float64"):
            token = _LIGHT.set(True)
            try:
                # the same terms for both modes, unless the exact one renames operands
                generic = mode == "exact" and bool(rec.abstract)
                if generic not in built:
                    built[generic] = _unroll(rec, ops, keys, target, blocks, generic, claim_only)
                problem = built[generic].check(mode)
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


#: nodes whose free symbols are those of their arguments (sympy's default for them)
_UNION = (
    sympy.Add,
    sympy.Mul,
    sympy.Pow,
    sympy.exp,
    sympy.Piecewise,
    ExprCondPair,
    Relational,
    sympy.Max,
    sympy.Min,
    AppliedUndef,
)


class _Frees:
    """Free symbols, remembered per node: sympy recomputes them for a sum by rebuilding its
    body, which costs more than evaluating it."""

    def __init__(self) -> None:
        self.seen: dict[sympy.Basic, frozenset[sympy.Basic]] = {}

    def __call__(self, e: sympy.Basic) -> frozenset[sympy.Basic]:
        hit = self.seen.get(e)
        if hit is None:
            limits: tuple[Any, ...] = e.limits if isinstance(e, sympy.Sum) else ()
            if len(limits) == 1 and len(limits[0]) == 3 and isinstance(limits[0][0], sympy.Symbol):
                j, lo, hi = limits[0]
                hit = (self(e.function) - {j}) | self(lo) | self(hi)
            elif isinstance(e, _UNION):
                hit = frozenset().union(*(self(a) for a in e.args))
            else:
                hit = frozenset(e.free_symbols)
            self.seen[e] = hit
        return hit


class _Unrolled:
    """A recurrence written out at an explicit count and sizes: the checks (each state against
    the invariant, the claim's two sides), with the states named, evaluated in either mode."""

    def __init__(self, ops: Operands, scores: Sequence[str], seed: int) -> None:
        self.ops, self.scores, self.seed = ops, tuple(scores), seed
        self.checks: list[tuple[str, sympy.Basic, sympy.Basic]] = []
        # a state after a segment, by name: a function of its free indices, standing for
        # exactly its terms (a claim that substitutes an index substitutes it in the name)
        self.alias: dict[Any, tuple[tuple[sympy.Symbol, ...], sympy.Basic]] = {}
        self.free = _Frees()

    def named(self, state: Sequence[Any], names: Sequence[str], t: int) -> tuple[Any, ...]:
        """The state with each component that is not a number or a name written as a function
        of its free indices, defined by its terms."""
        out = []
        for name, x in zip(names, state, strict=True):
            x = sympy.sympify(x, strict=True)
            if x.is_Atom:
                out.append(x)
                continue
            frees = tuple(sorted(self.free(x), key=str))
            f = sympy.Function(f"state_{name}_{t}_{next(_NAMES)}")
            self.alias[f] = (frees, x)
            out.append(f(*frees))
        return tuple(out)

    def check(self, mode: str) -> str:
        """Every check on random data of `mode`: the first difference (with the data), or ""."""
        data = _data(self.ops, mode, seed=self.seed, scores=self.scores)
        ev = _Eval(data, exact=mode == "exact", alias=self.alias, free=self.free)
        for what, a, b in self.checks:
            problem = _compare(what, a, b, ev)
            if problem:
                return f"{problem}; with {_shown_data(data)}"
        return ""


def _unroll(
    rec: Recurrence,
    ops: Operands,
    keys: sympy.Expr,
    target: MatExpr | None,
    blocks: Sequence[int],
    generic: bool,
    claim_only: bool = False,
) -> _Unrolled:
    """Run the recurrence segment by segment, to compare each state with the invariant (unless
    `claim_only`) and the claim's two sides; `generic`: the abstract operands renamed."""
    total = sum(blocks)
    values = _explicit(ops, keys, total)
    ops = {k: m.xreplace(values) for k, m in ops.items()}
    goal = None if target is None else target.xreplace(values)
    scores = rec.scores
    if generic:
        # the claim holds for every value of these operands (the base and step say so): exactly,
        # they are matrices of log-rational scores, in the output and the target alike
        renamed = {ops[k]: MatSym(f"{k}_any", *ops[k].shape) for k in rec.abstract}
        ops = {k: renamed.get(m, m) for k, m in ops.items()}
        goal = None if goal is None else goal.xreplace(renamed)
        scores = scores + tuple(f"{k}_any" for k in rec.abstract)
    out = _Unrolled(ops, scores, seed=total * 7 + len(blocks))
    state = rec.initial
    start = 0
    for t, size in enumerate(blocks, start=1):
        seg = Segment(sympy.Integer(t), sympy.Integer(start), sympy.Integer(size))
        # the next step reads this state by name: built over names, each step's terms stay the
        # size of one step, and each state is evaluated once per index point it depends on
        state = out.named(rec.step(ops, state, seg), rec.components, t)
        start += size
        if not claim_only:
            want = rec.invariant(ops, sympy.Integer(start))
            for k, (a, b) in enumerate(zip(state, want, strict=True)):
                out.checks.append((f"after segment {t}, {rec.components[k]}", a, b))
        if rec.at == "every" or t == len(blocks):
            lhs, rhs = _claimed(rec, ops, state, sympy.Integer(start), goal)
            out.checks.append((f"after segment {t}, the claim", lhs, rhs))
    return out


def _shown_data(data: Mapping[str, Mapping[tuple[int, int], Any]]) -> str:
    """The data a counterexample was found on, every entry (`S[1,1]=log(2/3), V[1,1]=1/2`)."""
    return ", ".join(
        f"{name}[{r},{c}]={_show(v)}" for name, table in data.items() for (r, c), v in table.items()
    )


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
_NAMES = numbers(1)


class _Eval:
    """Evaluate an index expression at explicit indices and data, in exact rationals (with
    `_LogNum` scores) or in float64; sums and maxima over explicit ranges are written out."""

    def __init__(
        self, data: dict[str, dict], exact: bool, alias: Mapping[Any, Any], free: _Frees
    ) -> None:
        self.data, self.exact, self.free = data, exact, free
        self.expanded: dict[sympy.Basic, sympy.Basic] = {}
        self.memo: dict[tuple, Any] = {}
        self.alias = alias
        self.bases: dict[sympy.Basic, str] = {}
        self.frees: dict[sympy.Basic, tuple[sympy.Symbol, ...]] = {}

    def terms(self, *es: sympy.Basic) -> list[sympy.Basic]:
        """The terms of the named states that `es` reach, each once."""
        seen: dict[Any, None] = {}
        todo = [x.func for e in es for x in sympy.preorder_traversal(e) if x.func in self.alias]
        while todo:
            f = todo.pop()
            if f not in seen:
                seen[f] = None
                body = self.alias[f][1]
                todo += [x.func for x in sympy.preorder_traversal(body) if x.func in self.alias]
        return [self.alias[f][1] for f in seen]

    def _state(self, e: sympy.Basic, env: dict) -> Any:
        """A named state at its arguments: its terms evaluated once at each index point."""
        frees, body = self.alias[e.func]
        at = tuple(int(self(x, env)) for x in e.args)
        key = (e.func, at)
        hit = self.memo.get(key, _MISSING)
        if hit is _MISSING:
            hit = self.memo[key] = self(body, dict(zip(frees, at, strict=True)))
        return hit

    def __call__(self, e: sympy.Basic, env: dict) -> Any:
        if e.func in self.alias:
            return self._state(e, env)
        f = (
            self._max_over
            if isinstance(e, _MaxOver)
            else getattr(self, "_" + type(e).__name__, None)
        )
        if f is not None:
            if not e.args:
                return f(e, env)
            # the states of later segments hold those of earlier ones: evaluate each once; a
            # sum (a softmax's normaliser) once at each value of the indices it depends on
            key: tuple[Any, ...]
            if isinstance(e, (sympy.Sum, Entry)):
                frees = self.frees.get(e)
                if frees is None:
                    frees = self.frees[e] = tuple(sorted(self.free(e), key=str))
                key = (e, tuple(env.get(s) for s in frees))
            else:
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
        name = self.bases.get(e.base)
        if name is None:
            name = self.bases[e.base] = str(e.base)  # printing a name costs more than reading
        return self.data[name][(r, c)]

    def _Add(self, e: sympy.Add, env: dict) -> Any:
        vals = [self(x, env) for x in e.args]
        if any(isinstance(v, _LogNum) for v in vals):
            vals = [v for v in vals if isinstance(v, _LogNum) or v != 0]  # + 0 changes nothing
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
        # a 0 among scores is log 1 (a running maximum that starts at 0); other numbers are
        # no logarithm of a rational
        vals = [_LogNum(Fraction(1)) if not isinstance(v, _LogNum) and v == 0 else v for v in vals]
        if not all(isinstance(v, _LogNum) for v in vals):
            raise _NotExact("the maximum of a score and a number")
        return max(vals, key=lambda v: v.key() if isinstance(v, _LogNum) else v)
    return max(vals)


def _compare(what: str, a: sympy.Basic, b: sympy.Basic, ev: _Eval) -> str:
    a, b = sympy.sympify(a, strict=True), sympy.sympify(b, strict=True)
    named = ev.terms(a, b)
    free = sorted((ev.free(a) | ev.free(b)) - _dims(a, b, *named), key=str)
    ranges = infer_ranges(a, b, *named)
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
