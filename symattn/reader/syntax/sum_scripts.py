"""The ranges a `\\sum` subscript writes in other ways than `\\sum_{j=1}^{n}` or `\\sum_j`.

`\\sum_{kl}`, `\\sum_{k,l}` and `\\sum_{i,j=1}^{n}` are sums over each letter in turn;
`\\sum_{i \\in \\{1, \\ldots, n\\}}`, `\\sum_{i \\in 1 \\ldots n}`,
`\\sum_{i \\in [1, \\ldots, n]}`, `\\sum_{i = 1, \\ldots, n}` and `\\sum_{1 \\le i \\le n}`
run from 1 to n. A sum over a set the text names (`\\sum_{x \\in D}`) or over all letters but
one (`\\sum_{i \\ne j}`) is refused with what it runs over. Works on ast nodes and duck-typed
tokens; imports only the reader's AST.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from symattn.kernel.errors import ParseError
from symattn.reader.syntax import ast

Fail = Callable[[str, int], ParseError]
ToExpr = Callable[[Any], ast.Expr]
Range = tuple[ast.Symbol, ast.Expr | None, ast.Expr | None]


def one(at: int) -> ast.Number:
    return ast.Number("1", start=at, end=at)


def plus(bound: ast.Expr, op: str, at: int) -> ast.Expr:
    """`bound + 1` or `bound - 1`, as the text would write it."""
    return ast.Add((bound, one(at)), (op,), start=bound.start, end=bound.end)


def letter(node: Any) -> ast.Symbol | None:
    """A plain one-letter index (`k`, not `k_1`, `\\mathbf{k}` or `D`)."""
    if isinstance(node, ast.Symbol) and node.sub is None and node.font is None:
        if len(node.name) == 1 and node.name.islower():
            return node
    return None


def interval(items: Sequence[ast.Expr]) -> tuple[ast.Expr, ast.Expr] | None:
    """`1, \\ldots, n` or `1, 2, \\ldots, n` (written out with commas or without) -> (1, n);
    None for anything else (`1, 3, \\ldots, n` is no run of consecutive integers)."""
    if len(items) not in (3, 4) or not isinstance(items[-2], ast.Dots):
        return None
    if any(isinstance(x, ast.Dots) for x in (items[0], items[-1])):
        return None
    if len(items) == 4:
        first, second = items[0], items[1]
        if not (isinstance(first, ast.Number) and isinstance(second, ast.Number)):
            return None
        if not (first.text.isdigit() and second.text.isdigit()):
            return None
        if int(second.text) != int(first.text) + 1:
            return None
    return items[0], items[-1]


def members(bound: ast.Expr) -> tuple[ast.Expr, ast.Expr] | None:
    """The first and last of `\\{1, \\ldots, n\\}`, `1 \\ldots n` or `[1, \\ldots, n]`."""
    if isinstance(bound, ast.Set) and not bound.such_that:
        return interval(bound.items)
    if isinstance(bound, ast.Product):
        return interval(bound.factors)
    if isinstance(bound, ast.Group) and bound.delim in ("[", "{"):
        return interval(bound.items)
    return None


def set_range(var: ast.Symbol, bound: ast.Expr, at: int, fail: Fail) -> Range:
    """`i \\in \\{1, \\ldots, n\\}` -> (i, 1, n); a set the text names is refused."""
    got = members(bound)
    if got is not None:
        return var, got[0], got[1]
    if isinstance(bound, ast.Symbol):
        name = bound.name if bound.sub is None else f"{bound.name}_.."
        raise fail(
            f"\\sum_{{{var.name} \\in {name}}} runs over a set the text names, whose members "
            "the checker does not know: write the sum with bounds, as \\sum_{j=1}^{n}",
            at,
        )
    raise fail(
        f"cannot read the set \\sum_{{{var.name} \\in ..}} runs over: write \\{{1, \\ldots, n\\}} "
        "or [n], or the bounds \\sum_{j=1}^{n}",
        at,
    )


def chained(value: ast.Expr, rels: Sequence[tuple[str, ast.Expr]], at: int) -> Range | None:
    """`1 \\le i \\le n` -> (i, 1, n); `0 \\le i < n` -> (i, 0, n - 1); `1 < i \\le n` ->
    (i, 2, n)."""
    if len(rels) != 2:
        return None
    (low_rel, middle), (high_rel, high) = rels
    var = letter(middle)
    if var is None or low_rel not in ("le", "leq", "<") or high_rel not in ("le", "leq", "<"):
        return None
    low = value if low_rel != "<" else plus(value, "+", at)
    return var, low, high if high_rel != "<" else plus(high, "-", at)


def several(
    items: Sequence[tuple[Any, Sequence[tuple[str, Any]]]], expr: ToExpr, at: int, fail: Fail
) -> list[Range] | None:
    """`k,l` -> both unbounded; `i,j=1` -> both from 1; `i = 1, \\ldots, n` -> (i, 1, n);
    `i,j \\in [n]` -> both from 1 to n (a set the text names is refused)."""
    values = [expr(v) for v, _ in items]
    rels = [r for _, r in items]
    head = letter(values[0])
    if head is not None and len(rels[0]) == 1 and rels[0][0][0] == "=" and not any(rels[1:]):
        got = interval([rels[0][0][1], *values[1:]])
        if got is not None:  # `i = 1, \ldots, n`
            return [(head, got[0], got[1])]
    letters = [letter(v) for v in values]
    if any(x is None for x in letters) or any(rels[:-1]):
        return None
    names = [x.name for x in letters if x is not None]
    if len(set(names)) != len(names):
        return None
    if not rels[-1]:
        return [(x, None, None) for x in letters if x is not None]
    if len(rels[-1]) == 1 and rels[-1][0][0] == "=":  # `i,j=1`: each from the same bound
        lower = rels[-1][0][1]
        return [(x, lower, None) for x in letters if x is not None]
    if len(rels[-1]) == 1 and rels[-1][0][0] == "in":  # `i,j \\in [n]`: each over the set
        bound = rels[-1][0][1]
        if isinstance(bound, ast.Group) and bound.delim == "[" and len(bound.items) in (1, 2):
            first = bound.items[0] if len(bound.items) == 2 else one(at)
            return [(x, first, bound.items[-1]) for x in letters if x is not None]
        ranges = [set_range(x, bound, at, fail) for x in letters if x is not None]
        return ranges
    return None


def split_letters(value: ast.Expr) -> list[Range] | None:
    """`kl` -> a sum over k, then over l (the letters distinct plain indices)."""
    if not isinstance(value, ast.Product) or len(value.factors) < 2:
        return None
    letters = [letter(f) for f in value.factors]
    if any(x is None for x in letters):
        return None
    names = [x.name for x in letters if x is not None]
    if len(set(names)) != len(names):
        return None
    return [(x, None, None) for x in letters if x is not None]
