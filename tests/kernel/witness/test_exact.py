"""The exact witness: full expansion when cheap, the prime field when not, by estimated cost."""

from __future__ import annotations

import pytest

from symattn.kernel.attention import single_head
from symattn.kernel.dims import n
from symattn.kernel.expr import CausalMask, Dot, FromColumn, MatSym, Softmax, Transpose, index
from symattn.kernel.witness import field as modp
from symattn.kernel.witness.exact import EXPAND_LIMIT, exact, expansion_cost

i, j = index("i"), index("j")


def test_mask_outside_softmax_has_no_field_value_in_the_walker_but_the_definitions_compare_it():
    S = MatSym("S", 2, 2)
    same = CausalMask(Transpose(Transpose(S)))  # another tree for the same matrix
    with pytest.raises(modp.Unsupported, match="causal mask outside a softmax"):
        modp.check(CausalMask(S), same, {})
    result = exact(CausalMask(S), same, {}, method="field")  # -inf = -inf, entry by entry
    assert result.holds is True, result.detail
    assert exact(CausalMask(S), CausalMask(S.T), {}, method="field").holds is False


def test_shift_invariance_falls_back_to_expansion_when_cheap():
    S = MatSym("S", n, n)
    result = exact(Softmax(S + FromColumn("c", n, n)), Softmax(S), {})
    assert result.holds is True, result.detail
    assert "full expansion" in result.detail


def test_dispatch_by_cost():
    s = single_head(n=2, d=2, d_k=2, d_v=2)
    small = (s.scores[i, j], Dot(s.Q.row(i), s.K.row(j)), {i: (1, 2), j: (1, 2)})
    assert expansion_cost(*small, {}) <= EXPAND_LIMIT
    assert exact(*small).detail == "equal after full expansion"
    big = single_head(n=7, d=512, d_k=64, d_v=64)
    large = (big.scores[i, j], Dot(big.Q.row(i), big.K.row(j)), {i: (1, 7), j: (1, 7)})
    assert expansion_cost(*large, {}) > EXPAND_LIMIT
    assert exact(*large).detail.startswith("equal mod p")
