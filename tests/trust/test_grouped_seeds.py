"""Grouped-query attention's dK and dV for the whole K and V, block by block (true, and summed over
one query head too few; plain and causal) through every front end of the differential suite.

The truth is central finite differences of a numpy forward pass of its own
(`soundness.grouped_seeds`); no false claim may be accepted, no true one refuted, none may crash
or raise an alarm.
"""

from __future__ import annotations

from collections import Counter

import pytest

from symattn.soundness import differential as diff
from symattn.soundness.backward_judge import judge_backward
from symattn.soundness.grouped_seeds import GroupedClaim, grouped_claims

CLAIMS = grouped_claims()
#: what each front end may say of a true claim, and of a false one (never accepted)
FAIR = {
    "true": ("accepted", "true_not_accepted", "unknown"),
    "false": ("rejected", "not_understood", "unknown"),
}


def test_the_truth_is_finite_differences_of_every_query_head() -> None:
    truths = {c.ident: c.truth() for c in CLAIMS}
    assert Counter(truths.values()) == {"true": 4, "false": 4}
    assert all(truths[c.ident] == ("true" if c.holds else "false") for c in CLAIMS)


def test_the_renderings_state_the_repeated_heads_and_the_group_sum() -> None:
    right = GroupedClaim("x", "dK", True, True)
    short = GroupedClaim("y", "dK", True, False)
    text, line = right.document()
    assert r"\operatorname{repeat}_R(K)^{(h)}" in text
    assert r"\operatorname{softmax}(\operatorname{mask}(S^{(h)}))" in text
    assert r"\mathit{dS}^{(h)} = A^{(h)} \circ" in text  # the head's dS, which dK_g reads
    assert text.splitlines()[line - 1] == rf"$${right.claimed}$$"
    assert r"\sum_{t=1}^{R}" in right.claimed and r"\sum_{t=1}^{R - 1}" in short.claimed
    formula = right.prove_argv()[1]
    assert formula.endswith(right.claimed) and r"\mathit{dA}^{(h)}" in formula
    assert r"\mathit{dS}" not in GroupedClaim("z", "dV", False, True).prove_argv()[1]


def test_the_differential_suite_takes_them_with_the_backward_seeds() -> None:
    c = CLAIMS[0]
    items = diff._job(([c], [], ("prove", "check"), 10.0))
    assert [it.front_end for it in items] == ["prove", "check"]
    assert all(it.claim == c.ident and it.template == "grouped-backward" for it in items)


def test_prove_and_check_never_accept_a_false_block_nor_refute_a_true_one() -> None:
    items = [it for c in CLAIMS for it in judge_backward(c, ("prove", "check"), seconds=10)]
    bad = [it.line() for it in items if it.category in diff.BAD or it.category == "true_rejected"]
    assert not bad, "\n".join(bad)
    unfair = [it.line() for it in items if it.category not in FAIR[it.truth]]
    assert not unfair, "\n".join(unfair)


@pytest.mark.slow  # a false block's counterexample takes the API 10-30 s
def test_the_api_proves_every_true_block_and_refutes_every_short_one() -> None:
    items = [it for c in CLAIMS for it in judge_backward(c, ("api",), seconds=30)]
    wrong = [
        it.line()
        for it in items
        if it.category != ("accepted" if it.truth == "true" else "rejected")
    ]
    assert not wrong, "\n".join(wrong)
