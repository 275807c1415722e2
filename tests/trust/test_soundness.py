"""The soundness suite in CI: a bounded, stratified sample of mutants of every true claim."""

from __future__ import annotations

import json

import pytest
import sympy

from symattn.kernel.attention import single_head
from symattn.kernel.dims import H, d_k, d_v, n
from symattn.kernel.expr import (
    CausalMask,
    Dot,
    MatSum,
    MatSym,
    Ones,
    RowBlock,
    Scale,
    Softmax,
    index,
)
from symattn.kernel.proof import Verdict, prove_equal
from symattn.soundness import (
    Claim,
    Mutant,
    chapter_claims,
    corpus,
    judge,
    main,
    mutants,
    run,
    truth,
)

i, j, u, h = (index(x) for x in "ijuh")
_MS, _MB = CausalMask(MatSym("S", n, n)), CausalMask(MatSym("B", n, n))
m = sympy.Symbol("m", integer=True, positive=True)
OPERATORS = {
    "block_wrong_offset",
    "factors_reordered",
    "indices_swapped",
    "mask_wrong_triangle",
    "row_index_changed",
    "scale_changed",
    "softmax_over_columns",
    "sum_bound_off_by_one",
    "sum_over_wrong_dim",
    "transpose_added",
    "transpose_dropped",
    "w_o_wrong_shape",
}


@pytest.fixture(scope="module")
def report():
    return run(corpus(derivations=False), sample=36, seed=2026, seconds=20)


@pytest.mark.slow
def test_no_false_mutant_is_reported_proved_or_checked(report):
    escapes = report.escapes
    assert not escapes, "\n".join(f"{o.mutant.label} -> {o.status}" for o in escapes)


@pytest.mark.slow
def test_every_false_mutant_is_rejected(report):
    f = report.figures()
    assert f["false"] >= 25
    missed = [o for o in report.outcomes if o.truth == "false" and o.accepted]
    assert not missed, [(o.mutant.label, o.status) for o in missed]


@pytest.mark.slow
def test_no_crash(report):
    crashes = [o for o in report.outcomes if o.status == "crash"]
    assert not crashes, [(o.mutant.label, o.reason) for o in crashes]


@pytest.mark.slow
def test_sample_covers_every_operator_and_decides_every_truth(report):
    assert {o.mutant.operator for o in report.outcomes} == OPERATORS
    assert report.figures()["undecided"] == 0
    assert not report.base_problems


@pytest.mark.slow
def test_true_mutants_are_accepted(report):
    f = report.figures()
    assert f["true_accepted"] == f["true"], report.text()


@pytest.mark.parametrize(
    ("lhs", "rhs", "expected"),
    [
        (single_head().scores[i, j], Dot(single_head().Q.row(i), single_head().K.row(j)), "true"),
        (single_head().scores[i, j], single_head().scores[j, i], "false"),
        # the wrong triangle still gives rows that sum to 1: a true mutant
        (Softmax(CausalMask(MatSym("S", n, n), upper=True)) @ Ones(n, 1), Ones(n, 1), "true"),
        # sum over the wrong dim reads outside V: ill-formed, so not true
        (
            (single_head().A @ single_head().V).row(i),
            MatSum(Scale(single_head().A[i, j], single_head().V.row(j)), j, 1, d_v),
            "false",
        ),
        # masked scores: a sum of masks is defined only inside a softmax; a mask is a value
        (_MS + _MB, CausalMask(MatSym("S", n, n) + MatSym("B", n, n)), "false"),
        (Softmax(_MS + _MB), Softmax(CausalMask(MatSym("S", n, n) + MatSym("B", n, n))), "true"),
        (Softmax(_MS + _MB), Softmax(_MS), "false"),
        (_MS.T, CausalMask(MatSym("S", n, n).T, upper=True), "true"),
        (_MS.T, CausalMask(MatSym("S", n, n).T), "false"),
        (Softmax(Scale(0, _MS)), Softmax(Scale(0, MatSym("S", n, n))), "false"),
    ],
)
def test_truth_by_the_independent_route(lhs, rhs, expected):
    assert truth(lhs, rhs) == expected


def test_wrong_w_o_shape_is_refused_at_construction():
    mh = [c for c in chapter_claims() if c.name == "chapter block identity"][0]
    built = [mu for mu in mutants(mh) if mu.operator == "w_o_wrong_shape"]
    assert any(mu.error and mu.error.startswith("ShapeError: cannot") for mu in built)
    refused = [mu for mu in built if mu.error][0]
    outcome = judge(refused)
    assert outcome.status == "rejected_at_construction" and not outcome.accepted


def test_judge_does_not_count_a_true_claim_as_an_escape():
    # An unchanged true claim, judged as a mutant: accepted, and its truth says it is no escape.
    s = single_head()
    base = Claim("demo", s.scores[i, j], Dot(s.Q.row(i), s.K.row(j)))
    o = judge(Mutant(base, "none", "unchanged", base.lhs, base.rhs))
    assert o.truth == "true" and o.accepted and not o.escape


def test_judge_flags_an_escape(monkeypatch):
    # A kernel that proves a false mutant (planted here) must be reported as an escape.
    import symattn.soundness.mutation

    monkeypatch.setattr(
        symattn.soundness.mutation, "prove_within", lambda *a, **k: Verdict("proved")
    )
    s = single_head()
    base = Claim("demo", s.scores[i, j], Dot(s.Q.row(i), s.K.row(j)))
    wrong = Mutant(base, "indices_swapped", "rhs", base.lhs, Dot(s.Q.row(j), s.K.row(i)))
    o = judge(wrong)
    assert o.truth == "false" and o.accepted and o.escape


def test_command_line_json(capsys):
    code = main(["--only", "score entry = dot", "--sample", "2", "--no-derivations", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0  # both mutants rejected: no escape
    assert data["figures"]["mutants"] == 2
    assert data["figures"]["false_rejected"] == 2 and data["escapes"] == []
    assert set(data["figures"]) >= {"false_rejected", "true_accepted", "rejected_at_construction"}


def test_one_name_with_two_shapes_is_not_proved():
    wo, wrong = MatSym("W_O", H * d_v, m), MatSym("W_O", H * d_k, m)
    v = prove_equal(RowBlock(wo, h, d_v, H)[u, j], wrong[(h - 1) * d_v + u, j])
    assert v.status not in ("proved", "checked"), v.summary()


def test_sum_past_the_end_gives_a_verdict_not_an_exception():
    s = single_head()
    v = prove_equal((s.A @ s.V).row(i), MatSum(Scale(s.A[i, j], s.V.row(j)), j, 1, n + 1))
    assert v.status == "shape_error", v.summary()
    # (j is past the end of A's columns and of V's rows: either is the reason given)
    assert v.reason in (
        "A_{i,j}: index j runs over 1..n + 1 but A has n cols",
        "row j of V: index j runs over 1..n + 1 but V has n rows",
    )
