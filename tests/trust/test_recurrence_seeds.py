"""Recurrence claims (a base case, a step and a claim about S_t) through every front end.

The truth is the numpy iteration of `soundness.recurrence_seeds` (it shares no code with the
kernel's induction); no false claim may be accepted, none may crash or raise an alarm, and the
claims the reader reads as recurrences are decided the same way through all three front ends.
"""

from __future__ import annotations

from collections import Counter

import pytest

from symattn.soundness import differential as diff
from symattn.soundness.online_seeds import online_claims
from symattn.soundness.recurrence_seeds import RecClaim, recurrence_claims

CLAIMS = recurrence_claims()


def test_the_truth_is_the_iteration_not_the_template() -> None:
    truths = {c.ident: c.truth() for c in CLAIMS}
    assert truths["rec-accumulate-zero-prefix"] == "true"
    assert truths["rec-accumulate-first-prefix"] == "true"  # S_1 = k_1^T v_1 as the base
    assert truths["rec-accumulate-zero-one_short"] == "false"
    assert truths["rec-doubled-zero-prefix"] == "false"
    assert truths["rec-overwrite-zero-last"] == "true"
    assert truths["rec-first_key-zero-two"] == "false"
    assert Counter(truths.values()) == {"true": 8, "false": 40}


@pytest.fixture(scope="module")
def items() -> list[diff.Item]:
    out: list[diff.Item] = []
    for c in CLAIMS:
        out += diff.judge_recurrence(c, seconds=10)
    return out


@pytest.mark.slow  # every seed through every front end (tests/check reads recurrences fast)
def test_no_false_claim_is_accepted_and_nothing_crashes(items: list[diff.Item]) -> None:
    bad = [it.line() for it in items if it.category in diff.BAD]
    assert not bad, "\n".join(bad)
    assert not [it.line() for it in items if it.category == "true_rejected"]


@pytest.mark.parametrize(
    ("ident", "category"),
    [
        ("rec-accumulate-zero-prefix", "accepted"),  # by induction on t
        ("rec-accumulate-first-prefix", "accepted"),
        ("rec-accumulate-zero-two", "accepted"),  # written out at t = 2
        ("rec-accumulate-zero-one_short", "rejected"),
        ("rec-doubled-zero-prefix", "rejected"),
        ("rec-first_key-first-last", "rejected"),
        ("rec-accumulate-zero-gap", "rejected"),
    ],
)
@pytest.mark.slow  # every seed through every front end (tests/check reads recurrences fast)
def test_every_front_end_decides_a_read_recurrence(
    items: list[diff.Item], ident: str, category: str
) -> None:
    got = {it.front_end: it for it in items if it.claim == ident}
    assert set(got) == {"api", "prove", "check"}
    for fe, it in got.items():
        assert it.category == category, (fe, it.line())
    if category == "accepted" and ident.endswith("prefix"):
        assert "proved by induction on t" in got["prove"].detail
    if category == "rejected":
        assert all(it.status == "false" for it in got.values())


@pytest.mark.slow  # every seed through every front end (tests/check reads recurrences fast)
def test_a_family_defined_by_a_closed_form_is_read_by_every_front_end(
    items: list[diff.Item],
) -> None:
    # `S_t = k_t^T v_t` names no S_{t-1}: it defines every member by a form of t, which the
    # reader reads; the claim that restates it is accepted by every front end, and only so
    got = {it.front_end: it for it in items if it.claim == "rec-overwrite-zero-last"}
    assert {fe: it.category for fe, it in got.items()} == {
        "api": "accepted",
        "prove": "accepted",
        "check": "accepted",
    }


def test_the_renderings_state_the_base_case_and_the_step() -> None:
    c = RecClaim("x", "accumulate", "zero", "prefix")
    assert c.formula.startswith("S_0 = 0,\\quad S_t = S_{t-1} + k_t^\\top v_t")
    text, line = c.document()
    assert "$S_0 = 0$" in text and text.splitlines()[line - 1].startswith("$$S_t = \\sum")


def test_the_truth_oracle_decides_every_named_recurrence_and_its_bugs() -> None:
    """The recurrences of `kernel.recurrences` as `Recurrent(...) = target` claims: the
    oracle's own loops (from the papers) say true for the true ones and false for each bug."""
    from symattn.soundness.corpus import recurrence_claims as named
    from symattn.soundness.truth import truth

    assert {truth(c.lhs, c.rhs) for c in named()} == {"true"}
    bugs = named(holds=False)
    assert len(bugs) == 8
    assert {c.name: truth(c.lhs, c.rhs) for c in bugs} == {c.name: "false" for c in bugs}


def test_the_suites_truth_oracle_agrees_with_the_iteration() -> None:
    """`soundness.truth` evaluates a recurrence's member from its base case and step at every
    index point; on every seed it says what the seeds' own numpy iteration says."""
    from symattn.soundness.truth import truth

    got = {c.ident: truth(*c.kernel_terms()) for c in CLAIMS}
    assert got == {c.ident: c.truth() for c in CLAIMS}


# ---- the online softmax as texts write it (m, ℓ, O over key blocks) ----------------------

ONLINE = online_claims()


def test_the_online_truth_is_the_iteration_not_the_template() -> None:
    truths = {c.ident: c.truth() for c in ONLINE}
    assert truths["online-diag-rescaled-inf-ratio"] == "true"
    assert truths["online-diag-rescaled-zero-ratio"] == "true"  # the maxima telescope
    assert truths["online-plain-rescaled-inf-ratio"] == "false"
    assert truths["online-diag-plain-inf-ratio"] == "false"
    assert Counter(truths.values()) == {"true": 2, "false": 14}


@pytest.fixture(scope="module")
def online_items() -> list[diff.Item]:
    out: list[diff.Item] = []
    for c in ONLINE:
        out += diff.judge_recurrence(c, seconds=20)
    return out


@pytest.mark.slow  # every seed through every front end (tests/check reads them fast)
def test_no_false_online_softmax_is_accepted_and_every_front_end_agrees(
    online_items: list[diff.Item],
) -> None:
    bad = [it.line() for it in online_items if it.category in diff.BAD]
    assert not bad, "\n".join(bad)
    by_claim: dict[str, dict[str, diff.Item]] = {}
    for it in online_items:
        by_claim.setdefault(it.claim, {})[it.front_end] = it
    for ident, got in by_claim.items():
        assert set(got) == {"api", "prove", "check"}
        assert len({it.status for it in got.values()}) == 1, (ident, got)
    right = by_claim["online-diag-rescaled-inf-ratio"]
    assert all(it.status == "proved" for it in right.values())
    assert all("proved by induction on B" in right[fe].detail for fe in ("prove", "check"))
    assert Counter(it.category for it in online_items) == {
        "accepted": 3,
        "unknown": 3,  # from m^{(0)} = 0: true, but the base of m is not shown
        "rejected": 42,
    }


@pytest.mark.slow  # three seeds through every front end
def test_the_split_kv_merge_is_decided_alike_by_every_front_end() -> None:
    from symattn.soundness.split_seeds import split_claims

    items = [it for c in split_claims() for it in diff.judge_recurrence(c, seconds=20)]
    assert not [it.line() for it in items if it.category in diff.BAD]
    got = {(it.claim, it.front_end): it.status for it in items}
    for fe in ("api", "prove", "check"):
        assert got[("split-split_kv_merge", fe)] == "proved"
        assert got[("split-split_kv_no_rescale", fe)] == "false"
        assert got[("split-split_kv_unweighted", fe)] == "false"
