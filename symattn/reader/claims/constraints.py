"""A condition the text states on a name it declared (`P \\in \\mathbb R^{n\\times n}$ with
$P^\\top P = I`): its cue, and the rewrite of `P^\\top P` to the identity in a claim's products.
Imports the kernel's expressions only; never the resolver, the checker or the CLI."""

from __future__ import annotations

import re

import sympy

from symattn.kernel.dims import dims_equal
from symattn.kernel.errors import SymattnError
from symattn.kernel.expr import MatExpr, MatMul, MatSym, Transpose

__all__ = ["CONSTRAINT", "identity_pattern", "rewrite_products", "squares", "witnessed"]

#: The words between a declaration and a condition on what it declares:
#: `P \\in ...$ with $P^TP = I`, `W \\in ...$ be a matrix such that $W^TW = I`.
CONSTRAINT = re.compile(
    r"^[\s,]*(?:(?:be|is)\s+(?:an?\s+)?(?:[A-Za-z]+\s+){0,2}?)?"
    r"(?P<word>with|such\s+that|satisfying|s\.\s*t\.|where|given(?:\s+that)?)\s*$",
    re.IGNORECASE,
)

Pattern = tuple[MatExpr, ...]


def _leaf(x: sympy.Basic) -> bool:
    return isinstance(x, MatSym) or (isinstance(x, Transpose) and isinstance(x.args[0], MatSym))


def _flat(x: MatExpr) -> list[MatExpr]:
    """The factors of a product, transposes of products turned around (`(PX)^T` is `X^T P^T`)."""
    if isinstance(x, MatMul):
        return [f for a in x.args for f in _flat(a)]
    if isinstance(x, Transpose):
        inner = x.args[0]
        if isinstance(inner, Transpose):
            return _flat(inner.args[0])
        if isinstance(inner, MatMul):
            return [f for a in reversed(inner.args) for f in _flat(Transpose(a))]
    return [x]


def identity_pattern(lhs: sympy.Basic, rhs: sympy.Basic) -> Pattern | None:
    """`P^T P = I` with I a square name the text does not declare: the factors of the side that
    is a product of two or more named matrices (or their transposes); None for anything else.

    >>> p, eye = MatSym("P", 3, 3), MatSym("I", 3, 3)
    >>> identity_pattern(p.T @ p, eye)
    (P^T, P)
    >>> identity_pattern(p, eye) is None
    True
    """
    for a, b in ((lhs, rhs), (rhs, lhs)):
        if not (isinstance(a, MatExpr) and isinstance(b, MatSym) and b.name == "I"):
            continue
        factors = _flat(a)
        if len(factors) >= 2 and all(_leaf(f) for f in factors):
            return tuple(factors)
    return None


def _deleted(factors: list[MatExpr], pattern: Pattern) -> list[MatExpr]:
    out: list[MatExpr] = []
    k, n = 0, len(pattern)
    while k < len(factors):
        if tuple(factors[k : k + n]) == pattern:
            k += n
        else:
            out.append(factors[k])
            k += 1
    return out


def rewrite_products(e: sympy.Basic, pattern: Pattern) -> sympy.Basic | None:
    """`e` with each run of the pattern's factors in a product dropped (it is the identity);
    None where a whole product would be dropped or the result does not typecheck.

    >>> p, x = MatSym("P", 3, 3), MatSym("X", 3, 2)
    >>> rewrite_products((p @ x).T @ (p @ x), (p.T, p))
    X^TX
    """
    if isinstance(e, MatMul | Transpose) and len(_flat(e)) > 1:
        parts = []
        for f in _flat(e):
            g = f if _leaf(f) else rewrite_products(f, pattern)
            if g is None:
                return None
            parts.append(g)
        kept = _deleted(parts, pattern)
        if not kept:
            return None
        try:
            out = kept[0]
            for f in kept[1:]:
                out = MatMul(out, f)
        except SymattnError:
            return None
        return out
    if not e.args or _leaf(e):
        return e
    args = []
    for a in e.args:
        b = rewrite_products(a, pattern)
        if b is None:
            return None
        args.append(b)
    if all(a is b for a, b in zip(e.args, args, strict=True)):
        return e
    try:
        return e.func(*args)
    except (SymattnError, TypeError, ValueError):  # a node not rebuilt from its arguments
        return None


def squares(pattern: Pattern) -> frozenset[MatSym]:
    """The names in a pattern's factors."""
    return frozenset(f if isinstance(f, MatSym) else f.args[0] for f in pattern)


def witnessed(pattern: Pattern) -> bool:
    """Whether some matrices satisfy the condition at every size: the pattern's names square,
    each the identity (`P = I` has `P^T P = I`), so a counterexample about the other names is
    one under the condition too.

    >>> p, w = MatSym("P", 3, 3), MatSym("W", 3, 2)
    >>> witnessed((p.T, p)), witnessed((w.T, w))
    (True, False)
    """
    return all(dims_equal(m.rows, m.cols) for m in squares(pattern))
