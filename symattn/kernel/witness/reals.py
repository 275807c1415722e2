"""Claims between real numbers (`\\sin(a+b) = \\sin a\\cos b + \\cos a\\sin b`): proved by exact
simplification to 0, refuted by a point certified with interval arithmetic, else undecided.

Imports only sympy, the kernel's dims, errors and limits, and witness.certify / witness.evidence;
must not import the other witnesses, proof or anything above them.

The free symbols of such a claim are real (`sympy.Symbol(..., real=True)`), never integers or
sizes. A proof is sympy rewriting the difference of the sides to exactly 0 with rules valid for
every real value (where both sides are defined); each proof is cross-checked by enclosures at a
few points, which must overlap. A refutation is a point of small positive integers at which
the two sides' enclosures are disjoint: so a claim about positions or counts fails there too.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import sympy

from symattn.kernel.dims import current
from symattn.kernel.errors import SoundnessAlarm
from symattn.kernel.limits import check_time
from symattn.kernel.witness import certify
from symattn.kernel.witness.evidence import Counterexample

__all__ = ["RealVerdict", "decide_close", "decide_reals", "is_real_claim"]

#: Functions of real numbers the decision reads; anything else leaves a claim to the witnesses.
_FUNCTIONS = (
    sympy.sin,
    sympy.cos,
    sympy.tan,
    sympy.tanh,
    sympy.exp,
    sympy.log,
    sympy.Abs,
    sympy.Max,
    sympy.Min,
    sympy.re,
    sympy.im,
)
#: Above this many operations the difference is not simplified (a hostile or huge formula).
MAX_OPS = 600
#: The largest power of a sum that is written out.
MAX_POWER = 64
#: Integer points tried for a counterexample, at most.
MAX_POINTS = 24
_POSITIVE = (1, 2, 3, 5)


@dataclass(frozen=True)
class RealVerdict:
    """`proved`, `false` or `unknown`, why, and the certified point when false."""

    status: str
    reason: str
    counterexample: Counterexample | None = None


def is_real_claim(lhs: sympy.Basic, rhs: sympy.Basic) -> bool:
    """Whether both sides are scalar expressions of real numbers the text leaves undeclared
    (real symbols, not integers), and perhaps of positive integers (a size, a position),
    built from + × powers and `_FUNCTIONS`. A claim of integers alone is not one.

    >>> a, b = sympy.symbols("a b", real=True)
    >>> n = sympy.Symbol("n", integer=True, positive=True)
    >>> is_real_claim(sympy.sin(a + b), sympy.sin(a) * sympy.cos(b)), is_real_claim(n, a * n)
    (True, True)
    >>> is_real_claim(n, n**2)
    False
    """
    sides = (lhs, rhs)
    if not all(isinstance(s, sympy.Expr) for s in sides):
        return False
    free = set().union(*(s.free_symbols for s in sides))
    real = [x for x in free if x.is_real is True and x.is_integer is not True]
    counts = [x for x in free if x.is_integer is True and x.is_positive is True]
    unit = any(s.has(sympy.I) for s in sides)  # `i^4 = 1`: the imaginary unit, no name
    if not (real or unit) or len(real) + len(counts) != len(free):
        return False
    return all(_readable(s) for s in sides)


def _readable(e: sympy.Basic) -> bool:
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, sympy.Symbol | sympy.Rational) or x in (sympy.pi, sympy.E, sympy.I):
            continue
        if isinstance(x, (sympy.Add, sympy.Mul, sympy.Pow, *_FUNCTIONS)):
            if isinstance(x, sympy.log) and len(x.args) != 1:
                return False
            stack.extend(x.args)
            continue
        return False
    return True


def decide_reals(lhs: sympy.Expr, rhs: sympy.Expr, seed: int = 0) -> RealVerdict:
    """Decide `lhs = rhs` for every real value of its free symbols.

    >>> a, b = sympy.symbols("a b", real=True)
    >>> decide_reals(sympy.sin(a + b), sympy.sin(a)*sympy.cos(b) + sympy.cos(a)*sympy.sin(b)).status
    'proved'
    >>> v = decide_reals(sympy.sin(a + b), sympy.sin(a)*sympy.cos(b) - sympy.cos(a)*sympy.sin(b))
    >>> v.status, v.counterexample.entries
    ('false', (('a', '1'), ('b', '1')))
    """
    difference = lhs - rhs
    names = [x.name for x in difference.free_symbols]
    twice = sorted({x for x in names if names.count(x) > 1})
    if twice:  # `i` as an index of p_{i,2j} and as a number in `\sin(i\omega)`
        shown = ", ".join(twice)
        return RealVerdict("unknown", f"{shown} is read as two different kinds of value")
    if difference == 0:
        return RealVerdict("proved", "the two sides are the same expression")
    if difference.has(sympy.I):
        return _decide_complex(lhs, rhs, seed)
    if sympy.count_ops(difference) > MAX_OPS or _large_powers(difference):
        found = _refute(lhs, rhs, seed)
        if found is not None:
            return RealVerdict("false", "the two sides differ", found)
        return RealVerdict(
            "unknown",
            f"the claim is too large to simplify (over {MAX_OPS} operations, or a power "
            f"above {MAX_POWER} of a sum), and no point of small positive integers was found "
            "where the two sides certainly differ",
        )
    if vanishes(difference):
        _cross_check(lhs, rhs, seed)
        return RealVerdict("proved", "the difference of the sides simplifies to 0")
    found = _refute(lhs, rhs, seed)
    if found is not None:
        return RealVerdict("false", "the two sides differ", found)
    positive = {x: sympy.Dummy(x.name, positive=True) for x in difference.free_symbols}
    if vanishes(difference.xreplace(positive)):
        shown = ", ".join(sorted(str(x) for x in positive))
        return RealVerdict(
            "unknown",
            f"it holds for positive {shown} (the difference simplifies to 0 then), but not "
            "provably for every real value, and the text does not say they are positive",
        )
    return RealVerdict(
        "unknown",
        "the difference of the sides does not simplify to 0, and no point of small positive "
        "integers was found where the two sides certainly differ",
    )


def _decide_complex(lhs: sympy.Expr, rhs: sympy.Expr, seed: int) -> RealVerdict:
    """A claim with the imaginary unit between expressions of real numbers: it holds when the
    real parts and the imaginary parts of its sides are equal, each a claim between reals."""
    difference = lhs - rhs
    if sympy.count_ops(difference) > MAX_OPS or _large_powers(difference):
        return RealVerdict("unknown", f"the claim is too large to simplify (over {MAX_OPS} ops)")
    parts = _parts(lhs, rhs)
    if vanishes(difference) or (parts and all(vanishes(a - b) for a, b in parts)):
        for a, b in parts:
            _cross_check(a, b, seed)
        return RealVerdict("proved", "the difference of the sides simplifies to 0")
    if not parts:
        return RealVerdict("unknown", "its real and imaginary parts are not separated")
    for (a, b), part in zip(parts, ("real", "imaginary"), strict=True):
        found = _refute(a, b, seed)
        if found is not None:
            shown = dict(found.entries)
            point = {x: sympy.Integer(shown[str(x)]) for x in difference.free_symbols}
            values = [_complex_value(side.xreplace(point)) for side in (lhs, rhs)]
            found = dataclasses.replace(found, lhs=values[0], rhs=values[1])
            return RealVerdict("false", f"the {part} parts of the two sides differ", found)
    return RealVerdict(
        "unknown",
        "the difference of the sides does not simplify to 0, and no point of small positive "
        "integers was found where their real or imaginary parts certainly differ",
    )


def _parts(lhs: sympy.Expr, rhs: sympy.Expr) -> list[tuple[sympy.Expr, sympy.Expr]]:
    """(real parts, imaginary parts) of the two sides, each free of i; [] when sympy leaves
    a part unseparated (`re(...)`, an argument)."""
    check_time()
    try:
        left, right = (sympy.expand_complex(side).as_real_imag() for side in (lhs, rhs))
    except (TypeError, ValueError, NotImplementedError):
        return []
    parts = [(left[0], right[0]), (left[1], right[1])]
    kept = (sympy.re, sympy.im, sympy.arg, sympy.atan2)
    if any(side.has(*kept) or side.has(sympy.I) for pair in parts for side in pair):
        return []
    return parts


def _complex_value(value: sympy.Expr) -> str:
    """`1 + 2i` as written when its parts are rational, else to 12 digits."""
    re, im = sympy.expand_complex(value).as_real_imag()
    if not (re.is_Rational and im.is_Rational):
        re, im = sympy.N(re, 12), sympy.N(im, 12)
    if im == 0:
        return str(re)
    imag = "i" if im == 1 else "-i" if im == -1 else f"{im}i"
    if re == 0:
        return imag
    return f"{re} - {imag[1:]}" if imag.startswith("-") else f"{re} + {imag}"


def _large_powers(e: sympy.Expr) -> bool:
    """A power above `MAX_POWER` of a sum, or one whose exponent is not a plain number: writing
    it out (expand) or simplifying it could take without end (`(x+y)^{10^{10}}`)."""
    for p in e.atoms(sympy.Pow):
        ex = p.exp
        if ex.is_Number and abs(ex) > MAX_POWER and not p.base.is_Atom:
            return True
    return False


def vanishes(e: sympy.Expr) -> bool:
    """Whether exact rewriting (expand, trigonometric expansion, exp form, simplify) takes `e`
    to exactly 0: rules valid for every complex value, so for every real one.

    >>> x = sympy.Symbol("x", real=True)
    >>> vanishes(sympy.cos(x)**2 + sympy.sin(x)**2 - 1), vanishes(sympy.cos(x) - 1)
    (True, False)
    """
    steps: Sequence[Callable[[sympy.Expr], sympy.Expr]] = (
        sympy.expand,
        lambda x: sympy.expand(sympy.expand_trig(x)),
        lambda x: sympy.expand(x, trig=True),
        sympy.trigsimp,
        lambda x: sympy.simplify(sympy.expand_trig(x)),
        lambda x: sympy.simplify(x.rewrite(sympy.exp)),
        lambda x: sympy.simplify(sympy.piecewise_fold(x.rewrite(sympy.Piecewise))),
    )
    for step in steps:
        check_time()
        if step(e) == 0:
            return True
    return False


def _points(symbols: list[sympy.Symbol], seed: int) -> list[dict[sympy.Symbol, int]]:
    """All ones and all twos first, then small positive integers drawn with a fixed seed (the
    same verdict each run). Positive only: a text's undeclared number may be a length, a
    variance or a position, and `\\sqrt{\\sigma^2} = \\sigma` is no error of its own."""
    rng = random.Random(seed)
    out = [dict.fromkeys(symbols, 1), dict.fromkeys(symbols, 2)]
    for _ in range(MAX_POINTS - 2):
        out.append({x: rng.choice(_POSITIVE) for x in symbols})
    return out


def _refute(lhs: sympy.Expr, rhs: sympy.Expr, seed: int) -> Counterexample | None:
    symbols = sorted(lhs.free_symbols | rhs.free_symbols, key=str)
    related = set(current().equalities)
    for v in current().equalities.values():
        related |= sympy.sympify(v, strict=True).free_symbols
    if related & set(symbols):
        return None  # a size related to others (`d_v = d/H`): a point must respect it
    for point in _points(symbols, seed):
        check_time()
        found = certify.certify(lhs, rhs, point)
        if found is not None:
            entries = tuple((str(x), str(point[x])) for x in symbols)
            exact = [
                side.xreplace({x: sympy.Integer(v) for x, v in point.items()})
                for side in (lhs, rhs)
            ]
            if all(v.is_Rational for v in exact):  # both values shown as they are
                return Counterexample((), (), entries, str(exact[0]), str(exact[1]), exact=True)
            return Counterexample(
                (), (), entries, found.shown("left"), found.shown("right"), False, certified=True
            )
    return None


def _cross_check(lhs: sympy.Expr, rhs: sympy.Expr, seed: int) -> None:
    """A proof whose sides certainly differ at a point is a bug of the rewriting: an alarm."""
    symbols = sorted(lhs.free_symbols | rhs.free_symbols, key=str)
    for point in _points(symbols, seed)[:3]:
        if certify.certify(lhs, rhs, point) is not None:
            raise SoundnessAlarm(
                f"kernel soundness alarm: {lhs} = {rhs} simplified to 0, but the sides "
                f"certainly differ at {point}; please report this"
            )


#: An approximation is false only when it misses by more than one unit of its last digit and
#: by more than this share of the value (`\\approx 0.25` for 0.2447 is a rounding, not an error).
CLOSE_SHARE = sympy.Rational(1, 10)


def decide_close(
    value: sympy.Expr, written: sympy.Expr, unit: sympy.Rational, rounded: bool = False
) -> RealVerdict:
    """`value \\approx written`, two numbers, `written` given to `unit` (0.001 for 0.245):
    proved when they certainly differ by less than `unit`, false when they certainly differ by
    more than `unit` and by more than `CLOSE_SHARE` of `written`, else unknown.
    `rounded`: `unit` is already half a unit of the last digit (a result written with `=`),
    so a difference within it is the value rounded.

    >>> e, r = sympy.E, sympy.Rational
    >>> weight = e**2 / (e + e**2 + e**3)
    >>> decide_close(weight, r(245, 1000), r(1, 1000)).status
    'proved'
    >>> decide_close(weight, r(35, 100), r(1, 100)).status
    'false'
    >>> decide_close(r(1, 3), r(4, 10), r(1, 10)).status  # within 0.1, but 1/3 rounds to 0.3
    'unknown'
    """
    if value.free_symbols or written.free_symbols:
        return RealVerdict("unknown", "an approximation is decided between numbers only")
    saved = certify.iv.prec
    try:
        certify.iv.prec = 113
        gap = certify.enclose(value - written, {})
        size = certify.enclose(written, {})
    except (certify.Unsupported, ArithmeticError, ValueError, TypeError):
        return RealVerdict("unknown", "the value cannot be enclosed")
    finally:
        certify.iv.prec = saved
    lo, hi = (_exact(v) for v in gap._mpi_)
    ends = [_exact(v) for v in size._mpi_]
    if lo is None or hi is None or None in ends:
        return RealVerdict("unknown", "the value cannot be enclosed")
    near = min(abs(v) for v in ends if v is not None)
    shown = sympy.Float((lo + hi) / 2, 6)
    # (strictly, but for a result rounded with `=`: a value a whole unit away is written with
    # other digits in every rounding, to nearest, down, up: 14 is not `\\approx 15`)
    within = (hi <= unit and lo >= -unit) if rounded else (hi < unit and lo > -unit)
    if within:
        if rounded or _rounded_or_cut(lo, hi, unit, written):  # (`rounded`: unit is half)
            return RealVerdict("proved", f"they differ by {shown}, within {unit} (the last digit)")
        why = (
            f"they differ by {shown}, within {unit} (the last digit), but {_decimal(written)} "
            "is neither the value rounded nor cut at that digit: not decided"
        )
        return RealVerdict("unknown", why)
    far = min(abs(lo), abs(hi))
    if (lo > 0 or hi < 0) and far > unit and far > CLOSE_SHARE * near:
        value_shown = sympy.Float((lo + hi) / 2 + written, 6)
        why = (
            f"the value is {value_shown}, the number written {_decimal(written)}: they differ by "
            f"{shown}, more than {unit} (the last digit written) and 10% of it"
        )
        return RealVerdict("false", why)
    return RealVerdict("unknown", f"they differ by {shown}: a coarse rounding, not decided")


def _rounded_or_cut(
    lo: sympy.Rational, hi: sympy.Rational, unit: sympy.Rational, written: sympy.Rational
) -> bool:
    """`value - written` in [lo, hi] makes `written` the value rounded to `unit` (within half
    of it) or cut there (the value lies between `written` and the next digit away from zero):
    `\\approx 0.33` and `\\approx 2.71` for e, never `\\approx 0.4` for 1/3."""
    half = unit / 2
    if lo >= -half and hi <= half:
        return True
    if written >= 0:
        return bool(lo >= 0 and hi < unit)
    return bool(hi <= 0 and lo > -unit)


def _exact(raw: tuple[int, int, int, int]) -> sympy.Rational | None:
    """An endpoint of an enclosure as an exact fraction (None when infinite or undefined)."""
    if raw in (certify.libmp.finf, certify.libmp.fninf, certify.libmp.fnan):
        return None
    p, q = certify.libmp.to_rational(raw)
    return sympy.Rational(p, q)


def _decimal(q: sympy.Rational) -> str:
    """A fraction of a number written in decimals, as written (`7/2` -> `3.5`)."""
    mp = certify.mpmath
    return str(mp.nstr(mp.mpf(int(q.p)) / int(q.q), 15))
