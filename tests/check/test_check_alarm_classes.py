"""Classes of false alarm seen in texts nobody here wrote, each with a short made-up document: a
true use that must not be an alarm, and where there is one a false use that must stay caught
(or at least never be verified)."""

from __future__ import annotations

import json

import pytest

from symattn.check import check_text

ALARMS = ("false", "shape-error", "malformed")


def results(text: str, name: str = "doc.md"):
    return [r for r in check_text(text, name) if r.kind not in ("declaration", "not-a-claim")]


def alarms(text: str, name: str = "doc.md"):
    return [r for r in results(text, name) if r.kind in ALARMS]


def declarations(text: str):
    return [r for r in check_text(text, "doc.md") if r.kind == "declaration"]


# ---- a name declared anew in a later section ------------------------------------------------

FIRST = (
    "# One\n\n"
    "Let $X \\in \\mathbb{R}^{n \\times d}$ and $W_Q \\in \\mathbb{R}^{d \\times d_k}$.\n"
    "We compute $Q = X W_Q$, so $Q \\in \\mathbb{R}^{n \\times d_k}$.\n\n"
    "# Two\n\n"
    "Now let $X \\in \\mathbb{R}^{L \\times d}$ be a longer input.\n"
)


def test_a_definition_made_from_a_redeclared_name_is_read_with_its_new_shape():
    rs = results(
        FIRST + "Then $Q \\in \\mathbb{R}^{L \\times d_k}$ and $QW_Q^T \\in "
        "\\mathbb{R}^{L \\times d}$.\n"
    )
    assert [r.kind for r in rs] == ["verified"] * 4
    assert all("reading X as redeclared at line 8" in r.message for r in rs[2:])


def test_the_old_shape_after_the_redeclaration_is_not_verified():
    # Q was read again from the new X by the checker, not restated by the text: undecided
    rs = results(FIRST + "Then $Q \\in \\mathbb{R}^{n \\times d_k}$.\n")
    assert rs[-1].kind == "undecided"
    assert "redeclared at line 8" in rs[-1].message
    assert "may still mean the earlier shapes" in rs[-1].message


def test_the_redeclared_name_itself_is_still_checked():
    rs = results(FIRST + "Then $X \\in \\mathbb{R}^{n \\times d}$.\n")
    assert rs[-1].kind == "shape-error"


def test_a_value_claim_resting_on_a_name_read_again_is_never_false():
    rs = results(FIRST + "Then $Q W_Q^T = 2 X W_Q W_Q^T$.\n")
    assert rs[-1].kind == "undecided" and "earlier shapes" in rs[-1].message
    assert results(FIRST + "Then $Q W_Q^T = X W_Q W_Q^T$.\n")[-1].kind == "verified"


def test_a_family_made_from_a_redeclared_name_is_defined_anew():
    text = (
        "# One\n\nLet $X \\in \\mathbb{R}^{n \\times d}$, "
        "$W_i^Q \\in \\mathbb{R}^{d \\times d_k}$.\n"
        "Each head has $Q_i = X W_i^Q$.\n\n# Two\n\n"
        "Now $X \\in \\mathbb{R}^{L \\times d}$. Again $Q_i = X W_i^Q$ and "
        "$Q_i \\in \\mathbb{R}^{L \\times d_k}$.\n"
    )
    assert alarms(text) == []
    assert results(text)[-1].kind == "verified"


# ---- chains of names the text never declares ------------------------------------------------


@pytest.mark.parametrize("chain", ["Q = K = V", "Q = K = V = X", "Q = K = V = W X"])
def test_names_the_text_never_declares_set_equal_are_not_an_alarm(chain):
    rs = results(f"In self-attention ${chain}$: all come from the tokens.\n")
    assert not [r for r in rs if r.kind in ALARMS]
    assert any("conventional shapes" in r.message for r in rs if r.kind == "undecided")


def test_declared_names_of_other_widths_set_equal_stay_a_shape_error():
    text = (
        "Let $K \\in \\mathbb{R}^{n\\times d_k}$ and $V \\in \\mathbb{R}^{n\\times d_v}$.\n"
        "Here $K = V$ holds.\n"
    )
    assert [r.kind for r in alarms(text)] == ["shape-error"]


# ---- blocks of a tiled matrix ---------------------------------------------------------------

TILES = (
    "Let $Q, K \\in \\mathbb{R}^{N \\times d}$ and $S = QK^T$. Split $Q$ into blocks "
    "$Q_i \\in \\mathbb{R}^{B_r \\times d}$ and $K$ into blocks $K_j \\in \\mathbb{R}^{B_c "
    "\\times d}$.\n"
)


@pytest.mark.parametrize(
    "formula", ["S_{ij} = Q_i K_j^T", "S_{ij} \\in \\mathbb{R}^{B_r \\times B_c}"]
)
def test_an_entry_set_equal_to_a_product_of_blocks_is_a_block(formula):
    rs = results(TILES + f"On chip we form ${formula}$.\n")
    assert [r.kind for r in rs] == ["undecided"]
    assert "block" in rs[0].message


def test_the_whole_matrix_set_equal_to_one_block_stays_a_shape_error():
    assert [r.kind for r in alarms(TILES + "Then $S = Q_i K_j^T$.\n")] == ["shape-error"]


# ---- letters side by side -------------------------------------------------------------------


@pytest.mark.parametrize(
    "formula",
    [
        "c_t^{KV} \\in \\mathbb{R}^{n \\times r}",
        "W^{UQ} \\in \\mathbb{R}^{d \\times d_k}",
        "h^{QK} \\in \\mathbb{R}^{n \\times n}",
    ],
)
def test_capitals_side_by_side_in_a_superscript_are_a_label(formula):
    text = f"Let ${formula}$.\n"
    assert alarms(text) == []
    assert [r.kind for r in declarations(text)] == ["declaration"]


def test_a_labelled_name_declared_without_a_value_is_defined_by_its_equation():
    text = "Let $h^{QK} \\in \\mathbb{R}^{n \\times n}$ be the scores, $h^{QK} = Q K^T$.\n"
    assert alarms(text) == []


@pytest.mark.parametrize("rel", ["\\equiv", ":="])
def test_a_name_of_two_capitals_the_text_defines_is_one_name(rel):
    text = f"We write $QK {rel} QK^T$, so $QK \\in \\mathbb{{R}}^{{n \\times n}}$ and $QK V$.\n"
    rs = results(text)
    assert alarms(text) == []
    assert all("defines QK (line 1)" in r.message for r in rs)


def test_a_product_of_capitals_without_such_a_definition_stays_a_shape_error():
    assert [r.kind for r in alarms("The scores $QK \\in \\mathbb{R}^{n\\times n}$.\n")] == [
        "shape-error"
    ]


# ---- the chapter's default shapes against the text's use ------------------------------------


def test_an_entry_index_that_shows_another_shape_makes_the_default_give_way():
    rs = results("The output is $A_{id} = \\sum_j s_{ij} v_{jd}$.\n")
    assert [r.kind for r in rs] == ["undecided"]
    assert "A (n × n)" in rs[0].message


def test_an_entry_index_past_a_declared_shape_stays_a_shape_error():
    text = (
        "Let $A \\in \\mathbb{R}^{n \\times n}$ and $V \\in \\mathbb{R}^{n \\times d_v}$.\n"
        "The output is $A_{id} = \\sum_j A_{ij} V_{jd}$.\n"
    )
    assert [r.kind for r in alarms(text)] == ["shape-error"]


# ---- the text's own attention ---------------------------------------------------------------

UNSCALED = "First $\\text{Attention}(Q,K,V) = \\text{softmax}(QK^T)V$.\n"
SCALED = "\\text{Attention}(Q,K,V) = \\text{softmax}(QK^T/\\sqrt{d_k})V"


def test_after_the_texts_own_attention_the_scaled_one_is_not_verified():
    rs = results(f"# A\n\n{UNSCALED}Hence ${SCALED}$.\n")
    assert [r.kind for r in rs] == ["undecided", "undecided"]
    assert "defined by the text" in rs[1].message


def test_a_later_section_that_states_the_scaled_one_replaces_it():
    rs = results(f"# A\n\n{UNSCALED}\n# B\n\nLater we scale: ${SCALED}$.\n")
    assert [r.kind for r in rs] == ["undecided", "verified"]


def test_the_texts_own_attention_is_what_attention_means_after_it():
    text = f"# A\n\n{UNSCALED}So $\\text{{Attention}}(Q,K,V) = \\text{{softmax}}(QK^T)V$.\n"
    assert alarms(text) == []
    assert all(r.kind != "verified" for r in results(text)[1:])


# ---- values said of models in general -------------------------------------------------------


@pytest.mark.parametrize("word", ["typically", "usually", "in practice", "often"])
def test_a_typical_value_is_not_the_texts_worked_example(word):
    text = (
        f"The key width is {word} $d_k = 64$.\n"
        "A model with $d = 512$ and $H = 4$ heads and $n = 10$ tokens spends "
        "$n^2 d_k = 12800$ multiply-adds on its scores.\n"
    )
    assert alarms(text) == []
    assert "typical value" in declarations(text)[0].message


def test_a_value_the_text_gives_is_still_its_worked_example():
    text = "Take $d_k = 64$ and $n = 10$: the scores cost $n^2 d_k = 12800$ multiply-adds.\n"
    assert [r.kind for r in alarms(text)] == ["false"]


# ---- notebooks and line breaks --------------------------------------------------------------


def _notebook(source: list[str]) -> str:
    cell = {"cell_type": "markdown", "metadata": {}, "source": source}
    return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def test_a_blank_line_inside_dollars_of_a_notebook_cell_is_math():
    nb = _notebook(
        ["The scores\n", "$$\n", "S = QK^T\n", "\n", "A = \\mathrm{softmax}(S)\n", "$$\n"]
    )
    rs = results(nb, "doc.ipynb")
    assert [r.kind for r in rs] == ["verified", "verified"]


def test_dollars_that_pair_with_nothing_in_a_cell_stay_malformed():
    nb = _notebook(["The scores\n", "$$\n", "S = QK^T\n", "\n", "more words\n"])
    assert [r.kind for r in alarms(nb, "doc.ipynb")] == ["malformed"]


def test_equations_on_lines_of_their_own_are_two_claims():
    text = "The scores are\n\n$$\nS = QK^T\nA = \\mathrm{softmax}(S)\n$$\n"
    assert [r.kind for r in results(text)] == ["verified", "verified"]


def test_a_value_given_in_a_parenthesis_to_a_member_of_a_defined_sequence_is_the_texts():
    text = (
        "# One\n\nThe angles are $\\theta_i = 10000^{-2i/d}$.\n\n# Two\n\n"
        "For the sequence $\\theta_i = \\theta_0^{2i/d}$ (with $\\theta_0 = 10000^{-1}$) the "
        "period is $2\\pi / \\theta_0 = 2\\pi \\cdot 10000$.\n"
    )
    assert alarms(text) == []
    assert any("a value of the text's own" in r.message for r in declarations(text))


def test_a_member_of_a_defined_sequence_given_a_wrong_value_as_a_claim_stays_false():
    text = "The angles are $\\theta_i = 10000^{-2i/d}$, so $\\theta_0 = 2$.\n"
    assert [r.kind for r in alarms(text)] == ["false"]


def test_a_general_statement_earlier_in_the_words_is_no_relation_in_force():
    text = (
        "In general models satisfy $h = d$, but this one has $d = 512$ and $h = 8$, "
        "so $d/h = 64$.\n"
    )
    assert alarms(text) == []
    assert results(text)[-1].kind == "verified"


def test_a_width_of_the_texts_own_against_a_conventional_name_is_not_a_shape_error():
    text = "Let $B = \\mathrm{softmax}(QK^T)$; then $BV \\in \\mathbb{R}^{n \\times h}$.\n"
    rs = results(text)
    assert alarms(text) == []
    assert "V (n × d_v)" in rs[-1].message


def test_a_chapter_size_against_a_conventional_name_stays_a_shape_error():
    text = "Let $B = \\mathrm{softmax}(QK^T)$; then $BV \\in \\mathbb{R}^{n \\times d_k}$.\n"
    assert [r.kind for r in alarms(text)] == ["shape-error"]


def test_a_name_declared_in_an_earlier_section_may_be_defined_anew_in_a_later_one():
    text = (
        "# One\n\nLet $W \\in \\mathbb{R}^{n \\times m}$.\n\n# Two\n\n"
        "$$W = \\frac{QK^T}{\\sqrt{d_k}}, \\quad B = \\mathrm{softmax}(W) \\in "
        "\\mathbb{R}^{n \\times n}$$\n"
    )
    assert alarms(text) == []
    assert any("in an earlier section" in r.message for r in declarations(text))


def test_a_name_declared_in_this_section_defined_with_another_shape_stays_a_shape_error():
    text = "Let $W \\in \\mathbb{R}^{n \\times m}$ and $W = QK^T$.\n"
    assert [r.kind for r in alarms(text)] == ["shape-error"]


def test_a_conventional_name_the_text_defines_unread_keeps_no_conventional_shape():
    text = (
        "Let $X \\in \\mathbb{R}^{d \\times n}$. The queries are $Q = W_Q X$ and the keys "
        "$K = W_K X$, so the scores are $Q^\\top K \\in \\mathbb{R}^{n \\times n}$.\n"
    )
    rs = results(text)
    assert alarms(text) == []
    assert "defines K (line 1), Q (line 1) in a formula that was not read" in rs[-1].message


def test_a_product_of_two_names_the_text_never_declares_may_lay_tokens_out_as_columns():
    rs = results("Here $K = W_K X$ and $V = W_V X$, with the tokens in X.\n")
    assert not [r for r in rs if r.kind in ALARMS]
    assert all("conventional shapes of W_K" in r.message for r in rs[:1])


def test_a_product_of_two_declared_names_that_does_not_typecheck_stays_a_shape_error():
    text = (
        "Let $X \\in \\mathbb{R}^{n \\times d}$ and $W_K \\in \\mathbb{R}^{d \\times d_k}$.\n"
        "Then $K = W_K X$.\n"
    )
    assert [r.kind for r in alarms(text)] == ["shape-error"]
