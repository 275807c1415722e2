"""The exact witness at the original Transformer's sizes: I1-I4 accepted, planted errors refused.

Correctness only; timings belong to benchmarks/run.py.
"""

from __future__ import annotations

import re

import pytest
import sympy

from symattn.kernel.attention import chapter_identities, multi_head, single_head
from symattn.kernel.dims import H, d, d_k, d_v, n
from symattn.kernel.expr import CausalMask, Dot, MatSum, RowBlock, Scale, Softmax, index
from symattn.kernel.proof import prove_equal

i, j = index("i"), index("j")
ORIGINAL = {"n": 7, "d": 512, "d_k": 64, "d_v": 64, "H": 8}
SYMBOLIC = {"n": n, "d": d, "d_k": d_k, "d_v": d_v, "H": H}


identities = chapter_identities


def false_variants(n, d, d_k, d_v, H):  # noqa: N803
    s = single_head(n=n, d=d, d_k=d_k, d_v=d_v)
    mh = multi_head(n=n, d=d, d_v=d_v, H=H, d_k=d_k)
    h = mh.h
    causal = single_head(n=n, d=d, d_k=d_k, d_v=d_v, causal=True).weights
    upper = Softmax(CausalMask(s.scaled, upper=True))
    return {
        "swapped indices": (s.scores[i, j], Dot(s.Q.row(j), s.K.row(i))),
        "W_O block offset": (
            mh.output,
            MatSum(mh.Z_h @ RowBlock(mh.W_O, h + 1, d_v, H), h, 1, H - 1),
        ),
        "sqrt(d_v) for sqrt(d_k)": (s.weights, Softmax(s.scores / sympy.sqrt(d_v))),
        "mask on the wrong triangle": (
            (upper @ s.V).row(i),
            MatSum(Scale(upper[i, j], s.V.row(j)), j, 1, i),
        ),
        "wrong triangle, weights": (causal, upper),
    }


@pytest.mark.parametrize("name", ["I1", "I2", "I3", "I4"])
def test_identity_checked_exactly_at_the_original_size(name):
    lhs, rhs, defs = identities(**ORIGINAL)[name]
    v = prove_equal(lhs, rhs, defs=defs, witnesses=("exact",))
    assert v.status == "checked", v.summary()
    assert v.witnesses == ("exact",)
    bound = re.search(r"chance of a false 'equal' <= ([0-9.e+-]+)", v.summary())
    assert bound is not None, v.summary()
    assert float(bound.group(1)) < 1e-15
    assert "p = 2147483647" in v.summary()
    (ev,) = v.evidence
    assert ev.method == "mod p" and ev.exhaustive and ev.points > 0
    assert ev.bound is not None and ev.bound < 1e-15


@pytest.mark.parametrize("name", ["I1", "I2", "I3", "I4"])
def test_identity_proved_at_symbolic_dims_with_every_witness(name):
    lhs, rhs, defs = identities(**SYMBOLIC)[name]
    v = prove_equal(lhs, rhs, defs=defs)
    assert v.status == "proved", v.summary()
    assert set(v.witnesses) == {"symbolic", "exact", "numeric"}


# d_k != d_v so that sqrt(d_v) for sqrt(d_k) is wrong; sqrt(32) = 4 sqrt(2) is not rational.
PLANTED = {**ORIGINAL, "d_v": 32}


@pytest.mark.parametrize("name", list(false_variants(**PLANTED)))
def test_planted_error_refused_at_the_original_size_with_a_small_counterexample(name):
    lhs, rhs = false_variants(**PLANTED)[name]
    v = prove_equal(lhs, rhs, witnesses=("exact",))
    assert v.status == "false", v.summary()
    cex = v.counterexample
    assert cex is not None, v.summary()
    nonzero = cex.entries[:-1]
    assert len(nonzero) <= 6, str(cex)
    assert cex.entries[-1] == ("every other entry" if nonzero else "every entry", "0")
    assert cex.lhs != cex.rhs


@pytest.mark.parametrize("name", list(false_variants(**SYMBOLIC)))
def test_planted_error_at_symbolic_dims_has_a_counterexample_at_small_sizes(name):
    lhs, rhs = false_variants(**SYMBOLIC)[name]
    v = prove_equal(lhs, rhs)
    assert v.status == "false", v.summary()
    assert v.counterexample is not None
    assert all(value <= 6 for _, value in v.counterexample.sizes), str(v.counterexample)


def test_planted_error_counterexample_is_readable():
    lhs, rhs = false_variants(**PLANTED)["W_O block offset"]
    text = str(prove_equal(lhs, rhs, witnesses=("exact",)).counterexample)
    assert re.search(r"W_O\[\d+,\d+\]=1, Z\^\(1\)\[\d+,\d+\]=1, every other entry=0", text), text
    assert "left side = 1, right side = 0 (evaluated exactly)" in text
