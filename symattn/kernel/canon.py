"""Canonical form of index sums: equality up to renaming of bound indices, sums split and merged.

Imports only sympy and the kernel below it (errors, dims, exp_built, limits, expr, ranges); must
not import anything above the kernel.

The normal form of a scalar is a sum of terms `c * f_1 * ... * f_m` where each `f` is an atom
(an entry, `exp(...)`, a power of a normal form, a `Piecewise`) or a `Sum` whose body cannot be
split into factors over disjoint indices. Bound indices are renamed canonically, so two
expressions that differ only in the names of bound indices, in the order of independent sums,
or in how factors are grouped under sums, have the same normal form. Every rewrite used is an
identity (distributivity, `sum_comm`, `mul_sum`, counting, the causal-mask cut), so equal
normal forms prove equality; different normal forms prove nothing.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache

import sympy

from symattn.kernel.dims import dims_equal
from symattn.kernel.errors import Signal
from symattn.kernel.exp_built import exp_of
from symattn.kernel.expr import (
    Dot,
    Entry,
    MatExpr,
    expand_entries,
)
from symattn.kernel.limits import check_time
from symattn.kernel.ranges import Range

_MAX_TERMS = 20_000
_MAX_PERM_VARS = 6


class TooLarge(Signal):
    """The expansion would exceed the term budget; the caller reports 'not proved'."""


@dataclass
class _Term:
    coeff: sympy.Expr
    factors: list[sympy.Expr] = field(default_factory=list)
    limits: list[tuple[sympy.Symbol, sympy.Expr, sympy.Expr]] = field(default_factory=list)


def normal_form(e: sympy.Expr, ranges: Mapping[sympy.Symbol, Range] | None = None) -> sympy.Expr:
    """The canonical form of a scalar expression (entries and dot products are expanded first).

    >>> from symattn.kernel.expr import MatSym, index
    >>> from symattn.kernel.dims import n, d_k
    >>> Q, K = MatSym("Q", n, d_k), MatSym("K", n, d_k)
    >>> i, j, r, s = (index(x) for x in "ijrs")
    >>> a = sympy.Sum(Q[i, r] * K[j, r], (r, 1, d_k))
    >>> b = sympy.Sum(K[j, s] * Q[i, s], (s, 1, d_k))
    >>> a == b, normal_form(a) == normal_form(b)
    (False, True)
    """
    e = expand_entries(sympy.sympify(e, strict=True))  # never parse text
    rng = dict(ranges or {})
    return _canon(_norm(e, _Ctx(rng)))


@dataclass
class _Ctx:
    ranges: dict[sympy.Symbol, Range]
    counter: itertools.count = field(default_factory=itertools.count)

    def dummy(self) -> sympy.Dummy:
        # a Dummy never equals a user's symbol, so renaming cannot capture a free index; it
        # carries no assumption but integrality (its limits say the rest)
        return sympy.Dummy(f"t{next(self.counter)}", integer=True)


def _norm(e: sympy.Expr, ctx: _Ctx) -> sympy.Expr:
    terms = _terms(e, ctx)
    return sympy.Add(*_merge_ranges([_build(t, ctx) for t in terms]))


def _merge_ranges(terms: list[sympy.Expr]) -> list[sympy.Expr]:
    """`c sum_{j=lo}^{mid} f_j + c sum_{j=mid+1}^{hi} f_j = c sum_{j=lo}^{hi} f_j` (the blocks of
    an online softmax), when both ranges provably run forward (`mid >= lo - 1`, `hi >= mid`),
    so that neither is a reversed range the one semantics of sums refuses."""
    changed = True
    while changed:
        changed = False
        for a, b in itertools.permutations(range(len(terms)), 2):
            merged = _merged(terms[a], terms[b])
            if merged is not None:
                terms = [t for k, t in enumerate(terms) if k not in (a, b)] + [merged]
                changed = True
                break
    return terms


def _one_sum(t: sympy.Expr) -> tuple[sympy.Expr, sympy.Sum] | None:
    sums = [f for f in sympy.Mul.make_args(t) if isinstance(f, sympy.Sum)]
    if len(sums) != 1 or len(sums[0].limits) != 1:
        return None
    return t / sums[0], sums[0]


_SLOT = sympy.Dummy("slot", integer=True)


def _merged(x: sympy.Expr, y: sympy.Expr) -> sympy.Expr | None:
    px, py = _one_sum(x), _one_sum(y)
    if px is None or py is None or px[0] != py[0]:
        return None
    (v, lo, mid), (w, lo2, hi) = px[1].limits[0], py[1].limits[0]
    if sympy.expand(lo2 - mid - 1) != 0:
        return None
    if px[1].function.xreplace({v: _SLOT}) != py[1].function.xreplace({w: _SLOT}):
        return None
    if not (_forward(lo, mid) and _forward(lo2, hi)):
        return None
    return px[0] * sympy.Sum(px[1].function, (v, lo, hi))


def _terms(e: sympy.Expr, ctx: _Ctx) -> list[_Term]:
    check_time()  # a deadline set by symattn.kernel.limits.time_budget stops the expansion here
    if e.is_Number:
        return [] if e == 0 else [_Term(e)]
    if isinstance(e, sympy.Add):
        out: list[_Term] = []
        for a in e.args:
            out.extend(_terms(a, ctx))
        _budget(out)
        return out
    if isinstance(e, sympy.Mul):
        acc = [_Term(sympy.Integer(1))]
        for a in e.args:
            acc = [_mul(x, y) for x in acc for y in _terms(a, ctx)]
            _budget(acc)
        return acc
    if isinstance(e, sympy.Sum):
        return _sum_terms(e, ctx)
    if isinstance(e, sympy.Pow) and e.exp.is_Integer and 1 < e.exp <= 6 and _splits(e.base):
        return _terms(sympy.Mul(*([e.base] * int(e.exp)), evaluate=False), ctx)
    masked = _masked_terms(e, ctx)
    if masked is not None:
        return masked
    a = _atom(e, ctx)
    if a == 0:
        return []
    if a.is_Number:
        return [_Term(a)]
    return [_Term(sympy.Integer(1), [a])]


def _masked_terms(e: sympy.Expr, ctx: _Ctx) -> list[_Term] | None:
    """`[c] (a + b) = [c] a + [c] b` and `[c] k e^x y = k e^x [c] y` for a mask `[c]`
    (`Piecewise((v, c), (0, True))`): numbers and exp are finite, so they may leave the mask,
    and a masked ALiBi score `e^{S_ij - λi + λj}` shows its row factor `e^{-λi}`. A sum leaves
    the mask too, `[c] sum_k x_k = sum_k [c] x_k`: its index is a fresh dummy that c cannot
    mention. None: not a mask."""
    if not (isinstance(e, sympy.Piecewise) and len(e.args) == 2):
        return None
    (value, cond), (other, otherwise) = e.args
    if other != 0 or otherwise != sympy.true or value in (sympy.oo, -sympy.oo):
        return None
    terms = _terms(value, ctx)
    if not all(_forward(lo, hi) for t in terms for _, lo, hi in t.limits):
        return None  # a guarded sum whose range may run backwards stays under its guard
    out = []
    for t in terms:
        factors = _split_exps(t.factors)
        exps = [f for f in factors if isinstance(f, sympy.exp)]
        rest = sympy.Mul(*(f for f in factors if not isinstance(f, sympy.exp)))
        mask = sympy.Piecewise((rest, cond), (0, True))
        out.append(_Term(t.coeff, [*exps, mask], list(t.limits)))
    return out


def _forward(lo: sympy.Expr, hi: sympy.Expr) -> bool:
    """The range lo..hi is provably empty or forward (never reversed) for every size."""
    return sympy.expand(hi - lo + 1).is_nonnegative is True


def _ceiling_one(k: sympy.Expr, ctx: _Ctx) -> sympy.Expr:
    """`ceil(h/r) = 1` when the free index h runs over 1..r (MQA: every query head reads K/V
    head 1), and `ceil(((g-1)r + t)/r) = g` when t runs over 1..r and g is an integer (query
    head t of group g); `ceil((h+1)/r)` or an h whose range is unknown stays as it is."""

    def one(c: sympy.Basic) -> sympy.Basic:
        num, den = sympy.fraction(sympy.together(c.args[0]))
        num = sympy.expand(num)
        for x in sorted(num.free_symbols, key=str):
            r = ctx.ranges.get(x)
            if r is None or r[0] != 1 or not dims_equal(r[1], den):
                continue
            whole = sympy.cancel((num - x) / den)  # num = den * whole + x, 1 <= x <= den
            if whole.is_integer is True and not whole.has(x):
                return whole + 1
        return c

    if not k.has(sympy.ceiling):
        return k
    return k.replace(lambda x: isinstance(x, sympy.ceiling), one)


def _splits(e: sympy.Expr) -> bool:
    return isinstance(e, (sympy.Add, sympy.Sum, sympy.Mul))


def _budget(terms: list[_Term]) -> None:
    if len(terms) > _MAX_TERMS:
        raise TooLarge(f"more than {_MAX_TERMS} terms")


def _mul(x: _Term, y: _Term) -> _Term:
    return _Term(x.coeff * y.coeff, x.factors + y.factors, x.limits + y.limits)


def _sum_terms(e: sympy.Sum, ctx: _Ctx) -> list[_Term]:
    body = e.function
    limits = []
    # sympy lists limits innermost first; rename each bound index so no capture can happen.
    for v, lo, hi in reversed(e.limits):
        nv = ctx.dummy()
        body = body.xreplace({v: nv})
        limits.append((v, nv, lo, hi))
    renamed = []
    mapping: dict[sympy.Symbol, sympy.Symbol] = {}
    for v, nv, lo, hi in limits:
        renamed.append((nv, lo.xreplace(mapping), hi.xreplace(mapping)))
        mapping[v] = nv
    body, renamed = _by_groups(body, renamed, ctx)
    out = []
    for t in _terms(body, ctx):
        out.append(_Term(t.coeff, t.factors, renamed + t.limits))
    return out


def _by_groups(body: sympy.Expr, limits: list, ctx: _Ctx) -> tuple[sympy.Expr, list]:
    """`sum_regroup`: `sum_{h=1}^{qr} f(h, ceil(h/r)) = sum_{g=1}^{q} sum_{t=1}^{r}
    f((g-1)r + t, g)` when the body reads `ceil(h/r)` (the K/V head of query head h, `q` groups
    of `r` heads) and q = hi/r is a positive integer for every size. An identity: h = (g-1)r + t
    runs once over 1..qr as g runs over 1..q and t over 1..r, and then ceil(h/r) = g. With one
    group (q = 1) the sum keeps its index and ceil(h/r) = 1."""
    for k, (v, lo, hi) in enumerate(limits):
        if lo != 1:
            continue
        for c in sorted(body.atoms(sympy.ceiling), key=str):
            num, den = sympy.fraction(sympy.together(c.args[0]))
            if (
                num != v
                or not isinstance(den, sympy.Symbol)
                or not (den.is_integer and den.is_positive)
            ):
                continue
            q = sympy.cancel(hi / den)
            if not (q.is_integer is True and q.is_positive is True) or q.has(v):
                continue
            if q == 1:
                return body.xreplace({c: sympy.Integer(1)}), limits
            g, t = ctx.dummy(), ctx.dummy()
            at = {v: (g - 1) * den + t}
            new_body = body.xreplace({c: g}).xreplace(at)
            rest = [(w, a.xreplace(at), b.xreplace(at)) for w, a, b in limits[k + 1 :]]
            return new_body, [
                *limits[:k],
                (g, sympy.Integer(1), q),
                (t, sympy.Integer(1), den),
                *rest,
            ]
    return body, limits


def _atom(e: sympy.Expr, ctx: _Ctx) -> sympy.Expr:
    if isinstance(e, sympy.exp):
        return exp_of(_norm(e.args[0], ctx))
    if isinstance(e, sympy.Pow):
        return sympy.Pow(_norm(e.base, ctx), _norm(e.exp, ctx))
    if isinstance(e, sympy.Indexed):
        return sympy.Indexed(e.base, *(sympy.expand(_ceiling_one(k, ctx)) for k in e.indices))
    if isinstance(e, sympy.Piecewise):
        pieces = [(_norm(x, ctx), c) for x, c in e.args]
        return sympy.Piecewise(*pieces)
    if isinstance(e, (sympy.Symbol, MatExpr, Entry, Dot)) or not e.args:
        return e
    return e.func(*(_norm(a, ctx) if isinstance(a, sympy.Expr) else a for a in e.args))


def _build(t: _Term, ctx: _Ctx) -> sympy.Expr:
    factors = _split_exps(t.factors)
    limits = list(t.limits)
    while _cut_masks(factors, limits, ctx):
        factors = _split_exps(factors)
    coeff, factors, limits = _drop_unused(t.coeff, factors, limits)
    bound = {v for v, _, _ in limits}
    outside = [f for f in factors if not (f.free_symbols & bound)]
    inside = [f for f in factors if f.free_symbols & bound]
    sums = [_make_sum(fs, ls) for fs, ls in _components(inside, limits)]
    return coeff * sympy.Mul(*outside) * sympy.Mul(*sums)


def _split_exps(factors: list[sympy.Expr]) -> list[sympy.Expr]:
    out: list[sympy.Expr] = []
    for f in factors:
        if isinstance(f, sympy.exp) and isinstance(f.args[0], sympy.Add):
            out.extend(sympy.exp(a, evaluate=False) for a in f.args[0].args)
        elif isinstance(f, sympy.Mul):
            out.extend(_split_exps(list(f.args)))
        else:
            out.append(f)
    return out


def _cut_masks(factors: list[sympy.Expr], limits: list, ctx: _Ctx) -> bool:
    """`sum_{j=1}^{n} [j <= i] x_j = sum_{j=1}^{i} x_j` when i ranges within 1..n."""
    for pos, f in enumerate(factors):
        cut = _mask_cut(f, limits, ctx)
        if cut is not None:
            k, new_limit, value = cut
            limits[k] = new_limit
            factors[pos] = value
            return True
    return False


def _mask_cut(f: sympy.Expr, limits: list, ctx: _Ctx):
    if not (isinstance(f, sympy.Piecewise) and len(f.args) == 2):
        return None
    (value, cond), (other, otherwise) = f.args
    if other != 0 or otherwise != sympy.true or not isinstance(cond, (sympy.Le, sympy.Ge)):
        return None
    small, big = (cond.lhs, cond.rhs) if isinstance(cond, sympy.Le) else (cond.rhs, cond.lhs)
    for k, (v, lo, hi) in enumerate(limits):
        if (v == small and hi == big) or (v == big and lo == small):
            return k, (v, lo, hi), value  # the limits already imply the condition
        if v == small and lo == 1 and _within(big, hi, limits[:k], ctx):
            return k, (v, lo, big), value
        if v == big and _within(small, hi, limits[:k], ctx) and lo == 1:
            return k, (v, small, hi), value
    return None


def _within(x: sympy.Expr, hi: sympy.Expr, outer: list, ctx: _Ctx) -> bool:
    for v, lo, h in outer:
        if v == x:
            return lo == 1 and _at_most(h, hi)
    r = ctx.ranges.get(x)
    if r is None:  # a dim (a positive integer) at most hi: the key padding's valid length
        return x.is_integer is True and x.is_positive is True and _at_most(x, hi)
    return r[0] == 1 and _at_most(r[1], hi)


def _at_most(h: sympy.Expr, hi: sympy.Expr) -> bool:
    """`h <= hi` for every size: equal, or `hi - h` provably non-negative (n <= n + 1)."""
    return dims_equal(h, hi) or sympy.expand(hi - h).is_nonnegative is True


def _drop_unused(coeff: sympy.Expr, factors: list[sympy.Expr], limits: list):
    changed = True
    while changed:
        changed = False
        for k, (v, lo, hi) in enumerate(limits):
            used = any(v in f.free_symbols for f in factors) or any(
                v in (l2.free_symbols | h2.free_symbols) for _, l2, h2 in limits
            )
            count = sympy.expand(hi - lo + 1)
            if not used and count.is_nonnegative:
                del limits[k]
                if count.free_symbols:
                    factors.append(count)
                else:
                    coeff = coeff * count
                changed = True
                break
    return coeff, factors, limits


def _components(inside: list[sympy.Expr], limits: list):
    parent = {v: v for v, _, _ in limits}

    def find(x: sympy.Symbol) -> sympy.Symbol:
        while parent[x] != x:
            x = parent[x]
        return x

    def link(vs: set[sympy.Symbol]) -> None:
        vs_ = sorted(vs, key=str)
        for a in vs_[1:]:
            parent[find(a)] = find(vs_[0])

    for f in inside:
        link(f.free_symbols & parent.keys())
    for v, lo, hi in limits:
        link(({v} | lo.free_symbols | hi.free_symbols) & parent.keys())
    groups: dict[sympy.Symbol, tuple[list, list]] = {}
    for v, lo, hi in limits:
        groups.setdefault(find(v), ([], []))[1].append((v, lo, hi))
    for f in inside:
        root = find(next(iter(sorted(f.free_symbols & parent.keys(), key=str))))
        groups[root][0].append(f)
    return list(groups.values())


def _make_sum(factors: list[sympy.Expr], limits: list) -> sympy.Expr:
    # sympy wants the innermost limit first; ours run outermost first.
    return sympy.Sum(sympy.Mul(*factors), *reversed(limits))


# ---- canonical renaming of bound indices --------------------------------------------------


def _height(e: sympy.Basic) -> int:
    if isinstance(e, sympy.Sum):
        return 1 + _height(e.function)
    return max((_height(a) for a in e.args), default=0)


@lru_cache(maxsize=4096)
def _canon(e: sympy.Basic) -> sympy.Basic:
    if isinstance(e, sympy.Sum):
        return _canon_sum(e)
    if not e.args or isinstance(e, (sympy.Symbol, sympy.Indexed)):
        return e
    return e.func(*(_canon(a) for a in e.args))


def _canon_sum(e: sympy.Sum) -> sympy.Expr:
    height = _height(e)
    body = e.function
    lims = list(reversed(e.limits))  # outermost first
    own = [v for v, _, _ in lims]
    best: tuple[str, sympy.Expr] | None = None
    perms = _namings(lims)
    for perm in perms:
        check_time()
        names = {v: _bound_name(height, perm[k]) for k, v in enumerate(own)}
        new_body = _canon(body.xreplace(names))
        new_lims = [(names[v], lo.xreplace(names), hi.xreplace(names)) for v, lo, hi in lims]
        new_lims = _order_limits(new_lims)
        candidate = sympy.Sum(new_body, *reversed(new_lims))
        if len(perms) == 1:
            return candidate
        key = str((new_body, new_lims))
        if best is None or key < best[0]:
            best = (key, candidate)
    assert best is not None
    return best[1]


def _namings(lims: list) -> list[tuple[int, ...]]:
    """The canonical names a sum's own indices may take (`perm[k]` for the k-th limit): an
    index takes a name from the block of its range, so only indices over the same range trade
    names. Two sums equal up to renaming have the same ranges in some order, hence the same
    candidates, and the least of them is the same form; far fewer candidates than every
    permutation when the ranges differ. Ranges that mention another own index form one block."""
    own = {v for v, _, _ in lims}
    signatures = [
        "~" if (lo.free_symbols | hi.free_symbols) & own else str((lo, hi)) for _, lo, hi in lims
    ]
    blocks: list[list[int]] = []
    for sig in sorted(set(signatures), key=lambda x: (x == "~", x)):
        blocks.append([k for k, x in enumerate(signatures) if x == sig])
    starts = list(itertools.accumulate((len(b) for b in blocks), initial=0))
    count = math.prod(math.factorial(len(b)) for b in blocks)
    choices = [
        list(itertools.permutations(range(start, start + len(b))))
        if count <= math.factorial(_MAX_PERM_VARS)
        else [tuple(range(start, start + len(b)))]
        for start, b in zip(starts[:-1], blocks, strict=True)
    ]
    out: list[tuple[int, ...]] = []
    for pick in itertools.product(*choices):
        perm = [0] * len(lims)
        for b, names in zip(blocks, pick, strict=True):
            for k, name in zip(b, names, strict=True):
                perm[k] = name
        out.append(tuple(perm))
    return out


def _bound_name(height: int, k: int) -> sympy.Dummy:
    # Canonical names must compare equal across calls: a Dummy with a fixed name and index is
    # one symbol, and still never equal to any Symbol a user can write.
    return sympy.Dummy(f"b{height}_{k}", dummy_index=_DUMMY_INDEX, integer=True)


_DUMMY_INDEX = 0x5A7_7E4


def _order_limits(lims: list) -> list:
    """Independent limits in name order; a limit that mentions another comes after it."""
    out: list = []
    pending = sorted(lims, key=lambda x: x[0].name)
    while pending:
        placed = {v for v, _, _ in out}
        for k, (v, lo, hi) in enumerate(pending):
            deps = (lo.free_symbols | hi.free_symbols) & {w for w, _, _ in pending}
            if not (deps - placed - {v}):
                out.append(pending.pop(k))
                break
        else:  # a cycle cannot come from real sums; keep the order given
            out.extend(pending)
            break
    return out
