"""A masked entry (-inf) is defined only on its way into a softmax, in every witness and in
evaluate(): 0 · (-inf) and (-inf) - (-inf) are never simplified to 0, a sum of masked scores
compared as a value is ill-formed, and a mask or its moves compare as values."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

from symattn.kernel import masked, rules
from symattn.kernel.arrays import evaluate
from symattn.kernel.dims import d_k, n
from symattn.kernel.errors import ProofError
from symattn.kernel.expr import CausalMask, MatSym, Scale, Softmax, index
from symattn.kernel.modern import PadMask
from symattn.kernel.proof import prove_equal
from symattn.kernel.witness import definitions
from symattn.kernel.witness.exact import exact
from symattn.kernel.witness.numeric import IllFormed, numeric_check
from symattn.kernel.witness.symbolic import symbolic

S, B = MatSym("S", n, n), MatSym("B", n, n)
c = sympy.Symbol("c", real=True)  # a scalar of unknown sign

ILL_FORMED = [
    ("0 · (-inf)", Softmax(Scale(0, CausalMask(S))), Softmax(Scale(0, S))),
    ("(-inf) - (-inf)", CausalMask(S) - CausalMask(S), Scale(0, S)),
    ("-1 · (-inf)", Softmax(-CausalMask(S)), Softmax(-S)),
    ("c · (-inf)", Softmax(Scale(c, CausalMask(S))), Softmax(Scale(c, S))),
    ("product", CausalMask(S) @ B, S @ B),
    (
        "padding times 0",
        Scale(0, PadMask(MatSym("T", n, n + 1), n, 1)),
        Scale(0, MatSym("T", n, n + 1)),
    ),
]


@pytest.mark.parametrize("what, lhs, rhs", ILL_FORMED, ids=[x[0] for x in ILL_FORMED])
def test_masked_arithmetic_is_ill_formed_in_every_witness(what, lhs, rhs):
    v = prove_equal(lhs, rhs)  # never proved, never an alarm
    assert v.status == "shape_error", v.summary()
    assert v.reason.startswith("ill-formed: a masked entry (-inf) is defined only")
    for witness in (symbolic, exact, numeric_check):
        r = witness(lhs, rhs, {})
        assert r.holds is None and r.detail.startswith("ill-formed"), (witness, r.detail)
    with pytest.raises(IllFormed, match="^ill-formed: a masked entry"):
        evaluate(lhs, fill="random", sizes={"n": 3})


def test_the_reproducers_are_not_rules():
    for k, (_, lhs, rhs) in enumerate(ILL_FORMED[:2]):
        with pytest.raises(ProofError, match="shape_error"):
            rules.register(f"masked_zero_{'ab'[k]}", "a", "a", (lhs, rhs))
    assert "masked_zero_a" not in rules.registry()


def test_the_definitions_refuse_the_value_not_only_the_form():
    """The exact witness's own evaluator meets -inf as a value and refuses arithmetic on it too.
    (sympy writes 0 · x as 0 while the entry formula is built, so the form is checked first,
    `masked.problem`, by every witness.)"""
    s3 = MatSym("S", 3, 3)
    with pytest.raises(definitions.IllFormed, match="not provably positive"):
        definitions.check(Softmax(Scale(c, CausalMask(s3))), Softmax(Scale(c, s3)), {})
    minus = CausalMask(s3) - CausalMask(s3, upper=True)
    with pytest.raises(definitions.IllFormed, match="not provably positive"):
        definitions.check(minus, minus, {})  # S_21 - (-inf) at row 2, col 1
    assert exact(minus, Scale(0, s3), {}).detail.startswith("ill-formed")


def test_the_extended_real_rule_where_it_is_defined():
    """-inf + x = -inf and c · (-inf) = -inf for c > 0: these stay well formed and are decided."""
    scale = 1 / sympy.sqrt(d_k)
    cases = [
        (Softmax(Scale(scale, CausalMask(S))), Softmax(CausalMask(Scale(scale, S))), True),
        (Softmax(Scale(scale, CausalMask(S))), Softmax(Scale(scale, S)), False),
        (Softmax(CausalMask(S) + B), Softmax(CausalMask(S + B)), True),
        (Softmax(CausalMask(S) + B), Softmax(S + B), False),
        (Softmax(CausalMask(S).T), Softmax(CausalMask(S.T, upper=True)), True),
        (CausalMask(S), CausalMask(S.T.T), True),  # -inf = -inf entry by entry
    ]
    # A true claim whose softmax argument depends on d_k may rest on evidence only ("agreed"):
    # no finite set of sizes rules out a coincidence there. It is never "false".
    for lhs, rhs, holds in cases:
        assert masked.problem(lhs, rhs) is None
        v = prove_equal(lhs, rhs)
        ok = ("proved", "checked", "agreed") if holds else ("false",)
        assert v.status in ok, v.summary()
    half = sympy.Rational(1, 2)  # a constant scale: decided for every size or at explicit sizes
    v = prove_equal(Softmax(Scale(half, CausalMask(S))), Softmax(CausalMask(Scale(half, S))))
    assert v.status in ("proved", "checked"), v.summary()
    i, j = index("i"), index("j")
    assert prove_equal(CausalMask(S)[i, j], CausalMask(S.T.T)[i, j]).status == "proved"


# Arithmetic on masked entries with no softmax to go to: a sum, a positive scaling, under moves.
OUTSIDE_A_SOFTMAX = [
    ("mask + mask", CausalMask(S) + CausalMask(B), CausalMask(S + B)),
    ("mask + mask, false", CausalMask(S) + CausalMask(B), CausalMask(S)),
    ("2 · mask", Scale(2, CausalMask(S)), CausalMask(Scale(2, S))),
    ("(mask + B)^T", (CausalMask(S) + B).T, CausalMask(S + B).T),
    ("mask of a sum of masks", CausalMask(CausalMask(S, upper=True) + B), CausalMask(S + B)),
    (
        "padding + B",
        PadMask(MatSym("T", n, n + 1), n, 1) + MatSym("C", n, n + 1),
        PadMask(MatSym("T", n, n + 1) + MatSym("C", n, n + 1), n, 1),
    ),
]


@pytest.mark.parametrize("what, lhs, rhs", OUTSIDE_A_SOFTMAX, ids=[x[0] for x in OUTSIDE_A_SOFTMAX])
def test_arithmetic_on_a_mask_outside_a_softmax_is_ill_formed(what, lhs, rhs):
    """Neither checked nor false: a sum of masked scores has a meaning only on its way into a
    softmax, so a claim that compares one as a value is ill-formed, in every witness."""
    v = prove_equal(lhs, rhs)
    assert v.status == "shape_error", v.summary()
    assert "arithmetic on a masked entry outside a softmax" in v.reason, v.reason
    for witness in (symbolic, exact, numeric_check):
        r = witness(lhs, rhs, {})
        assert r.holds is None and r.detail.startswith("ill-formed"), (witness, r.detail)
    with pytest.raises(IllFormed, match="outside a softmax"):
        evaluate(lhs, fill="random", sizes={"n": 3})


def test_the_same_arithmetic_inside_a_softmax_is_decided():
    both = Softmax(CausalMask(S) + CausalMask(B))  # -inf + (-inf) = -inf on its way in
    assert prove_equal(both, Softmax(CausalMask(S + B))).status in ("proved", "checked")
    assert prove_equal(both, Softmax(CausalMask(S))).status == "false"
    moved = Softmax((CausalMask(S) + B).T)  # the sum moves, then goes into a softmax
    assert prove_equal(moved, Softmax(CausalMask(S + B).T)).status in ("proved", "checked")
    assert prove_equal(moved, Softmax(CausalMask(S + B))).status == "false"


def test_a_mask_and_its_moves_are_values():
    i, j = index("i"), index("j")
    cases = [
        (CausalMask(S), CausalMask(S), True),
        (CausalMask(S), CausalMask(B), False),
        (CausalMask(S).T, CausalMask(S.T, upper=True), True),
        (CausalMask(S).T, CausalMask(S.T), False),
        (CausalMask(S).row(i), CausalMask(S.T.T).row(i), True),
        (CausalMask(S)[i, j], CausalMask(B)[i, j], False),
    ]
    for lhs, rhs, holds in cases:
        assert masked.problem(lhs, rhs) is None
        v = prove_equal(lhs, rhs)
        assert v.status in (("proved", "checked") if holds else ("false",)), v.summary()


def test_evaluate_keeps_minus_inf_of_a_mask_and_refuses_arithmetic_on_it():
    data = {"S": np.zeros((2, 2)), "B": np.ones((2, 2))}
    assert evaluate(CausalMask(S), {"S": data["S"]}).tolist() == [[0.0, -np.inf], [0.0, 0.0]]
    assert evaluate(Softmax(CausalMask(S) + B), data).tolist() == [[1.0, 0.0], [0.5, 0.5]]
    with pytest.raises(IllFormed, match="outside a softmax"):
        evaluate(CausalMask(S) + B, data)


def test_infinite_scalars_are_ill_formed():
    assert "infinite value" in prove_equal(Scale(-sympy.oo, S), Scale(-sympy.oo, S)).reason


def test_column_softmax_of_a_causal_mask_keeps_its_mask_inside_a_sum():
    """A sum over j of a column softmax of causal scores: the mask of the normalizer (over c, with
    c >= j) stays inside the normalizer; no bound letter leaks out as a free symbol."""
    import sympy

    from symattn.kernel.expr import CausalMask, ColSoftmax, MatSym, expand_entries, index
    from symattn.kernel.witness.points import write_out

    S, V = MatSym("S", 2, 2), MatSym("V", 2, 2)
    j = index("j")
    e = expand_entries(sympy.Sum(ColSoftmax(CausalMask(S))[2, j] * V[j, 1], (j, 1, 2)))
    out = write_out(e)
    leaked = [x for x in out.free_symbols if isinstance(x, sympy.Symbol) and x.name not in "SV"]
    assert not leaked and not out.has(sympy.Piecewise), out

    # row 2 keeps both columns; column 2's normalizer has only row 2: weight 1
    def value(x):  # S_ab = a + 2b; V_11 = 3, V_21 = 5
        a, b = (int(k) for k in x.indices)
        return sympy.Integer(a + 2 * b if str(x.base) == "S" else 1 + 2 * a)

    at = {x: value(x) for x in out.atoms(sympy.Indexed)}
    w21 = sympy.exp(4) / (sympy.exp(3) + sympy.exp(4))
    assert sympy.simplify(out.xreplace(at) - (w21 * 3 + 5)) == 0


def test_a_product_after_a_column_softmax_of_a_mask_leaks_no_bound_letter():
    """One product further out (`((ColSoftmax(mask S) V) W)_{21}`): writing the outer sum out
    must not fold the inner case split either."""
    import sympy

    from symattn.kernel.expr import CausalMask, ColSoftmax, MatSym, expand_entries
    from symattn.kernel.witness.points import write_out

    S, V, W = MatSym("S", 3, 3), MatSym("V", 3, 2), MatSym("W", 2, 2)
    out = write_out(expand_entries(((ColSoftmax(CausalMask(S)) @ V) @ W)[2, 1]))
    leaked = [x for x in out.free_symbols if isinstance(x, sympy.Symbol) and x.name not in "SVW"]
    assert not leaked and not out.has(sympy.Piecewise), out


def test_a_false_claim_with_a_column_softmax_of_a_mask_has_a_counterexample():
    import sympy

    from symattn.kernel.dims import d_k, d_v, n
    from symattn.kernel.expr import CausalMask, ColSoftmax, MatSym, Softmax, index
    from symattn.kernel.proof import prove_within

    i, j, u = index("i"), index("j"), index("u")
    Q, V = MatSym("Q", n, d_k), MatSym("V", n, d_v)
    lhs = sympy.Sum(ColSoftmax(CausalMask(Q @ Q.T))[i, j] * V[j, u], (j, 1, n))
    rhs = sympy.Sum(Softmax(CausalMask(Q @ Q.T))[i, j] * V[j, u], (j, 1, i))
    v = prove_within(lhs, rhs, seconds=30)
    assert v.status == "false" and v.counterexample is not None, v.summary()
