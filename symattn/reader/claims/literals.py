"""Matrices written out in a worked example (`A` as a table of numbers): claims that reach them
are handed to the kernel entry by entry, with the written values in place of their entries.

Imports sympy and the kernel's expression nodes; never the scope, the checker or the CLI.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

import sympy
from sympy import Indexed

from symattn.kernel.errors import Signal
from symattn.kernel.expr import (
    Entry,
    MatExpr,
    MatSym,
    expand_entries,
    index,
    named_leaves,
    substitute_definitions,
    substituted,
    summed,
    walk,
)
from symattn.kernel.semantics import ReversedRange, summation_range

__all__ = ["MAX_CASES", "LiteralProblem", "entry_pairs", "unfold"]

#: At most this many concrete cases per claim (indices enumerated over a table's rows).
MAX_CASES = 400

Pair = tuple[sympy.Basic, sympy.Basic]


class LiteralProblem(Signal):
    """A claim that reaches a written-out matrix but cannot be reduced to its entries."""


def unfold(e: sympy.Basic, defs: Mapping[sympy.Basic, MatExpr], rounds: int = 20) -> sympy.Basic:
    """Every definition substituted, to a fixed point (definitions never refer to themselves)."""
    e, done = substitute_definitions(e, defs, rounds)
    if done:
        return e
    raise LiteralProblem("definitions nested too deeply")


def entry_pairs(
    lhs: sympy.Basic,
    rhs: sympy.Basic,
    defs: Mapping[sympy.Basic, MatExpr],
    literals: Mapping[str, sympy.Matrix],
) -> tuple[Pair, ...] | None:
    """The claim `lhs = rhs` as scalar claims with every entry of a written-out matrix replaced
    by its value; None when the claim does not reach one.

    Sound because each pair is an entry of the claim computed by the kernel's own `_entry`
    rules, and an index of a written-out matrix ranges over its rows (or columns), which are
    all enumerated: the claim holds iff every pair does. Entries at positions that stay
    symbolic, or sums whose range is not a number, are refused (`LiteralProblem`).

    >>> from symattn.kernel.dims import d_v
    >>> A, V = MatSym("A", 2, 2), MatSym("V", 2, d_v)
    >>> pairs = entry_pairs((A @ V).row(1), V.row(1), {}, {"A": sympy.Matrix([[1, 0], [0, 1]])})
    >>> [(str(a), str(b)) for a, b in pairs]
    [('Entry(MatSym(V, 2, d_v), 1, c_)', 'Entry(MatSym(V, 2, d_v), 1, c_)')]
    """
    lhs, rhs = unfold(lhs, defs), unfold(rhs, defs)
    names = {x.name for x in walk(lhs) if isinstance(x, MatSym)}
    names |= {x.name for x in walk(rhs) if isinstance(x, MatSym)}
    if not names & set(literals):
        return None
    for x in itertools.chain(walk(lhs), walk(rhs)):
        m = literals.get(x.name) if isinstance(x, MatSym) else None
        if m is not None and tuple(x.shape) != (m.rows, m.cols):
            raise LiteralProblem(f"{x.name} is written out {m.rows} × {m.cols}, not {x.shape}")
    leaves = {str(label): m for label, m in named_leaves(lhs, rhs)}
    if isinstance(lhs, MatExpr) != isinstance(rhs, MatExpr):
        raise LiteralProblem("a matrix compared with a scalar")
    cases: list[Pair] = []
    if isinstance(lhs, MatExpr):
        assert isinstance(rhs, MatExpr)
        ranges = []
        for size, name in zip(lhs.shape, ("r_", "c_"), strict=True):
            ranges.append(range(1, int(size) + 1) if size.is_Integer else [index(name)])
        for r, c in itertools.product(*ranges):
            cases.append((Entry(lhs, r, c), Entry(rhs, r, c)))
    else:
        cases.append((lhs, rhs))
    out: list[Pair] = []
    for a, b in cases:
        out.extend(_concrete(expand_entries(a), expand_entries(b), literals, leaves))
        if len(out) > MAX_CASES:
            raise LiteralProblem(f"more than {MAX_CASES} entries to compare")
    return tuple(out)


def _concrete(
    a: sympy.Expr, b: sympy.Expr, literals: Mapping[str, sympy.Matrix], leaves: dict[str, MatExpr]
) -> list[Pair]:
    """Both sides with sums over numeric ranges done and the written values put in; free
    indices that still pick an entry of a written-out matrix are enumerated over its range."""
    todo = [(a, b)]
    done: list[Pair] = []
    while todo:
        x, y = todo.pop()
        x, y = _put_values(_sums_done(x), literals), _put_values(_sums_done(y), literals)
        open_at = _open_indices(x, literals) | _open_indices(y, literals)
        if not open_at:
            done.append((_to_entries(x, leaves), _to_entries(y, leaves)))
            continue
        sym, size = min(open_at, key=lambda t: str(t[0]))
        sizes = sorted({k for s, k in open_at if s == sym})
        if len(sizes) > 1:
            # `(P^T)_{ws} = (P^T)_{sw}` with P 2 × 4: w runs over 1..4 on one side and 1..2
            # on the other, so one side is outside its table somewhere
            raise LiteralProblem(
                f"the index {sym} runs over 1..{sizes[0]} in one place and 1..{sizes[-1]} in "
                "another"
            )
        for v in range(1, size + 1):
            todo.append((x.xreplace({sym: v}), y.xreplace({sym: v})))
        if len(todo) + len(done) > MAX_CASES:
            raise LiteralProblem(f"more than {MAX_CASES} entries to compare")
    return done


def _sums_done(e: sympy.Basic) -> sympy.Basic:
    """Every sum whose range is numbers written out term by term, by the one semantics of sums
    (an empty range is 0, a reversed one is refused); a sum whose range is not known yet stays.
    sympy's `doit` would give Karr's convention instead (a sum from 3 down to 1 as minus the
    term at 2)."""
    if isinstance(e, sympy.Sum):
        *inner, (v, lo, hi) = e.limits  # sympy lists the innermost limit first
        lo, hi = _sums_done(lo), _sums_done(hi)
        if not (lo.is_Integer and hi.is_Integer):
            return e
        try:
            terms = summation_range(int(lo), int(hi), v)
        except ReversedRange as exc:
            raise LiteralProblem(str(exc)) from None
        body = summed(e.function, *inner) if inner else e.function
        return sympy.Add(*(_sums_done(substituted(body, {v: sympy.Integer(k)})) for k in terms))
    if not e.args or isinstance(e, (MatExpr, Indexed)):
        return e
    args = [_sums_done(a) for a in e.args]
    if all(a is b for a, b in zip(args, e.args, strict=True)):
        return e
    return e.func(*args)


def _put_values(e: sympy.Expr, literals: Mapping[str, sympy.Matrix]) -> sympy.Expr:
    subs = {}
    for x in e.atoms(Indexed):
        m = literals.get(str(x.base))
        if m is not None and all(k.is_Integer for k in x.indices):
            r, c = (int(k) for k in x.indices)
            if not (1 <= r <= m.rows and 1 <= c <= m.cols):
                raise LiteralProblem(f"entry ({r}, {c}) outside the {m.rows} × {m.cols} table")
            subs[x] = m[r - 1, c - 1]
    return e.xreplace(subs) if subs else e


def _open_indices(
    e: sympy.Expr, literals: Mapping[str, sympy.Matrix]
) -> set[tuple[sympy.Symbol, int]]:
    """Free indices at a position of a written-out matrix, with its size there; an entry whose
    position depends only on a summation index waits until the sum is done."""
    out: set[tuple[sympy.Symbol, int]] = set()
    stuck = False
    for x in e.atoms(Indexed):
        m = literals.get(str(x.base))
        if m is None:
            continue
        for k, size in zip(x.indices, (m.rows, m.cols), strict=True):
            if k.is_Integer:
                continue
            if isinstance(k, sympy.Symbol) and not _bound(e, k):
                out.add((k, int(size)))
            else:
                stuck = True
    if stuck and not out:
        raise LiteralProblem("an entry of a written-out matrix at a position not known")
    return out


def _bound(e: sympy.Expr, k: sympy.Symbol) -> bool:
    return any(k in {lim[0] for lim in s.limits} for s in e.atoms(sympy.Sum))


def _to_entries(e: sympy.Expr, leaves: dict[str, MatExpr]) -> sympy.Expr:
    """`V[j, u]` back to the kernel's `Entry(V, j, u)`, so every witness knows V's shape."""
    subs = {}
    for x in e.atoms(Indexed):
        leaf = leaves.get(str(x.base))
        if not isinstance(leaf, MatSym) or len(x.indices) != 2:
            raise LiteralProblem(f"cannot read back the entry {x}")
        subs[x] = Entry(leaf, *x.indices)
    return e.xreplace(subs) if subs else e
