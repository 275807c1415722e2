"""Bracket indices of code-like notation: `M[i,j]`, `M[i][j]`, `x[t]`, `A[i,:]` as entries and rows.

Imports only `ast`; which names are matrices or vectors is the caller's to say (`arrays`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable
from typing import Any

from symattn.reader.syntax import ast

__all__ = ["bracket_indices", "counts_from_zero", "ranges_from_zero"]

#: `x[0]`, `A[0, j]`, `A[i, 0]`, `x[0:t]`: a bracket index 0 after a name.
_ZERO_BRACKET = re.compile(r"[A-Za-z}]\s*\[\s*(?:0\s*[,\]:]|[^\[\]]*,\s*0\s*\])")
#: `\sum_{j=0}`, `_{t=0}^{n-1}`: an index that starts at 0.
_FROM_ZERO = re.compile(r"_\s*\{[^{}=]*=\s*0\s*\}")
#: `\sum_{j<n}`: a range by a strict bound, which reads differently counted from 0.
_BELOW = re.compile(r"\\(?:sum|prod)\s*_\s*\{[^{}]*<")
#: prose that says so: zero-based, 0-indexed.
_ZERO_WORDS = re.compile(r"(?i)\b(?:zero|0)[- ]?(?:based|indexed)\b")

#: A name that can be indexed: a letter with its subscript and font, or `W^Q`.
_BASES = (ast.Symbol, ast.Labeled)


def bracket_indices(
    node: Any, arrays: Callable[[ast.Expr], str | None], read: list[str] | None = None
) -> Any:
    """The tree with each `M[i,j]` whose `M` is one of `arrays` read as `(M)_{i,j}`; `arrays`
    says of a name "matrix", "vector" (`x[t]` is then `x_t`) or None (no array); the names of
    the vectors so read are added to `read` (code also writes `h[t]` for the t-th of a family).

    A bracket is an index only right after the name (no space), with one or two items that are
    letters, numbers, sums of them (`t-1`) or a lone `:` (a whole row or column); `M[i][j]` is
    `M[i,j]`. Anything else, and every name `arrays` refuses (`E[X]`, `\\lambda[x+y]`), is left
    as written: a product with a bracket.

    >>> from symattn.reader.syntax.parse import parse_formula
    >>> f = parse_formula("S[i,j] = E[x] Q[i][r]")
    >>> ast.dump(bracket_indices(f, lambda n: "matrix" if getattr(n, "name", "") in "SQ" else None))
    '[(index (group S) (seq i, j)) = (* E (bracket x) (index (group Q) (seq i, r)))]'
    """
    rewrite = _Rewrite(arrays)
    out = rewrite.node(node)
    if read is not None:
        read.extend(rewrite.vectors)
    return out


def counts_from_zero(bodies: Iterable[str], text: str = "") -> bool:
    """Whether a text may count its bracket indices from 0, as code does: it writes index 0
    (`x[0]`), starts an index at 0 (`\\sum_{j=0}`) or says so (zero-based, 0-indexed). Read
    from 1, such a text's `x[n-1]` would be another entry, so its brackets are left unread.

    >>> counts_from_zero([r"y = x[0] + x[1]"]), counts_from_zero([r"S[i,j] = Q[i,r]"])
    (True, False)
    """
    if _ZERO_WORDS.search(text):
        return True
    return any(_ZERO_BRACKET.search(b) or _FROM_ZERO.search(b) for b in bodies)


def ranges_from_zero(body: str) -> bool:
    """A formula whose sums start at 0 or run below a bound (`\\sum_{j=0}`, `\\sum_{j<n}`)."""
    return bool(_FROM_ZERO.search(body) or _BELOW.search(body))


class _Rewrite:
    def __init__(self, arrays: Callable[[ast.Expr], str | None]) -> None:
        self.arrays = arrays
        self.vectors: list[str] = []

    def node(self, node: Any) -> Any:
        if not isinstance(node, ast.Node):
            return node
        if isinstance(node, ast.Product):
            node = self._product(node)
            if not isinstance(node, ast.Node) or not dataclasses.is_dataclass(node):
                return node
        return ast.rebuilt(node, self.node)

    def _product(self, node: ast.Product) -> ast.Expr:
        out: list[ast.Expr] = []
        factors, k, changed = node.factors, 0, False
        while k < len(factors):
            base = factors[k]
            if isinstance(base, _BASES) and self.arrays(base) is not None:
                taken = _indexed(base, factors[k + 1 :], self.arrays)
                if taken is not None and _component(taken[0]) and isinstance(base, ast.Symbol):
                    self.vectors.append(base.name)
                if taken is not None:
                    out.append(taken[0])
                    k += 1 + taken[1]
                    changed = True
                    continue
            out.append(base)
            k += 1
        if not changed:
            return node
        if len(out) == 1:
            return out[0]
        return ast.Product(tuple(out), start=node.start, end=node.end)


def _indexed(
    base: ast.Expr, rest: tuple[ast.Expr, ...], arrays: Callable[[ast.Expr], str | None]
) -> tuple[ast.Expr, int] | None:
    kind = arrays(base)
    """`base` indexed by the brackets that follow it, and how many factors they were."""
    items: list[ast.Expr] = []
    end, used, outer = base.end, 0, None
    for f in rest:
        group, wrap = _bracket(f)
        if group is None or group.start != end or len(items) + len(group.items) > 2:
            break
        if not all(_index_like(x) and not _array_in(x, arrays) for x in group.items):
            return None
        items.extend(group.items)
        end, used = group.end, used + 1
        if wrap is not None:
            outer = wrap  # `A[i,:]^\\top`: the script closes the run of brackets
            break
    if not items:
        return None
    first = rest[0]
    if len(items) == 1:
        index: ast.Expr = items[0]
    else:
        index = ast.Seq(tuple(items), start=first.start + 1, end=end - 1)
    value: ast.Expr
    if len(items) == 1 and isinstance(base, ast.Symbol) and base.sub is None and kind == "vector":
        value = dataclasses.replace(base, sub=index, end=end)  # `x[t]`: component t, as `x_t`
    else:
        inner = ast.Group((base,), start=base.start, end=base.end)
        value = ast.IndexedGroup(inner, index, start=base.start, end=end)
    if isinstance(outer, ast.Power):  # `x[t]^2`, `A[i,:]^\top`: the script closes the run
        value = ast.Power(value, outer.exponent, start=base.start, end=outer.end)
    elif isinstance(outer, ast.Transpose):
        value = ast.Transpose(value, outer.mark, start=base.start, end=outer.end)
    return value, used


def _bracket(f: ast.Expr) -> tuple[ast.Group | None, ast.Expr | None]:
    """The bracket `f` is, or the bracket under `f`'s transpose or power (and `f`)."""
    if isinstance(f, ast.Group):
        return (f if f.delim == "[" and not f.stacked and f.items else None), None
    inner = (
        f.base if isinstance(f, ast.Power) else f.operand if isinstance(f, ast.Transpose) else None
    )
    if isinstance(inner, ast.Group):
        group, _ = _bracket(inner)
        return group, (f if group is not None else None)
    return None, None


def _index_like(x: ast.Expr) -> bool:
    """A letter, `t-1`, `i+k`, or a lone colon; a number only as an offset (`x[1]` names an
    entry whose place depends on where the text starts counting)."""
    if isinstance(x, ast.Symbol):
        plain = x.font is None and x.sub is None
        return plain and (len(x.name) == 1 or x.name == "colon")
    if isinstance(x, ast.Add):
        letters = [t for t in x.terms if isinstance(t, ast.Symbol)]
        numbers = [t for t in x.terms if isinstance(t, ast.Number) and t.text.isdigit()]
        return (
            bool(letters)
            and len(letters) + len(numbers) == len(x.terms)
            and all(_index_like(t) and not _is_colon(t) for t in letters)
        )
    return False


def _array_in(x: ast.Expr, arrays: Callable[[ast.Expr], str | None]) -> bool:
    """`E[X]` with X a matrix: an argument, never an index."""
    return any(arrays(s) is not None for s in ast.symbols(x))


def _is_colon(x: ast.Expr) -> bool:
    return isinstance(x, ast.Symbol) and x.name == "colon"


def _component(value: ast.Expr) -> bool:
    """`x[t]` read as `x_t`, under its script if any (`x[t]^2`)."""
    inner = value.base if isinstance(value, ast.Power) else value
    inner = inner.operand if isinstance(inner, ast.Transpose) else inner
    return isinstance(inner, ast.Symbol)
