"""Sizes in force: values (`n = 5`) and relations (`d_v = d/H`), closed under substitution.

Imports sympy, the reader's AST and the translator's `Problem`; never the resolver's scope.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import sympy

from symattn.reader.syntax import ast
from symattn.reader.terms.translator import Problem

__all__ = ["SizeContext", "close_sizes", "reduced", "size_value", "solve_for", "substitute"]


@dataclass(frozen=True)
class SizeContext:
    """The sizes in force: values (`n = 5`, and what follows from them) and relations left."""

    bindings: dict[sympy.Symbol, sympy.Integer]
    relations: dict[sympy.Symbol, sympy.Expr]
    problems: tuple[str, ...] = ()


def close_sizes(
    bindings: dict[sympy.Symbol, sympy.Integer], relations: dict[sympy.Symbol, sympy.Expr]
) -> SizeContext:
    """Close bindings and relations under substitution: `d_v = d/H` with `d = 512, H = 8` gives
    `d_v = 64`; `d_v = 64` with `d_v = d/H` gives `d = 64*H`. Contradictions (`d_v = 32` with
    `d_v = d/H = 64`) and values that are not positive integers are reported in `problems`.

    >>> from symattn.kernel.dims import d, d_v, H
    >>> close_sizes({d: sympy.Integer(512), H: sympy.Integer(8)}, {d_v: d / H}).bindings[d_v]
    64
    >>> close_sizes({d_v: sympy.Integer(64)}, {d_v: d / H}).relations
    {d: 64*H}
    """
    args = (tuple(bindings.items()), tuple(relations.items()))
    got = _closed(*args) if _hashable(args) else _closed.__wrapped__(*args)
    return SizeContext(dict(got.bindings), dict(got.relations), got.problems)


@functools.lru_cache(maxsize=4096)
def _closed(
    bindings: tuple[tuple[sympy.Symbol, sympy.Integer], ...],
    relations: tuple[tuple[sympy.Symbol, sympy.Expr], ...],
) -> SizeContext:
    """`close_sizes` of the bindings and relations given as pairs, in order (a function of them
    alone: remembered, since every front end and context of a text asks again)."""
    b = dict(bindings)
    written = dict(relations)
    rel: dict[sympy.Symbol, sympy.Expr] = {}
    problems: list[str] = []
    todo = list(relations)
    for _ in range(64):
        if not todo:
            break
        x, e = todo.pop(0)
        value = substitute(e, b, rel)
        target = substitute(x, b, rel)
        diff = reduced(target - value)
        if diff == 0:
            continue
        if not diff.free_symbols:
            shown = f"{x} = {written.get(x, e)}"
            problems.append(f"{shown} = {value}, but {x} = {target} here")
            continue
        solved = solve_for(target, value, [x], set(b) | set(rel))
        if solved is None:
            continue  # not solvable for one size: kept by the kernel as written, unused here
        sym, sol = solved
        if sol.free_symbols:
            rel[sym] = sol
            rel = {k: substitute(v, b, rel) for k, v in rel.items()}
            continue
        if not (sol.is_Integer and sol > 0):
            problems.append(
                f"{x} = {written.get(x, e)} gives {sym} = {sol}: not a positive integer"
            )
            continue
        b[sym] = sympy.Integer(sol)
        # a new value: earlier relations may now give values too
        todo.extend(rel.items())
        rel = {}
    return SizeContext(b, rel, tuple(problems))


def substitute(
    e: sympy.Expr, b: dict[sympy.Symbol, sympy.Integer], rel: dict[sympy.Symbol, sympy.Expr]
) -> sympy.Expr:
    """`e` with the values and then the relations put in, to a fixed point, cancelled."""
    args = (e, frozenset(b.items()), frozenset(rel.items())) if _hashable((e, b, rel)) else None
    return _substituted(*args) if args is not None else _substituted.__wrapped__(e, b, rel)


@functools.lru_cache(maxsize=8192)
def _substituted(
    e: sympy.Expr,
    values: frozenset[tuple[sympy.Symbol, sympy.Integer]],
    relations: frozenset[tuple[sympy.Symbol, sympy.Expr]],
) -> sympy.Expr:
    """`substitute` (xreplace is simultaneous, so the pairs' order does not matter)."""
    b, rel = dict(values), dict(relations)
    for _ in range(16):
        new = e.xreplace(b).xreplace(rel)
        if new == e:
            break
        e = new
    return sympy.cancel(e) if e.free_symbols else e


def solve_for(
    lhs: sympy.Expr, rhs: sympy.Expr, prefer: list[sympy.Symbol], taken: set[sympy.Symbol]
) -> tuple[sympy.Symbol, sympy.Expr] | None:
    """Solve `lhs = rhs` for one size not yet given: the preferred ones first, then a size
    whose solution is a polynomial with integer coefficients (`d = 64*H` before `H = d/64`)."""
    args = (lhs, rhs, tuple(prefer), frozenset(taken))
    return _solved(*args) if _hashable(args) else _solved.__wrapped__(*args)


def _hashable(args: object) -> bool:
    """Whether `args` (a tuple, or dicts inside it) can key a cache."""
    try:
        hash(tuple(tuple(x.items()) if isinstance(x, dict) else x for x in args))  # type: ignore[attr-defined]
    except TypeError:
        return False
    return True


@functools.lru_cache(maxsize=4096)
def _solved(
    lhs: sympy.Expr,
    rhs: sympy.Expr,
    prefer: tuple[sympy.Symbol, ...],
    taken: frozenset[sympy.Symbol],
) -> tuple[sympy.Symbol, sympy.Expr] | None:
    """`solve_for` (a function of its arguments alone: remembered)."""
    free = sorted((lhs - rhs).free_symbols, key=lambda x: x.name)
    order = [x for x in prefer if x in free] + [x for x in free if x not in prefer]
    fallback = None
    for sym in order:
        if sym in taken or not isinstance(sym, sympy.Symbol):
            continue
        try:
            sols = sympy.solve(sympy.Eq(lhs, rhs), sym)
        except (NotImplementedError, ValueError):
            continue
        if len(sols) != 1 or sym in sols[0].free_symbols:
            continue
        sol = sympy.cancel(sols[0])
        if sym in prefer or _integer_polynomial(sol):
            return sym, sol
        fallback = fallback or (sym, sol)
    return fallback


@functools.lru_cache(maxsize=8192)
def reduced(e: sympy.Expr) -> sympy.Expr:
    """`cancel(together(e))`: 0 exactly when a difference of sizes is identically 0
    (remembered by `e`)."""
    return sympy.cancel(sympy.together(e))


def _integer_polynomial(e: sympy.Expr) -> bool:
    if not e.free_symbols:
        return bool(e.is_Integer)
    try:
        poly = sympy.Poly(e, *sorted(e.free_symbols, key=lambda x: x.name))
    except sympy.PolynomialError:
        return False
    return all(c.is_Integer for c in poly.coeffs())


def size_value(v: sympy.Expr, what: str, node: ast.Node | None) -> sympy.Integer:
    if not (v.is_Integer and v > 0):
        raise Problem("shape_error", f"{what}: a size must be a positive integer", node)
    return sympy.Integer(v)
