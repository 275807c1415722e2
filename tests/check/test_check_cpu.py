"""Claims about softmax-defined matrices are decided in bounded CPU time, not by the clock."""

from __future__ import annotations

import time

from symattn.check import check_text

DOC = r"""
Let $Q,K\in\mathbb R^{n\times d_k}$ and $V\in\mathbb R^{n\times d_v}$.

$$A=\operatorname{softmax}\left(\frac{QK^\top}{\sqrt{d_k}}\right)$$

$$(AV)_{iu}=\sum_{j=1}^{n}%s V_{ju}$$
"""


def _last(entry: str):
    start = time.process_time()
    results = check_text(DOC % entry, "softmax.md")
    return results[-1], time.process_time() - start


def test_transposed_weights_are_false_in_under_two_seconds_of_cpu():
    r, cpu = _last("a_{ji}")
    assert r.kind == "false", r.message
    assert r.counterexample and "interval arithmetic" in r.counterexample
    assert cpu < 2, cpu


def test_the_right_weights_stay_verified():
    r, cpu = _last("a_{ij}")
    assert r.kind == "verified", r.message
    assert cpu < 2, cpu


def test_the_checkers_limit_counts_cpu_time_not_waiting():
    import pytest

    from symattn.check import verdicts

    with verdicts._time_limit(0.05):
        time.sleep(0.3)  # a busy machine makes a claim wait, not work: no verdict changes
    with pytest.raises(verdicts._OutOfTime):
        with verdicts._time_limit(0.05):
            start = time.process_time()
            while time.process_time() - start < 2:
                sum(range(1000))
