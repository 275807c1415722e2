"""Vectors whose shape the text fixed, and their entries: `s_i` of a vector made by a definition
(`s = \\mathrm{softmax}(z)`, `h = Wx`), plain `u_i` of a bold `\\mathbf u`, and Q, K, V whose
conventional width a declaration of the text contradicts (`QW_i^Q`). Each with a true use that
is verified (or honestly undecided, naming the guess) and a false use refuted or undecided."""

from __future__ import annotations

import pytest
from claim_helpers import results


def one(text: str):
    (r,) = results(text)
    return r


# ---- a vector made by a definition, then its components ------------------------------------

SOFTMAX = "Let $z\\in\\mathbb R^{{{n}}}$ {how}and $s=\\mathrm{{softmax}}(z)$. Then ${claim}$.\n"


@pytest.mark.parametrize("how", ["", "be a column vector "])
@pytest.mark.parametrize(
    "claim",
    [
        r"s_i = \frac{e^{z_i}}{\sum_k e^{z_k}}",
        r"s_j = \frac{\exp(z_j)}{\sum_{k=1}^{n} \exp(z_k)}",
        r"\sum_{i=1}^{n} s_i = 1",
        r"s_i = \frac{e^{z_i - 2}}{\sum_k e^{z_k - 2}}",
    ],
)
def test_the_entries_of_a_defined_vector_are_its_components(how: str, claim: str) -> None:
    # was a shape error: `s_i` read as row i of the chapter's n × n scores S
    r = one(SOFTMAX.format(n="n", how=how, claim=claim))
    assert r.kind == "verified", r.message
    assert "as an entry of the vector s defined on line 1" in r.message


@pytest.mark.parametrize(
    "claim",
    [
        r"s_i = \frac{e^{z_i}}{\sum_k e^{2z_k}}",
        r"s_i = \frac{e^{z_i}}{\sum_k z_k}",
        r"\sum_{i=1}^{n} s_i = 2",
    ],
)
def test_a_wrong_claim_about_a_defined_vector_is_false(claim: str) -> None:
    r = one(SOFTMAX.format(n="n", how="be a column vector ", claim=claim))
    assert r.kind == "false", r.message


def test_a_row_vector_made_by_a_definition_has_components_too() -> None:
    text = "Let $z\\in\\mathbb R^{1\\times m}$ and $s=\\mathrm{softmax}(z)$.\n\n"
    good = one(text + "$$s_j = \\frac{\\exp(z_j)}{\\sum_{k=1}^m \\exp(z_k)}$$\n")
    bad = one(text + "$$s_j = \\frac{\\exp(z_j)}{\\sum_{k=1}^m \\exp(z_k)} + 1$$\n")
    assert (good.kind, bad.kind) == ("verified", "false"), (good.message, bad.message)


LINEAR = (
    "Let $W\\in\\mathbb R^{m\\times d}$ and let $x\\in\\mathbb R^{d}$ be a column vector, "
    "and $h = Wx$.\n\n$${}$$\n"
)


@pytest.mark.parametrize(
    ("claim", "kind"),
    [
        (r"h_i = \sum_{j=1}^d W_{ij}x_j", "verified"),  # was a definition of numbers h_i
        (r"h_i = \sum_{j=1}^d W_{ij}x_j + x_1", "false"),
        (r"\sum_{i=1}^m h_i = \mathbf 1_m^T W x", "verified"),
        (r"\sum_{i=1}^m h_i = 2\,\mathbf 1_m^T W x", "false"),
    ],
)
def test_the_entries_of_a_product_the_text_names(claim: str, kind: str) -> None:
    r = one(LINEAR.replace("{}", claim))
    assert r.kind == kind, r.message


def test_a_shape_error_on_the_component_reading_is_undecided_naming_it() -> None:
    # `h_t` may be the t-th of a family of states, not an entry of h: no alarm on that reading
    r = one(LINEAR.replace("{}", r"h_t = W h_{t-1}"))
    assert r.kind == "undecided", r.message
    assert "h_t as an entry of the vector h defined on line 1" in r.message


def test_a_matrix_of_the_text_keeps_its_rows() -> None:
    # the text's own S: `s_i` is its row i, as before (here a matrix against a scalar)
    text = (
        "Let $S\\in\\mathbb R^{n\\times n}$, $z\\in\\mathbb R^n$ a column vector and "
        "$s=\\mathrm{softmax}(z)$. Then $s_i = \\frac{e^{z_i}}{\\sum_k e^{z_k}}$.\n"
    )
    assert one(text).kind != "verified"


# ---- plain entries of bold vectors --------------------------------------------------------

BOLD = "Let ${v}\\in\\mathbb R^{{d}}$ be a column vector.\n\n$${claim}$$\n"


@pytest.mark.parametrize("font", ["\\mathbf", "\\boldsymbol", "\\bm"])
def test_plain_entries_of_a_bold_vector_are_read_and_named(font: str) -> None:
    v = f"{font}{{x}}"
    good = one(BOLD.format(v=v, claim=rf"\mathbf 1_d^T{v} = \sum_{{i=1}}^d x_i"))
    bad = one(BOLD.format(v=v, claim=rf"\mathbf 1_d^T{v} = \sum_{{i=1}}^d x_i^2"))
    assert good.kind == "verified", good.message
    assert f"x_i as an entry of the vector \\{font[1:]}{{x}}" in good.message
    assert bad.kind == "undecided" and "entry of the vector" in bad.message, bad.message


def test_a_plain_letter_of_the_text_is_not_a_bold_vector_s_entry() -> None:
    # the text declares the plain u too: `u_i` is its entry, and no guess is named
    text = (
        "Let $u, \\mathbf u \\in \\mathbb R^d$ be column vectors.\n\n"
        "$$u^T u = \\sum_{i=1}^d u_i u_i$$\n"
    )
    r = one(text)
    assert r.kind == "verified" and "entry of the vector" not in r.message, r.message


# ---- Q, K, V of the convention against the text's own projections ---------------------------

HEADS = (
    "$$\\mathrm{Attention}(Q,K,V)=\\mathrm{softmax}(QK^T/\\sqrt{d_k})V$$\n\n"
    "with $W_i^Q, W_i^K\\in\\mathbb R^{d_{model}\\times d_k}$ and "
    "$W_i^V\\in\\mathbb R^{d_{model}\\times d_v}$:\n\n$${}$$\n"
)


@pytest.mark.parametrize(
    "claim",
    [
        r"\mathrm{head}_i=\mathrm{Attention}(QW_i^Q,KW_i^K,VW_i^V)",
        r"QW_i^Q (KW_i^K)^T \in \mathbb R^{n\times n}",
    ],
)
def test_projections_of_conventional_arguments_are_no_shape_error(claim: str) -> None:
    # was a shape error: Q read as n × d_k, the chapter's convention, against W_i^Q's d_model
    rs = [r for r in results(HEADS.replace("{}", claim)) if r.line > 1]
    assert [r.kind for r in rs] == ["undecided"], [r.message for r in rs]
    assert "conventional shapes of Q (n × d_k)" in rs[0].message
    assert "as n × d_{model}" in rs[0].message


def test_a_projection_that_does_not_typecheck_whatever_q_is_stays_a_shape_error() -> None:
    rs = [r for r in results(HEADS.replace("{}", r"QW_i^Q W_i^K \in \mathbb R^{n\times n}"))]
    assert [r.kind for r in rs if r.line > 1] == ["shape-error"]


def test_declared_arguments_keep_their_shape_error() -> None:
    text = "Let $Q\\in\\mathbb R^{n\\times d_k}$.\n\n" + HEADS.replace(
        "{}", r"QW_i^Q (KW_i^K)^T \in \mathbb R^{n\times n}"
    )
    rs = [r for r in results(text) if r.line > 3]
    assert [r.kind for r in rs] == ["shape-error"], [r.message for r in rs]


def test_an_accented_vector_made_by_a_definition_has_components() -> None:
    text = "Let $z\\in\\mathbb R^n$ be a column vector and $\\hat y=\\mathrm{softmax}(z)$.\n\n"
    good = one(text + "$$\\hat y_i = \\frac{e^{z_i}}{\\sum_k e^{z_k}}$$\n")
    bad = one(text + "$$\\hat y_i = \\frac{e^{z_i}}{\\sum_k e^{2z_k}}$$\n")
    assert (good.kind, bad.kind) == ("verified", "false"), (good.message, bad.message)


def test_a_vector_defined_in_an_earlier_section_is_never_refuted_through_its_entries() -> None:
    # a later section may mean another z by then: the true claim holds, the false is undecided
    text = (
        "# One\n\nLet $z\\in\\mathbb R^n$ be a column vector and $s=\\mathrm{softmax}(z)$.\n\n"
        "# Two\n\n$${}$$\n"
    )
    good = one(text.replace("{}", r"s_i = \frac{e^{z_i}}{\sum_k e^{z_k}}"))
    bad = one(text.replace("{}", r"s_i = \frac{e^{z_i}}{\sum_k e^{2z_k}}"))
    assert good.kind == "verified", good.message
    assert bad.kind == "undecided" and "in an earlier section" in bad.message, bad.message


TOKEN = (
    "Let $x\\in\\mathbb R^{d}$ be a column vector and $W_V\\in\\mathbb R^{d_v\\times d}$. "
    "For one token, $v = W_V x$.\n\n$${}$$\n"
)


@pytest.mark.parametrize(
    ("claim", "kind"),
    [
        (r"v_r = \sum_{c=1}^{d} (W_V)_{rc} x_c", "verified"),  # were shape errors
        (r"\sum_{r=1}^{d_v} v_r = \mathbf 1^T_{d_v} W_V x", "verified"),
        (r"v_r = \sum_{c=1}^{d} (W_V)_{cr} x_c", "undecided"),  # W_V^T: ill-typed on the reading
        (r"\sum_{r=1}^{d_v} v_r = \mathbf 1^T_{d_v} W_V x + 1", "false"),
    ],
)
def test_the_entries_of_one_token_s_value(claim: str, kind: str) -> None:
    r = one(TOKEN.replace("{}", claim))
    assert r.kind == kind, r.message


def test_a_sum_over_the_tokens_keeps_the_rows_of_the_values() -> None:
    # `v_j` in a sum up to n, not v's length d_v: the j-th token's value, as before
    r = one(TOKEN.replace("{}", r"z_i = \sum_{j=1}^n a_{ij} v_j"))
    assert "entry of the vector v" not in r.message, r.message


def test_a_plain_letter_in_a_sum_over_the_tokens_is_not_a_bold_vector_s_entry() -> None:
    # `x_t` up to n beside the bold `\mathbf x \in \mathbb R^d`: the t-th token (as before)
    text = "Let $\\mathbf x\\in\\mathbb R^d$ be a column vector.\n\n$${}$$\n"
    good = one(text.replace("{}", r"\mathbf 1_d^T\mathbf x = \sum_{i=1}^d x_i"))
    tokens = one(text.replace("{}", r"\sum_{t=1}^{n} a_{1t} x_t = (AX)_{1,:}"))
    assert good.kind == "verified", good.message
    assert "entry of the vector" not in tokens.message, tokens.message
