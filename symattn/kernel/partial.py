"""The partial derivative of one entry by another (`∂s_i/∂z_j`) as an unevaluated kernel term,
which no witness evaluates: only `kernel.jacobian.prove_partial` decides a claim about it.

Imports sympy, kernel.text and the tables of the walkers below it (evaluate, the exact and field
witnesses), where it registers that it is never evaluated; must not import the proof or anything
above.
"""

from __future__ import annotations

from typing import Any, NoReturn

import sympy

from symattn.kernel import evaluate
from symattn.kernel.text import PLAIN, plain
from symattn.kernel.witness import exact, field

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
    ∂(z)_{i1}/∂(z)_{i1}
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

    def expanded(self, fresh: Any) -> NoReturn:
        """No expansion: the derivative is decided as a whole (`kernel.jacobian`)."""
        raise evaluate.Unsupported(NOT_EVALUATED)

    def __str__(self) -> str:
        return f"∂{plain(self.of)}/∂{plain(self.wrt)}"

    __repr__ = __str__


def _not_evaluated(*_: Any) -> NoReturn:
    raise evaluate.Unsupported(NOT_EVALUATED)


def _no_degree(*_: Any) -> NoReturn:
    raise field.Unsupported(NOT_EVALUATED)


# every walker has a handler of its own for the node: here, a refusal that says why
evaluate.SCALAR[Partial] = _not_evaluated
field.DEGREE[Partial] = _no_degree
exact.TERMS[Partial] = _not_evaluated
PLAIN[Partial] = str


def has_partial(*terms: sympy.Basic) -> bool:
    """Whether a term holds a `Partial`."""
    return any(
        isinstance(x, Partial)
        for t in terms
        if isinstance(t, sympy.Basic)
        for x in sympy.preorder_traversal(t)
    )
