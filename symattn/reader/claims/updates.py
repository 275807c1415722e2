"""Updates written with `=`: `x = x + \\mathrm{MultiHead}(\\mathrm{LayerNorm}(x))` is a step.
Imports the reader's AST only; never the translator, the resolver, the checker or the CLI."""

from __future__ import annotations

from symattn.reader.syntax import ast

__all__ = ["is_update"]


def _zero(node: ast.Node) -> bool:
    return isinstance(node, ast.Number) and node.text.strip("0.") == ""


def _mentions(node: ast.Node, key: str) -> bool:
    if ast.dump(node) == key:
        return True
    return any(_mentions(k, key) for k in ast.children(node))


def is_update(left: ast.Node, right: ast.Node) -> bool:
    """Whether `left = right` gives the name `left` a new value made from its old one, as a
    residual connection does: the name is a term added on the right to a function of itself
    (`x + F(x)`). As a claim it would say that `F(x)` is zero, which no text means.

    >>> from symattn.reader.syntax.parse import parse_formula
    >>> def update(text):
    ...     claim = parse_formula(text).items[0]
    ...     return is_update(claim.subjects[0], claim.steps[0].rhs)
    >>> update("x = x + FFN(x)"), update("h_t = h_{t-1} + x_t"), update("x = x + 0")
    (True, False, False)
    >>> update("X = X + XW"), update("x = x + y"), update("x = y - x"), update("X = XW")
    (True, False, False, False)
    """
    if not isinstance(left, ast.Symbol) or not isinstance(right, ast.Add):
        return False
    key = ast.dump(left)
    signs = ("+", *right.ops)
    hits = [k for k, t in enumerate(right.terms) if signs[k] == "+" and ast.dump(t) == key]
    others = [t for k, t in enumerate(right.terms) if k not in hits]
    if len(hits) != 1 or not others or all(_zero(t) for t in others):
        return False
    return any(_mentions(t, key) for t in others)
