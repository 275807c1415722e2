"""The backward pass of attention: the entrywise product, directional derivatives, the softmax
Jacobian, gradients proved by the vector–Jacobian identity, and central finite differences."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

from symattn.kernel.arrays import evaluate
from symattn.kernel.backward import (
    RULES,
    _by_cases,
    attention_backward,
    directional,
    grouped_kv_backward,
    prove_gradient,
    prove_row_term,
    rule_truth,
    shared_kv_backward,
    softmax_jvp,
)
from symattn.kernel.dims import H, d_k, d_v, n
from symattn.kernel.errors import ShapeError
from symattn.kernel.expr import (
    CausalMask,
    Hadamard,
    MatSum,
    MatSym,
    Ones,
    Scale,
    Softmax,
    expand_entries,
    index,
    named_shapes,
)
from symattn.kernel.modern import FeatureMap
from symattn.kernel.proof import prove_equal
from symattn.latex.printer import latex
from symattn.soundness.corpus import backward_claims
from symattn.soundness.truth import truth

i, j = index("i"), index("j")
B = attention_backward()
BC = attention_backward(causal=True)


# ---- the entrywise product --------------------------------------------------------------------


def test_hadamard_needs_equal_shapes():
    with pytest.raises(ShapeError, match="entrywise product .* rows n and d_k"):
        Hadamard(MatSym("P", n, n), MatSym("R", d_k, n))
    with pytest.raises(ShapeError, match="cols n and d_v"):
        Hadamard(MatSym("P", n, n), MatSym("R", n, d_v))


def test_hadamard_entry_text_and_latex():
    p, r = MatSym("P", n, d_v), MatSym("R", n, d_v)
    assert Hadamard(p, r).entry(i, j) == expand_entries(p[i, j] * r[i, j])
    assert str(Hadamard(p, r) @ r.T) == "(P ∘ R)R^T"
    assert latex(Hadamard(p, r) @ r.T) == r"(P\circ R)R^{\mathsf T}"


def test_hadamard_is_entrywise_in_the_walker_the_witnesses_and_the_truth():
    rng = np.random.default_rng(0)
    p, r = rng.normal(size=(3, 2)), rng.normal(size=(3, 2))
    P, R = MatSym("P", 3, 2), MatSym("R", 3, 2)
    assert np.allclose(evaluate(Hadamard(P, R), {P: p, R: r}), p * r)
    assert prove_equal(Hadamard(P, R), Hadamard(R, P)).status == "proved"
    assert prove_equal(Hadamard(P, R), Hadamard(P, P)).status == "false"
    p, r = MatSym("P", n, d_v), MatSym("R", n, d_v)  # the truth draws its own sizes and data
    assert truth(Hadamard(p, r), Hadamard(r, p)) == "true"
    assert truth(Hadamard(p, r), Hadamard(p, p)) == "false"


# ---- the rules and the directional derivative -------------------------------------------------


@pytest.mark.parametrize("name", list(RULES))
def test_every_rule_is_proved_at_the_entry_level(name):
    assert rule_truth(name).status == "proved", rule_truth(name).summary()


def test_the_causal_softmax_rule_is_proved_by_cases_and_a_wrong_one_is_false():
    assert rule_truth("softmax_jvp_causal").reason == "by the cases j <= i and j > i"
    s, e = MatSym("S", n, n), MatSym("E", n, n)
    t = sympy.Symbol("t", real=True)
    moved = Softmax(CausalMask(s + Scale(t, e))).entry(i, j)
    derivative = sympy.diff(moved, t).subs(t, 0)
    wrong = expand_entries(Hadamard(Softmax(CausalMask(s)), e)[i, j])
    v = _by_cases(derivative, wrong, i, j, s[i, j] + e[i, j])
    assert v.status == "false" and "j <= i" in v.reason and v.counterexample is not None


def test_a_wrong_softmax_jacobian_is_false_with_a_counterexample():
    s, e = MatSym("S", n, n), MatSym("E", n, n)
    t = sympy.Symbol("t", real=True)
    moved = Softmax(s + Scale(t, e)).entry(i, j)
    derivative = sympy.diff(moved, t).subs(t, 0)
    assert prove_equal(derivative, softmax_jvp(Softmax(s), e)[i, j]).status == "proved"
    wrong = prove_equal(derivative, Hadamard(Softmax(s), e)[i, j])
    assert wrong.status == "false" and wrong.counterexample is not None


def test_directional_derivative_of_products_and_constants():
    Q, K, E = B.Q, B.K, MatSym("E", n, d_k)
    assert str(directional(Q @ K.T, Q, E)) == "EK^T"
    assert str(directional(Q @ K.T, K, E)) == "QE^T"
    assert prove_equal(directional(K @ K.T, Q, E), Scale(0, Ones(n, n))).status == "proved"
    with pytest.raises(ShapeError, match="does not have the shape"):
        directional(Q @ K.T, Q, MatSym("E", n, n))


def test_a_mask_outside_softmax_is_undecided():
    v = prove_gradient(CausalMask(B.Q @ B.K.T), B.Q, MatSym("dO", n, n), B.Q)
    assert v.status == "unknown" and "undecided" in v.reason and "-inf" in v.reason


# ---- the gradients of attention, proved for symbolic sizes ------------------------------------


def test_dV_is_proved():
    v = prove_gradient(B.O, B.V, B.dO, B.dV)
    assert v.status == "proved", v.summary()
    assert [r for r, _ in v.rules] == ["jvp_leaf", "jvp_matmul"]  # A reads no V: a constant


def test_dA_and_dS_are_proved():
    a = MatSym("A", n, n)
    assert prove_gradient(a @ B.V, a, B.dO, B.dA).status == "proved"
    s = MatSym("S", n, n)
    ds = softmax_jvp(Softmax(s), B.dA)
    v = prove_gradient(Softmax(s) @ B.V, s, B.dO, ds)
    assert v.status == "proved" and "softmax_jvp" in dict(v.rules)


@pytest.mark.parametrize("name", ["dQ", "dK"])
def test_dQ_and_dK_are_proved(name):
    v = prove_gradient(B.O, getattr(B, name[1]), B.dO, getattr(B, name))
    assert v.status == "proved", v.summary()
    assert dict(v.rules)["softmax_jvp"].status == "proved"
    assert "softmax_jvp (proved)" in v.summary()


def test_the_row_term_needs_only_the_output():
    assert prove_row_term(B).status == "proved"
    assert prove_row_term(BC).status == "proved"


def _no_scale(b):
    return b.dS @ b.K


def _ds_without_row_term(b):
    return Scale(b.scale, Hadamard(b.A, b.dA) @ b.K)


FALSE_VARIANTS = {
    "dQ without 1/sqrt(d_k)": ("Q", _no_scale),
    "dQ with dS = A ∘ dA": ("Q", _ds_without_row_term),
    "dK with the transpose of dS dropped": ("K", lambda b: Scale(b.scale, b.dS @ b.K)),
    "dV with the transpose of A dropped": ("V", lambda b: b.A @ b.dO),
}


@pytest.mark.slow
@pytest.mark.parametrize("label", FALSE_VARIANTS)
def test_false_gradients_are_false_with_a_counterexample(label):
    wrt, build = FALSE_VARIANTS[label]
    v = prove_gradient(B.O, getattr(B, wrt), B.dO, build(B))
    assert v.status == "false", v.summary()
    assert v.counterexample is not None and "counterexample" in v.summary()


@pytest.mark.parametrize("name", ["dV", "dQ", "dK"])
def test_causal_gradients_are_proved_with_the_softmax_as_a_generic_matrix(name):
    v = prove_gradient(BC.O, getattr(BC, name[1]), BC.dO, getattr(BC, name))
    assert v.status == "proved", v.summary()
    assert "for every matrix in place of softmax(mask(QK^T/sqrt(d_k)))" in v.reason


def test_a_claim_true_only_for_softmax_is_decided_without_the_generalisation():
    # rowsum(softmax(S)) = 1 holds for the softmax, not for a generic matrix in its place
    s, up = MatSym("S", n, n), MatSym("dO", n, 1)
    out = Softmax(s) @ Ones(n, 1)
    v = prove_gradient(out, s, up, Scale(0, Ones(n, n)))
    assert v.ok and "every matrix" not in v.reason  # decided on the softmax itself


# ---- central finite differences on random float64 data ----------------------------------------


def _forward(q, k, v, causal):
    s = q @ k.T / np.sqrt(q.shape[1])
    if causal:
        s = np.where(np.tril(np.ones(s.shape, bool)), s, -np.inf)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)) @ v


def _evaluate(expr, data):
    return evaluate(expr, {k: v for k, v in data.items() if k in named_shapes(expr)})


@pytest.mark.parametrize("causal", [False, True], ids=["single-head", "causal"])
def test_gradients_agree_with_central_finite_differences(causal):
    rng = np.random.default_rng(7)
    sizes = {"Q": (5, 3), "K": (5, 3), "V": (5, 4), "dO": (5, 4)}
    data = {k: rng.normal(size=s) for k, s in sizes.items()}
    b = attention_backward(5, 3, 4, causal=causal)

    def loss(values):
        return float(np.sum(data["dO"] * _forward(values["Q"], values["K"], values["V"], causal)))

    h = 1e-5
    for name, grad in (("Q", b.dQ), ("K", b.dK), ("V", b.dV)):
        claimed = _evaluate(grad, data)
        numeric = np.zeros(sizes[name])
        for idx in np.ndindex(*sizes[name]):
            up = {k: x.copy() for k, x in data.items()}
            down = {k: x.copy() for k, x in data.items()}
            up[name][idx] += h
            down[name][idx] -= h
            numeric[idx] = (loss(up) - loss(down)) / (2 * h)
        err = np.max(np.abs(claimed - numeric)) / np.max(np.abs(numeric))
        assert err < 1e-6, (name, err)
    wrong = _evaluate(Scale(1, b.dS @ b.K), data)  # dQ without 1/sqrt(d_k): the check can fail
    assert np.max(np.abs(wrong - _evaluate(b.dQ, data))) > 1e-3


# ---- multi-query attention: K and V shared by every head --------------------------------------

MQ, HEAD = shared_kv_backward()


@pytest.mark.slow
def test_shared_dV_is_the_sum_over_heads():
    total = MatSum(MQ.dV, HEAD, 1, H)
    assert prove_gradient(MQ.O, MQ.V, MQ.dO, total, heads=(HEAD, H)).status == "proved"
    one = MQ.dV.xreplace({HEAD: 1})  # the first head's alone
    v = prove_gradient(MQ.O, MQ.V, MQ.dO, one, heads=(HEAD, H))
    assert v.status == "false" and v.counterexample is not None


@pytest.mark.slow
def test_shared_dK_is_the_sum_over_heads():
    total = MatSum(MQ.dK, HEAD, 1, H)
    v = prove_gradient(MQ.O, MQ.K, MQ.dO, total, heads=(HEAD, H))
    assert v.status == "proved", v.summary()


def test_shared_gradients_agree_with_central_finite_differences():
    rng = np.random.default_rng(11)
    heads, rows, dk, dv = 2, 4, 3, 2
    q, do = rng.normal(size=(heads, rows, dk)), rng.normal(size=(heads, rows, dv))
    kv = {"K": rng.normal(size=(rows, dk)), "V": rng.normal(size=(rows, dv))}

    def loss(values):
        return sum(
            float(np.sum(do[g] * _forward(q[g], values["K"], values["V"], False)))
            for g in range(heads)
        )

    h = 1e-5
    for name, grad in (("K", MQ.dK), ("V", MQ.dV)):
        total = MatSum(grad, HEAD, 1, H)
        inputs = {"Q": q, "dO": do, **kv}
        claimed = evaluate(total, {k: v for k, v in inputs.items() if k in _names(total)})
        numeric = np.zeros(kv[name].shape)
        for idx in np.ndindex(*kv[name].shape):
            up = {k: x.copy() for k, x in kv.items()}
            down = {k: x.copy() for k, x in kv.items()}
            up[name][idx] += h
            down[name][idx] -= h
            numeric[idx] = (loss(up) - loss(down)) / (2 * h)
        err = np.max(np.abs(claimed - numeric)) / np.max(np.abs(numeric))
        assert err < 1e-6, (name, err)


def _names(expr):
    return {k.removesuffix("^()") for k in named_shapes(expr)}


# ---- what the walker refuses, and what it may skip --------------------------------------------


def test_a_node_without_a_rule_is_constant_when_it_reads_no_entry_of_the_variable():
    phi, up = FeatureMap("phi", B.K, d_k), MatSym("dO", n, n)
    assert prove_gradient(B.Q @ phi.T, B.Q, up, up @ phi).status == "proved"
    assert prove_gradient(B.Q @ phi.T, B.Q, up, up @ B.K).status == "false"
    v = prove_gradient(FeatureMap("phi", B.Q, d_k), B.Q, MatSym("dO", n, d_k), B.Q)
    assert v.status == "unknown" and "no derivative rule for FeatureMap" in v.reason


def test_a_scalar_that_reads_the_variable_is_undecided():
    v = prove_gradient(Scale(B.Q[1, 1], B.V), B.Q, B.dO, Scale(0, B.Q))
    assert v.status == "unknown" and "reads Q" in v.reason


def test_one_name_with_two_shapes_and_bad_shapes_are_shape_errors():
    other = MatSym("Q", n, n)
    v = prove_gradient(other @ B.V, B.Q, B.dO, B.Q)
    assert v.status == "shape_error" and "shapes" in v.reason
    assert prove_gradient(B.O, B.Q, B.dA, B.dQ).status == "shape_error"
    assert prove_gradient(B.O, B.Q, B.dO, B.dV).status == "shape_error"


def test_the_direction_avoids_the_names_in_the_claim():
    e = MatSym("E", n, d_k)
    assert prove_gradient(e @ B.K.T, e, MatSym("dO", n, n), MatSym("dO", n, n) @ B.K).ok


def test_bad_arguments_are_named():
    with pytest.raises(ShapeError, match="the variable must be a matrix expression, not str"):
        prove_gradient(B.O, "Q", B.dO, B.dQ)
    with pytest.raises(ShapeError, match="the head index must be an index symbol"):
        prove_gradient(MQ.O, MQ.K, MQ.dO, MQ.dK, heads=(2, H))


def test_the_independent_truth_agrees_with_every_backward_claim():
    claims = backward_claims()
    assert [c.name for c in claims] == [
        "backward dV",
        "backward dQ",
        "backward dK",
        "backward row term",
    ]
    for c in claims:
        assert truth(c.lhs, c.rhs) == "true", c.name
    wrong = claims[1].rhs.xreplace({B.scale: sympy.Integer(1)})  # dQ without 1/sqrt(d_k)
    assert truth(claims[1].lhs, wrong) == "false"


# ---- grouped-query attention: each key head serves the R query heads of its group -------------

GQ, R_INDEX, R_SIZE = grouped_kv_backward()


def test_grouped_dV_is_the_sum_over_the_group():
    total = MatSum(GQ.dV, R_INDEX, 1, R_SIZE)
    v = prove_gradient(GQ.O, GQ.V, GQ.dO, total, heads=(R_INDEX, R_SIZE))
    assert v.status == "proved", v.summary()


def test_grouped_gradients_agree_with_central_finite_differences():
    # G = 2 key heads, R = 2 query heads each: the loss sums over all four query heads
    rng = np.random.default_rng(5)
    groups, per, rows, dk, dv = 2, 2, 4, 3, 2
    q, do = rng.normal(size=(groups * per, rows, dk)), rng.normal(size=(groups * per, rows, dv))
    keys = {("K", g): rng.normal(size=(rows, dk)) for g in range(groups)}
    keys |= {("V", g): rng.normal(size=(rows, dv)) for g in range(groups)}

    def loss(values):
        out = 0.0
        for hq in range(groups * per):
            g = hq // per
            out += float(np.sum(do[hq] * _forward(q[hq], values["K", g], values["V", g], False)))
        return out

    h = 1e-5
    g_sym = GQ.Q.head.free_symbols - {R_INDEX, R_SIZE}
    for (name, g), value in keys.items():
        grad = GQ.dK if name == "K" else GQ.dV
        total = MatSum(grad, R_INDEX, 1, R_SIZE).xreplace(
            {R_SIZE: per, **dict.fromkeys(g_sym, g + 1)}
        )
        mine = range(g * per, (g + 1) * per)  # the group's query heads, numbered from 1
        inputs = {
            "Q": {hq + 1: q[hq] for hq in mine},
            "dO": {hq + 1: do[hq] for hq in mine},
            "K_g": keys["K", g],
            "V_g": keys["V", g],
        }
        claimed = evaluate(total, {k: v for k, v in inputs.items() if k in _names(total)})
        numeric = np.zeros(value.shape)
        for idx in np.ndindex(*value.shape):
            up = {k: x.copy() for k, x in keys.items()}
            down = {k: x.copy() for k, x in keys.items()}
            up[name, g][idx] += h
            down[name, g][idx] -= h
            numeric[idx] = (loss(up) - loss(down)) / (2 * h)
        err = np.max(np.abs(claimed - numeric)) / np.max(np.abs(numeric))
        assert err < 1e-6, (name, g, err)


# ---- the entry form of a gradient -----------------------------------------------------------


@pytest.mark.parametrize(
    ("entry", "status"),
    [
        (lambda X, G, r: sympy.Sum(X[r, i] * G[r, j], (r, 1, n)), "proved"),
        (lambda X, G, r: 2 * sympy.Sum(X[r, i] * G[r, j], (r, 1, n)), "false"),
        (lambda X, G, r: sympy.Sum(X[r, i] * G[r, j], (r, 1, n)) + X[1, i] * G[1, j], "false"),
    ],
)
def test_an_entry_of_a_gradient_is_decided_by_the_same_identity(entry, status):
    X, W, G = MatSym("X", n, d_k), MatSym("W", d_k, d_v), MatSym("G", n, d_v)
    got = prove_gradient(X @ W, W, G, entry(X, G, index("r")), entry=(i, j))
    assert got.status == status
    assert (got.counterexample is not None) == (status == "false")


def test_an_entry_form_needs_a_scalar_and_two_indices():
    X, W, G = MatSym("X", n, d_k), MatSym("W", d_k, d_v), MatSym("G", n, d_v)
    with pytest.raises(ShapeError, match="^an entry of a gradient"):
        prove_gradient(X @ W, W, G, X.T @ G, entry=(i, j))


def test_the_loss_may_read_the_variable_through_several_outputs():
    X, G1, G2 = MatSym("X", n, d_k), MatSym("G_1", n, d_v), MatSym("G_2", n, d_v)
    W1, W2 = MatSym("W_1", d_k, d_v), MatSym("W_2", d_k, d_v)
    more = ((X @ W2, G2),)
    right = G1 @ W1.T + G2 @ W2.T
    assert prove_gradient(X @ W1, X, G1, right, more=more).status == "proved"
    assert prove_gradient(X @ W1, X, G1, G1 @ W1.T, more=more).status == "false"
    bad = ((X @ W2, MatSym("G_3", n, n)),)
    assert prove_gradient(X @ W1, X, G1, right, more=bad).status == "shape_error"
