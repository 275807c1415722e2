"""Derivatives of one entry by another in a document (`\\frac{\\partial y_i}{\\partial x_j}`):
decided by the directional derivative from the text's definitions, each form with a true use
verified and a false use refuted; undecided where the text gives no dependence to differentiate."""

from __future__ import annotations

import pytest
from claim_helpers import results

SOFTMAX = r"Let $z\in\mathbb R^n$ be a column vector." + "\n\n"
LINEAR = r"Let $u\in\mathbb R^d$ be a column vector and $M\in\mathbb R^{m\times d}$." + "\n\n"
SCORES = r"Let $P\in\mathbb R^{n\times d}$ and $R\in\mathbb R^{n\times d}$." + "\n\n"
SM = r"\mathrm{softmax}(z)"
ROWS = (
    r"Let $P\in\mathbb R^{n\times d}$, $U\in\mathbb R^{d\times m}$, $T = PU$ and "
    r"$G = \mathrm{softmax}(T)$." + "\n\n"
)


def verdict(text: str, formula: str):
    (r,) = results(text + f"$${formula}$$\n")
    return r


@pytest.mark.parametrize(
    ("text", "formula", "kind"),
    [
        # the softmax Jacobian, and its symmetric form (true: delta_ij ties i to j)
        (
            SOFTMAX,
            rf"\frac{{\partial {SM}_i}}{{\partial z_j}} = {SM}_i(\delta_{{ij}} - {SM}_j)",
            "verified",
        ),
        (
            SOFTMAX,
            rf"\frac{{\partial {SM}_i}}{{\partial z_j}} = {SM}_j(\delta_{{ij}} - {SM}_i)",
            "verified",
        ),
        (SOFTMAX, rf"\frac{{\partial {SM}_i}}{{\partial z_j}} = {SM}_i(1 - {SM}_j)", "false"),
        (SOFTMAX, rf"\frac{{\partial {SM}_i}}{{\partial z_j}} = {SM}_i\delta_{{ij}}", "false"),
        # a linear map, written either way round
        (LINEAR, r"\frac{\partial (Mu)_i}{\partial u_j} = M_{ij}", "verified"),
        (LINEAR, r"M_{ij} = \frac{\partial (Mu)_i}{\partial u_j}", "verified"),
        (LINEAR, r"\frac{\partial (Mu)_i}{\partial u_j} = 2M_{ij}", "false"),
        # scores by an entry of either factor
        (
            SCORES,
            r"\frac{\partial (PR^\top)_{ij}}{\partial P_{ab}} = \delta_{ia}R_{jb}",
            "verified",
        ),
        (
            SCORES,
            r"\frac{\partial (PR^\top)_{ij}}{\partial R_{ab}} = \delta_{ja}P_{ib}",
            "verified",
        ),
        (SCORES, r"\frac{\partial (PR^\top)_{ij}}{\partial P_{ab}} = R_{jb}", "false"),
        (SCORES, r"\frac{\partial (PR^\top)_{ij}}{\partial P_{ab}} = \delta_{ja}R_{ib}", "false"),
        # through the text's definitions; the variable's own definition is held free
        (ROWS, r"\frac{\partial T_{ij}}{\partial U_{ab}} = \delta_{jb}P_{ia}", "verified"),
        (ROWS, r"\frac{\partial T_{ij}}{\partial U_{ab}} = \delta_{ja}P_{ib}", "shape-error"),
        (
            ROWS,
            r"\frac{\partial G_{ij}}{\partial T_{kl}} = \delta_{ik}G_{ij}(\delta_{jl} - G_{il})",
            "verified",
        ),
        (ROWS, r"\frac{\partial G_{ij}}{\partial T_{kl}} = G_{ij}(\delta_{jl} - G_{il})", "false"),
    ],
)
def test_a_derivative_of_entries_is_decided(text, formula, kind):
    r = verdict(text, formula)
    assert r.kind == kind, r.message
    if r.status != "proved":  # a proof's message names only its witnesses
        assert "directional derivative" in r.message


def test_a_definition_is_differentiated_through():
    text = LINEAR + r"Let $w = Mu$." + "\n\n"
    assert verdict(text, r"\frac{\partial (w)_i}{\partial u_j} = M_{ij}").kind != "false"


@pytest.mark.parametrize(
    "formula",
    [
        # the variable's index among the numerator's: only the diagonal is claimed
        rf"\frac{{\partial {SM}_i}}{{\partial z_i}} = {SM}_i(1 - {SM}_i)",
    ],
)
def test_a_derivative_at_a_shared_index_is_undecided(formula):
    r = verdict(SOFTMAX, formula)
    assert r.kind == "undecided", r.message


def test_a_vector_with_no_value_is_not_differentiated_as_a_constant():
    # s is declared, never given in terms of z: its derivative is not 0 by default
    text = r"Let $z\in\mathbb R^n$ and $t\in\mathbb R^n$ be column vectors." + "\n\n"
    r = verdict(text, r"\frac{\partial (t)_i}{\partial z_j} = t_i(\delta_{ij} - t_j)")
    assert r.kind != "false", r.message


def test_a_derivative_inside_an_expression_is_never_evaluated():
    formula = rf"2\frac{{\partial {SM}_i}}{{\partial z_j}} = 2{SM}_i(\delta_{{ij}} - {SM}_j)"
    r = verdict(SOFTMAX, formula)
    assert r.kind == "undecided", r.message
