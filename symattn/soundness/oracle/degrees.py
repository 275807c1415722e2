"""The oracle's degree bound: how a claim's two sides can depend on its sizes and free indices.

Imports only the standard library and the oracle's own modules; nothing else from symattn
(a test checks it).

A size enters a claim as a number through a coefficient (`Sqrt`: `d_k ** (p/2)`), the bound of a
sum (`\\sum_{j=1}^{n}`) and the sums a product, a dot or a softmax hides (over the inner dim,
the row). Holding every entry fixed and counting each term of a sum as one more of the same
kind (`\\sum_{j=1}^{n} x_j` as if it were `n x`), each side at an index point is a rational
function of the sizes, in `sqrt(s)` where an odd power of `sqrt(s)` appears; a softmax is an
atom over its row sum, and the sizes inside its argument count at their degree there (two
softmaxes of generic scores agree only where their arguments do). The bound over-estimates:
a sum of fractions is taken over the product of their denominators.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from symattn.soundness.oracle.claims import (
    DIM_NAMES,
    Add,
    Block,
    ClaimSpec,
    ColSoftmax,
    Concat,
    Dim,
    Dot,
    Entry,
    FromCol,
    HeadMat,
    Ix,
    Mask,
    MatMul,
    MSum,
    Node,
    Num,
    Ones,
    Row,
    SAdd,
    Scale,
    SMul,
    Softmax,
    Sqrt,
    SSum,
    Sym,
    Tr,
    nodes,
)
from symattn.soundness.oracle.shapes import Shapes

# ---- degrees -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Deg:
    """A degree bound: in each variable, and in all of them."""

    each: Mapping[str, int] = field(default_factory=dict)
    total: int = 0

    def plus(self, o: Deg) -> Deg:
        keys = set(self.each) | set(o.each)
        return Deg({k: self.each.get(k, 0) + o.each.get(k, 0) for k in keys}, self.total + o.total)

    def join(self, o: Deg) -> Deg:
        keys = set(self.each) | set(o.each)
        return Deg(
            {k: max(self.each.get(k, 0), o.each.get(k, 0)) for k in keys},
            max(self.total, o.total),
        )


ZERO = Deg()


@dataclass(frozen=True)
class Frac:
    """Degree bounds of a numerator and a denominator."""

    num: Deg = ZERO
    den: Deg = ZERO

    def times(self, o: Frac) -> Frac:
        return Frac(self.num.plus(o.num), self.den.plus(o.den))

    def add(self, o: Frac) -> Frac:
        if not self.den.total and not o.den.total:
            return Frac(self.num.join(o.num), ZERO)
        return Frac(self.num.plus(o.den).join(o.num.plus(self.den)), self.den.plus(o.den))

    def repeated(self, count: Deg) -> Frac:
        """A sum of `count` terms of this kind."""
        return Frac(self.num.plus(count), self.den)


CONST = Frac()


# ---- the walker ----------------------------------------------------------------------------

# The sizes a context determines from others: `d = H d_v` under `d_v = d/H`.
DERIVED: dict[str, dict[str, dict[str, int]]] = {
    "d_v=d/H": {"d": {"H": 1, "d_v": 1}},
    "d_k=d/H": {"d": {"H": 1, "d_k": 1}},
    "d_k=d_v": {"d_k": {"d_v": 1}},
}


@dataclass(frozen=True)
class Bound:
    """The degree bound of `lhs - rhs` (cleared of denominators, atoms' arguments included) in
    each free size and free index, in all the sizes, and in `sqrt(s)` for the sizes in `halves`."""

    sizes: Mapping[str, int]
    total: int
    indices: Mapping[str, int]
    halves: frozenset[str]
    floor: int  # the largest constant of the claim


def bound(c: ClaimSpec, shapes: Shapes, relation: str = "") -> Bound:
    """The degree bound of a claim under a context's relation.

    >>> from fractions import Fraction
    >>> from symattn.soundness.oracle import D, Sym, Scale, SAdd, SMul, Num, Sqrt
    >>> from symattn.soundness.oracle.plans import NO_ASSUMPTION
    >>> Z = Sym("Z", D("n"), D("d_v"))
    >>> n_minus = lambda a: SAdd(Sqrt(D("n"), 2), Num(Fraction(-a)))  # n - a
    >>> poly = SMul(n_minus(2), n_minus(3))
    >>> b = bound(ClaimSpec(Scale(poly, Z), Z), Shapes(NO_ASSUMPTION))
    >>> dict(b.sizes), b.total, b.floor
    ({'n': 2}, 2, 1)
    """
    w = _Walker(shapes, relation, {name for name, _ in c.free}, _halves(c, relation))
    w.claim_vars = _sizes_of(c, relation)
    diff = w.of(c.lhs, {}).add(w.of(c.rhs, {}))
    each = diff.num.join(w.atoms)
    sizes = {k: v for k, v in each.each.items() if k not in w.free and v}
    indices = {k: v for k, v in each.each.items() if k in w.free and v}
    return Bound(sizes, each.total, indices, frozenset(w.halves), _floor(c))


class _Walker:
    def __init__(self, shapes: Shapes, relation: str, free: set[str], halves: set[str]):
        self.shapes, self.relation, self.free, self.halves = shapes, relation, free, halves
        self.atoms = ZERO
        self.claim_vars: set[str] = set()

    def dim(self, d: Dim, halves_of_power: int = 2) -> Deg:
        """`d ** (halves_of_power / 2)` as a degree in the free sizes (derived ones resolved)."""
        exps: dict[str, int] = {}
        for f in d.factors:
            for v, e in DERIVED.get(self.relation, {}).get(f, {f: 1}).items():
                exps[v] = exps.get(v, 0) + e * abs(halves_of_power)
        each = {v: (h if v in self.halves else h // 2) for v, h in exps.items()}
        self.claim_vars |= set(each)
        return Deg(each, sum(each.values()))

    def ix(self, e: Ix, env: Mapping[str, Deg]) -> Deg:
        out = ZERO
        for name, _ in e.terms:
            if name in env:
                out = out.join(env[name])
            elif name in self.free:
                out = out.join(Deg({name: 1}, 1))
            elif name in DIM_NAMES:  # anything else is unbound: ill-formed when evaluated
                out = out.join(self.dim(Dim(1, (name,))))
        return out

    def count(self, lo: Ix, hi: Ix, env: Mapping[str, Deg]) -> Deg:
        return self.ix(lo, env).join(self.ix(hi, env))

    def of(self, x: Node, env: Mapping[str, Deg]) -> Frac:
        f = _DEGREE.get(type(x))
        if f is None:
            raise TypeError(f"no degree bound for {type(x).__name__}")
        return f(self, x, env)

    def softmax(self, arg: Node, count: Dim, env: Mapping[str, Deg]) -> Frac:
        a = self.of(arg, env)
        self.atoms = self.atoms.join(a.num.plus(a.den))
        n = self.dim(count)
        if any(isinstance(y, Mask) for y in nodes(arg)):
            # a masked row sums over its first i entries: affine in every size and index
            every = set(self.claim_vars) | set(self.free) | set(n.each)
            n = n.join(Deg(dict.fromkeys(every, 1), 1))
        return Frac(ZERO, n)


_DEGREE: dict[type, Any] = {}


def _degree_of(*classes: type) -> Any:
    def add(f: Any) -> Any:
        _DEGREE.update(dict.fromkeys(classes, f))
        return f

    return add


@_degree_of(Sym, HeadMat, FromCol, Ones, Num)
def _const(w: _Walker, x: Any, env: Mapping[str, Deg]) -> Frac:
    for d in (getattr(x, "rows", None), getattr(x, "cols", None)):
        if d is not None:
            w.dim(d)  # a size of the claim even where it is no number
    return CONST


@_degree_of(Sqrt)
def _sqrt(w: _Walker, x: Sqrt, env: Mapping[str, Deg]) -> Frac:
    d = w.dim(x.dim, x.power)
    return Frac(d, ZERO) if x.power >= 0 else Frac(ZERO, d)


@_degree_of(Tr, Mask, Row, Block)
def _same(w: _Walker, x: Any, env: Mapping[str, Deg]) -> Frac:
    return w.of(x.a, env)


@_degree_of(Entry)
def _entry(w: _Walker, x: Entry, env: Mapping[str, Deg]) -> Frac:
    return w.of(x.m, env)


@_degree_of(MatMul)
def _matmul(w: _Walker, x: MatMul, env: Mapping[str, Deg]) -> Frac:
    inner = w.shapes.mat(x.a)[1]
    return w.of(x.a, env).times(w.of(x.b, env)).repeated(w.dim(inner))


@_degree_of(Dot)
def _dot(w: _Walker, x: Dot, env: Mapping[str, Deg]) -> Frac:
    length = w.shapes.mat(x.u)[1]
    return w.of(x.u, env).times(w.of(x.v, env)).repeated(w.dim(length))


@_degree_of(Add, SAdd)
def _add(w: _Walker, x: Any, env: Mapping[str, Deg]) -> Frac:
    return w.of(x.a, env).add(w.of(x.b, env))


@_degree_of(SMul)
def _smul(w: _Walker, x: SMul, env: Mapping[str, Deg]) -> Frac:
    return w.of(x.a, env).times(w.of(x.b, env))


@_degree_of(Scale)
def _scale(w: _Walker, x: Scale, env: Mapping[str, Deg]) -> Frac:
    return w.of(x.c, env).times(w.of(x.a, env))


@_degree_of(Softmax)
def _softmax(w: _Walker, x: Softmax, env: Mapping[str, Deg]) -> Frac:
    return w.softmax(x.a, w.shapes.mat(x.a)[1], env)


@_degree_of(ColSoftmax)
def _colsoftmax(w: _Walker, x: ColSoftmax, env: Mapping[str, Deg]) -> Frac:
    return w.softmax(x.a, w.shapes.mat(x.a)[0], env)


@_degree_of(Concat)
def _concat(w: _Walker, x: Concat, env: Mapping[str, Deg]) -> Frac:
    return w.of(x.body, {**env, x.var: w.dim(x.count)})


@_degree_of(MSum, SSum)
def _sum(w: _Walker, x: Any, env: Mapping[str, Deg]) -> Frac:
    count = w.count(x.lo, x.hi, env)
    return w.of(x.body, {**env, x.var: count}).repeated(count)


def _sizes_of(c: ClaimSpec, relation: str) -> set[str]:
    """Every free size the claim mentions: in a shape, a coefficient or an index."""
    out: set[str] = set()
    dims = [d for _, d in c.free]
    for side in (c.lhs, c.rhs):
        for x in nodes(side):
            for v in vars(x).values():
                if isinstance(v, Dim):
                    dims.append(v)
                elif isinstance(v, Ix):
                    dims.extend(Dim(1, (k,)) for k, _ in v.terms if k in DIM_NAMES)
    for d in dims:
        for f in d.factors:
            out |= set(DERIVED.get(relation, {}).get(f, {f: 1}))
    return out


def _halves(c: ClaimSpec, relation: str) -> set[str]:
    out: set[str] = set()
    for side in (c.lhs, c.rhs):
        for x in nodes(side):
            if isinstance(x, Sqrt) and x.power % 2:
                for f in x.dim.factors:
                    out |= set(DERIVED.get(relation, {}).get(f, {f: 1}))
    return out


def _floor(c: ClaimSpec) -> int:
    """The largest constant of the claim's indices and sizes (offsets, bounds, coefficients):
    below it a sum may be empty or reversed, a row or head missing, a function of another
    form. A number (`n - 3`) changes no range: distinct values decide a polynomial in it."""
    found = [1]
    for side in (c.lhs, c.rhs):
        for x in nodes(side):
            for v in vars(x).values():
                found.extend(_constants(v))
    for _, d in c.free:
        found.extend(_constants(d))
    return max(found)


def _constants(v: Any) -> Iterable[int]:
    if isinstance(v, Ix):
        return [abs(v.const), *(abs(k) for _, k in v.terms)]
    if isinstance(v, Dim):
        return [abs(v.coef)]
    return []
