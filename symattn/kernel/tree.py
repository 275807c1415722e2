"""Walks over kernel expressions: every node, the named leaves and their shapes, expanded entries.

Imports only sympy and the kernel below it (dims, exp_built, nodes, leaves); must not import
anything above it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import sympy

from symattn.kernel.dims import Shape
from symattn.kernel.exp_built import exp_of
from symattn.kernel.leaves import FromColumn, HeadSym, MatSym
from symattn.kernel.nodes import MatExpr, summed


def substituted(e: sympy.Basic, values: dict) -> sympy.Basic:
    """`e.xreplace(values)`, with every sum rebuilt by `summed` (xreplace would fold again)."""
    if e in values:
        return values[e]
    if not e.args or isinstance(e, MatExpr):
        return e.xreplace(values) if e.args else e
    args = [substituted(a, values) for a in e.args]
    if all(a is b for a, b in zip(args, e.args, strict=True)):
        return e
    if isinstance(e, sympy.Sum):
        return summed(args[0], *args[1:])
    if e.func is sympy.exp:
        return exp_of(args[0])  # the same as sympy.exp, without its slow questions
    return e.func(*args)


def walk(e: sympy.Basic) -> Iterator[sympy.Basic]:
    """Every node of an expression, matrices and scalars alike, without recursion."""
    stack = [e]
    while stack:
        x = stack.pop()
        yield x
        stack.extend(reversed(x.args))


def named_leaves(*terms: sympy.Basic) -> Iterator[tuple[str, MatExpr]]:
    """Every named matrix with the label its entries are `Indexed` by (`Z^()` for heads)."""
    for t in terms:
        for x in walk(t):
            if isinstance(x, (MatSym, FromColumn)):
                yield x.name, x
            elif isinstance(x, HeadSym):
                yield x.name + "^()", x


def named_shapes(*terms: sympy.Basic) -> dict[str, Shape]:
    """The shape of each named matrix by entry label (the first one met, if several).

    >>> from symattn.kernel.dims import n, d_k
    >>> named_shapes(MatSym("Q", n, d_k) @ HeadSym("W", 1, d_k, n))
    {'Q': (n, d_k), 'W^()': (d_k, n)}
    """
    out: dict[str, Shape] = {}
    for label, leaf in named_leaves(*terms):
        out.setdefault(label, leaf.shape)
    return out


def dims_in(e: sympy.Basic) -> set[sympy.Symbol]:
    """The dimension symbols an expression's shapes mention."""
    out: set[sympy.Symbol] = set()
    for x in walk(e):
        if isinstance(x, MatExpr):
            for s in x.shape:
                out |= s.free_symbols
    return out


def substitute_definitions(
    e: sympy.Basic, defs: Mapping[sympy.Basic, sympy.Basic], rounds: int
) -> tuple[sympy.Basic, bool]:
    """`e` with every defined name replaced by its definition, repeatedly, for at most `rounds`
    rounds: (the result, whether nothing was left to replace). Callers say what a cycle means.

    >>> from symattn.kernel.dims import n
    >>> A, B = MatSym("A", n, n), MatSym("B", n, n)
    >>> substitute_definitions(A.T, {A: B @ B}, 3)
    ((BB)^T, True)
    >>> substitute_definitions(A, {A: A.T}, 3)[1]
    False
    """
    mapping = dict(defs)
    for _ in range(rounds):
        new = e.xreplace(mapping)
        if new == e:
            return e, True
        e = new
    return e, False
