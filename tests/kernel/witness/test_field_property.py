"""Property: on random small matrix expressions the field verdict equals full expansion's."""

from __future__ import annotations

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from symattn.kernel.expr import MatAdd, MatExpr, MatMul, MatSym, Scale, Transpose
from symattn.kernel.witness import field as modp

N = 2
LEAVES = [MatSym(name, N, N) for name in "ABC"]
SCALES = [sympy.Integer(2), sympy.Rational(1, 3), sympy.Integer(-1)]


def exprs(depth: int) -> st.SearchStrategy[MatExpr]:
    leaf = st.sampled_from(LEAVES)
    if depth == 0:
        return leaf
    sub = exprs(depth - 1)
    return st.one_of(
        leaf,
        st.builds(MatMul, sub, sub),
        st.builds(MatAdd, sub, sub),
        st.builds(Transpose, sub),
        st.builds(Scale, st.sampled_from(SCALES), sub),
    )


def explicit(e: MatExpr) -> sympy.Matrix:
    """The reference: sympy matrices of independent symbols."""
    if isinstance(e, MatSym):
        return sympy.Matrix(N, N, lambda r, c: sympy.Symbol(f"{e.name}_{r}{c}"))
    if isinstance(e, MatMul):
        return explicit(e.args[0]) * explicit(e.args[1])
    if isinstance(e, MatAdd):
        return explicit(e.args[0]) + explicit(e.args[1])
    if isinstance(e, Transpose):
        return explicit(e.args[0]).T
    return e.args[0] * explicit(e.args[1])


@settings(max_examples=40, deadline=None)
@given(exprs(3), exprs(3))
def test_field_verdict_matches_full_expansion(lhs, rhs):
    truth = (explicit(lhs) - explicit(rhs)).expand() == sympy.zeros(N, N)
    assert modp.check(lhs, rhs, {}).equal == truth


@settings(max_examples=25, deadline=None)
@given(exprs(2), exprs(2), exprs(2))
def test_true_rewrites_are_always_equal(x, y, z):
    assert modp.check((x @ y).T, y.T @ x.T, {}).equal
    assert modp.check(x @ (y + z), x @ y + x @ z, {}).equal
    assert modp.check(
        Scale(sympy.Rational(1, 3), x) @ y, Scale(sympy.Rational(1, 3), x @ y), {}
    ).equal
