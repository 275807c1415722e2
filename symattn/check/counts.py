"""Equations between sizes and numbers (`d^2 = 65536`): decided at the values the text gave the
sizes, or undecided where only particular sizes satisfy them. Imports sympy and the kernel only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import sympy

from symattn.kernel.expr import MatExpr, walk


def _sizes_only(pairs: Sequence[tuple[Any, Any]]) -> set[sympy.Symbol] | None:
    """The sizes the pairs depend on, when they are scalar expressions in sizes and numbers
    alone (no matrix, no index, no unknown); None otherwise."""
    out: set[sympy.Symbol] = set()
    for pair in pairs:
        for side in pair:
            if not isinstance(side, sympy.Expr) or isinstance(side, MatExpr):
                return None
            if any(isinstance(x, MatExpr) for x in walk(side)):
                return None
            free = side.free_symbols
            if not all(
                isinstance(x, sympy.Symbol) and x.is_integer and x.is_positive for x in free
            ):
                return None
            out |= free
    return out


def _positive_integer_root(expr: sympy.Expr, x: sympy.Symbol) -> int | None:
    """A positive integer at which `expr` vanishes, exactly (from its linear factors), or None
    when it has none or is not a rational function of `x`."""
    num, _ = sympy.fraction(sympy.together(expr))
    try:
        poly = sympy.Poly(sympy.expand(num), x)
    except sympy.PolynomialError:
        raise ValueError("not a polynomial") from None
    if poly.is_zero:
        return None
    for factor, _ in sympy.factor_list(poly.as_expr(), x)[1]:
        p = sympy.Poly(factor, x)
        if p.degree() == 1:
            root = -p.nth(0) / p.nth(1)
            if root.is_integer and root > 0:
                return int(root)
    return None


def size_equation(
    pairs: Sequence[tuple[Any, Any]], earlier: Mapping[sympy.Symbol, sympy.Integer]
) -> tuple[str, str, str | None] | None:
    """For an equation between sizes and numbers that the kernel found false for symbolic
    sizes: (status, message, counterexample) at the values the text gave the sizes earlier, or
    `unknown` when particular sizes satisfy it and the text gives none here; None when the
    claim is not such an equation or no positive size satisfies it (false stands).

    >>> from symattn.kernel.dims import dim
    >>> d = dim("d")
    >>> size_equation([(d**2, sympy.Integer(65536))], {d: sympy.Integer(256)})[0]
    'checked'
    >>> size_equation([(d**2, sympy.Integer(65536))], {})[0]
    'unknown'
    >>> size_equation([(d**2, d**2 + 1)], {}) is None
    True
    """
    sizes = _sizes_only(pairs)
    if not sizes or any(side.atoms(sympy.Float) for pair in pairs for side in pair):
        return None  # (an approximate number: the kernel's tolerance decides those)
    if sizes <= set(earlier):
        at = {k: earlier[k] for k in sorted(sizes, key=str)}
        given = ", ".join(f"{k} = {v}" for k, v in at.items())
        for lhs, rhs in pairs:
            left, right = lhs.doit().subs(at), rhs.doit().subs(at)
            if sympy.simplify(left - right) != 0:
                msg = f"false at the values the text gave earlier ({given})"
                return "false", msg, f"at {given}: left side = {left}, right side = {right}"
        return "checked", f"holds at the values the text gave earlier ({given})", None
    if len(sizes) == 1:
        (x,) = sizes
        roots = []
        for lhs, rhs in pairs:
            try:
                r = _positive_integer_root(lhs.doit() - rhs.doit(), x)
            except ValueError:
                r = 0
            if r is None:
                return None  # no positive size satisfies this equation: false for every size
            roots.append(r)
        if all(r for r in roots):
            shown = f"{x} = {roots[0]}"
            return (
                "unknown",
                f"holds only at {shown}, a value the text does not give here",
                None,
            )
    names = ", ".join(sorted(str(x) for x in sizes))
    return (
        "unknown",
        f"an equation between the sizes {names} and numbers: it holds only for particular "
        "values, which the text does not give here",
        None,
    )
