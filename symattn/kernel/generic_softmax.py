"""Softmaxes replaced by generic matrices, for an identity that holds for every matrix in their
place: one matrix per softmax, or a family `A_1^{(h)}` when it depends on the head index summed.

Imports only the kernel's expressions (expr, leaves); must not import anything above them.
"""

from __future__ import annotations

import sympy

from symattn.kernel.expr import Concat, HeadSym, MatExpr, MatSum, MatSym, Softmax, walk

__all__ = ["generic_names"]


def _head_index(both: sympy.Basic) -> sympy.Symbol | None | bool:
    """False when a softmax could depend on a bound index other than one head index (a sum of
    scalars, a concatenation, sums over two indices); else the head index summed, or None when
    nothing is summed."""
    if any(isinstance(x, (Concat, sympy.Sum)) for x in walk(both)):
        return False
    indices = {x.var for x in sympy.preorder_traversal(both) if isinstance(x, MatSum)}
    if len(indices) > 1:
        return False
    return next(iter(indices)) if indices else None


def generic_names(both: sympy.Basic, taken: set[str]) -> dict[MatExpr, MatExpr]:
    """Each softmax of `both` with its generic stand-in (`A_1`, ..., names not in `taken`): a
    matrix, or the family `A_k^{(h)}` of the head index h summed over when the softmax depends
    on h (`sum_h <dO^{(h)}, softmax(S^{(h)}) E>`: one matrix per head). Empty when there is no
    softmax or one could depend on another bound index (it would not be one matrix per head).

    >>> from symattn.kernel.dims import n
    >>> s = Softmax(MatSym("S", n, n))
    >>> generic_names(sympy.Tuple(s, s), set())
    {softmax(S): A_1}
    """
    head = _head_index(both)
    nodes = [x for x in sympy.preorder_traversal(both) if isinstance(x, Softmax)]
    if head is False or not nodes:
        return {}
    names: dict[MatExpr, MatExpr] = {}
    for x in nodes:
        if x in names:
            continue
        k = len(names) + 1
        while f"A_{k}" in taken:
            k += 1
        taken = taken | {f"A_{k}"}
        if head is not None and head in x.free_symbols:
            names[x] = HeadSym(f"A_{k}", head, *x.shape)
        else:
            names[x] = MatSym(f"A_{k}", *x.shape)
    return names
