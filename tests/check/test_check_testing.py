"""symattn.testing: assertions that say what the kernel found."""

from __future__ import annotations

import pytest
import sympy

from symattn.kernel.attention import single_head
from symattn.kernel.dims import d_v
from symattn.kernel.expr import Dot, Softmax, index
from symattn.testing import assert_false, assert_proved, assert_same_shape

S = single_head()
i, j = index("i"), index("j")


def test_assert_proved_passes_and_fails_with_the_verdict():
    assert assert_proved(S.scores[i, j], Dot(S.Q.row(i), S.K.row(j))).status == "proved"
    with pytest.raises(AssertionError, match=r"^not proved: .*\n  false"):
        assert_proved(S.scores[i, j], Dot(S.Q.row(j), S.K.row(i)))


def test_assert_false_returns_the_counterexample():
    cex = assert_false(S.weights, Softmax(S.scores / sympy.sqrt(d_v)))
    assert "d_v=" in str(cex)
    with pytest.raises(AssertionError, match=r"^expected false"):
        assert_false(S.scores[i, j], Dot(S.Q.row(i), S.K.row(j)))


def test_assert_same_shape():
    assert_same_shape(S.scores, S.A)
    with pytest.raises(AssertionError, match=r"^shapes differ: QK\^T is n × n, V is n × d_v"):
        assert_same_shape(S.scores, S.V)
    with pytest.raises(AssertionError, match="is not a matrix expression"):
        assert_same_shape(S.scores, S.scores[i, j])  # type: ignore[arg-type]
