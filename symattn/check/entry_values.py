"""A false claim that gives the entries of a matrix with no value (`A_{ij} = \\exp(S_{ij}) /
\\sum_k \\exp(S_{ik})`, A never defined by the text): the text defines A's entries there, or
states a property of A; it is no identity the checker can refute. Imports the kernel only."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import sympy

from symattn.kernel.expr import MatSym, walk
from symattn.kernel.nodes import Entry, Row
from symattn.kernel.partial import has_partial

__all__ = ["left_names", "one_sided", "states_entries"]


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
        if m is None or m in defs or not isinstance(rhs, sympy.Basic) or _not_written(m.name):
            continue  # (a gradient `dS_{ij}` has the value the backward pass gives it)
        if any(isinstance(x, MatSym) and x == m for x in walk(rhs)):
            continue
        return m.name
    return ""


#: a name the text writes for a matrix (`A`, `W_O`, `K_R`, `W'`): not a gradient (`S^∇`,
#: `∂L/∂W`, whose value the backward pass gives), nor a node of the kernel's (`E(S; 1, 1)`)
_TEXT_NAME = re.compile(r"[A-Za-z](?:_[A-Za-z0-9]+)?'*")


def _not_written(name: str) -> bool:
    return _TEXT_NAME.fullmatch(name) is None


def one_sided(claim: Any) -> str:
    """The matrices with no value that a false equation has on its left side only ('' if
    none): `\\sum_j a_{ij} v_j = \\frac{\\sum_j e^{q_i \\cdot k_j} v_j}{...}` with
    A never defined says what the text means by A's entries, not an identity in A.

    >>> from types import SimpleNamespace as N
    >>> from symattn.kernel.dims import n
    >>> A, V, i = MatSym("A", n, n), MatSym("V", n, n), sympy.Symbol("i", integer=True)
    >>> one_sided(N(pairs=[(Row(A, i) @ V, Row(V, i))], defs={}))
    'A'
    >>> one_sided(N(pairs=[(Row(A, i) @ V, Row(A, i))], defs={}))
    ''
    >>> one_sided(N(pairs=[(A @ V, V)], defs={}))  # A in a product: an identity in A
    ''
    """
    pairs, defs = claim.pairs, claim.defs
    for lhs, rhs in pairs:
        if not isinstance(lhs, sympy.Basic) or not isinstance(rhs, sympy.Basic):
            continue
        left, right = _entered(lhs, defs), _free(rhs, defs)
        only = sorted(left - right)  # what the left side names: the name being defined
        if only:
            return ", ".join(only)
    return ""


def _entered(side: sympy.Basic, defs: Mapping[Any, Any]) -> set[str]:
    """The matrices with no value that `side` is, or reads only by their entries and rows
    (`\\sum_j a_{ij} v_j`: A and V; not K of `(QK^T)_{ij}`, a product's entry)."""
    if isinstance(side, MatSym):
        return _free(side, defs)
    bare: set[str] = set()
    inside: set[str] = set()
    for x in walk(side):
        if isinstance(x, Entry | Row):
            if isinstance(x.args[0], MatSym):
                bare.add(x.args[0].name)
        elif isinstance(x, sympy.Basic) and not isinstance(x, MatSym):
            inside |= {a.name for a in x.args if isinstance(a, MatSym)}
    return (bare - inside) & _free(side, defs)


def _free(side: sympy.Basic, defs: Mapping[Any, Any]) -> set[str]:
    return {
        x.name
        for x in walk(side)
        if isinstance(x, MatSym) and x not in defs and not _not_written(x.name)
    }


def left_names(claim: Any) -> str:
    """The matrices with no value whose entries or value a false claim gives on its left side
    (`states_entries`, `one_sided`); '' for a claim that reads names of a worked example that
    has ended, which is left to that reading (`reader.claims.forgotten`)."""
    if getattr(claim, "forgotten", ""):
        return ""
    if any(has_partial(lhs, rhs) for lhs, rhs in claim.pairs):
        return ""  # `\partial S_{ij}/\partial Q_{ab} = K_{jb}`: a derivative, an identity in Q
    return states_entries(claim.pairs, claim.defs) or one_sided(claim)
