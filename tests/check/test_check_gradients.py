"""Gradients of the loss in a document (`\\frac{\\partial L}{\\partial W}`, `\\nabla_W L`,
`W^\\nabla`): decided by the vector–Jacobian identity from how the text computes the output, each
form with a true and a false use; undecided wherever the text does not say how W enters the loss."""

from __future__ import annotations

import pytest
from claim_helpers import kinds, results

from symattn.check import check_text

LINEAR = (
    r"Let $X \in \mathbb{R}^{n \times d}$, $W \in \mathbb{R}^{d \times m}$ and $Y = XW$." + "\n\n"
)
ATTENTION = (
    r"Let $Q, K \in \mathbb{R}^{n \times d_k}$ and $V \in \mathbb{R}^{n \times d_v}$. "
    r"The scores are $S = QK^\top/\sqrt{d_k}$, the weights $A = \mathrm{softmax}(S)$ and the "
    r"output $O = AV$." + "\n\n"
)


def display(formula: str) -> str:
    return f"$${formula}$$\n"


def claims_of_display(text: str, formula: str) -> list:
    """The items of the display that ends the document (the prose's own are left out)."""
    doc = text + display(formula)
    last = doc.count("\n")
    return [r for r in results(doc) if r.line == last]


@pytest.mark.parametrize(
    ("true", "false"),
    [
        (
            r"\frac{\partial L}{\partial W} = X^\top \frac{\partial L}{\partial Y}",
            r"\frac{\partial L}{\partial W} = X^\top \frac{\partial L}{\partial Y} + X^\top X W",
        ),
        (
            r"\frac{\partial L}{\partial X} = \frac{\partial L}{\partial Y} W^\top",
            r"\frac{\partial L}{\partial X} = 2\frac{\partial L}{\partial Y} W^\top",
        ),
        (
            r"\partial L/\partial W = X^\top \, \partial L/\partial Y",
            r"\partial L/\partial W = -X^\top \, \partial L/\partial Y",
        ),
        (
            r"\nabla_{\mathbf W} \mathcal{L} = X^\top \nabla_{Y} \mathcal{L}",
            r"\nabla_{\mathbf W} \mathcal{L} = X^\top \nabla_{Y} \mathcal{L} + W",
        ),
        (
            r"\frac{dL}{dW} = X^\top \frac{dL}{dY}",
            r"\frac{dL}{dW} = \frac{1}{2} X^\top \frac{dL}{dY}",
        ),
        (r"W^\nabla = X^T Y^\nabla", r"W^\nabla = X^T Y^\nabla + W"),
        (r"X^\nabla = Y^\nabla W^T", r"X^\nabla = Y^\nabla W^T + X"),
    ],
)
def test_a_gradient_through_a_product_is_verified_and_a_wrong_one_is_false(true, false):
    assert kinds(LINEAR + display(true)) == ["verified"]
    (r,) = results(LINEAR + display(false))
    assert r.kind == "false" and r.counterexample and "not the gradient" in r.message


def test_a_dropped_transpose_is_a_shape_error_at_the_claim():
    (r,) = results(
        LINEAR + display(r"\frac{\partial L}{\partial W} = X \frac{\partial L}{\partial Y}")
    )
    assert r.kind == "shape-error"


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        (r"\frac{\partial L}{\partial V} = A^\top \frac{\partial L}{\partial O}", "verified"),
        (r"\frac{\partial L}{\partial V} = A \frac{\partial L}{\partial O}", "false"),
        (r"\frac{\partial L}{\partial A} = \frac{\partial L}{\partial O} V^\top", "verified"),
        (
            r"\frac{\partial L}{\partial Q} = \frac{1}{\sqrt{d_k}} \frac{\partial L}{\partial S} K",
            "verified",
        ),
        (r"\frac{\partial L}{\partial Q} = \frac{\partial L}{\partial S} K", "false"),
        (
            r"\frac{\partial L}{\partial K} = \frac{1}{\sqrt{d_k}}"
            r" \left(\frac{\partial L}{\partial S}\right)^\top Q",
            "verified",
        ),
        (
            r"\frac{\partial L}{\partial S} = A \odot \left(\frac{\partial L}{\partial A} - "
            r"\left(A \odot \frac{\partial L}{\partial A}\right) \mathbf{1}_{n} \mathbf{1}_{n}^\top"
            r"\right)",
            "verified",
        ),
        (r"\frac{\partial L}{\partial S} = A \odot \frac{\partial L}{\partial A}", "false"),
    ],
)
def test_the_backward_pass_of_attention(formula, kind):
    (r,) = claims_of_display(ATTENTION, formula)
    assert r.kind == kind, r.message
    if kind == "verified":
        assert "vector–Jacobian identity" in r.message


def test_pbloem_style_gradients_with_shapes_inferred():
    text = r"If $C = AB$ then $A^\nabla = C^\nabla B^T$ and $B^\nabla = A^T C^\nabla$." + "\n"
    assert kinds(text) == ["verified", "verified"]
    wrong = r"If $C = AB$ then $B^\nabla = C^\nabla A^T$." + "\n"
    assert kinds(wrong) in (["false"], ["shape-error"], ["undecided"])
    assert "verified" not in kinds(wrong)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        # how Y is computed is never said
        (
            r"Let $X \in \mathbb{R}^{n \times d}$, $W \in \mathbb{R}^{d \times m}$, "
            r"$Y \in \mathbb{R}^{n \times m}$." + "\n\n"
            r"$$\frac{\partial L}{\partial W} = X^\top \frac{\partial L}{\partial Y}$$",
            "does not say how Y is computed",
        ),
        # W also enters the loss through Z
        (
            LINEAR + r"Let $Z = W^\top W$." + "\n\n"
            r"$$\frac{\partial L}{\partial W} = X^\top \frac{\partial L}{\partial Y}$$",
            "also enters Z",
        ),
        # no upstream gradient: how L depends on W is not known
        (
            LINEAR + r"$$\frac{\partial L}{\partial W} = X^\top X W$$",
            "does not say how L depends on W",
        ),
    ],
)
def test_what_the_text_does_not_settle_is_undecided_with_the_reason(text, reason):
    (r,) = results(text)
    assert r.kind == "undecided" and reason in r.message, r.message


def test_a_gradient_has_the_shape_of_its_matrix():
    assert kinds(
        LINEAR + display(r"\frac{\partial L}{\partial W} \in \mathbb{R}^{d \times m}")
    ) == ["verified"]
    (r,) = results(LINEAR + display(r"\frac{\partial L}{\partial W} \in \mathbb{R}^{m \times d}"))
    assert r.kind == "shape-error"


@pytest.mark.parametrize(
    "rule",
    [
        r"W \leftarrow W - \eta \nabla_W L",
        r"W \leftarrow W - \eta \frac{\partial L}{\partial W}",
    ],
)
def test_an_update_rule_is_a_step_of_training_not_a_claim(rule):
    (r,) = [x for x in check_text(LINEAR + display(rule), "doc.md") if x.line == 3]
    assert r.kind == "not-a-claim" and "update rule" in r.message


@pytest.mark.parametrize(
    ("formula", "named"),
    [
        (r"\frac{\partial f}{\partial x} = 0", r"\partial"),
        (r"\nabla \mathcal{L}(\mathbf{Q}) = \mathbf{Q}", r"\nabla"),
        (r"\frac{\partial Y}{\partial W} = X", r"\partial"),
    ],
)
def test_derivatives_that_are_not_gradients_of_the_loss_are_named(formula, named):
    (r,) = results(LINEAR + display(formula))
    assert r.kind == "not-understood" and named in r.message


def test_a_loss_letter_the_text_declares_as_a_matrix_is_not_a_loss():
    text = LINEAR + r"Let $L \in \mathbb{R}^{n \times n}$." + "\n\n"
    (r,) = results(
        text + display(r"\frac{\partial L}{\partial W} = X^\top \frac{\partial L}{\partial Y}")
    )
    assert r.kind == "not-understood" and "Jacobian" in r.message


@pytest.mark.parametrize(
    ("claimed", "kind"),
    [
        (r"A^T \frac{\partial L}{\partial O}", "verified"),
        (r"A \frac{\partial L}{\partial O}", "false"),
    ],
)
def test_how_the_output_is_computed_may_follow_the_gradient(claimed, kind):
    text = (
        r"Let $A \in \mathbb{R}^{n \times n}$ and $V \in \mathbb{R}^{n \times d_v}$." + "\n\n"
        rf"The gradient is $\frac{{\partial L}}{{\partial V}} = {claimed}$ where $O = AV$." + "\n"
    )
    (r,) = [x for x in results(text) if x.line == 3]
    assert r.kind == kind, r.message


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        (
            r"\frac{\partial L}{\partial W_{ij}} = "
            r"\sum_{r=1}^{n} X_{ri} \frac{\partial L}{\partial Y_{rj}}",
            "verified",
        ),
        (
            r"\frac{\partial L}{\partial W_{ij}} = "
            r"2\sum_{r=1}^{n} X_{ri} \frac{\partial L}{\partial Y_{rj}}",
            "false",
        ),
        (
            r"\frac{\partial L}{\partial X_{ij}} = "
            r"\sum_{k=1}^{m} \frac{\partial L}{\partial Y_{ik}} W_{jk}",
            "verified",
        ),
        (
            r"\frac{\partial L}{\partial X_{ij}} = "
            r"\sum_{k=1}^{m} \frac{\partial L}{\partial Y_{ik}} W_{jk} + W_{j1}",
            "false",
        ),
    ],
)
def test_the_entry_form_of_a_gradient(formula, kind):
    (r,) = results(LINEAR + display(formula))
    assert r.kind == kind, r.message


PROJECTIONS = (
    r"Let $X \in \mathbb{R}^{n \times d}$, $W_Q, W_K \in \mathbb{R}^{d \times d_k}$, "
    r"$W_V \in \mathbb{R}^{d \times d_v}$, $Q = XW_Q$, $K = XW_K$ and $V = XW_V$." + "\n\n"
)
THROUGH_QKV = (
    r"\frac{\partial L}{\partial X} = \frac{\partial L}{\partial Q} W_Q^\top + "
    r"\frac{\partial L}{\partial K} W_K^\top + \frac{\partial L}{\partial V} W_V^\top"
)


@pytest.mark.parametrize(
    ("formula", "kind", "words"),
    [
        (THROUGH_QKV, "verified", "only through Q = XW_Q, K = XW_K, V = XW_V"),
        (THROUGH_QKV.replace(r"K} W_K", r"K} W_Q"), "false", "not the gradient"),
        (THROUGH_QKV.split(r" + \frac{\partial L}{\partial V}")[0], "undecided", "also enters V"),
    ],
)
def test_a_gradient_through_several_outputs_sums_their_upstream_gradients(formula, kind, words):
    (r,) = claims_of_display(PROJECTIONS, formula)
    assert r.kind == kind and words in r.message, r.message


def test_upstream_gradients_of_outputs_computed_one_from_the_other_are_undecided():
    formula = (
        r"\frac{\partial L}{\partial Q} = \frac{1}{\sqrt{d_k}} \frac{\partial L}{\partial S} K"
        r" + \frac{\partial L}{\partial A} K"
    )
    (r,) = claims_of_display(ATTENTION, formula)
    assert r.kind == "undecided" and "is computed from S" in r.message, r.message


def test_an_identity_between_gradients_that_holds_for_every_matrix_is_verified():
    (r,) = results(LINEAR + display(r"{W^\nabla}^T = W^{\nabla T}"))
    assert r.kind == "verified" and "every value of the gradients" in r.message
    (r,) = results(LINEAR + display(r"{W^\nabla}^T = 2 W^{\nabla T}"))
    assert r.kind == "undecided"
