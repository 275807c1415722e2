"""Evidence: what a witness's verdict rests on (sizes, index points, method); none is no pass."""

from __future__ import annotations

import pytest
import sympy

from symattn.kernel.expr import MatSym, index
from symattn.kernel.proof import Verdict, prove_equal
from symattn.kernel.witness.evidence import Evidence, WitnessResult
from symattn.kernel.witness.evidence import supported as _supported
from symattn.kernel.witness.exact import exact

i, j, r = index("i"), index("j"), index("r")


def test_zero_evaluations_never_hold():
    empty = Evidence((("n", 1),), "expansion", 0, 0)
    result = _supported([empty], "equal")
    assert result.holds is None and result.detail.startswith("no evidence")
    with pytest.raises(ValueError, match="checked"):
        Verdict("checked")
    assert WitnessResult(True).exhaustive is False


def test_a_claim_false_at_one_index_point_of_64_is_false():
    A = MatSym("A", 8, 8)
    one_cell = sympy.Piecewise((1, sympy.And(sympy.Eq(i, 8), sympy.Eq(j, 8))), (0, True))
    v = prove_equal(A[i, j], A[i, j] + one_cell)
    assert v.status == "false", v.summary()


def test_checked_states_every_index_point_it_evaluated():
    A, B = MatSym("A", 8, 8), MatSym("B", 8, 8)
    v = prove_equal((A @ B)[i, j], sympy.Sum(A[i, r] * B[r, j], (r, 1, 8)), witnesses=("exact",))
    assert v.ok, v.summary()
    (ev,) = v.evidence
    assert ev.exhaustive and ev.points == ev.total == 64, v.summary()
    assert "all 64" in v.summary() or v.status == "proved"
    result = exact((A @ B)[i, j], sympy.Sum(A[i, r] * B[r, j], (r, 1, 8)), {i: (1, 8), j: (1, 8)})
    assert result.holds and result.evidence[0].points == 64
