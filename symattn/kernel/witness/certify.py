"""Certified differences: two scalars at explicit entries, separated by interval arithmetic.

Imports only sympy, mpmath, random, kernel.errors and witness.screen; must not import the other
witnesses, proof or anything above them.

A claim with `exp` at explicit sizes is a rational function of exponentials; simplifying the
difference of its sides can take minutes (a gcd of huge integers in `sympy.cancel`). To show the
sides differ it is enough to find entries at which they differ and to *prove* it: both sides
are enclosed in intervals (mpmath's `iv`, outward rounding, so the true value is inside) and
the two intervals are disjoint. The search ranks entries in float64 (`witness.screen`) where a
side compiles to its steps, and on enclosures otherwise; only disjoint enclosures are a result.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import mpmath
import sympy
from mpmath import iv, libmp

from symattn.kernel.errors import Signal
from symattn.kernel.witness import screen

# small entries, no 0: a zero entry hides the others; the counterexample is then minimised
_DRAW = (-2, -1, 1, 2, 3)
_PRECISIONS = (53, 113, 236)  # bits tried, in turn, for the certificate


class Unsupported(Signal):
    """The expression has something the interval walker does not evaluate."""


@dataclass(frozen=True)
class Separation:
    """Entries at which the two sides differ, with an enclosure of each side (lo, hi)."""

    values: tuple[tuple[sympy.Basic, int], ...]
    left: tuple[mpmath.mpf, mpmath.mpf]
    right: tuple[mpmath.mpf, mpmath.mpf]
    bits: int

    def shown(self, side: str) -> str:
        """A side's value to 12 digits (the midpoint of an enclosure far narrower than that)."""
        lo, hi = self.left if side == "left" else self.right
        return mpmath.nstr((lo + hi) / 2, 12)


def worth_certifying(*sides: sympy.Basic) -> bool:
    """True when a side has transcendental or algebraic parts (exp, log, cos, roots): exact
    simplification of those is the slow path this module replaces."""
    return any(s.has(sympy.exp, sympy.log, sympy.cos, sympy.sin) or _has_root(s) for s in sides)


def _has_root(e: sympy.Basic) -> bool:
    return any(not p.exp.is_Integer for p in e.atoms(sympy.Pow))


def separate(
    left: sympy.Basic,
    right: sympy.Basic,
    *,
    seed: int = 0,
    trials: int = 3,
) -> Separation | None:
    """Entries (few of them nonzero) at which `left` and `right` certainly differ, or None.

    Every free atom (an entry `Q[1,2]` or a scalar) gets a small integer; a point where the
    enclosures at 53 bits are disjoint is kept, entries are zeroed while they stay disjoint, and
    the result is certified again (more bits for a gap below 53 bits' reach). None when no
    point is found: never a guess.

    >>> x, y = sympy.symbols("x y")
    >>> s = separate(sympy.exp(x + y), sympy.exp(x) + sympy.exp(y))
    >>> s.left[1] < s.right[0] or s.right[1] < s.left[0]
    True
    >>> separate(sympy.exp(x + y), sympy.exp(x) * sympy.exp(y)) is None
    True
    """
    atoms = _atoms(left, right)
    if atoms is None:
        return None
    rng = random.Random(seed)
    program = screen.compile_sides(left, right, atoms)
    for trial in range(trials):
        values = {a: rng.choice(_DRAW) for a in atoms}
        if _clear(program, values):
            # float64 sees a clear difference: minimised in float64, then certified (the
            # enclosures decide; a candidate they cannot separate goes the interval way)
            for candidate in (_minimised(left, right, values, program=program), values):
                found = certify(left, right, candidate, program=program)
                if found is not None:
                    return found
        if not _looks_different(left, right, values, program):
            if trial == 0:  # a gap below 53 bits' reach: one look with more bits
                found = certify(left, right, values, _PRECISIONS[1:2], program)
                if found is not None:
                    return found
            continue
        for candidate in (_minimised(left, right, values, enclosed=program), values):
            found = certify(left, right, candidate, program=program)
            if found is not None:
                return found
    return None


def _clear(program: screen.Program | None, values: Mapping[sympy.Basic, int]) -> bool:
    """Float64 sees the sides differ by more than a near-tie (a candidate, never a proof)."""
    floats = None if program is None else program.run(values, "float")
    return floats is not None and not screen.near_tie(*floats)


def certify(
    left: sympy.Basic,
    right: sympy.Basic,
    values: Mapping[sympy.Basic, int],
    precisions: Sequence[int] = _PRECISIONS,
    program: screen.Program | None = None,
) -> Separation | None:
    """Enclosures of both sides at `values` that do not overlap (a proof they differ), or None.

    >>> x = sympy.Symbol("x")
    >>> s = certify(sympy.exp(x) * (1 + sympy.Rational(1, 10**20)), sympy.exp(x), {x: 1})
    >>> s.bits, s.right[1] < s.left[0]
    (113, True)
    """
    saved = iv.prec
    try:
        for bits in precisions:
            iv.prec = bits
            try:
                if program is not None:  # the same steps as `enclose`, compiled once
                    sides = enclose_program(program, values)
                    lo_l, hi_l = sides[0]._mpi_
                    lo_r, hi_r = sides[1]._mpi_
                else:
                    lo_l, hi_l = enclose(left, values)._mpi_
                    lo_r, hi_r = enclose(right, values)._mpi_
            except (Unsupported, ArithmeticError, ValueError, TypeError):
                return None
            ends = (lo_l, hi_l, lo_r, hi_r)
            if any(v in (libmp.finf, libmp.fninf, libmp.fnan) for v in ends):
                return None  # an infinite or undefined side is no certificate
            # the endpoints are compared exactly, as binary numbers, never rounded
            if libmp.mpf_lt(hi_l, lo_r) or libmp.mpf_lt(hi_r, lo_l):
                kept = tuple(sorted(values.items(), key=lambda kv: str(kv[0])))
                with mpmath.mp.workprec(bits + 10):
                    pair = [mpmath.mpf(v) for v in ends]
                return Separation(kept, (pair[0], pair[1]), (pair[2], pair[3]), bits)
            if lo_l == hi_l == lo_r == hi_r:
                return None  # exactly the same value: more bits cannot separate them
    finally:
        iv.prec = saved
    return None


def _atoms(*sides: sympy.Basic) -> list[sympy.Basic] | None:
    """Every entry and scalar the sides depend on; None when an entry's index is not a number
    (the sides are not at one explicit point)."""
    found: set[sympy.Basic] = set()
    for s in sides:
        for x in s.atoms(sympy.Indexed):
            if not all(k.is_Integer for k in x.indices):
                return None
            found.add(x)
        bare = _bare_symbols(s)
        if any(x.is_integer for x in bare):
            return None  # an index or a size left symbolic: not one explicit point
        found |= bare
    return sorted(found, key=str)


def _bare_symbols(e: sympy.Basic) -> set[sympy.Basic]:
    """Symbols that occur outside every Indexed (a scalar `c`, not the label of `Q[1,2]`)."""
    out: set[sympy.Basic] = set()
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, sympy.Indexed):
            continue
        if isinstance(x, sympy.Symbol):
            out.add(x)
        stack.extend(x.args)
    return out


def _looks_different(left, right, values, program: screen.Program | None = None) -> bool:
    """Separated at the lowest precision (enclosures, no floats)."""
    return certify(left, right, values, _PRECISIONS[:1], program) is not None


def _minimised(
    left,
    right,
    values: Mapping[sympy.Basic, int],
    budget: int = 200,
    program: screen.Program | None = None,
    enclosed: screen.Program | None = None,
) -> dict:
    """Entries set to 0 one at a time (then the rest to 1) while the sides stay separated
    (by enclosures at 53 bits; with a `program`, while float64 sees a clear difference: the
    result is a candidate that `certify` must still separate)."""
    kept = dict(values)
    spent = 0

    def differs() -> bool:
        if program is not None:
            return _clear(program, kept)
        return _looks_different(left, right, kept, enclosed)

    for key in list(kept):
        if spent >= budget:
            break
        old = kept[key]
        kept[key] = 0
        spent += 1
        if not differs():
            kept[key] = old
    for key, old in list(kept.items()):
        if old in (0, 1) or spent >= budget:
            continue
        kept[key] = 1
        spent += 1
        if not differs():
            kept[key] = old
    return kept


# ---- the walker: interval arithmetic over sympy's nodes ---------------------------------------


@dataclass(frozen=True)
class _Arith:
    number: Callable[[sympy.Rational], Any]
    exp: Callable[[Any], Any]
    log: Callable[[Any], Any]
    sqrt: Callable[[Any], Any]
    cos: Callable[[Any], Any]
    sin: Callable[[Any], Any]
    pi: Callable[[], Any]
    e: Callable[[], Any]


def _iv_number(q: sympy.Rational) -> Any:
    if q.is_Integer:
        return iv.mpf(int(q))
    return iv.mpf(int(q.p)) / iv.mpf(int(q.q))


_IV = _Arith(
    number=_iv_number,
    exp=iv.exp,
    log=iv.log,
    sqrt=iv.sqrt,
    cos=iv.cos,
    sin=iv.sin,
    pi=lambda: iv.pi,
    e=lambda: iv.e,
)


def enclose(e: sympy.Basic, values: Mapping[sympy.Basic, int]) -> Any:
    """An interval (mpmath `iv`, at its current precision) that contains the value of `e`."""
    return _walk(e, values, _IV)


def _walk(e: sympy.Basic, values: Mapping[sympy.Basic, int], ar: _Arith) -> Any:
    memo: dict[sympy.Basic, Any] = {}

    def go(x: sympy.Basic) -> Any:
        hit = memo.get(x)
        if hit is not None:
            return hit
        out = one(x)
        memo[x] = out
        return out

    def one(x: sympy.Basic) -> Any:
        if x in values:
            return ar.number(sympy.Integer(values[x]))
        if isinstance(x, sympy.Rational):
            return ar.number(x)
        if x is sympy.pi:
            return ar.pi()
        if x is sympy.E:
            return ar.e()
        if isinstance(x, sympy.Add):
            return _fold(go(a) for a in x.args)
        if isinstance(x, sympy.Mul):
            return _product(go(a) for a in x.args)
        if isinstance(x, sympy.Pow):
            return _power(x, go, ar)
        if isinstance(x, sympy.exp):
            return ar.exp(_moderate(go(x.args[0])))
        if isinstance(x, sympy.log) and len(x.args) == 1:
            return ar.log(go(x.args[0]))
        if isinstance(x, sympy.cos):
            return ar.cos(go(x.args[0]))
        if isinstance(x, sympy.sin):
            return ar.sin(go(x.args[0]))
        if isinstance(x, sympy.tan):
            return ar.sin(go(x.args[0])) / ar.cos(go(x.args[0]))
        if isinstance(x, sympy.tanh):
            t = ar.exp(2 * _moderate(go(x.args[0])))
            return 1 - 2 / (t + 1)  # one occurrence of t: no widening of the enclosure
        if isinstance(x, sympy.Abs):
            return abs(go(x.args[0]))
        if isinstance(x, sympy.Max | sympy.Min):
            return _extreme([go(a) for a in x.args], isinstance(x, sympy.Max))
        raise Unsupported(f"cannot enclose {type(x).__name__}: {x}")

    return go(e)


def enclose_program(program: screen.Program, values: Mapping[sympy.Basic, int]) -> tuple:
    """Both sides of a compiled program enclosed (the steps of `enclose`, in the same order,
    over registers instead of a walk of sympy's nodes)."""
    regs: list[Any] = [None] * program.size
    for i, atom in enumerate(program.atoms):
        regs[i] = _IV.number(sympy.Integer(values[atom]))
    for r, q in program.numbers:
        regs[r] = _IV.number(q)
    for r, op, args, k in program.steps:
        regs[r] = _iv_step(op, [regs[a] for a in args], k)
    return regs[program.sides[0]], regs[program.sides[1]]


def _iv_step(op: int, args: list[Any], k: Any) -> Any:
    if op == screen.ADD:
        return _fold(args)
    if op == screen.MUL:
        return _product(args)
    if op == screen.POW:
        if isinstance(k, int):
            b = args[0]
            return b**k if k >= 0 else 1 / (b ** (-k))
        if k == sympy.S.Half:
            return _IV.sqrt(args[0])
        if k == -sympy.S.Half:
            return 1 / _IV.sqrt(args[0])
        return _IV.exp(_IV.log(args[0]) * _IV.number(k))
    if op == screen.EXP:
        return _IV.exp(_moderate(args[0]))
    if op == screen.LOG:
        return _IV.log(args[0])
    if op == screen.COS:
        return _IV.cos(args[0])
    if op == screen.SIN:
        return _IV.sin(args[0])
    if op == screen.TAN:
        return _IV.sin(args[0]) / _IV.cos(args[0])
    if op == screen.TANH:
        t = _IV.exp(2 * _moderate(args[0]))
        return 1 - 2 / (t + 1)
    if op == screen.ABS:
        return abs(args[0])
    if op in (screen.MAX, screen.MIN):
        return _extreme(args, op == screen.MAX)
    raise Unsupported(f"no enclosure for step {op}")


_ENCLOSED = (
    sympy.Add,
    sympy.Mul,
    sympy.Pow,
    sympy.exp,
    sympy.cos,
    sympy.sin,
    sympy.tan,
    sympy.tanh,
    sympy.Abs,
    sympy.Max,
    sympy.Min,
)


def can_enclose(e: sympy.Basic) -> bool:
    """Whether `enclose` evaluates every node of `e` (numbers, entries, scalars, + × powers,
    exp, log, cos, sin, tan, tanh, |x|, max, min, pi, e); the values of the atoms are not
    needed to tell."""
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, (sympy.Indexed, sympy.Symbol, sympy.Rational)) or x in (sympy.pi, sympy.E):
            continue
        if isinstance(x, sympy.log) and len(x.args) == 1:
            stack.extend(x.args)
        elif isinstance(x, _ENCLOSED):
            stack.extend(x.args)
        else:
            return False
    return True


#: Above this, `exp` of an enclosure is not taken (`e^{e^{e^{e^x}}}`: a number of millions of
#: digits, whose enclosure would take without end).
MAX_EXPONENT = 10_000


def _moderate(v: Any) -> Any:
    """`v` when exp of it is a number of moderate size (either sign), else Unsupported."""
    try:
        lo, hi = v.a, v.b
        if hi > MAX_EXPONENT or lo < -MAX_EXPONENT:
            raise Unsupported("an exponent too large to enclose")
    except (AttributeError, TypeError):
        pass  # a plain number: mpmath's own arithmetic bounds it
    return v


def _extreme(items: list[Any], largest: bool) -> Any:
    """The enclosure of the max (or min) of enclosed values: the max of the lower ends, the max
    of the upper ends (or the min of each)."""
    try:
        ends = [v._mpi_ for v in items]
    except AttributeError:
        raise Unsupported("max or min of values that are not enclosures") from None

    def pick(u: Any, v: Any) -> Any:
        first = libmp.mpf_lt(v, u) if largest else libmp.mpf_lt(u, v)
        return u if first else v

    lo, hi = ends[0]
    for a, b in ends[1:]:
        lo, hi = pick(lo, a), pick(hi, b)
    # outward rounding on the way back in keeps the enclosure
    return iv.mpf([mpmath.mp.make_mpf(lo), mpmath.mp.make_mpf(hi)])


def _fold(items) -> Any:
    it = iter(items)
    out = next(it)
    for v in it:
        out = out + v
    return out


def _product(items) -> Any:
    it = iter(items)
    out = next(it)
    for v in it:
        out = out * v
    return out


def _power(x: sympy.Pow, go: Callable[[sympy.Basic], Any], ar: _Arith) -> Any:
    base, ex = x.args
    if ex.is_Integer:
        b = go(base)
        k = int(ex)
        if k >= 0:
            return b**k
        return 1 / (b ** (-k))
    if ex == sympy.S.Half:
        return ar.sqrt(go(base))
    if ex == -sympy.S.Half:
        return 1 / ar.sqrt(go(base))
    if base is sympy.E:
        return ar.exp(go(ex))
    if isinstance(ex, sympy.Rational):
        b = go(base)  # b**(p/q) for b > 0 only; log refuses the rest
        return ar.exp(ar.log(b) * ar.number(ex))
    if base.is_Number and base.is_positive:
        # `10000^{2j/d}` at a point: a positive number to an enclosed exponent
        return ar.exp(ar.log(go(base)) * go(ex))
    raise Unsupported(f"cannot enclose the power {x}")


def separation_entries(
    s: Separation, name: Callable[[sympy.Basic], str]
) -> tuple[tuple[str, str], ...]:
    """The nonzero entries of a separation, named for a counterexample, then the rest as 0."""
    shown = sorted((name(k), str(v)) for k, v in s.values if v != 0)
    return tuple(shown) + ((("every other entry" if shown else "every entry"), "0"),)
