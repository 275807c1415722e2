"""A false claim that gives the entries of a matrix with no value (`A_{ij} = \\exp(S_{ij}) /
\\sum_k \\exp(S_{ik})`, A never defined by the text): the text defines A's entries there, or
states a property of A; it is no identity the checker can refute. Imports the kernel only."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sympy

from symattn.kernel.expr import MatSym, walk
from symattn.kernel.nodes import Entry, Row

__all__ = ["names_read", "one_sided", "states_entries"]


def _bare(side: Any) -> MatSym | None:
    """The matrix of `side` when `side` is one of its entries or rows, nothing more."""
    if isinstance(side, Entry | Row) and isinstance(side.args[0], MatSym):
        return side.args[0]
    return None


def states_entries(pairs: list[tuple[Any, Any]], defs: Mapping[Any, Any]) -> str:
    """The name of the matrix with no value whose entry or row the claim's left side is, the
    right side not mentioning it ('' if none): `A_{ij} = ...` gives A's entries a value.

    >>> from symattn.kernel.dims import n
    >>> from symattn.kernel.expr import MatSym
    >>> A, S = MatSym("A", n, n), MatSym("S", n, n)
    >>> i, j = sympy.symbols("i j", integer=True)
    >>> states_entries([(Entry(A, i, j), sympy.exp(Entry(S, i, j)))], {})
    'A'
    >>> states_entries([(Entry(A, i, j), Entry(A, j, i))], {}), states_entries(
    ...     [(Entry(A, i, j), sympy.exp(Entry(S, i, j)))], {A: S})
    ('', '')
    """
    for lhs, rhs in pairs[:1]:  # the first side written: `A_{ij} = ...` gives A's entries
        m = _bare(lhs)
        if m is None or m in defs or not isinstance(rhs, sympy.Basic) or "∇" in m.name:
            continue  # (a gradient `dS_{ij}` has the value the backward pass gives it)
        if any(isinstance(x, MatSym) and x == m for x in walk(rhs)):
            continue
        return m.name
    return ""


def names_read(pairs: list[tuple[Any, Any]]) -> set[str]:
    """The names of the matrices and sizes the claim's sides are built from (`A`, `n`).

    >>> from symattn.kernel.dims import n
    >>> sorted(names_read([(MatSym("A", n, n), MatSym("S", n, n).T)]))
    ['A', 'S', 'n']
    """
    out: set[str] = set()
    for pair in pairs:
        for side in pair:
            if not isinstance(side, sympy.Basic):
                continue
            out |= {x.name for x in walk(side) if isinstance(x, MatSym)}
            out |= {s.name for s in side.free_symbols if isinstance(s, sympy.Symbol)}
    return out


def one_sided(pairs: list[tuple[Any, Any]], defs: Mapping[Any, Any]) -> str:
    """The matrices with no value that a false equation has on one side only, those of its left
    side first ('' if none): `\\sum_j a_{ij} v_j = \\frac{\\sum_j e^{q_i \\cdot k_j} v_j}{...}` with
    A never defined says what the text means by A's entries, not an identity in A.

    >>> from symattn.kernel.dims import n
    >>> A, V = MatSym("A", n, n), MatSym("V", n, n)
    >>> one_sided([(A @ V, V)], {}), one_sided([(A @ V, V @ A)], {})
    ('A', '')
    >>> one_sided([(A @ V, V)], {A: V})
    ''
    """
    for lhs, rhs in pairs:
        if not isinstance(lhs, sympy.Basic) or not isinstance(rhs, sympy.Basic):
            continue
        left, right = _free(lhs, defs), _free(rhs, defs)
        only = sorted(left - right) or sorted(right - left)
        if only:
            return ", ".join(only)
    return ""


def _free(side: sympy.Basic, defs: Mapping[Any, Any]) -> set[str]:
    return {
        x.name for x in walk(side) if isinstance(x, MatSym) and x not in defs and "∇" not in x.name
    }
