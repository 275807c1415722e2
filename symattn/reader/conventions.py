"""The chapter's conventions: its names' shapes, what a bare sum ranges over, what is a matrix.

Imports only the kernel's dims; the scope, the claim readers, the translator and the CLI read it.
"""

from __future__ import annotations

import sympy

from symattn.kernel.dims import STANDARD_DIMS, H, d, d_k, d_v

n = STANDARD_DIMS["n"]

#: The chapter's conventional shapes; a declaration in the document overrides them.
CONVENTIONS: dict[str, tuple[sympy.Expr, sympy.Expr]] = {
    "X": (n, d),
    "Q": (n, d_k),
    "K": (n, d_k),
    "V": (n, d_v),
    "A": (n, n),
    "S": (n, n),
    "Z": (n, d_v),
    "O": (n, d),
    "W_Q": (d, d_k),
    "W_K": (d, d_k),
    "W_V": (d, d_v),
    "W_O": (H * d_v, d),
}
#: Per-head families `F^{(h)}` and their conventional shapes (`W_O^{(h)}` is a row block of W_O).
FAMILIES: dict[str, tuple[sympy.Expr, sympy.Expr]] = {
    "Z": (n, d_v),
    "Q": (n, d_k),
    "K": (n, d_k),
    "V": (n, d_v),
    "A": (n, n),
    "W_Q": (d, d_k),
    "W_K": (d, d_k),
    "W_V": (d, d_v),
}
#: What a sum without bounds ranges over, by its letter (`\sum_j` runs over the n positions).
SUM_LETTERS: dict[str, sympy.Expr] = {
    **dict.fromkeys("jkl", n),
    **dict.fromkeys("rst", d_k),
    **dict.fromkeys("uvw", d_v),
    **dict.fromkeys("hgf", H),
}


def looks_like_matrix(name: str) -> bool:
    """A capital, alone or with a subscript, is a matrix's name (`Q`, `W_O`; `H` is a size).

    >>> [looks_like_matrix(x) for x in ("Q", "W_O", "H", "q_i", "Wx")]
    [True, True, False, False, False]
    """
    return name[:1].isupper() and name not in ("H",) and (len(name) == 1 or name[1] == "_")
