"""An entry `S_{ij}` set equal to a matrix made of blocks indexed by its letters (`S_{ij} =
Q_iK_j^T`, tiles of B_r rows): the text's block (i, j), not an entry.
Imports sympy and the kernel only."""

from __future__ import annotations

import sympy

from symattn.kernel.dims import shape_str
from symattn.kernel.expr import Entry, HeadSym, MatExpr, MatSym, walk
from symattn.kernel.text import plain

__all__ = ["block_entry"]


def block_entry(lhs: sympy.Basic, rhs: sympy.Basic) -> str:
    """Why the equation is not decided when one side is an entry of a matrix (`S_{ij}`) and the
    other a matrix that is no 1 × 1 one, made from members of families at the entry's index
    letters (`Q_i`, `K_j`): a tiled text names the blocks of S so, and the reader takes
    `S_{ij}` for an entry. '' for any other equation.

    >>> from symattn.kernel.dims import d
    >>> from symattn.kernel.expr import MatMul, Transpose
    >>> i, j, r, c = sympy.symbols("i j B_r B_c", integer=True, positive=True)
    >>> q, k = HeadSym("Q_", i, r, d), HeadSym("K_", j, c, d)
    >>> block_entry(sympy.IndexedBase("S")[i, j], MatMul(q, Transpose(k)))[:45]
    'not decided: S_{ij} is read as an entry of S,'
    """
    for entry, m in ((lhs, rhs), (rhs, lhs)):
        if isinstance(entry, Entry) and isinstance(entry.matrix, MatSym):
            name, indices = entry.matrix.name, entry.args[1:]
        elif isinstance(entry, sympy.Indexed):
            name, indices = str(entry.base.label), entry.indices
        else:
            continue
        if not isinstance(m, MatExpr) or (m.rows == 1 and m.cols == 1):
            continue
        letters = set().union(*(sympy.sympify(x, strict=True).free_symbols for x in indices))
        blocks = sorted(
            {plain(x) for x in walk(m) if isinstance(x, HeadSym) and x.head.free_symbols & letters}
        )
        if not blocks:
            continue
        index = "".join(str(x) for x in indices)
        return (
            f"not decided: {name}_{{{index}}} is read as an entry of {name}, but {plain(m)} is "
            f"a {shape_str(m.shape)} matrix made of {', '.join(blocks)} at the same index: "
            f"the text's {name}_{{{index}}} is likely its block ({', '.join(map(str, indices))}), "
            "which the checker does not read"
        )
    return ""
