"""The unrolled cross-checks of a recurrence: what they evaluate, and how often they build it."""

from __future__ import annotations

from dataclasses import replace

import pytest
import sympy

from symattn.kernel.dims import dim
from symattn.kernel.expr import Entry, MatSym, index
from symattn.kernel.induction import prove_recurrence
from symattn.kernel.recurrences import cases, linear_state
from symattn.kernel.recurrent import Recurrence, Segment
from symattn.kernel.unroll import _Eval, _Unrolled

CASES = {c.name: c for c in cases()}


def _counting(rec: Recurrence) -> tuple[Recurrence, dict[str, int]]:
    """`rec` with its step and invariant counted (the unrolled checks only: no proof)."""
    calls = {"step": 0, "invariant": 0}

    def step(ops, state, seg):  # type: ignore[no-untyped-def]
        calls["step"] += 1
        return rec.step(ops, state, seg)

    def invariant(ops, hi):  # type: ignore[no-untyped-def]
        calls["invariant"] += 1
        return rec.invariant(ops, hi)

    return replace(rec, name=rec.name + "_counted", step=step, invariant=invariant), calls


def _unrolled_only(rec: Recurrence, calls: dict[str, int], **kw: object) -> tuple[object, int]:
    """The verdict and the steps taken by the unrolling alone (the proof's own steps are the
    ones taken with no counts)."""
    prove_recurrence(rec, counts=(), **kw)  # type: ignore[arg-type]
    proof_steps = calls["step"]
    calls["step"] = 0
    verdict = prove_recurrence(rec, **kw)  # type: ignore[arg-type]
    return verdict, calls["step"] - proof_steps


def test_both_modes_evaluate_one_written_out_recurrence() -> None:
    """Exact and float64 check the same terms: each count's segments are stepped once (1 + 2
    + 3 + 4 steps), not once per mode, and both modes still say they ran."""
    rec, calls = _counting(linear_state())
    verdict, steps = _unrolled_only(rec, calls)
    assert verdict.status == "proved"  # type: ignore[attr-defined]
    assert steps == 1 + 2 + 3 + 4
    assert all(u.endswith("exact and float64") for u in verdict.unrolled)  # type: ignore[attr-defined]


def test_operands_renamed_for_the_exact_mode_are_written_out_for_each_mode() -> None:
    """A recurrence whose base and step hold for every score matrix renames it in the exact
    mode (log-rational scores): there the two modes evaluate different terms."""
    case = CASES["kv_cache_every_step"]
    assert case.recurrence.abstract
    rec, calls = _counting(case.recurrence)
    verdict, steps = _unrolled_only(rec, calls)
    assert verdict.status == "proved"  # type: ignore[attr-defined]
    assert steps == 2 * (1 + 2 + 3 + 4)


def test_a_claim_about_the_output_alone_builds_no_invariant_when_unrolled() -> None:
    rec, calls = _counting(linear_state())
    prove_recurrence(rec, counts=(), claim_only=True)
    proof_calls = calls["invariant"]
    calls["invariant"] = 0
    verdict = prove_recurrence(rec, claim_only=True)
    assert verdict.status == "proved"
    assert calls["invariant"] == proof_calls  # the proof's, none for the unrolled checks


@pytest.mark.parametrize("name", [n for n, c in CASES.items() if not c.holds])
def test_a_counterexample_shows_values_never_the_names_of_states(name: str) -> None:
    verdict = prove_recurrence(CASES[name].recurrence)
    assert verdict.status == "false"
    assert "state_" not in verdict.counterexample
    assert " differ at " in verdict.counterexample


def test_a_named_state_is_evaluated_once_per_value_of_its_own_indices() -> None:
    """A state of row i only, read at every (i, c): its terms are evaluated once per i."""
    i, c = index("i"), index("c")
    x, y = MatSym("X", 3, 1), MatSym("Y", 3, 2)
    u = _Unrolled({"X": x, "Y": y}, scores=(), seed=1)
    (row,) = u.named((Entry(x, i, 1) + 1,), ("r",), 1)
    claim = row * Entry(y, i, c)
    ev = _Eval({"X": {(r, 1): r for r in (1, 2, 3)}, "Y": {}}, True, u.alias, u.free)
    ev.data["Y"] = {(r, k): 10 * r + k for r in (1, 2, 3) for k in (1, 2)}
    seen: list[object] = []
    add = ev._Add

    def counted(e, env):  # type: ignore[no-untyped-def]
        seen.append(dict(env))
        return add(e, env)

    ev._Add = counted  # type: ignore[method-assign]
    got = {(r, k): ev(claim, {i: r, c: k}) for r in (1, 2, 3) for k in (1, 2)}
    assert got == {(r, k): (r + 1) * (10 * r + k) for r in (1, 2, 3) for k in (1, 2)}
    assert sorted(env[i] for env in seen) == [1, 2, 3]  # type: ignore[index]
    assert all(set(env) == {i} for env in seen)  # type: ignore[arg-type]


def test_a_named_state_follows_an_index_the_claim_substitutes() -> None:
    """A claim that sums over the state's row (φ(q_t) S_t) substitutes the row index in the
    name as in the terms: the value is that of the terms at each row."""
    a, j = index("a"), sympy.Dummy("j", integer=True, positive=True)
    x = MatSym("X", 3, 1)
    u = _Unrolled({"X": x}, scores=(), seed=1)
    (state,) = u.named((2 * Entry(x, a, 1),), ("s",), 1)
    total = sympy.Sum(state.xreplace({a: j}), (j, 1, 3))
    ev = _Eval({"X": {(r, 1): r for r in (1, 2, 3)}}, True, u.alias, u.free)
    assert ev(total, {}) == 2 * (1 + 2 + 3)
    assert dim("n") not in u.free(total)
    assert Segment(sympy.Integer(1), sympy.Integer(0), sympy.Integer(1)).hi == 1
