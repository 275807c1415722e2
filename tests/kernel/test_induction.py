"""Recurrences over a symbolic count: proved by induction, their bugs false by unrolling."""

from __future__ import annotations

from dataclasses import replace

import pytest
import sympy

from symattn.kernel.dims import dim, n
from symattn.kernel.expr import MatSym
from symattn.kernel.induction import Recurrent, Segment, prefix_max, prove_recurrence
from symattn.kernel.maxima import _MaxOver, _merge_maxima
from symattn.kernel.proof import prove_equal
from symattn.kernel.recurrences import cases, flash_forward, linear_state, split_kv_merge

CASES = {c.name: c for c in cases()}


@pytest.mark.parametrize("name", [n for n, c in CASES.items() if c.holds])
def test_true_recurrence_is_proved_by_induction(name: str) -> None:
    case = CASES[name]
    verdict = prove_recurrence(case.recurrence, counts=())  # timed by benchmarks/bench_modern
    assert verdict.status == "proved", verdict.summary()
    text = verdict.summary()
    assert text.startswith(f"proved by induction on {case.recurrence.count}")
    assert [p.name.split(" ")[0] for p in verdict.parts] == ["base", "step", "conclusion"]
    assert all(p.proved and p.rests_on for p in verdict.parts)


# Unrolling flash_forward and split_kv_merge four times takes far longer than the rest; the fast
# loop unrolls kv_cache_every_step and proves both of them by induction (above).
UNROLLED = [
    pytest.param("flash_forward", marks=pytest.mark.slow),
    pytest.param("split_kv_merge", marks=pytest.mark.slow),
    "kv_cache_every_step",
]


@pytest.mark.parametrize("name", UNROLLED)
def test_true_recurrence_agrees_unrolled_at_one_to_four(name: str) -> None:
    verdict = prove_recurrence(CASES[name].recurrence)
    assert verdict.status == "proved"
    assert len(verdict.unrolled) == 4
    assert all(u.endswith("exact and float64") for u in verdict.unrolled)


@pytest.mark.parametrize("name", [n for n, c in CASES.items() if not c.holds])
def test_bug_is_false_with_a_counterexample_at_an_explicit_count(name: str) -> None:
    verdict = prove_recurrence(CASES[name].recurrence)
    assert verdict.status == "false", verdict.summary()
    assert verdict.counterexample and " differ at " in verdict.counterexample
    assert verdict.summary().startswith(f"refuted at {CASES[name].recurrence.count}=")
    # certified: the explicit count, and the data the two sides differ on
    assert verdict.counterexample.startswith(f"{CASES[name].recurrence.count}=")
    assert "; with " in verdict.counterexample and "[1,1]=" in verdict.counterexample
    assert any(not p.proved for p in verdict.parts)  # the induction did not go through either


def test_flash_bugs_are_refuted_exactly() -> None:
    """Each classic bug of the online softmax is refuted in exact arithmetic (scores drawn as
    logarithms of rationals), also those that leave the output right."""
    for name in (
        "flash_no_rescale",
        "flash_norm_not_rescaled",
        "flash_max_not_updated",
        "flash_max_from_zero",
    ):
        verdict = prove_recurrence(CASES[name].recurrence)
        assert verdict.status == "false", (name, verdict.summary())
        assert ", exact: after segment " in verdict.counterexample, verdict.counterexample


def test_flash_forward_rests_on_the_max_rule_and_a_finite_maximum() -> None:
    verdict = prove_recurrence(flash_forward(), counts=())
    step = verdict.parts[1]
    assert any(r.startswith("max_append") for r in step.rests_on)
    assert any(r.startswith("exp_max_finite") for r in step.rests_on)


def test_a_base_case_alone_is_never_proved() -> None:
    """A step that only holds at t = 1 (it forgets the state) is not proved, even where no
    counterexample is looked for."""
    bad = CASES["linear_not_accumulated"].recurrence
    verdict = prove_recurrence(bad, counts=())
    assert verdict.parts[0].proved and not verdict.parts[1].proved
    assert verdict.status == "unknown"
    assert verdict.summary().startswith("not proved by induction on T: the step is not shown")


def test_a_wrong_target_fails_the_conclusion_and_is_false_unrolled() -> None:
    rec = linear_state()

    def claim(ops, state, t):
        lhs, rhs = rec.claim(ops, state, t)
        return lhs, 2 * rhs

    verdict = prove_recurrence(replace(rec, claim=claim), counts=(1,))
    assert not verdict.parts[2].proved
    assert verdict.status == "false" and "the claim" in verdict.counterexample


def test_max_append_merges_only_adjacent_ranges_of_one_body() -> None:
    j = sympy.Dummy("j", integer=True, positive=True)
    k = sympy.Dummy("k", integer=True, positive=True)
    p = sympy.Symbol("p", integer=True, positive=True)
    x = sympy.Function("x")
    left, right = _MaxOver(x(j), j, 1, p), _MaxOver(x(k), k, p + 1, p + 3)
    merged = _merge_maxima(sympy.Max(left, right))
    assert isinstance(merged, _MaxOver) and merged.limits[1:] == (1, p + 3)
    gap = _MaxOver(x(k), k, p + 2, p + 3)
    assert not isinstance(_merge_maxima(sympy.Max(left, gap)), _MaxOver)
    other = _MaxOver(2 * x(k), k, p + 1, p + 3)
    assert not isinstance(_merge_maxima(sympy.Max(left, other)), _MaxOver)


def test_segment_positions() -> None:
    seg = Segment(sympy.Integer(3), sympy.Integer(4), sympy.Integer(2))
    assert (seg.lo, seg.hi) == (5, 6)
    assert seg.sum(lambda j: j).doit() == 11


@pytest.mark.parametrize("name", [n for n, c in CASES.items() if c.recurrence.target is not None])
def test_prove_equal_decides_a_recurrent_term_by_induction(name: str) -> None:
    case = CASES[name]
    lhs, rhs = case.recurrence.statement()
    verdict = prove_equal(lhs, rhs)
    if case.output_right:
        # the output is still right (it holds for every choice of maxima): only m is wrong
        assert verdict.status == "unknown", verdict.summary()
        assert "is not shown" in verdict.reason
    elif case.holds:
        assert verdict.status == "proved", verdict.summary()
        assert verdict.reason.startswith(f"proved by induction on {case.recurrence.count}")
        assert "unrolled: " in verdict.reason
    else:
        assert verdict.status == "false", verdict.summary()
        assert "counterexample: " in verdict.summary()


# written out at every explicit size; the induction itself and one unrolling stay fast
@pytest.mark.slow
def test_recurrent_term_at_explicit_sizes_and_in_either_order() -> None:
    lhs, rhs = flash_forward().statement(n=5, d_v=3)
    assert prove_equal(lhs, rhs).status == "proved"
    assert prove_equal(rhs, lhs).status == "proved"


def test_recurrent_term_against_another_target_is_false() -> None:
    lhs, _ = flash_forward().statement()
    verdict = prove_equal(lhs, lhs.operands["V"])
    assert verdict.status == "false" and "the claim differ" in verdict.reason


def test_recurrent_term_with_other_operands_is_not_proved() -> None:
    lhs, rhs = flash_forward().statement()
    s, v = lhs.operands["S"], lhs.operands["V"]
    other = Recurrent(lhs.recurrence, s.T, v)  # transposed scores: not the recurrence's form
    verdict = prove_equal(other, rhs)
    assert verdict.status == "unknown" and "not those of flash_forward" in verdict.reason


def test_recurrent_term_has_a_shape_and_no_closed_entry() -> None:
    lhs, rhs = split_kv_merge().statement()
    assert lhs.shape == rhs.shape
    with pytest.raises(NotImplementedError, match="proved by induction"):
        lhs.entry(sympy.Integer(1), sympy.Integer(1))
    assert prove_equal(lhs, MatSym("V", 3, 3)).status == "shape_error"
    assert str(lhs).startswith("split_kv_merge(S, V")


def test_recurrent_term_errors() -> None:
    from symattn.kernel.errors import ShapeError

    with pytest.raises(ShapeError, match=r"^unknown recurrence 'no_such'"):
        Recurrent("no_such")
    lhs, _ = flash_forward().statement()
    with pytest.raises(ShapeError, match=r"^the recurrence flash_forward takes the operands S, V"):
        Recurrent(lhs.recurrence, lhs.operands["S"])


def test_recurrent_term_inside_a_larger_side_is_undecided() -> None:
    from symattn.kernel.dims import d_v

    lhs, rhs = flash_forward().statement()
    w = MatSym("W", d_v, d_v)
    verdict = prove_equal(lhs @ w, rhs @ w)
    assert verdict.status == "unknown" and "has no closed entry" in verdict.reason


def test_a_name_stands_for_one_recurrence() -> None:
    from symattn.kernel.errors import ShapeError
    from symattn.kernel.induction import known

    rec = flash_forward()
    assert known(rec) is rec and flash_forward() is rec
    with pytest.raises(ShapeError, match=r"^another recurrence is already called 'flash_forward'"):
        known(replace(rec, note="a different one"))


def test_a_maximum_under_a_bound_index_is_not_abstracted() -> None:
    from symattn.kernel.maxima import _abstract_maxima, _Infinite

    j = sympy.Dummy("j", integer=True, positive=True)
    k = sympy.Dummy("k", integer=True, positive=True)
    x = sympy.Function("x")
    inner = _MaxOver(x(k), k, 1, j)
    side = sympy.Sum(sympy.exp(-inner), (j, 1, 3))
    with pytest.raises(_Infinite, match="depends on the bound index"):
        _abstract_maxima(side, side)


def test_a_running_maximum_as_a_claim_of_its_own_is_undecided_never_false() -> None:
    # max_append is true, yet no witness evaluates a running maximum (its bound position would
    # be taken for a size): undecided, true or not
    f = sympy.IndexedBase("f")
    j, mid = sympy.Symbol("j", integer=True), dim("mid")
    split = sympy.Max(_MaxOver(f[j], j, 1, mid), _MaxOver(f[j], j, mid + 1, n))
    right = prove_equal(split, prefix_max(lambda k: f[k], n))
    assert right.status == "unknown" and "decided only inside a proof by induction" in right.reason
    wrong = prove_equal(f[1], prefix_max(lambda k: f[k], n))
    assert wrong.status == "unknown"
