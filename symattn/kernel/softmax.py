"""Row-wise and column-wise softmax and the causal mask, the nonlinear nodes of attention.

Imports only sympy and the kernel below it (errors, dims, exp_built, nodes); must not import
anything above it.
"""

from __future__ import annotations

import sympy
from sympy import Basic

from symattn.kernel.dims import Shape, shape_str
from symattn.kernel.exp_built import exp_of
from symattn.kernel.nodes import Fresh, MatExpr, _check_mat, _require_equal


class _SameShape(MatExpr):
    """A one-argument operation whose result has its argument's shape."""

    def __new__(cls, a: MatExpr) -> _SameShape:
        _check_mat(a)
        return Basic.__new__(cls, a)

    @property
    def shape(self) -> Shape:
        return self.args[0].shape


class Softmax(_SameShape):
    """Row-wise softmax: entry (i, j) is exp(S_ij) / sum_k exp(S_ik)."""

    def _entry(self, i: sympy.Expr, j: sympy.Expr, fresh: Fresh) -> sympy.Expr:
        s = self.args[0]
        k = fresh(s.cols)
        ratio = _exp_entry(s, i, j, fresh) / sympy.Sum(_exp_entry(s, i, k, fresh), (k, 1, s.cols))
        nonempty = getattr(s, "nonempty", None)  # a key mask may mask a whole row: weights 0
        if nonempty is None or nonempty() == sympy.true:
            return ratio
        return sympy.Piecewise((ratio, nonempty()), (sympy.Integer(0), True))


class ColSoftmax(_SameShape):
    """Column-wise softmax (entries of each column sum to 1); a common mistake, kept for checks."""

    def _entry(self, i: sympy.Expr, j: sympy.Expr, fresh: Fresh) -> sympy.Expr:
        s = self.args[0]
        k = fresh(s.rows)
        ratio = _exp_entry(s, i, j, fresh) / sympy.Sum(_exp_entry(s, k, j, fresh), (k, 1, s.rows))
        if getattr(s, "nonempty", None) is None:
            return ratio
        # a key mask masks whole columns: a masked column's weights are defined as 0
        return sympy.Piecewise((ratio, s.keeps(i, j)), (sympy.Integer(0), True))


def _exp_entry(s: MatExpr, i: sympy.Expr, j: sympy.Expr, fresh: Fresh) -> sympy.Expr:
    # exp of a masked score is 0 outside the mask: write it so, instead of exp(-oo).
    if isinstance(s, CausalMask) or getattr(s, "nonempty", None) is not None:
        inner = s.args[0]
        return sympy.Piecewise(
            (exp_of(inner._entry(i, j, fresh)), s.keeps(i, j)), (sympy.Integer(0), True)
        )
    return exp_of(s._entry(i, j, fresh))


class CausalMask(MatExpr):
    """The causal mask on square scores: entries above the diagonal (j > i) become -inf."""

    def __new__(cls, a: MatExpr, upper: bool = False) -> CausalMask:
        _check_mat(a)
        _require_equal(
            a.rows,
            a.cols,
            f"cannot apply a causal mask to {a} ({shape_str(a.shape)}): "
            f"rows {a.rows} and cols {a.cols} are not provably equal",
        )
        return Basic.__new__(cls, a, sympy.true if upper else sympy.false)

    @property
    def upper(self) -> bool:
        """True for the wrong-triangle variant (keeps j >= i), kept to test checkers."""
        return bool(self.args[1])

    @property
    def shape(self) -> Shape:
        return self.args[0].shape

    def keeps(self, i: sympy.Expr, j: sympy.Expr) -> sympy.Basic:
        return sympy.Le(i, j) if self.upper else sympy.Le(j, i)

    def _entry(self, i: sympy.Expr, j: sympy.Expr, fresh: Fresh) -> sympy.Expr:
        return sympy.Piecewise(
            (self.args[0]._entry(i, j, fresh), self.keeps(i, j)), (-sympy.oo, True)
        )
