"""Backward-pass claims of attention (true and false, plain and causal, three marks) through every
front end.

The truth is central finite differences of a numpy forward pass (`soundness.backward_seeds`,
sharing no code with the kernel's derivative rules); no false claim may be accepted, no true one
refuted, none may crash or raise an alarm, and the three front ends decide each the same way.
"""

from __future__ import annotations

from collections import Counter

import pytest

from symattn.soundness import differential as diff
from symattn.soundness.backward_judge import judge_backward
from symattn.soundness.backward_seeds import BackClaim, backward_claims

CLAIMS = backward_claims()


def test_the_truth_is_finite_differences_not_the_name() -> None:
    truths = {c.ident: c.truth() for c in CLAIMS}
    assert truths["bw-dV"] == truths["bw-dQ-causal"] == truths["bw-row-term"] == "true"
    assert truths["bw-dQ-no-scale"] == "false"  # the missing 1/sqrt(d_k)
    assert truths["bw-dS-no-row-term"] == "false"  # dS = A ∘ dA
    assert truths["bw-dK-no-transpose-causal"] == "false"  # the transpose dropped
    assert Counter(truths.values()) == {"true": 18, "false": 18}
    # a true claim and its variant differ in the value alone: the oracle computes both
    assert all(truths[c.ident] == truths[c.ident.replace("-bar", "")] for c in CLAIMS)


def test_the_renderings_state_the_forward_pass_and_the_mark() -> None:
    c = BackClaim("x", "dS-from-D", True, "mathit")
    text, line = c.document()
    assert r"\operatorname{softmax}(\operatorname{mask}(S))" in text
    assert r"$\mathit{dA} = \mathit{dO}\,V^\top$" in text  # the gradient shown before
    assert text.splitlines()[line - 1] == rf"$${c.claimed}$$"
    assert BackClaim("y", "dV", False, "bar").claimed == r"\bar V = A^\top \bar O"


@pytest.fixture(scope="module")
def items() -> list[diff.Item]:
    out: list[diff.Item] = []
    for c in CLAIMS:
        out += judge_backward(c, seconds=10)
    return out


@pytest.mark.slow  # every seed through every front end (tests/check reads the notations fast)
def test_every_front_end_accepts_the_true_and_rejects_the_false(items: list[diff.Item]) -> None:
    bad = [it.line() for it in items if it.category in diff.BAD]
    assert not bad, "\n".join(bad)
    assert not [it.line() for it in items if it.category == "true_rejected"]
    wrong = [
        it.line()
        for it in items
        if it.category != ("accepted" if it.truth == "true" else "rejected")
    ]
    assert not wrong, "\n".join(wrong)
    assert {it.front_end for it in items} == {"api", "prove", "check"}


def test_the_runner_takes_backward_claims_as_their_own_group() -> None:
    two = CLAIMS[:2]
    assert [len(g) for g, _ in diff._groups(two, [()] * 2)] == [1, 1]
    items = diff.run_claims(two, jobs=1, front_ends=["check"], seconds=10, progress=False)
    assert [(it.claim, it.category) for it in items] == [
        ("bw-dV", "accepted"),
        ("bw-dV-no-transpose", "rejected"),
    ]
