"""Causal gradients with several heads: dK and dV of multi-query and grouped-query attention
under the causal mask are proved for symbolic sizes (the softmax of each head replaced by a
generic matrix per head), wrong sums are refuted, and the values agree with central finite
differences of an independent numpy forward pass."""

from __future__ import annotations

import numpy as np
import pytest

from symattn.kernel.arrays import evaluate
from symattn.kernel.backward import AttentionBackward, prove_gradient, shared_kv_backward
from symattn.kernel.dims import H, d_k, d_v, dim, n
from symattn.kernel.expr import HeadSym, MatSum, MatSym, Softmax, index, named_shapes
from symattn.kernel.generic_softmax import generic_names

MQ, HEAD = shared_kv_backward(causal=True)
G, R_INDEX, R = index("g"), index("r"), dim("R")
GQ = AttentionBackward(
    HeadSym("Q", (G - 1) * R + R_INDEX, n, d_k),
    MatSym("K", n, d_k),
    MatSym("V", n, d_v),
    HeadSym("dO", (G - 1) * R + R_INDEX, n, d_v),
    True,
)


@pytest.mark.parametrize("which", ["dV", "dK"])
def test_causal_multi_query_gradients_are_proved_as_sums_over_the_heads(which):
    wrt, grad = (MQ.V, MQ.dV) if which == "dV" else (MQ.K, MQ.dK)
    v = prove_gradient(MQ.O, wrt, MQ.dO, MatSum(grad, HEAD, 1, H), heads=(HEAD, H))
    assert v.status == "proved", v.summary()
    assert "A_1^(h)" in v.reason  # one generic matrix per head, not one for all heads


def test_causal_multi_query_gradient_of_one_head_is_refuted():
    v = prove_gradient(MQ.O, MQ.V, MQ.dO, MQ.dV.xreplace({HEAD: 1}), heads=(HEAD, H))
    assert v.status == "false" and v.counterexample is not None


@pytest.mark.parametrize("which", ["dV", "dK"])
def test_causal_grouped_gradients_are_proved_and_a_short_sum_refuted(which):
    wrt, grad = (GQ.V, GQ.dV) if which == "dV" else (GQ.K, GQ.dK)
    v = prove_gradient(GQ.O, wrt, GQ.dO, MatSum(grad, R_INDEX, 1, R), heads=(R_INDEX, R))
    assert v.status == "proved", v.summary()
    short = MatSum(grad, R_INDEX, 1, R - 1)
    assert prove_gradient(GQ.O, wrt, GQ.dO, short, heads=(R_INDEX, R)).status == "false"


def test_a_softmax_is_generic_per_head_only_where_it_depends_on_the_head():
    s = Softmax(MatSym("S", n, n))
    per_head = Softmax(HeadSym("S", HEAD, n, n))
    names = generic_names(MatSum(per_head @ s, HEAD, 1, H), set())
    assert isinstance(names[per_head], HeadSym) and isinstance(names[s], MatSym)
    # two bound indices: a softmax is not one matrix per head, nothing is replaced
    j = index("j")
    assert generic_names(MatSum(MatSum(per_head, HEAD, 1, H), j, 1, n), set()) == {}


def _forward(q, k, v):
    s = q @ k.T / np.sqrt(q.shape[1])
    s = np.where(np.tril(np.ones(s.shape, bool)), s, -np.inf)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)) @ v


def test_causal_multi_query_gradients_agree_with_central_finite_differences():
    rng = np.random.default_rng(3)
    heads, rows, dk, dv = 3, 5, 2, 3
    q, do = rng.normal(size=(heads, rows, dk)), rng.normal(size=(heads, rows, dv))
    kv = {"K": rng.normal(size=(rows, dk)), "V": rng.normal(size=(rows, dv))}

    def loss(values):
        return sum(
            float(np.sum(do[g] * _forward(q[g], values["K"], values["V"]))) for g in range(heads)
        )

    step = 1e-5
    for name, grad in (("K", MQ.dK), ("V", MQ.dV)):
        total = MatSum(grad, HEAD, 1, H)
        inputs = {"Q": q, "dO": do, **kv}
        names = {k.removesuffix("^()") for k in named_shapes(total)}
        claimed = evaluate(total, {k: x for k, x in inputs.items() if k in names})
        numeric = np.zeros(kv[name].shape)
        for idx in np.ndindex(*kv[name].shape):
            up = {k: x.copy() for k, x in kv.items()}
            down = {k: x.copy() for k, x in kv.items()}
            up[name][idx] += step
            down[name][idx] -= step
            numeric[idx] = (loss(up) - loss(down)) / (2 * step)
        err = np.max(np.abs(claimed - numeric)) / np.max(np.abs(numeric))
        assert err < 1e-6, (name, err)
