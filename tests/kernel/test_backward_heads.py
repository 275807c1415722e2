"""Grouped-query attention's backward pass for the whole K and V (symattn.kernel.backward_heads):
dK and dV block by block over the key heads, proved for every G, R, n, d_k, d_v, plain and causal;
the mistakes refuted; the claimed blocks against central finite differences."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

from symattn.kernel.arrays import evaluate
from symattn.kernel.backward import RULES, NoDerivative, directional, softmax_jvp
from symattn.kernel.backward_heads import GroupedBackward, head_rule_truth, prove_grouped_gradient
from symattn.kernel.dims import d_k
from symattn.kernel.errors import ShapeError, UnknownNameError
from symattn.kernel.expr import HeadSym, MatSum, MatSym, RowBlock, Scale, named_shapes
from symattn.soundness.corpus import grouped_backward_claims
from symattn.soundness.truth import truth

PLAIN, CAUSAL = GroupedBackward(), GroupedBackward(causal=True)


@pytest.mark.parametrize("name", ["jvp_rowblock", "jvp_repeat_kv"])
def test_the_selection_rules_are_proved(name):
    assert head_rule_truth(name).status == "proved", head_rule_truth(name).summary()


@pytest.mark.parametrize("b", [PLAIN, CAUSAL], ids=["plain", "causal"])
@pytest.mark.parametrize("which", ["K", "V"])
def test_dK_and_dV_of_the_whole_matrices_are_proved_block_by_block(b, which):
    wrt, block = (b.K, b.dK_block) if which == "K" else (b.V, b.dV_block)
    v = prove_grouped_gradient(b, wrt, block)
    assert v.status == "proved", v.summary()
    assert "sum_regroup" in v.reason and "jvp_repeat_kv" in dict(v.rules)
    assert v.identity is not None and "symbolic" in v.identity.witnesses


def _tiled(b: GroupedBackward) -> MatSum:
    """dV_g with the group's query heads taken as t-th of every group ((t-1)G + g): tiling."""
    hh = (b.t - 1) * b.groups + b.g
    a = b._softmax(HeadSym("Q", hh, b.K.rows, d_k), RowBlock(b.K.T, b.g, d_k, b.groups).T)
    return MatSum(a.T @ HeadSym("dO", hh, *b.upstream.shape), b.t, 1, b.per)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("what", "which", "block"),
    [
        ("summed over R - 1 heads", "V", lambda b: MatSum(b.dV_block.args[0], b.t, 1, b.per - 1)),
        ("the scale multiplied", "K", lambda b: Scale(sympy.sqrt(d_k) ** 2, b.dK_block)),
        ("tiled query heads", "V", _tiled),
    ],
)
def test_mistakes_are_refuted_with_a_counterexample(what, which, block):
    b = PLAIN
    v = prove_grouped_gradient(b, b.K if which == "K" else b.V, block(b))
    assert v.status == "false", (what, v.summary())
    assert v.counterexample is not None


def test_a_causal_block_summed_over_one_head_fewer_is_not_proved():
    b = CAUSAL
    v = prove_grouped_gradient(b, b.V, MatSum(b.dV_block.args[0], b.t, 1, b.per - 1))
    assert v.status in ("false", "unknown"), v.summary()


def test_claims_of_the_wrong_shape_or_per_query_head_are_refused():
    b = PLAIN
    assert prove_grouped_gradient(b, b.K, b.dV_block).status == "shape_error"
    with pytest.raises(ShapeError, match="must be K or V"):
        prove_grouped_gradient(b, MatSym("Q", 2, 2), b.dV_block)
    with pytest.raises(ShapeError, match="names the query head h"):
        prove_grouped_gradient(b, b.V, b.dV_block.xreplace({b.g: b.h}))


def _forward(q, k, v, causal):
    s = q @ k.T / np.sqrt(q.shape[1])
    if causal:
        s = np.where(np.tril(np.ones(s.shape, bool)), s, -np.inf)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)) @ v


@pytest.mark.parametrize("b", [PLAIN, CAUSAL], ids=["plain", "causal"])
def test_the_blocks_agree_with_central_finite_differences(b):
    # G = 2 key heads of R = 2 query heads; the loss sums over all four query heads
    rng = np.random.default_rng(11)
    groups, per, rows, dk, dv = 2, 2, 4, 3, 2
    q, do = rng.normal(size=(groups * per, rows, dk)), rng.normal(size=(groups * per, rows, dv))
    full = {"K": rng.normal(size=(rows, groups * dk)), "V": rng.normal(size=(rows, groups * dv))}

    def loss(m):
        out = 0.0
        for hq in range(groups * per):
            g = hq // per  # repeat_interleave: query head hq reads key head hq // per
            k, v = m["K"][:, g * dk : (g + 1) * dk], m["V"][:, g * dv : (g + 1) * dv]
            out += float(np.sum(do[hq] * _forward(q[hq], k, v, b.causal)))
        return out

    step = 1e-5
    for name, block, width in (("K", b.dK_block, dk), ("V", b.dV_block, dv)):
        numeric = np.zeros(full[name].shape)
        for idx in np.ndindex(*numeric.shape):
            up = {k: x.copy() for k, x in full.items()}
            down = {k: x.copy() for k, x in full.items()}
            up[name][idx] += step
            down[name][idx] -= step
            numeric[idx] = (loss(up) - loss(down)) / (2 * step)
        data = {"Q": {x + 1: q[x] for x in range(groups * per)}}
        data |= {"dO": {x + 1: do[x] for x in range(groups * per)}, **full}
        for g in range(groups):
            at = block.xreplace({b.groups: groups, b.per: per, b.g: g + 1})
            names = {k.removesuffix("^()") for k in named_shapes(at)}
            mine = evaluate(at, {k: v for k, v in data.items() if k in names})
            want = numeric[:, g * width : (g + 1) * width]
            assert np.max(np.abs(mine - want)) / np.max(np.abs(want)) < 1e-6, (name, g)


def test_the_causal_blocks_use_the_jacobian_of_the_masked_softmax():
    b = CAUSAL
    q, do, a, v = b._member()
    assert b.dK_block.args[0] == Scale(1 / sympy.sqrt(d_k), softmax_jvp(a, do @ v.T).T @ q)


def test_the_head_rules_are_this_walks_own():
    # the shared walk (prove_gradient, the checker) is unchanged: no rule for a block of K
    b = PLAIN
    assert "jvp_repeat_kv" not in RULES
    with pytest.raises(NoDerivative, match="no derivative rule for RowBlock"):
        directional(b.output, b.K, MatSym("E", *b.K.shape))
    with pytest.raises(UnknownNameError, match="no head rule named"):
        head_rule_truth("jvp_matmul")


def test_the_soundness_seeds_agree_with_the_independent_truth():
    right, wrong = grouped_backward_claims(), grouped_backward_claims(holds=False)
    assert len(right) == len(wrong) == 4
    assert all(truth(c.lhs, c.rhs) == "true" for c in right), [c.name for c in right]
    assert all(truth(c.lhs, c.rhs) == "false" for c in wrong), [c.name for c in wrong]
