"""Resource limits: nesting, explicit size, numeric arrays and time budgets give clear errors."""

from __future__ import annotations

import time

import pytest
import sympy

from symattn.kernel import limits
from symattn.kernel.attention import single_head
from symattn.kernel.dims import n
from symattn.kernel.errors import ResourceError
from symattn.kernel.expr import MatSym, Transpose, expand_entries, index
from symattn.kernel.limits import TimeBudgetExceeded, check_time, time_budget
from symattn.kernel.proof import prove_within

i, j = index("i"), index("j")
A = MatSym("A", n, n)


def _transposes(k: int):
    e = A
    for _ in range(k):
        e = Transpose(e)
    return e


def test_deep_transpose_nest_is_a_clear_error():
    with pytest.raises(ResourceError, match=r"^matrix expression nested 201 levels deep"):
        _transposes(300)


def test_matmul_chain_of_5000_factors_is_a_clear_error():
    e = A
    with pytest.raises(ResourceError, match=r"the limit is 200 \(long products: name"):
        for _ in range(5000):
            e = e @ A


def test_entry_of_a_too_deep_matrix_is_refused():
    e = _transposes(limits.MAX_DEPTH - 1)
    with pytest.raises(ResourceError, match=r"nested 201 levels"):
        e[i, j]  # noqa: B018


def test_nesting_under_the_limit_still_proves():
    v = prove_within(_transposes(190), A, seconds=60)
    assert v.status == "proved", v.summary()


def test_explicit_expansion_of_a_huge_size_is_refused_with_advice():
    s = single_head(n=10**6, d_k=64, d_v=64, d=8)
    entry = expand_entries(s.weights[i, j])
    assert limits.explicit_terms(entry) > 10**7
    with pytest.raises(ResourceError, match=r"^writing this out at explicit sizes") as exc:
        limits.check_explicit(entry)
    assert "symbolic" in str(exc.value) and "random points" in str(exc.value)


def test_explicit_expansion_of_a_small_size_is_allowed():
    s = single_head(n=5, d_k=4, d_v=4, d=8)
    entry = expand_entries(s.weights[i, j])
    terms = limits.explicit_terms(entry)
    assert 0 < terms <= limits.MAX_EXPLICIT_TERMS
    assert limits.check_explicit(entry) is None
    with pytest.raises(ResourceError, match=r"^writing this out at explicit sizes"):
        limits.check_explicit(entry, limit=int(terms) - 1)  # the count, not the size, decides


def test_symbolic_sums_count_as_one_term():
    assert limits.explicit_terms(expand_entries(single_head().weights[i, j])) < 10


def test_huge_numeric_array_is_refused():
    with pytest.raises(ResourceError, match=r"^QK\^T at 1000000 × 1000000 would need"):
        limits.check_array(10**6, 10**6, "QK^T")
    limits.check_array(5, 5)


def _slow_sympy_call():
    x, y, z = sympy.symbols("x y z")
    return sympy.expand((x + y + z + 1) ** 400)  # minutes of work inside sympy


def test_time_budget_interrupts_a_long_library_call():
    start = time.monotonic()
    with pytest.raises(TimeBudgetExceeded, match=r"^gave up after 1 s"):
        with time_budget(1):
            _slow_sympy_call()
    assert time.monotonic() - start < 30


def test_check_time_raises_only_after_the_deadline():
    with time_budget(30):
        check_time()
    with pytest.raises(TimeBudgetExceeded, match=r"^gave up after 0.01 s of CPU time"):
        with time_budget(0.01):
            _burn(0.05)
            check_time()
    check_time()  # no budget left in force


def _burn(seconds: float) -> None:
    start = time.process_time()
    while time.process_time() - start < seconds:
        sum(range(1000))


def test_budget_counts_cpu_time_not_waiting():
    # a verdict must not depend on the machine's load: time spent waiting is not spent
    with time_budget(0.05):
        time.sleep(0.3)
        check_time()
        assert limits.remaining() is not None and limits.remaining() > 0


def test_nested_budget_keeps_the_earlier_deadline():
    with time_budget(0.2):
        with time_budget(100):
            assert limits.remaining() is not None and limits.remaining() < 1
    assert limits.remaining() is None


def test_budget_must_be_positive():
    with pytest.raises(ValueError, match="positive"):
        with time_budget(0):
            pass
