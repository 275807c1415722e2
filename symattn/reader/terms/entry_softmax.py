"""The softmax of one entry, `\\mathrm{softmax}(z_i)`, `\\mathrm{softmax}(S_{ij})`: what texts
mean by it is that entry of the softmax of z, or of the rows of S. Imports sympy and the kernel
only."""

from __future__ import annotations

import sympy

from symattn.kernel.dims import dims_equal
from symattn.kernel.expr import Entry, MatSym, Softmax

__all__ = ["softmax_of_entry"]


def softmax_of_entry(x: sympy.Basic) -> tuple[sympy.Basic, str] | None:
    """`softmax(z_i)` with `z_i` entry i of a vector z: entry i of `softmax(z)`, taken over the
    entries of z, and the name of z; `softmax(S_{ij})` of a matrix S: entry (i, j) of the
    softmax of S's rows. Of a single number the softmax would be 1, never what a text means;
    anything but an entry of a named matrix is None (a shape error stays one).

    >>> z = MatSym("z", 4, 1)
    >>> value, name = softmax_of_entry(Entry(z, sympy.Symbol("i"), 1))
    >>> name, value.matrix.shape
    ('z', (4, 1))
    >>> softmax_of_entry(Entry(MatSym("Z", 4, 4), 1, 2))[1]
    'Z'
    >>> softmax_of_entry(sympy.Symbol("x")) is None
    True
    """
    if not isinstance(x, Entry) or not isinstance(x.matrix, MatSym):
        return None
    z, i, j = x.args
    one = sympy.Integer(1)
    column, row = dims_equal(z.cols, 1), dims_equal(z.rows, 1)
    if column and not row and j == one:
        return Entry(Softmax(z.T).T, i, one), z.name
    if row and not column and i == one:
        return Entry(Softmax(z), one, j), z.name
    if not row and not column:
        return Entry(Softmax(z), i, j), z.name  # `softmax(S_{ij})`: entry (i, j) of the rows'
    return None
