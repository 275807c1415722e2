"""The partial derivative of one entry by another (`∂s_i/∂z_j`) as an unevaluated kernel term,
which no witness evaluates: only `kernel.jacobian.prove_partial` decides a claim about it.

Imports only sympy and kernel.text; must not import the proof, the witnesses or anything above.
"""

from __future__ import annotations

import sympy

from symattn.kernel.text import plain

__all__ = ["NOT_EVALUATED", "Partial", "has_partial"]

#: Why a claim where a derivative of entries is not alone on one side is undecided.
NOT_EVALUATED = (
    "a partial derivative of entries is decided only alone on one side of a claim "
    "(∂y_i/∂x_j = ...), never evaluated inside another expression"
)


class Partial(sympy.Expr):
    """`∂y/∂x`: the derivative of the entry y of a matrix expression by the entry x of a named
    matrix, unevaluated.

    >>> from symattn.kernel.expr import MatSym, index
    >>> from symattn.kernel.dims import n
    >>> z, i = MatSym("z", n, 1), index("i")
    >>> print(Partial(z[i, 1], z[i, 1]))
    ∂z_{i1}/∂z_{i1}
    """

    is_commutative = True

    def __new__(cls, of: sympy.Basic, wrt: sympy.Basic) -> Partial:
        return sympy.Expr.__new__(cls, of, wrt)

    @property
    def of(self) -> sympy.Basic:
        return self.args[0]

    @property
    def wrt(self) -> sympy.Basic:
        return self.args[1]

    def __str__(self) -> str:
        return f"∂{plain(self.of)}/∂{plain(self.wrt)}"

    __repr__ = __str__


def has_partial(*terms: sympy.Basic) -> bool:
    """Whether a term holds a `Partial`."""
    return any(
        isinstance(x, Partial)
        for t in terms
        if isinstance(t, sympy.Basic)
        for x in sympy.preorder_traversal(t)
    )
