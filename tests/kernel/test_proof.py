"""`prove_equal` and `prove_within`: verdicts under size relations, orientation, empty sums,
hypotheses, budgets; `prove_within` turns time, memory and size limits into `unknown`.
"""

from __future__ import annotations

import threading
import time
import uuid

import pytest
import sympy

from symattn.kernel import limits
from symattn.kernel.attention import single_head
from symattn.kernel.dims import H, assume, d, d_v, n
from symattn.kernel.expr import Dot, MatSym, Softmax, index
from symattn.kernel.proof import prove_equal, prove_within

i, j, k, r = (index(x) for x in "ijkr")
S = single_head()
Q, K = S.Q, S.K
Sc = MatSym("S", n, n)
A = MatSym("A", n, n)

RELATIONS = [
    {"d_v": d / H},
    {"d_k": d / H},
    {"d_k": d_v},
    {"d_k": sympy.Integer(64), "d_v": sympy.Integer(64)},
    {"d_k": d_v, "d_v": d / H, "d": sympy.Integer(512), "H": sympy.Integer(8)},
]


@pytest.mark.parametrize("relations", RELATIONS, ids=str)
def test_false_claims_stay_false_under_every_size_relation(relations):
    with assume(**relations):
        v = prove_equal(S.scores[i, j], Dot(Q.row(j), K.row(i)))
        assert v.status == "false", v.summary()
        v = prove_equal(Softmax(2 * Sc), Softmax(Sc))
        assert v.status == "false", v.summary()


@pytest.mark.parametrize("relations", RELATIONS, ids=str)
def test_true_claims_carry_evidence_under_every_size_relation(relations):
    with assume(**relations):
        v = prove_equal(S.scores[i, j], Dot(Q.row(i), K.row(j)))
    assert v.status == "proved", v.summary()
    assert v.evidence and all(e.points > 0 for e in v.evidence), v.summary()


def test_mixed_orientations_are_shape_errors():
    qi, kj = Q.row(i), K.row(j)
    assert prove_equal(qi.T @ kj, kj @ qi.T).status == "shape_error"
    assert prove_equal(qi.T @ qi, qi @ qi.T).status == "shape_error"
    assert prove_equal(qi @ kj.T, kj @ qi.T).status == "proved"
    # a scalar may stand for a 1 x 1 product, as textbooks write q_i k_j^T = q_i . k_j ...
    assert prove_equal(qi @ kj.T, Dot(qi, kj)).status == "proved"
    assert prove_equal(qi @ kj.T, Dot(Q.row(j), K.row(i))).status == "false"
    # ... but never for a d_k x d_k one
    assert prove_equal(qi.T @ kj, Dot(qi, kj)).status == "shape_error"


def test_empty_sums_are_zero_and_reversed_sums_are_ill_formed():
    x = MatSym("x", n, 1)
    upto_i = sympy.Sum(x[j, 1], (j, 1, i))
    before_i = sympy.Sum(x[j, 1], (j, 1, i - 1))
    v = prove_equal(upto_i, before_i + x[i, 1])
    assert v.ok, v.summary()  # at i = 1 the sum up to i - 1 is empty
    y = MatSym("y", 3, 1)
    v = prove_equal(sympy.Sum(y[j, 1], (j, 3, 1)), -y[2, 1])  # Karr's convention would agree
    assert v.status == "shape_error" and "reversed" in v.reason, v.summary()
    v = prove_equal(sympy.Sum(y[j, 1], (j, 3, 1)), sympy.Integer(0))
    assert v.status == "shape_error", v.summary()


def test_a_range_reversed_only_at_some_indices_is_no_shape_error():
    x, t = MatSym("x", n, 1), index("t")
    ranges = {i: (1, n), t: (1, n)}
    between = sympy.Sum(x[j, 1], (j, i + 1, t))  # reversed where t < i: meant for i < t
    v = prove_equal(between, sympy.Sum(x[j, 1], (j, i, t)) - x[i, 1], ranges=ranges)
    assert v.status == "unknown" and "reversed where t < i" in v.reason, v.summary()
    v = prove_equal(between, sympy.Sum(x[j, 1], (j, i, t)), ranges=ranges)
    assert v.status == "false", v.summary()
    v = prove_equal(sympy.Sum(x[j, 1], (j, n + 1, n - 1)), sympy.Integer(0))
    assert v.status == "shape_error" and "reversed" in v.reason, v.summary()  # at every n


@pytest.mark.parametrize(
    "hypothesis",
    [sympy.Gt(j, i), sympy.Lt(i, j), sympy.Ge(j, i + 1), sympy.Le(i + 1, j), sympy.Gt(j - i, 0)],
    ids=str,
)
def test_hypotheses_in_either_direction(hypothesis):
    w = single_head(causal=True).weights
    v = prove_equal(w[i, j], 0, assuming=[hypothesis])
    assert v.status == "proved", v.summary()


@pytest.mark.parametrize("hypothesis", [sympy.Ge(j, i), sympy.Le(i, j)], ids=str)
def test_a_weaker_hypothesis_does_not_prove_the_masked_zero(hypothesis):
    w = single_head(causal=True).weights
    assert prove_equal(w[i, j], 0, assuming=[hypothesis]).status == "false"


def test_double_sum_with_a_dependent_range_and_exp():
    lower = sympy.Sum(sympy.exp(Sc[i, j]), (j, 1, i), (i, 1, n))
    by_columns = sympy.Sum(sympy.exp(Sc[k, j]), (k, j, n), (j, 1, n))
    assert prove_equal(lower, by_columns).ok
    wrong = sympy.Sum(sympy.exp(Sc[k, j]), (k, 1, j), (j, 1, n))
    assert prove_equal(lower, wrong).status == "false"


def test_huge_explicit_sizes_are_refused_by_the_budget_not_a_memory_error():
    big_q, big_k = MatSym("Q", 100_000, 4096), MatSym("K", 100_000, 4096)
    v = prove_equal((big_q @ big_k.T)[i, j], Dot(big_q.row(j), big_k.row(i)))
    assert v.status == "unknown", v.summary()
    assert "limit is 50,000,000 entries" in v.reason


@pytest.mark.parametrize(
    "hypotheses",
    [
        [sympy.Lt(i, j), sympy.Le(j, n)],
        [sympy.Le(1, i), sympy.Lt(i, j), sympy.Le(j, n)],
        [sympy.Ge(j, 2), sympy.Lt(i, j)],
        [sympy.Le(j, n - 1), sympy.Lt(i, j)],  # no index point at n = 2: other plans are used
    ],
    ids=str,
)
def test_hypotheses_that_bound_an_index_by_a_size(hypotheses):
    w = single_head(causal=True).weights
    v = prove_equal(w[i, j], 0, assuming=hypotheses)
    assert v.status == "proved" and set(v.witnesses) == {"symbolic", "exact", "numeric"}, (
        v.summary()
    )


def test_bounds_alone_do_not_prove_the_masked_zero():
    w = single_head(causal=True).weights
    assert prove_equal(w[i, j], 0, assuming=[sympy.Le(j, n - 1)]).status == "false"
    with pytest.raises(Exception, match="not supported"):
        prove_equal(w[i, j], 0, assuming=[sympy.Le(j, 2 * i)])


def _slow_sympy_call():
    x, y, z = sympy.symbols("x y z")
    return sympy.expand((x + y + z + 1) ** 400)  # minutes of work inside sympy


def test_prove_within_reports_gave_up(monkeypatch):
    import symattn.kernel.proof

    monkeypatch.setattr(
        symattn.kernel.proof, "prove_equal", lambda lhs, rhs, **kw: _slow_sympy_call()
    )
    v = prove_within(A, A, seconds=1)
    assert v.status == "unknown" and v.reason.startswith("gave up after 1 s"), v.summary()


def test_time_budget_in_a_thread_stops_at_the_kernels_own_checks():
    # No timer outside the main thread: canon.py's check_time() must stop the expansion.
    # A fresh name keeps caches filled by other tests out (unbudgeted: about 5-12 s).
    b = MatSym(f"B{uuid.uuid4().hex[:8]}", n, n)
    e = b
    for _ in range(150):
        e = e @ b
    out: dict[str, object] = {}

    def run() -> None:
        start = time.monotonic()
        out["v"] = prove_within(e, e, seconds=0.5, witnesses=("symbolic",))
        out["t"] = time.monotonic() - start

    worker = threading.Thread(target=run)
    worker.start()
    worker.join(60)
    assert not worker.is_alive()
    v = out["v"]
    # no timer in a thread: only canon's check_time() can have produced this reason
    assert v.status == "unknown" and "gave up after 0.5 s" in v.reason, v.summary()
    assert out["t"] < 30


def test_prove_within_leaves_fast_checks_alone():
    s = single_head()
    v = prove_within(s.scores[i, j], Dot(s.Q.row(i), s.K.row(j)), seconds=60)
    assert v.status == "proved"
    v = prove_within(s.scores[i, j], Dot(s.Q.row(j), s.K.row(i)), seconds=60)
    assert v.status == "false"


def test_memory_exhausted_by_a_witness_becomes_unknown_with_advice(monkeypatch):
    import symattn.kernel.proof

    def greedy(lhs, rhs, **options):
        raise MemoryError("Unable to allocate 7.28 TiB")

    monkeypatch.setattr(symattn.kernel.proof, "prove_equal", greedy)
    v = prove_within(A, A, seconds=5)
    assert v.status == "unknown" and v.reason.startswith("ran out of memory at these sizes")
    assert "symbolic" in v.reason


def test_a_refused_size_becomes_unknown(monkeypatch):
    import symattn.kernel.proof

    def refuse(lhs, rhs, **options):
        limits.check_array(10**6, 10**6, "QK^T")

    monkeypatch.setattr(symattn.kernel.proof, "prove_equal", refuse)
    v = prove_within(A, A, seconds=5)
    assert v.status == "unknown" and v.reason.startswith("QK^T at 1000000 × 1000000")


def test_relations_about_other_dims_are_not_the_claims_context():
    from symattn.kernel.dims import d_k, m, p, relevant

    assert relevant({d_k: d_v, d_v: d / H, m: p}, {d_k}) == {d_k: d_v, d_v: d / H}
    assert relevant({d: H * d_v}, {d_v}) == {d: H * d_v}  # the value mentions the claim's dim
    assert relevant({m: sympy.Integer(3), d_v: d / H}, {d_k}) == {m: 3}  # a number always counts


def test_a_relation_about_other_dims_gives_the_same_verdict_decided_once():
    from symattn.kernel.dims import d_k
    from symattn.kernel.proof import forget

    Q, K = MatSym("Q", n, d_k), MatSym("K", n, d_k)
    forget()
    alone = prove_equal((Q @ K.T).T, K @ Q.T + Q @ K.T)
    assert alone.status == "false"
    with assume(d_v=d / H):
        assert prove_equal((Q @ K.T).T, K @ Q.T + Q @ K.T) is alone


def test_relations_the_claim_reaches_through_another_are_kept():
    from symattn.kernel.dims import d_k

    A, B = MatSym("A", n, d_k), MatSym("B", n, d / H)
    assert prove_equal(A, B).status == "shape_error"
    with assume(d_v=d / H):
        assert prove_equal(A, B).status == "shape_error"  # d_k is not d_v here
        with assume(d_k=d_v):  # d_k = d_v = d/H: the shapes agree, the matrices do not
            assert prove_equal(A, B).status == "false"
