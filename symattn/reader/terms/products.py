"""Products between two matrices beyond the matrix product: `\\odot` (entrywise) and `\\otimes`.

Imports sympy and the kernel's expressions and errors; never the translator (which calls this),
the claim readers, the checker or the CLI.
"""

from __future__ import annotations

import sympy

from symattn.kernel.dims import dims_equal, shape_str
from symattn.kernel.errors import Signal
from symattn.kernel.expr import Hadamard, MatExpr, Ones
from symattn.kernel.modern import CausalZero
from symattn.kernel.text import plain

__all__ = ["NotRead", "causal_ones", "entrywise"]


class NotRead(Signal):
    """A product the reader gives no meaning (the message names it)."""


def causal_ones(shape: tuple[sympy.Expr, sympy.Expr]) -> MatExpr:
    """The multiplicative causal mask as a matrix: ones on and below the diagonal, zeros above."""
    return CausalZero(Ones(*shape))


def entrywise(
    op: str, a: sympy.Basic, b: sympy.Basic, masks: tuple[bool, bool] = (False, False)
) -> sympy.Basic:
    """`A \\odot B`: the kernel's Hadamard product of two matrices of one shape (a shape error,
    `ShapeError`, otherwise); between two scalars, their product. With a side the text calls
    the causal mask (`masks`), the kernel's multiplicative causal mask of the other side (zeros
    above the diagonal). `\\otimes` is an outer or a Kronecker product, or an entrywise one,
    depending on the text: not read.

    >>> from symattn.kernel.expr import MatSym
    >>> from symattn.kernel.dims import n, d
    >>> entrywise("odot", MatSym("A", n, d), MatSym("B", n, d))
    A ∘ B
    """
    am, bm = isinstance(a, MatExpr), isinstance(b, MatExpr)
    if op == "otimes":
        raise NotRead(
            "\\otimes between two terms: an outer, Kronecker or entrywise product, which the "
            "text does not say; write u v^\\top or \\odot"
        )
    if am and bm:
        assert isinstance(a, MatExpr) and isinstance(b, MatExpr)
        if masks[0] != masks[1]:
            other = b if masks[0] else a
            mask = a if masks[0] else b
            if not (dims_equal(mask.rows, other.rows) and dims_equal(mask.cols, other.cols)):
                Hadamard(a, b)  # the shape error, naming both
            return CausalZero(other)
        return Hadamard(a, b)
    if op == "circ" and not (am and bm):
        raise NotRead(
            "\\circ between terms that are not both matrices: a composition of functions, "
            "not read (between two matrices of one shape it is the entrywise product)"
        )
    if not am and not bm:
        return a * b
    m = a if am else b
    assert isinstance(m, MatExpr)
    raise NotRead(
        f"\\odot between a scalar and {plain(m)} ({shape_str(m.shape)}): the entrywise product "
        "takes two matrices of one shape"
    )
