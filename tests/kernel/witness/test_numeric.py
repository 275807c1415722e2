"""The numeric (float64) witness against its own reference implementations and the kernel's
expressions, and the evidence it states.
"""

from __future__ import annotations

import doctest
import math
import re
from pathlib import Path

import numpy as np
import pytest
import sympy

import symattn
from symattn.kernel.arrays import evaluate
from symattn.kernel.attention import multi_head, single_head
from symattn.kernel.dims import H, d, d_k, d_v, n
from symattn.kernel.expr import (
    CausalMask,
    Concat,
    FromColumn,
    HeadSym,
    MatSym,
    Row,
    Softmax,
    index,
)
from symattn.kernel.witness import numeric
from symattn.kernel.witness.numeric import (
    IllFormed,
    InputError,
    MaskedRowError,
    numeric_check,
)


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


# ---- evaluate: the user's own arrays -------------------------------------------------------


def _loops(q, k, v, *, causal=False):
    """Attention with plain Python loops: the tests' reference, independent of the backend."""
    out = []
    for i, qi in enumerate(q):
        keep = [j for j in range(len(k)) if not causal or j <= i]
        scores = {j: sum(a * b for a, b in zip(qi, k[j], strict=True)) for j in keep}
        scores = {j: x / math.sqrt(len(qi)) for j, x in scores.items()}
        top = max(scores.values())
        w = {j: math.exp(x - top) for j, x in scores.items()}
        total = sum(w.values())
        out.append([sum(w[j] / total * v[j][c] for j in keep) for c in range(len(v[0]))])
    return np.array(out)


def _project(x, w):
    return [
        [sum(a * b for a, b in zip(row, col, strict=True)) for col in zip(*w, strict=True)]
        for row in x
    ]


RNG = np.random.default_rng(2024)
X, WQ, WK, WV = (
    RNG.standard_normal((4, 6)),
    *RNG.standard_normal((2, 6, 3)),
    RNG.standard_normal((6, 2)),
)
FULL = single_head()
PROJECTED = {FULL.Q: FULL.X @ FULL.W_Q, FULL.K: FULL.X @ FULL.W_K, FULL.V: FULL.X @ FULL.W_V}


def _full(causal=False):
    """Attention written from X and the weights, so the inputs are X, W_Q, W_K, W_V."""
    q, k, v = PROJECTED.values()
    s = (q @ k.T) / sympy.sqrt(d_k)
    return Softmax(CausalMask(s) if causal else s) @ v


class Tensorish:
    """What a torch tensor looks like to numpy: only `__array__`."""

    def __init__(self, a):
        self.a = np.asarray(a)

    def __array__(self, dtype=None, copy=None):
        return self.a if dtype is None else self.a.astype(dtype)


KEY_STYLES = {
    "symbols": lambda: {FULL.X: X, FULL.W_Q: WQ, FULL.W_K: WK, FULL.W_V: WV},
    "names": lambda: {"X": X, "W_Q": WQ, "W_K": WK, "W_V": WV},
    "lists": lambda: {"X": X.tolist(), "W_Q": WQ.tolist(), "W_K": WK.tolist(), "W_V": WV.tolist()},
    "__array__": lambda: {"X": Tensorish(X), "W_Q": Tensorish(WQ), "W_K": WK, "W_V": WV},
}


@pytest.mark.parametrize("style", sorted(KEY_STYLES))
@pytest.mark.parametrize("causal", [False, True])
def test_evaluate_on_own_arrays_matches_plain_loops(style, causal):
    got = evaluate(_full(causal), KEY_STYLES[style]())
    q, k, v = (_project(X.tolist(), w.tolist()) for w in (WQ, WK, WV))
    assert got.dtype == np.float64 and got.shape == (4, 2)
    assert np.allclose(got, _loops(q, k, v, causal=causal), rtol=1e-12, atol=1e-14)


def test_evaluate_is_a_public_export_and_numeric_still_works():
    assert symattn.evaluate is evaluate
    assert symattn.numeric.softmax_rows is numeric.softmax_rows


@pytest.mark.parametrize("form", ["stack", "mapping", "members"])
def test_multi_head_families_as_stack_mapping_or_members(form):
    mh = multi_head()
    expr = Concat(mh.head_attention(mh.h), mh.h, H) @ mh.W_O
    wq, wk = RNG.standard_normal((2, 3, 6, 2))
    wv, wo = RNG.standard_normal((3, 6, 4)), RNG.standard_normal((12, 6))
    families = {"W_Q": wq, "W_K^{(h)}": wk, HeadSym("W_V", mh.h, d, d_v): wv}
    if form == "mapping":
        families = {k: {h + 1: w[h] for h in range(3)} for k, w in families.items()}
    elif form == "members":
        families = {
            f"{k}^{{({h + 1})}}": w[h]
            for k, w in zip(("W_Q", "W_K", "W_V"), (wq, wk, wv), strict=True)
            for h in range(3)
        }
    got = evaluate(expr, {"X": X, "W_O": wo, **families})
    heads = [_loops(*(_project(X.tolist(), w[h].tolist()) for w in (wq, wk, wv))) for h in range(3)]
    assert np.allclose(got, np.concatenate(heads, axis=1) @ wo, rtol=1e-12, atol=1e-14)


def test_batch_equal_to_n_and_d_k_is_evaluated_per_element():
    # batch = n = d_k = 3: a `.T` on the whole 3-D array would swap the batch axis in
    s = single_head()
    q, k, v = RNG.standard_normal((3, 3, 3, 3))
    got = evaluate(s.output, {"Q": q, "K": k, "V": v}, batch=True)
    assert got.shape == (3, 3, 3)
    for b in range(3):
        assert np.allclose(got[b], _loops(q[b].tolist(), k[b].tolist(), v[b].tolist()), atol=1e-14)
    wrong = numeric.softmax_rows(q @ k.T / np.sqrt(3)) @ v  # the old reference's mistake
    assert not np.allclose(got, wrong)
    assert np.allclose(numeric.attention(q, k, v), got, atol=1e-14)  # the reference, fixed


def test_batch_shares_unbatched_inputs_and_refuses_3d_without_batch():
    s = single_head()
    q = RNG.standard_normal((2, 3, 4))
    k, v = RNG.standard_normal((2, 3, 4))
    got = evaluate(s.output, {"Q": q, "K": k, "V": v}, batch=True)
    for b in range(2):
        assert np.allclose(got[b], _loops(q[b].tolist(), k.tolist(), v.tolist()), atol=1e-14)
    with pytest.raises(
        InputError, match=r"^Q is 3-D \(2 × 3 × 4\), but must be a matrix \(2-D\); pass batch=True"
    ):
        evaluate(s.output, {"Q": q, "K": k, "V": v})
    with pytest.raises(
        InputError, match=r"^the inputs' batch axes differ in length \(Q: 2, K: 3\)"
    ):
        evaluate(s.output, {"Q": q, "K": RNG.standard_normal((3, 3, 4)), "V": v}, batch=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int64, np.bool_])
def test_input_is_computed_in_float64(dtype):
    s = single_head()
    q = (RNG.standard_normal((3, 2)) * 4).astype(dtype)
    got = evaluate(s.scores, {"Q": q, "K": q})
    assert got.dtype == np.float64
    wide = q.astype(np.float64)
    assert np.array_equal(got, wide @ wide.T)  # not float32's rounding of the products


def test_mistyped_key_is_refused_with_a_suggestion():
    inputs = KEY_STYLES["names"]() | {"W_q": WQ}
    with pytest.raises(
        InputError,
        match=r"^unknown input 'W_q': .* did you mean 'W_Q'\?\n  it reads: W_K, W_Q, W_V, X$",
    ):
        evaluate(_full(), inputs)
    with pytest.raises(InputError, match=r"^unknown input 'Y'.*\n  it reads:"):
        evaluate(_full(), {"Y": X})
    with pytest.raises(InputError, match=r"^d_k is a size or an index: pass it as sizes= or at="):
        evaluate(_full(), {"d_k": 3})
    with pytest.raises(
        InputError, match=r"^the key Q \(n × d\) is not the expression's Q \(n × d_k\)"
    ):
        evaluate(single_head().scores, {MatSym("Q", n, d): X, "K": X})


def test_missing_inputs_are_refused_unless_random_fill_is_asked():
    with pytest.raises(
        InputError, match=r"^missing inputs W_K \(d × d_k\), W_V \(d × d_v\): pass them"
    ):
        evaluate(_full(), {"X": X, "W_Q": WQ})
    first = evaluate(_full(), {"X": X, "W_Q": WQ}, fill="random", sizes={"d_v": 5}, seed=3)
    again = evaluate(_full(), {"X": X, "W_Q": WQ}, fill="random", sizes={d_v: 5}, seed=3)
    assert first.shape == (4, 5) and np.array_equal(first, again)
    with pytest.raises(
        InputError, match=r"^the size d_v is not fixed by the inputs: pass sizes=\{'d_v': ...\}"
    ):
        evaluate(_full(), {"X": X, "W_Q": WQ}, fill="random")
    with pytest.raises(InputError, match=r"^fill must be None or 'random', not 'zeros'"):
        evaluate(_full(), {}, fill="zeros")


def test_random_fill_is_the_data_of_env():
    q = evaluate(single_head().Q, {}, fill="random", sizes={"n": 3, "d_k": 2}, seed=7)
    assert np.array_equal(q, numeric.matrix(single_head().Q, _env(n=3, d_k=2)))


SHAPE_ERRORS = [
    (
        lambda: {"X": X, "W_Q": WQ, "W_K": WK[:, :2], "W_V": WV},
        r"^W_K is 6 × 2, but the expression needs d × d_k, with d_k = 3 from the columns of W_Q$",
    ),
    (
        lambda: {"X": X, "W_Q": WQ[:5], "W_K": WK, "W_V": WV},
        r"^W_Q is 5 × 3, but the expression needs d × d_k, with d = 6 from the columns of X$",
    ),
]


@pytest.mark.parametrize(("inputs", "message"), SHAPE_ERRORS)
def test_shapes_that_disagree_are_named(inputs, message):
    with pytest.raises(InputError, match=message):
        evaluate(_full(), inputs())


def test_head_counts_and_compound_dims_are_bound_consistently():
    mh = multi_head()
    expr = mh.concat @ mh.W_O  # Z^{(h)} n × d_v, W_O (H d_v) × d
    z, wo = RNG.standard_normal((2, 4, 3)), RNG.standard_normal((6, 5))
    assert evaluate(expr, {"Z": z, "W_O": wo}).shape == (4, 5)
    with pytest.raises(
        InputError,
        match=r"^W_O is 7 × 5, but the expression needs \(H\*d_v\) × d, with H\*d_v = 6 \(H = 2 "
        r"from the heads of Z, d_v = 3 from the columns of Z\^\{\(1\)\}\)$",
    ):
        evaluate(expr, {"Z": z, "W_O": RNG.standard_normal((7, 5))})
    with pytest.raises(
        InputError,
        match=r"^Z\^\{\(h\)\} stacks 2 heads, but the expression needs H heads, "
        r"with H = 3 from sizes=$",
    ):
        evaluate(expr, {"Z": z, "W_O": wo}, sizes={"H": 3})
    with pytest.raises(
        InputError,
        match=r"^unknown size 'dk': the expression has no such symbol; did you mean 'd_k'\?",
    ):
        evaluate(single_head().scores, {"Q": X, "K": X}, sizes={"dk": 6})


BAD_VALUES = [
    (np.full((4, 6), 1j), r"^X has dtype complex128; evaluate takes real numbers"),
    (np.array([[np.nan] * 6] * 4), r"^X has a non-finite entry nan at \[0, 0\]"),
    (np.full((4, 6), np.inf), r"^X has a non-finite entry inf at \[0, 0\]"),
    ([[1.0, 2.0], [3.0]], r"^cannot read X as an array"),
    (np.array([[sympy.Rational(1, 2)]], dtype=object), r"^X has dtype object; evaluate takes real"),
]


@pytest.mark.parametrize(("value", "message"), BAD_VALUES)
def test_non_finite_complex_and_object_input_is_refused(value, message):
    with pytest.raises(InputError, match=message):
        evaluate(_full(), {"X": value, "W_Q": WQ, "W_K": WK, "W_V": WV})


def test_scalar_expressions_columns_and_free_indices():
    s = single_head()
    i, c = index("i"), sympy.Symbol("c")
    q = np.arange(6.0).reshape(2, 3)
    assert evaluate(s.Q[2, 3] + c, {"Q": q, "c": 10}) == 15.0
    assert evaluate(s.Q[i, 1], {"Q": q}, at={"i": 2}) == 3.0
    with pytest.raises(InputError, match=r"^the index i has no value: pass at=\{'i': ...\}"):
        evaluate(s.Q[i, 1], {"Q": q})
    shift = FromColumn("b", n, n)
    got = evaluate(Softmax(s.scores + shift), {"Q": q, "K": q, "b": [1.0, 2.0]})
    assert np.allclose(got, evaluate(Softmax(s.scores), {"Q": q, "K": q}))  # a per-row shift


def test_a_fully_masked_row_raises_or_gets_zero_weights_never_nan():
    s = np.array([[0.0, 1.0], [-np.inf, -np.inf]])
    with pytest.raises(MaskedRowError, match=r"^row scores\[1, :\] is fully masked"):
        numeric.softmax_rows(s)
    assert numeric.softmax_rows(s, fully_masked="zero")[1].tolist() == [0.0, 0.0]
    q = np.eye(2)
    keep = np.array([[True, False], [False, False]])
    with pytest.raises(MaskedRowError, match=r"^row scores\[1, :\] is fully masked"):
        numeric.attention(q, q, q, mask=keep)
    assert numeric.attention(q, q, q, mask=keep, fully_masked="zero").tolist() == [
        [1.0, 0.0],
        [0.0, 0.0],
    ]
    # in a kernel expression: a column of a causal mask, softmaxed row by row
    sh = single_head()
    column = Softmax(Row(CausalMask(sh.scores), 1).T)
    with pytest.raises(MaskedRowError, match=r"^row 2 of a softmax is fully masked"):
        evaluate(column, {"Q": q, "K": q})
    with pytest.raises(IllFormed, match=r"^ill-formed: a masked entry \(-inf\) .*-1 · \(-inf\)"):
        evaluate(Softmax(-CausalMask(sh.scores)), {"Q": q, "K": q})


def test_the_numeric_guide_runs_without_torch():
    page = Path(__file__).resolve().parents[3] / "docs" / "numeric.md"
    flags = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
    result = doctest.testfile(str(page), module_relative=False, optionflags=flags)
    assert result.attempted >= 10 and result.failed == 0
