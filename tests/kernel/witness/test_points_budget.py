"""The work budget of comparing two sides at every index point: past it, the exact and numeric
witnesses give no evidence (and say why) instead of evaluating millions of points."""

from __future__ import annotations

import signal

import pytest
import sympy

from symattn.check import check_text
from symattn.kernel.dims import dim
from symattn.kernel.expr import Entry, MatSym
from symattn.kernel.witness.exact import exact
from symattn.kernel.witness.numeric import numeric_check
from symattn.kernel.witness.points import points_over_budget


@pytest.fixture
def within_seconds():
    """Fail (rather than hang) a test that runs past 60 s: the old code took minutes here."""

    def stop(*_: object) -> None:
        raise TimeoutError("the witness did not stop at its budget")

    old = signal.signal(signal.SIGALRM, stop)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def test_the_budget_counts_index_points_times_the_largest_size() -> None:
    p, i, j = dim("p"), sympy.Symbol("i"), sympy.Symbol("j")
    A = MatSym("A", p, p)
    rng = {i: (1, p), j: (1, p)}
    assert points_over_budget(Entry(A, i, j), Entry(A, j, i), rng, {p: 9}) is None
    why = points_over_budget(Entry(A, i, j), Entry(A, j, i), rng, {p: 5000})
    assert why is not None and "25,000,000 index points" in why


def test_past_the_budget_the_witnesses_give_no_evidence(within_seconds: None) -> None:
    p, i, j = sympy.Integer(4000), sympy.Symbol("i"), sympy.Symbol("j")
    A = MatSym("A", p, p)
    rng = {i: (1, p), j: (1, p)}
    for witness in (exact, numeric_check):
        got = witness(Entry(A, i, j), Entry(A, j, i), rng)
        assert got.holds is None and "budget" in str(got)


BIG = "With $n = 4096$ tokens.\n\n$$(QK^\\top)_{ij} = \\sum_{r=1}^{d_k} Q_{ir} K_{%s r}$$\n"


def test_an_identity_at_large_worked_sizes_is_decided_without_enumerating(
    within_seconds: None,
) -> None:
    got = [r for r in check_text(BIG % "j", "doc.md") if r.kind not in ("declaration",)]
    assert [r.kind for r in got if r.kind != "not-a-claim"] == ["verified"]
    got = [r for r in check_text(BIG % "i", "doc.md") if r.kind not in ("declaration",)]
    assert [r.kind for r in got if r.kind != "not-a-claim"] == ["undecided"]
