"""The backward pass of attention as texts write it (`dV = A^\\top dO`, `\\mathit{dO}`,
`\\bar O`, `\\delta O`, `\\circ`, `\\operatorname{rowsum}`): each notation with a true use
(verified) and a false one (false, with a counterexample); the gradient of a loss the text never
defines is the upstream gradient given, and the verdict says so."""

from __future__ import annotations

import pytest
from claim_helpers import results

FORWARD = (
    r"Let $Q, K \in \mathbb{R}^{n \times d_k}$ and $V \in \mathbb{R}^{n \times d_v}$. "
    r"The forward pass is $S = QK^\top/\sqrt{d_k}$, $P = \operatorname{softmax}(S)$ and "
    r"$O = PV$." + "\n\n"
)
CAUSAL = FORWARD.replace(
    r"\operatorname{softmax}(S)", r"\operatorname{softmax}(\operatorname{mask}(S))"
)


def last(text: str, *formulas: str) -> list:
    """The results of the last display of the document made of the text and the formulas."""
    doc = text + "".join(f"$${f}$$\n\n" for f in formulas)
    line = doc.rstrip("\n").count("\n") + 1
    return [r for r in results(doc) if r.line == line]


@pytest.mark.parametrize(
    ("true", "false"),
    [
        (r"dV = P^\top dO", r"dV = P\, dO"),
        (r"\mathit{dV} = P^\top \mathit{dO}", r"\mathit{dV} = P\,\mathit{dO}"),
        (r"\mathrm{d}V = P^\top \mathrm{d}O", r"\mathrm{d}V = P\,\mathrm{d}O"),
        (r"\mathrm dV = P^\top \mathrm dO", r"\mathrm dV = 2P^\top \mathrm dO"),
        (r"\bar V = P^\top \bar O", r"\bar V = P \bar O"),
        (r"\delta V = P^\top \delta O", r"\delta V = P\,\delta O"),
        (r"d\mathbf V = P^\top d\mathbf O", r"d\mathbf V = P\, d\mathbf O"),
        (r"dP = dO\, V^\top", r"dP = V\, dO^\top"),
        (r"dQ = dS\, K/\sqrt{d_k}", r"dQ = dS\, K"),
        (r"dK = dS^\top Q/\sqrt{d_k}", r"dK = dS\, Q/\sqrt{d_k}"),
        (
            r"dS = P \circ (dP - \operatorname{rowsum}(P \circ dP)\mathbf 1_n^\top)",
            r"dS = P \circ dP",
        ),
        (
            r"dS = P \odot (dP - (P \odot dP)\mathbf 1_n \mathbf 1_n^\top)",
            r"dS = P \odot (dP + (P \odot dP)\mathbf 1_n \mathbf 1_n^\top)",
        ),
        (
            r"dS = P \circ (dP - (P \circ dP)\mathbf 1_{n\times n})",
            r"dS = P \circ (dP - dP\,\mathbf 1_{n\times n})",
        ),
    ],
)
def test_each_notation_verifies_a_true_gradient_and_refutes_a_false_one(true, false):
    (r,) = last(FORWARD, true)
    assert r.kind == "verified" and r.status == "proved", r.message
    assert "a loss the text does not define" in r.message and "upstream gradient" in r.message
    (r,) = last(FORWARD, false)
    assert r.kind == "false" and r.counterexample, r.message
    assert "not the gradient" in r.message


@pytest.mark.parametrize(
    ("true", "false"),
    [
        (r"dV = P^\top dO", r"dV = P\, dO"),
        (r"dQ = dS\, K/\sqrt{d_k}", r"dQ = dS\, K"),
        (
            r"dS = P \circ (dP - \operatorname{rowsum}(P \circ dP)\mathbf 1_n^\top)",
            r"dS = P \circ dP",
        ),
    ],
)
def test_the_causal_backward_pass_is_decided_the_same_way(true, false):
    assert [r.kind for r in last(CAUSAL, true)] == ["verified"]
    assert [r.kind for r in last(CAUSAL, false)] == ["false"]


def test_the_row_term_is_decided_with_the_gradient_the_text_showed_before():
    shown = r"dP = dO\, V^\top"
    true = r"\operatorname{rowsum}(P \circ dP) = \operatorname{rowsum}(dO \circ O)"
    (r,) = last(FORWARD, shown, true)
    assert r.kind == "verified" and "given the gradients the text showed before" in r.message
    (r,) = last(FORWARD, shown, true.replace(r"dO \circ O", r"dO \circ V"))
    assert r.kind == "false" and r.counterexample
    # without dP shown, dP and dO are two free gradients: nothing ties them
    (r,) = last(FORWARD, true)
    assert r.kind == "undecided"


def test_ds_from_the_stored_row_term_needs_the_gradient_shown_before():
    d = r"D = \operatorname{rowsum}(dO \circ O)"
    (r,) = last(FORWARD, r"dP = dO\, V^\top", d, r"dS = P \circ (dP - D\mathbf 1_n^\top)")
    assert r.kind == "verified", r.message
    (r,) = last(FORWARD, r"dP = dO\, V^\top", d, r"dS = P \circ (dP + D\mathbf 1_n^\top)")
    assert r.kind == "false", r.message
    # D reads dO, which the text never ties to dP: never false
    (r,) = last(FORWARD, d, r"dS = P \circ (dP + D\mathbf 1_n^\top)")
    assert r.kind == "undecided" and "takes free" in r.message


def test_a_fact_shown_under_other_definitions_is_not_used():
    # O is redefined after dP = dO V^T was shown: that gradient is not the one of the new O
    text = FORWARD + "$$dP = dO\\, V^\\top$$\n\nNow let $O = 2PV$.\n\n"
    (r,) = last(text, r"\operatorname{rowsum}(P \circ dP) = \operatorname{rowsum}(dO \circ O)")
    assert r.kind == "undecided"


@pytest.mark.parametrize(
    "formula",
    [
        r"Y = dN",  # d times N: one mark alone is the size d times a matrix
        r"\bar X = X",  # a bar beside its own letter is a new name, not a gradient
        r"f \circ g = g \circ f",  # a composition of functions
    ],
)
def test_marks_that_are_not_gradients_are_never_false(formula):
    text = r"Let $X, Y, N \in \mathbb{R}^{n \times n}$ and $d = 2$." + "\n\n"
    assert all(r.kind != "false" for r in last(text, formula))


def test_circ_between_matrices_is_the_entrywise_product():
    text = r"Let $X, Y \in \mathbb{R}^{n \times d}$." + "\n\n"
    assert [r.kind for r in last(text, r"X \circ Y = Y \circ X")] == ["verified"]
    assert [r.kind for r in last(text, r"X \circ Y = X \circ X")] == ["false"]
    assert [r.kind for r in last(text, r"\operatorname{rowsum}(X) = X\mathbf 1_d")] == ["verified"]
    assert [r.kind for r in last(text, r"\operatorname{rowsum}(X) = X^\top\mathbf 1_n")] == [
        "shape-error"
    ]


def test_a_ones_vector_without_its_length_takes_the_one_the_sum_gives():
    true = r"dS = P \circ (dP - \operatorname{rowsum}(P \circ dP)\mathbf 1^\top)"
    assert [r.kind for r in last(FORWARD, true)] == ["verified"]
    false = r"dS = P \circ (dP + \operatorname{rowsum}(P \circ dP)\mathbf 1^\top)"
    assert [r.kind for r in last(FORWARD, false)] == ["false"]
    text = r"Let $X \in \mathbb{R}^{n \times d}$." + "\n\n"
    rows = r"X - (X\mathbf 1_d)\mathbf 1^\top = X - (X\mathbf 1_d)\mathbf 1_d^\top"
    assert [r.kind for r in last(text, rows)] == ["verified"]
    # alone, the length is not given by anything: still asked for
    (r,) = last(text, r"(X\mathbf 1_d)\mathbf 1^\top = (X\mathbf 1_d)\mathbf 1_d^\top")
    assert r.kind == "not-understood" and "length of the all-ones vector" in r.message


def test_an_entry_of_ds_with_the_row_term_from_the_output_uses_the_shown_gradient():
    shown = r"dP = dO\, V^\top"
    true = r"dS_{ij} = P_{ij}\Big(dP_{ij} - \sum_{u=1}^{d_v} dO_{iu} O_{iu}\Big)"
    (r,) = last(FORWARD, shown, true)
    assert r.kind == "verified" and "showed before" in r.message, r.message
    (r,) = last(FORWARD, shown, true.replace("dO_{iu} O_{iu}", "dO_{ju} O_{ju}"))
    assert r.kind == "false" and r.counterexample
    # the wrong axis of the row sum, with no shown gradient needed, is still refuted
    (r,) = last(
        FORWARD, shown, r"dS_{ij} = P_{ij}\Big(dP_{ij} - \sum_{l=1}^{n} P_{lj}\, dP_{lj}\Big)"
    )
    assert r.kind == "false"


def test_an_entry_of_a_column_named_by_a_capital_takes_one_index():
    d = r"D = \operatorname{rowsum}(dO \circ O)"
    true = r"dS_{ij} = P_{ij}(dP_{ij} - D_i)"
    (r,) = last(FORWARD, r"dP = dO\, V^\top", d, true)
    assert r.kind == "verified", r.message
    (r,) = last(FORWARD, r"dP = dO\, V^\top", d, true.replace("- D_i", "- D_j"))
    assert r.kind == "false", r.message


HEADS = (
    r"Let $K \in \mathbb{R}^{n \times d_k}$, $V \in \mathbb{R}^{n \times d_v}$ and, for each head "
    r"$h$, $Q^{(h)} \in \mathbb{R}^{n \times d_k}$. Head $h$ computes "
    r"$P^{(h)} = \operatorname{softmax}(Q^{(h)}K^\top/\sqrt{d_k})$ and $O^{(h)} = P^{(h)}V$."
    + "\n\n"
)


@pytest.mark.parametrize(
    "formula",
    [
        r"\mathit{dV} = \sum_{h=1}^{H} (P^{(h)})^\top \mathit{dO}^{(h)}",  # true
        r"\mathit{dV} = \sum_{h=1}^{H} P^{(h)} \mathit{dO}^{(h)}",  # false
    ],
)
def test_a_gradient_of_each_head_is_not_read_and_says_so(formula: str) -> None:
    (r,) = last(HEADS, formula)
    assert r.kind == "not-understood", (r.kind, r.message)
    assert "the gradient of each member of a head family" in r.message
    assert "this^(h)" not in r.message


def test_a_head_of_an_operators_value_is_not_read_and_says_so() -> None:
    text = r"Let $K \in \mathbb{R}^{n \times 2d_k}$." + "\n\n"
    (r,) = last(text, r"X = \operatorname{repeat}_2(K)^{(1)}")
    assert r.kind == "not-understood", (r.kind, r.message)
    assert "a head (^(h)) of the value of repeat(...) is not read" in r.message
