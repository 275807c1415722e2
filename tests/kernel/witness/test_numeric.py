"""The numeric (float64) witness against its own reference implementations and the kernel's
expressions, and the evidence it states.
"""

from __future__ import annotations

import re

import numpy as np

from symattn.kernel.attention import multi_head, single_head
from symattn.kernel.dims import H, d, d_k, d_v, n
from symattn.kernel.expr import CausalMask, HeadSym, Softmax
from symattn.kernel.witness import numeric
from symattn.kernel.witness.numeric import numeric_check


def _env(**sizes):
    syms = {"n": n, "d": d, "d_k": d_k, "d_v": d_v, "H": H}
    return numeric.Env(sizes={syms[k]: v for k, v in sizes.items()}, seed=7)


def test_kernel_attention_matches_numpy_reference():
    for causal in (False, True):
        s = single_head(causal=True) if causal else single_head()
        env = _env(n=5, d=6, d_k=4, d_v=3)
        got = numeric.matrix(s.output, env)
        q, k, v = (numeric.matrix(m, env) for m in (s.Q, s.K, s.V))
        assert numeric.close(got, numeric.attention(q, k, v, causal=causal))


def test_rows_of_weights_sum_to_one_and_mask_is_exact_zero():
    s = single_head(causal=True)
    w = numeric.matrix(s.weights, _env(n=6, d=4, d_k=3, d_v=2))
    assert numeric.close(w.sum(axis=1), np.ones(6))
    assert np.all(np.triu(w, 1) == 0.0)


def test_multi_head_matches_reference():
    mh = multi_head()
    env = _env(n=4, d=6, d_k=3, d_v=2, H=3)
    x = numeric.matrix(mh.X, env)
    heads = [numeric.matrix(mh.head_attention(h), env) for h in (1, 2, 3)]
    w_o = numeric.matrix(mh.W_O, env)
    wq = [numeric.matrix(HeadSym("W_Q", h, d, d_k), env) for h in (1, 2, 3)]
    wk = [numeric.matrix(HeadSym("W_K", h, d, d_k), env) for h in (1, 2, 3)]
    wv = [numeric.matrix(HeadSym("W_V", h, d, d_v), env) for h in (1, 2, 3)]
    ref = numeric.multi_head_attention(x, wq, wk, wv, w_o)
    assert numeric.close(np.concatenate(heads, axis=1) @ w_o, ref)


def test_same_seed_same_data():
    a = numeric.matrix(single_head().Q, _env(n=3, d_k=2))
    b = numeric.matrix(single_head().Q, _env(n=3, d_k=2))
    assert np.array_equal(a, b)


def test_float64_compares_whole_matrices_and_says_how_many_entries():
    s = single_head()
    lhs = Softmax(CausalMask(s.scores))
    rhs = Softmax(CausalMask((s.K @ s.Q.T).T))  # another tree for the same matrix
    result = numeric_check(lhs, rhs, {})
    assert result.holds
    for ev in result.evidence:
        assert ev.method == "float64" and ev.exhaustive
        sizes = dict(ev.sizes)
        assert ev.points == sizes["n"] ** 2
    assert re.search(r"in float64 at d_k=\d, n=\d: all \d+ entries", str(result.evidence[0]))
    assert numeric_check(lhs, Softmax(CausalMask(s.K @ s.Q.T)), {}).holds is False
