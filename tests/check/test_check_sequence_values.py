"""A sequence the text defines by a formula of its index and sizes (`\\theta_i =
10000^{-2(i-1)/d}`), used in a worked example: its value there is the formula at the example's
sizes, and a definition read inside one example is not used at another's sizes."""

from __future__ import annotations

from claim_helpers import results

_THETA = "The angles are $\\theta_i=10000^{-2(i-1)/d}$.\n\n"


def test_a_sequence_is_read_at_the_sizes_of_the_example_in_force() -> None:
    text = _THETA + (
        "With $d=128$: $\\theta_{64}=10000^{-126/128}$, not $\\theta_{64}=10000^{-1}$.\n"
    )
    assert [r.kind for r in results(text) if r.line == 3] == ["verified", "false"]


def test_a_sequence_defined_inside_one_example_is_not_used_at_another_s_sizes() -> None:
    # read while d = 4096 was in force, the body holds 4096: at d = 128 it says nothing
    text = (
        "Take $d=4096$. The angles are $\\theta_i=10000^{-2(i-1)/d}$.\n\n"
        "# Smaller\n\nWith $d=128$: $\\theta_{64}=10000^{-126/128}$.\n"
    )
    got = [r for r in results(text) if r.line == 5 and "theta" in r.source]
    assert [r.kind for r in got] == ["undecided"]
