"""Modern attention (symattn.kernel.modern, symattn.soundness.identities): the nodes' shapes,
entries and errors; each identity proved or checked, each false variant rejected with a
counterexample; numeric cross-checks against the numeric backend on explicit arrays.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy

from symattn.kernel.arrays import evaluate
from symattn.kernel.dims import d_k, d_v, dim, n
from symattn.kernel.errors import DimError, ShapeError
from symattn.kernel.expr import CausalMask, MatSym, RowBlock, Softmax, index
from symattn.kernel.modern import (
    CausalZero,
    FeatureMap,
    FirstRows,
    OnlineSoftmax,
    PadMask,
    PairDots,
    PositionBias,
    RepeatKV,
    Rope,
    alibi,
    multiplications,
    pair_sum,
)
from symattn.kernel.proof import prove_equal
from symattn.kernel.witness.numeric import attention, softmax_rows
from symattn.soundness.identities import ONLINE_BLOCKS, ZH, Identity, identities

i, j, h = index("i"), index("j"), index("h")
G, R, D, ell, p = (dim(s) for s in ("G", "R", "D", "ell", "p"))
lam = sympy.Symbol("lambda", positive=True)
RNG = np.random.default_rng(7)


# ---- identities: true ones proved or checked, false ones rejected ---------------------------


#: Identities whose verdict takes far longer than the rest, and the faster one that catches the
#: same mistake (they run in the full suite; `make test-fast` leaves them out).
SLOW = {
    "gqa_output_tile": "gqa_tile: the same tiling of the K/V heads, on one head",
    "online_b_b_b": "online_b_b: the same rescaling from block to block, one block fewer",
    "online_b_b_b_b": "online_b_b: the same rescaling from block to block, two blocks fewer",
    "online_1_2_3": "online_2_3: the same rescaling from block to block, one block fewer",
    "online_1_2_3_2": "online_2_3: the same rescaling from block to block, two blocks fewer",
    "online_b_b_b_no_rescale": "online_b_b_no_rescale: the same missing rescale, one block fewer",
    "online_b_b_b_b_no_rescale": "online_b_b_no_rescale: the same missing rescale, two fewer",
    "online_1_2_3_no_rescale": "online_2_3_no_rescale: the same missing rescale, one block fewer",
    "online_1_2_3_2_no_rescale": "online_2_3_no_rescale: the same missing rescale, two fewer",
    "rope_relative": "rope_relative_d4: the same relative position of a rotation, at d_k = 4",
    "alibi_row_shift": "alibi_row_sign: the same row part cancelled in the softmax, other sign",
    "mqa_head": "repeat_kv_head: the same head of the repeated K/V for any G (here G = 1)",
}


def _identity_params() -> list:
    return [
        pytest.param(c, id=c.name, marks=[pytest.mark.slow] if c.name in SLOW else [])
        for c in identities()
    ]


def test_each_slow_identity_has_a_faster_one_for_its_mistake() -> None:
    by_name = {c.name: c for c in identities()}
    for slow, reason in SLOW.items():
        fast, late = by_name[reason.split(":")[0]], by_name[slow]
        assert fast.name not in SLOW, f"{slow}'s faster sibling {fast.name} is slow too"
        assert (fast.topic, fast.holds, fast.expect) == (late.topic, late.holds, late.expect)


@pytest.mark.parametrize("claim", _identity_params())
def test_identity_verdict(claim: Identity) -> None:
    v = prove_equal(claim.lhs, claim.rhs, defs=claim.defs)
    assert v.status == claim.expect, v.summary()
    if claim.expect == "false":
        assert v.counterexample is not None
        assert not v.ok
    elif claim.expect == "checked":
        assert v.sizes and v.evidence  # the sizes the check rests on are shown
        assert "canonical index forms differ" in v.summary()
    else:
        assert v.ok and "symbolic" in v.witnesses


def test_every_topic_has_true_and_false_variants() -> None:
    topics = {c.topic for c in identities()}
    assert len(topics) == 6
    for topic in topics:
        kinds = {c.holds for c in identities() if c.topic == topic}
        assert kinds == {True, False}, topic


def test_every_false_variant_has_a_chinese_note() -> None:
    notes = {c.note for c in identities() if not c.holds}
    assert notes == set(ZH)


def test_online_softmax_covers_one_to_four_blocks() -> None:
    counts = {len(sizes) for sizes in ONLINE_BLOCKS}
    assert counts == {1, 2, 3, 4}
    assert any(isinstance(x, sympy.Symbol) for sizes in ONLINE_BLOCKS for x in sizes)


# ---- nodes: shapes, entries, errors ----------------------------------------------------------


def test_alibi_entry_and_shape() -> None:
    b = alibi(n, lam)
    assert b.shape == (n, n)
    assert sympy.expand(b.entry(i, j) + lam * (i - j)) == 0
    assert PositionBias(n, 1, 2).entry(3, 4) == 11


def test_pad_mask_shape_and_errors() -> None:
    s = MatSym("S", n, ell + p)
    assert PadMask(s, ell, p).shape == (n, ell + p)
    with pytest.raises(ShapeError, match=r"^cannot pad S"):
        PadMask(MatSym("S", n, n), ell, p)
    with pytest.raises(DimError, match="padding length must be 0 or a positive integer"):
        PadMask(MatSym("S", n, n), n, -1)


def test_padded_weights_entry_is_zero_for_an_empty_row() -> None:
    s0 = MatSym("S", n, p)
    assert Softmax(PadMask(s0, 0, p)).entry(i, j) == 0
    assert Softmax(PadMask(MatSym("S", n, ell + p), ell, p)).entry(i, j) != 0


def test_first_rows_needs_a_provable_bound() -> None:
    k = MatSym("K", n + 1, d_k)
    assert FirstRows(k, n).shape == (n, d_k)
    with pytest.raises(ShapeError, match=r"^cannot take the first d_v rows"):
        FirstRows(k, d_v)


def test_repeat_kv_shape_and_source_head() -> None:
    k = MatSym("K", n, G * d_k)
    rk = RepeatKV(k, G, R, d_k)
    assert rk.shape == (n, G * R * d_k)
    assert rk.source_head(sympy.Integer(5)).subs(R, 2) == 3  # heads 5, 6 read K/V head 3
    assert RepeatKV(k, G, R, d_k, "tile").source_head(sympy.Integer(5)).subs(G, 2) == 1
    with pytest.raises(ShapeError, match=r"^cannot read K"):
        RepeatKV(MatSym("K", n, d_k), G, R, d_k)
    with pytest.raises(ShapeError, match="order must be"):
        RepeatKV(k, G, R, d_k, "shuffle")


def test_rope_and_pair_dots_shapes() -> None:
    q = MatSym("q", p, 2)
    assert Rope(q, sympy.Symbol("m", real=True)).shape == (p, 2)
    assert PairDots(q, q).shape == (p, 1)
    assert pair_sum(PairDots(q, q)).shape == (1, 1)
    with pytest.raises(ShapeError, match="by pairs"):
        Rope(MatSym("q", p, 3), 1)


def test_online_softmax_errors() -> None:
    s, v = MatSym("S", n, 5), MatSym("V", 5, d_v)
    assert OnlineSoftmax(s, v, (2, 3)).shape == (n, d_v)
    with pytest.raises(ShapeError, match=r"^cannot cut the 5 keys"):
        OnlineSoftmax(s, v, (2, 2))
    with pytest.raises(ShapeError, match="at least one block"):
        OnlineSoftmax(s, v, ())


def test_nodes_survive_xreplace() -> None:
    # sympy rebuilds a node from its args (xreplace, subs): every constructor must accept them
    k = MatSym("K", n, G * d_k)
    nodes = [
        RepeatKV(k, G, R, d_k, "tile"),
        FeatureMap("phi", MatSym("Q", n, d_k), D),
        Rope(MatSym("q", p, 2), sympy.Symbol("m", real=True)),
        OnlineSoftmax(MatSym("S", n, 3), MatSym("V", 3, d_v), (1, 2), rescale=False),
        PadMask(MatSym("S", n, ell + p), ell, p),
        CausalZero(MatSym("S", n, n)),
    ]
    for node in nodes:
        again = node.xreplace({n: sympy.Integer(4), p: sympy.Integer(4)})
        assert type(again) is type(node)
        assert again != node


def test_multiplications_of_both_orders() -> None:
    q, k, v = MatSym("Q", n, d_k), MatSym("K", n, d_k), MatSym("V", n, d_v)
    fq, fk = FeatureMap("phi", q, D), FeatureMap("phi", k, D)
    left, right = multiplications((fq @ fk.T) @ v), multiplications(fq @ (fk.T @ v))
    assert left == n**2 * D + n**2 * d_v
    assert right == 2 * n * D * d_v
    assert (left - right).subs({n: 4096, D: 64, d_v: 64}) > 0


def test_plain_text_of_nodes() -> None:
    assert str(alibi(n, lam)) == "alibi(lambda)"
    assert str(RepeatKV(MatSym("K", n, G * d_k), G, R, d_k)) == "repeat_kv(K, R)"
    assert str(FeatureMap("phi", MatSym("Q", n, d_k), D)) == "phi(Q)"
    s = MatSym("S", n, 3)
    assert "no rescale" in str(OnlineSoftmax(s, MatSym("V", 3, d_v), (1, 2), rescale=False))


@pytest.mark.slow
def test_rope_needs_the_difference_not_the_sum() -> None:
    q, k = MatSym("q", p, 2), MatSym("k", p, 2)
    a, b = sympy.Symbol("a", real=True), sympy.Symbol("b", real=True)
    lhs = pair_sum(PairDots(Rope(q, a), Rope(k, b)))
    shifted = pair_sum(PairDots(Rope(q, a + 3), Rope(k, b + 3)))
    # shifting both positions changes nothing, but the kernel would need cos² + sin² = 1: it
    # must not call the true claim false (the field sees cos and sin as free atoms)
    v = prove_equal(lhs, shifted)
    assert v.status == "agreed", v.summary()
    assert prove_equal(lhs, pair_sum(PairDots(Rope(q, a + 1), Rope(k, b)))).status == "false"


def test_hypothesis_free_causal_linear_is_not_softmax() -> None:
    q, k, v = MatSym("Q", n, d_k), MatSym("K", n, d_k), MatSym("V", n, d_v)
    lin = CausalZero(q @ k.T) @ v
    soft = Softmax(CausalMask(q @ k.T)) @ v
    assert prove_equal(lin, soft).status == "false"


# ---- numeric cross-checks: the kernel's evaluator against numpy on explicit arrays ---------


def _flash(s: np.ndarray, v: np.ndarray, sizes: tuple[int, ...], rescale: bool = True):
    """FlashAttention's loop with the true running maximum, written from the paper."""
    rows = s.shape[0]
    m = np.full((rows, 1), -np.inf)
    ell = np.zeros((rows, 1))
    out = np.zeros((rows, v.shape[1]))
    maxima = []
    start = 0
    for size in sizes:
        blk = slice(start, start + size)
        m_new = np.maximum(m, s[:, blk].max(axis=1, keepdims=True))
        alpha = np.exp(m - m_new)
        e = np.exp(s[:, blk] - m_new)
        ell = alpha * ell + e.sum(axis=1, keepdims=True)
        out = (alpha if rescale else 1.0) * out + e @ v[blk]
        m = m_new
        maxima.append(m_new[:, 0])
        start += size
    return out / ell, np.stack(maxima, axis=1)


@pytest.mark.parametrize("sizes", [(3,), (1, 2), (2, 2, 1), (1, 1, 2, 3)])
def test_online_softmax_matches_numeric_backend(sizes: tuple[int, ...]) -> None:
    keys = sum(sizes)
    s, v = RNG.standard_normal((3, keys)) * 4, RNG.standard_normal((keys, 2))
    flash, maxima = _flash(s, v, sizes)
    expected = softmax_rows(s) @ v
    np.testing.assert_allclose(flash, expected, rtol=1e-12)
    node = OnlineSoftmax(MatSym("S", 3, keys), MatSym("V", keys, 2), sizes)
    got = evaluate(node, {"S": s, "V": v, node.maxima: np.exp(maxima)})
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    if len(sizes) > 1:
        bug = OnlineSoftmax(MatSym("S", 3, keys), MatSym("V", keys, 2), sizes, rescale=False)
        wrong = evaluate(bug, {"S": s, "V": v, bug.maxima: np.exp(maxima)})
        np.testing.assert_allclose(wrong, _flash(s, v, sizes, rescale=False)[0], rtol=1e-12)
        assert not np.allclose(wrong, expected)


def test_padding_matches_numeric_backend() -> None:
    s = RNG.standard_normal((3, 5))
    keep = np.arange(1, 6) <= 3
    got = evaluate(Softmax(PadMask(MatSym("S", 3, 5), 3, 2)), {"S": s})
    np.testing.assert_allclose(got, softmax_rows(np.where(keep, s, -np.inf)), rtol=1e-12)
    empty = evaluate(Softmax(PadMask(MatSym("S", 3, 5), 0, 5)), {"S": s})
    dead = softmax_rows(np.full((3, 5), -np.inf), fully_masked="zero")
    np.testing.assert_array_equal(empty, dead)


def test_alibi_matches_numeric_backend() -> None:
    s = RNG.standard_normal((4, 4))
    pos = np.arange(1, 5)
    bias = -0.5 * (pos[:, None] - pos[None, :])
    got = evaluate(Softmax(CausalMask(MatSym("S", 4, 4) + alibi(4, lam))), {"S": s, "lambda": 0.5})
    ref = softmax_rows(np.where(np.tril(np.ones((4, 4), bool)), s + bias, -np.inf))
    np.testing.assert_allclose(got, ref, rtol=1e-12)


def test_repeat_kv_matches_repeat_interleave() -> None:
    k = RNG.standard_normal((3, 2 * 4))  # G = 2 heads of width 4
    got = evaluate(RepeatKV(MatSym("K", 3, 8), 2, 3, 4), {"K": k})
    heads = k.reshape(3, 2, 4)
    np.testing.assert_array_equal(got, np.repeat(heads, 3, axis=1).reshape(3, 24))
    tiled = evaluate(RepeatKV(MatSym("K", 3, 8), 2, 3, 4, "tile"), {"K": k})
    assert not np.array_equal(got, tiled)


def test_gqa_output_matches_numeric_backend() -> None:
    c = next(x for x in identities() if x.name == "gqa_output")
    sizes = {"n": 3, "d_k": 2, "d_v": 2, "d": 3, "G": 2, "R": 2}
    q, k, v = (RNG.standard_normal(shape) for shape in ((3, 8), (3, 4), (3, 4)))
    w = RNG.standard_normal((8, 3))
    got = evaluate(c.lhs, {"Q": q, "K": k, "V": v, "W_O": w}, sizes=sizes)
    heads = [
        attention(
            q[:, 2 * hh : 2 * hh + 2],
            k[:, 2 * (hh // 2) : 2 * (hh // 2) + 2],
            v[:, 2 * (hh // 2) : 2 * (hh // 2) + 2],
        )
        for hh in range(4)
    ]
    np.testing.assert_allclose(got, np.concatenate(heads, axis=1) @ w, rtol=1e-12)


def test_rope_matches_rotation_matrices() -> None:
    q = RNG.standard_normal((3, 2))
    theta = np.array([1.0, 0.1, 0.01])
    got = evaluate(
        Rope(MatSym("q", 3, 2), sympy.Symbol("m", real=True)), {"q": q, "theta": theta, "m": 5.0}
    )
    for k in range(3):
        c, s_ = np.cos(5.0 * theta[k]), np.sin(5.0 * theta[k])
        np.testing.assert_allclose(got[k], np.array([[c, -s_], [s_, c]]) @ q[k], rtol=1e-12)


def test_kv_cache_matches_numeric_backend() -> None:
    q, k, v = (RNG.standard_normal((4, 2)) for _ in range(3))
    full = attention(q, k, v, causal=True)
    np.testing.assert_allclose(attention(q[-1:], k, v)[0], full[-1], rtol=1e-12)
    c = next(x for x in identities() if x.name == "kv_append")
    lhs = evaluate(
        c.lhs,
        {"Q": np.vstack([q, q[:1]]), "K": np.vstack([k, k[:1]]), "V": np.vstack([v, v[:1]])},
        sizes={"n": 4},
    )
    np.testing.assert_allclose(lhs, full, rtol=1e-12)


def test_a_shifted_head_index_still_runs_over_the_heads() -> None:
    # found by the mutation suite: with head h + 1 on one side and ceil(h/R) on the other, h
    # appeared as no block's own number and was taken for a size ("checked at h=5"); it is an
    # index over the heads, and the claim is false
    k = MatSym("K", n, G * d_k)
    wrong = RowBlock(RepeatKV(k, G, R, d_k).T, h + 1, d_k, G * R).T
    right = RowBlock(k.T, sympy.ceiling(h / R), d_k, G).T
    v = prove_equal(wrong, right)
    assert v.status == "false" and v.counterexample is not None
    assert "h=" not in " ".join(f"{a}={b}" for plan in v.sizes for a, b in plan)


def test_the_running_maxima_of_an_online_softmax_are_a_name_of_the_right_shape():
    """Found by the differential suite's mutation corpus: `E -> E^T` was taken as a fresh
    matrix named 'E^T' (the identity held, for every E, so nothing false was proved, but the
    node silently renamed what it was given). Now it refuses."""
    s, v = MatSym("S", n, 4), MatSym("V", 4, d_v)
    e = MatSym("E", n, 2)
    assert OnlineSoftmax(s, v, (2, 2), e).shape == (n, d_v)
    with pytest.raises(ShapeError, match=r"are a matrix name \(E\), not E\^T"):
        OnlineSoftmax(s, v, (2, 2), e.T)
    with pytest.raises(ShapeError, match=r"must be n × 2: one per row of S and block"):
        OnlineSoftmax(s, v, (2, 2), MatSym("E", n, 3))


def test_online_softmax_is_evaluated_stably_for_scores_beyond_709():
    """e^{S}/E overflows in float64 past 709; the evaluator subtracts the running maxima, so the
    scores the rescaling exists for have a value (for every E: here all ones)."""
    s, v = RNG.standard_normal((2, 5)) * 2000, RNG.standard_normal((5, 2))
    assert np.abs(s).max() > 709
    for sizes in ((5,), (2, 3), (1, 1, 3)):
        node = OnlineSoftmax(MatSym("S", 2, 5), MatSym("V", 5, 2), sizes)
        got = evaluate(node, {"S": s, "V": v, node.maxima: np.ones((2, len(sizes)))})
        np.testing.assert_allclose(got, softmax_rows(s) @ v, rtol=1e-12)
    bug = OnlineSoftmax(MatSym("S", 2, 5), MatSym("V", 5, 2), (2, 3), rescale=False)
    e = np.array([[1.0, 4.0], [2.0, 0.5]])
    got = evaluate(bug, {"S": s, "V": v, bug.maxima: e})
    p = softmax_rows(s)
    want = (e[:, 1:] / e[:, :1]) * (p[:, :2] @ v[:2]) + p[:, 2:] @ v[2:]
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_two_online_softmaxes_have_their_own_running_maxima():
    """Both took the default name E: with 2 and 3 blocks, one name had two shapes and the claim
    was a shape error. E is named after the scores and blocks it belongs to."""
    s, v = MatSym("S", n, 4), MatSym("V", 4, d_v)
    t, w = MatSym("T", n, 3), MatSym("W", 3, d_v)
    a, b = OnlineSoftmax(s, v, (2, 2)), OnlineSoftmax(t, w, (1, 1, 1))
    assert a.maxima != b.maxima and a.maxima.shape == (n, 2) and b.maxima.shape == (n, 3)
    assert prove_equal(a + b, Softmax(s) @ v + Softmax(t) @ w).status == "proved"
    # the same scores and blocks: the same running maxima
    assert OnlineSoftmax(s, v, (2, 2), rescale=False).maxima == a.maxima
