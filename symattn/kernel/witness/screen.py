"""A side at one explicit point compiled once, then run in float64 (to rank candidate entries)
or in exact rationals (to settle a near-tie); what a search finds in float64 is certified exactly.

Imports only sympy, math, fractions and kernel.errors; must not import the other witnesses, proof
or anything above them.

The counterexample search draws small integer entries several times at each index point.
Substituting them into sympy's expression tree (`xreplace`, then simplifying the difference)
costs a tree walk with sympy's constructors every time. Here the tree is turned once into a
straight-line program (one register a distinct subformula) that runs in plain floats or in
`fractions.Fraction`. Float64 never decides anything: a difference it sees is a candidate for
the exact route, and a near-tie (a difference below `NEAR_TIE` relative) is never called a
difference in float64. A program with no transcendental step is exact in `Fraction`, so it settles
a tie exactly: the sides are equal there, or the candidate goes to the exact route too.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from symattn.kernel.errors import Signal

#: Below this relative difference (|l - r| <= NEAR_TIE (1 + |l| + |r|)) float64 has no opinion.
NEAR_TIE = 1e-6

# register kinds: an atom's value, a number, or an operation on earlier registers
ADD, MUL, POW, EXP, LOG, COS, SIN, TAN, TANH, ABS, MAX, MIN = range(12)
_TRANSCENDENTAL = {EXP, LOG, COS, SIN, TAN, TANH}
_FUNCS = {
    sympy.exp: EXP,
    sympy.cos: COS,
    sympy.sin: SIN,
    sympy.tan: TAN,
    sympy.tanh: TANH,
    sympy.Abs: ABS,
}


class _Unsupported(Signal):
    """A node the program has no step for (private: `compile_sides` answers None)."""


@dataclass(frozen=True)
class Program:
    """Both sides of a claim at one point, as steps over registers.

    `atoms` are the free entries and scalars in the order their values are given; `numbers`
    the registers that hold a constant; `steps` (register, kind, argument registers, exponent:
    an int, a sympy Rational, or None) in an order where every argument comes first; `sides`
    the two result registers.
    """

    atoms: tuple[sympy.Basic, ...]
    numbers: tuple[tuple[int, sympy.Rational], ...]
    steps: tuple[tuple[int, int, tuple[int, ...], Any], ...]
    sides: tuple[int, int]
    size: int
    exact: bool  # no transcendental step and every power an integer one: Fraction is exact

    def run(self, values: Mapping[sympy.Basic, Any], kind: str) -> tuple[Any, Any] | None:
        """Both sides with the atoms at `values`, in `"float"` or `"exact"` arithmetic; None when
        a step has no value there (a division by 0, an overflow, a log of a negative number)."""
        if kind == "exact" and not self.exact:
            raise ValueError("a program with transcendental steps has no exact run")
        num: Callable[[sympy.Rational], Any] = _as_fraction if kind == "exact" else _as_float
        regs: list[Any] = [None] * self.size
        for i, atom in enumerate(self.atoms):
            regs[i] = num(sympy.Integer(values[atom]))
        for r, q in self.numbers:
            regs[r] = num(q)
        try:
            for r, op, args, k in self.steps:
                regs[r] = _step(op, [regs[a] for a in args], k, kind)
        except (ArithmeticError, ValueError, TypeError):
            return None
        left, right = regs[self.sides[0]], regs[self.sides[1]]
        if kind == "float" and not (math.isfinite(left) and math.isfinite(right)):
            return None
        return left, right


def compile_sides(
    left: sympy.Basic, right: sympy.Basic, atoms: Sequence[sympy.Basic]
) -> Program | None:
    """The program of `left` and `right` over `atoms`; None when a node has no step (a masked
    `-oo`, a function the program does not know, an atom not among `atoms`) or an entry's
    index is not a number.

    >>> x, y = sympy.symbols("x y")
    >>> p = compile_sides((x + y) ** 2, x**2 + 2 * x * y + y**2, [x, y])
    >>> p.run({x: 2, y: -1}, "float"), p.run({x: 2, y: -1}, "exact")
    ((1.0, 1.0), (Fraction(1, 1), Fraction(1, 1)))
    """
    entries = (a for a in atoms if isinstance(a, sympy.Indexed))
    if any(not all(k.is_Integer for k in a.indices) for a in entries):
        return None  # an entry at a symbolic index is not one value: not one explicit point
    registers: dict[sympy.Basic, int] = {a: i for i, a in enumerate(atoms)}
    numbers: list[tuple[int, sympy.Rational]] = []
    steps: list[tuple[int, int, tuple[int, ...], Any]] = []
    exact = [True]

    def reg(x: sympy.Basic) -> int:
        hit = registers.get(x)
        if hit is not None:
            return hit
        if isinstance(x, sympy.Rational):
            out = len(registers)
            numbers.append((out, x))
        else:
            op, args, k = _node(x)
            if op in _TRANSCENDENTAL or (op == POW and not isinstance(k, int)):
                exact[0] = False
            regs = tuple(reg(a) for a in args)
            out = len(registers)
            steps.append((out, op, regs, k))
        registers[x] = out
        return out

    try:
        sides = (reg(left), reg(right))
    except (_Unsupported, RecursionError):
        return None
    return Program(tuple(atoms), tuple(numbers), tuple(steps), sides, len(registers), exact[0])


def atoms_of(left: sympy.Basic, right: sympy.Basic) -> list[sympy.Basic]:
    """The entries (sorted by name) then the free scalars (by name) of the two sides: what
    `sympy.Basic.atoms` and a walk of every node give, found visiting each distinct subformula
    once (written-out sides share most of their subformulas).

    >>> Q = sympy.IndexedBase("Q"); c = sympy.Symbol("c")
    >>> atoms_of(c * Q[1, 2] + Q[1, 1], sympy.exp(Q[1, 1]))
    [Q[1, 1], Q[1, 2], c]
    """
    seen: set[sympy.Basic] = set()
    entries: set[sympy.Basic] = set()
    bare: set[sympy.Basic] = set()
    labels: set[sympy.Basic] = set()
    stack = [left, right]
    while stack:
        x = stack.pop()
        if x in seen:
            continue
        seen.add(x)
        if isinstance(x, sympy.Indexed):
            entries.add(x)
            labels.add(x.base.label)
            stack.extend(x.indices)  # an index left symbolic is no scalar (it is an integer)
        elif isinstance(x, sympy.Symbol):
            if not x.is_integer:
                bare.add(x)
        else:
            stack.extend(x.args)
    return sorted(entries, key=str) + sorted(bare - labels, key=lambda v: v.name)


def _node(x: sympy.Basic) -> tuple[int, tuple[sympy.Basic, ...], Any]:
    """(kind, arguments, integer exponent or None) of a node that is not a number or an atom."""
    if isinstance(x, sympy.Add):
        return ADD, x.args, None
    if isinstance(x, sympy.Mul):
        return MUL, x.args, None
    if isinstance(x, sympy.Pow):
        base, ex = x.args
        if ex.is_Integer:
            return POW, (base,), int(ex)
        if base is sympy.E:
            return EXP, (ex,), None
        if isinstance(ex, sympy.Rational):
            return POW, (base,), ex  # b^(p/q) for b > 0: no exact run
        raise _Unsupported(str(x))
    if isinstance(x, sympy.log) and len(x.args) == 1:
        return LOG, x.args, None
    if isinstance(x, sympy.Max | sympy.Min):
        return (MAX if isinstance(x, sympy.Max) else MIN), x.args, None
    op = _FUNCS.get(x.func)
    if op is None or len(x.args) != 1:
        raise _Unsupported(str(x))
    return op, x.args, None


def _as_float(q: sympy.Rational) -> float:
    return int(q.p) / int(q.q)


def _as_fraction(q: sympy.Rational) -> Fraction:
    return Fraction(int(q.p), int(q.q))


_UNARY: dict[int, Callable[[float], float]] = {
    EXP: math.exp,
    LOG: math.log,
    COS: math.cos,
    SIN: math.sin,
    TAN: math.tan,
    TANH: math.tanh,
}


def _step(op: int, args: list[Any], k: Any, kind: str) -> Any:
    if op == ADD:
        return math.fsum(args) if kind == "float" else sum(args, Fraction(0))
    if op == MUL:
        out = args[0]
        for v in args[1:]:
            out = out * v
        return out
    if op == POW:
        if isinstance(k, int):
            if k < 0 and args[0] == 0:
                raise ZeroDivisionError("0 to a negative power")
            return args[0] ** k
        if args[0] <= 0:
            raise ValueError("a fractional power of a number that is not positive")
        return math.pow(args[0], int(k.p) / int(k.q))
    if op == ABS:
        return abs(args[0])
    if op == MAX:
        return max(args)
    if op == MIN:
        return min(args)
    return _UNARY[op](args[0])


def near_tie(left: float, right: float) -> bool:
    """Whether float64 values are too close to call different (float64 decides nothing then).

    >>> near_tie(1.0, 1.0 + 1e-9), near_tie(1.0, 1.5)
    (True, False)
    """
    return abs(left - right) <= NEAR_TIE * (1 + abs(left) + abs(right))


def settled_equal(program: Program | None, values: Mapping[sympy.Basic, Any]) -> bool:
    """True only when the sides are exactly equal at `values`: float64 finds a near-tie and the
    program's exact run (rationals, no transcendental step) gives the same number on both sides.
    False means "not settled here", never "different": the caller's exact route decides.

    >>> x = sympy.Symbol("x")
    >>> eps = sympy.Rational(1, 10**12)
    >>> settled_equal(compile_sides(x * (1 + eps), x, [x]), {x: 1})
    False
    >>> settled_equal(compile_sides((x + 1) ** 2 - x**2, 2 * x + 1, [x]), {x: 3})
    True
    """
    if program is None or not program.exact:
        return False
    floats = program.run(values, "float")
    if floats is None or not near_tie(*floats):
        return False
    exact = program.run(values, "exact")
    return exact is not None and exact[0] == exact[1]
