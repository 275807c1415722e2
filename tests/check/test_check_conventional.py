"""Shape errors that rest on what the text never said: the chapter's conventional shapes in a
text that departs from them, a declaration set aside by a function's parameters or by a later
section, a vector that may be a column. Each class with a made-up snippet beside the variant
whose shape error rests on the text and must stay."""

from __future__ import annotations

import pytest
from claim_helpers import results


def verdicts(text: str) -> list[str]:
    return [r.kind for r in results(text)]


def one(text: str):
    (r,) = results(text)
    return r


# ---- the chapter's conventions where the text departs from them ------------------------------

DEPARTS = "Let $V \\in \\mathbb{R}^{m\\times d_v}$ be the values.\n\n"


def test_a_conventional_matrix_against_a_declared_one_is_undecided():
    r = one(DEPARTS + "Then $O = AV$ is the output.\n")
    assert r.kind == "undecided"
    assert "conventional shapes of A (n × n)" in r.message
    assert "V as m × d_v (line 1)" in r.message


def test_the_same_product_with_both_shapes_declared_is_a_shape_error():
    text = "Let $A \\in \\mathbb{R}^{n\\times n}$ and $V \\in \\mathbb{R}^{m\\times d_v}$.\n\n"
    assert verdicts(text + "Then $O = AV$ is the output.\n") == ["shape-error"]


def test_a_text_that_declares_a_chapter_name_so_keeps_the_chapter_conventions():
    text = "Let $X \\in \\mathbb{R}^{n\\times d}$ be the inputs.\n\n$$H = XA$$\n"
    assert verdicts(text) == ["shape-error"]


def test_a_text_that_declares_no_shape_only_shares_the_letters():
    # a text that never says what its names are: the chapter's W_O (H d_v × d, several heads)
    # is a guess, and a shape error that rests on it is the guess's; X (n × d) and A (n × n)
    # are read as the chapter reads them
    r = one("$$H = XW_O$$\n")
    assert r.kind == "undecided"
    assert "conventional shapes of" in r.message and "declares none of the chapter's" in r.message
    assert verdicts("$$H = XA$$\n") == ["shape-error"]


def test_a_single_head_output_projection_is_no_shape_error_without_declarations():
    # the chapter's W_O is H d_v × d (the multi-head one); a text about one head means d_v × d
    text = "$$Y = \\operatorname{Attention}(Q, K, V)$$\n\n$$Z = YW_O$$\n"
    assert "shape-error" not in verdicts(text)


@pytest.mark.parametrize(
    "confirming",
    [
        "and $K = XW_K$",  # another formula uses X with the chapter's shape
        "and $$\\operatorname{softmax}(XW_Q)$$",  # a display that typechecks does too
    ],
)
def test_a_convention_confirmed_by_another_formula_stands(confirming):
    text = (
        f"Let $A \\in \\mathbb{{R}}^{{t\\times t}}$ mix the states, {confirming}.\n\n$$H = XA$$\n"
    )
    assert verdicts(text)[-1] == "shape-error"


def test_without_confirmation_the_same_product_is_undecided():
    text = "Let $A \\in \\mathbb{R}^{t\\times t}$ mix the states.\n\n$$H = XA$$\n"
    r = one(text)
    assert r.kind == "undecided" and "conventional shapes of X (n × d)" in r.message


def test_a_product_that_typechecks_confirms_its_names_in_the_same_formula():
    text = "Let $A \\in \\mathbb{R}^{t\\times t}$.\n\n$$XW_Q \\in \\mathbb{R}^{n\\times d_v}$$\n"
    assert verdicts(text) == ["shape-error"]


def test_a_dropped_transpose_stays_a_shape_error_in_a_departing_text():
    text = (
        "Let $W_V \\in \\mathbb{R}^{d\\times d}$.\n\n"
        "$$\\operatorname{Attention}(Q,K,V)=\\operatorname{softmax}(QK/\\sqrt{d_k})V$$\n"
    )
    assert verdicts(text) == ["shape-error"]


# ---- a definition whose shape was the chapter's guess, then the text's declaration ----------

DEFINED = "The queries are $Q = XW_Q$ and the keys $K = XW_K$.\n\n"


def test_a_declaration_after_a_definition_of_guessed_shape_is_undecided():
    # the chapter's W_Q is d × d_k; a text that later says Q is n × d has W_Q of its own
    r = results(DEFINED + "Here $Q \\in \\mathbb{R}^{n\\times d}$.\n")[-1]
    assert r.kind == "undecided"
    assert "conventional shapes of W_Q (d × d_k)" in r.message
    assert "Q is taken as n × d" in r.message


def test_the_declared_shape_is_then_the_names_own():
    text = (
        DEFINED
        + "Here $Q, K \\in \\mathbb{R}^{n\\times d}$.\n\n$$QK^T \\in \\mathbb{R}^{n\\times n}$$\n"
    )
    assert verdicts(text) == ["verified", "verified", "undecided", "undecided", "verified"]
    bad = (
        DEFINED
        + "Here $Q \\in \\mathbb{R}^{n\\times d}$.\n\n$$Q + X^T \\in \\mathbb{R}^{n\\times d}$$\n"
    )
    assert verdicts(bad)[-1] == "shape-error"


@pytest.mark.parametrize(
    "declared",
    [
        "Let $X \\in \\mathbb{R}^{n\\times d}$ and $W_Q \\in \\mathbb{R}^{d\\times d_k}$.\n\n",
        "Let $W_Q \\in \\mathbb{R}^{d\\times d_k}$.\n\n",
    ],
)
def test_a_declaration_against_a_definition_of_declared_shapes_is_a_shape_error(declared):
    text = declared + "The queries are $Q = XW_Q$.\n\nHere $Q \\in \\mathbb{R}^{n\\times d}$.\n"
    assert verdicts(text)[-1] == "shape-error"


def test_a_declaration_that_agrees_with_the_definition_is_verified():
    assert verdicts(DEFINED + "Here $Q \\in \\mathbb{R}^{n\\times d_k}$.\n")[-1] == "verified"


# ---- a declaration set aside: a function's parameters, a later section ----------------------

HEADS = (
    "Here $Q \\in \\mathbb{R}^{n\\times d_k}$ and "
    "$W_i^Q \\in \\mathbb{R}^{d_{\\text{model}}\\times d_k}$.\n\n"
)
MULTI = (
    "$$\\mathrm{Multi}(Q,K,V) = "
    "\\mathrm{Concat}(\\mathrm{head}_1, \\dots, \\mathrm{head}_h) W^O$$\n\n"
)


def test_a_parameter_of_a_later_function_is_not_the_declared_name():
    rs = results(HEADS + MULTI + "with $\\mathrm{head}_i = QW_i^Q$.\n")
    r = rs[-1]
    assert r.kind == "undecided"
    assert "declared n × d_k on line 1" in r.message and "parameter of" in r.message


def test_without_the_function_the_same_product_is_a_shape_error():
    assert verdicts(HEADS + "with $\\mathrm{head}_i = QW_i^Q$.\n") == ["shape-error"]


def test_a_declaration_of_an_earlier_section_against_one_of_this_section_is_undecided():
    text = (
        "# One head\n\nLet $Q \\in \\mathbb{R}^{n\\times d_k}$.\n\n# Many heads\n\n"
        "Let $P \\in \\mathbb{R}^{d_{\\text{model}}\\times d_k}$.\n\n"
        "$$QP \\in \\mathbb{R}^{n\\times d_k}$$\n"
    )
    r = one(text)
    assert r.kind == "undecided"
    assert "declared n × d_k on line 3, in an earlier section" in r.message


def test_the_same_contradiction_inside_one_section_is_a_shape_error():
    text = (
        "# One head\n\nLet $Q \\in \\mathbb{R}^{n\\times d_k}$ and "
        "$P \\in \\mathbb{R}^{d_{\\text{model}}\\times d_k}$.\n\n"
        "$$QP \\in \\mathbb{R}^{n\\times d_k}$$\n"
    )
    assert verdicts(text) == ["shape-error"]


# ---- a sum without bounds runs over what its letter indexes ---------------------------------


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        ("(AV)_{ij} = \\sum_u a_{iu} V_{uj}", "verified"),  # u indexes n positions, not d_v
        ("(AV)_{ij} = \\sum_u a_{ui} V_{uj}", "false"),
        ("\\sum_t Q_{it} V_{jt} = 0", "shape-error"),  # d_k and d_v: t's letter decides
    ],
)
def test_a_sum_runs_over_the_dimension_its_letter_indexes(formula, kind):
    assert verdicts(f"$${formula}$$\n") == [kind]


# ---- vectors that may be columns, or rows of a matrix of inferred shape ---------------------

SET = "The set $\\boldsymbol{X}\\in\\mathbb{R}^{n \\times t}$ holds $t$ vectors"


def test_vectors_of_the_length_of_a_column_of_a_declared_matrix_are_undecided():
    r = results(SET + ", each $\\boldsymbol{x}_j\\in\\mathbb{R}^n$.\n")[-1]
    assert r.kind == "undecided" and "length of a column of X" in r.message


def test_a_vector_that_is_neither_row_nor_column_is_still_a_shape_error():
    assert verdicts(SET + ", each $\\boldsymbol{x}_j\\in\\mathbb{R}^m$.\n")[-1] == "shape-error"


def test_a_row_of_a_matrix_of_the_chapter_shape_with_the_wrong_length_is_a_shape_error():
    text = "And $Q\\in\\mathbb R^{n\\times d_k}$ and $q_i\\in\\mathbb R^{n}$.\n"
    assert verdicts(text)[-1] == "shape-error"


def test_a_vector_of_a_matrix_of_inferred_shape_is_undecided():
    text = (
        "Take $M N = P$ and $N \\in \\mathbb R^{d\\times d_k}$.\n\n"
        "Each $\\mathbf{m}_i \\in \\mathbb{R}^{d_k}$.\n"
    )
    r = results(text)[-1]
    assert r.kind == "undecided" and "inferred" in r.message


def test_a_vector_of_a_declared_matrix_with_the_wrong_length_is_a_shape_error():
    text = (
        "Let $R \\in \\mathbb{R}^{n\\times d}$.\n\nEach $\\mathbf{r}_{i} \\in \\mathbb{R}^{m}$.\n"
    )
    assert verdicts(text)[-1] == "shape-error"


def test_a_name_declared_with_sizes_of_the_text_own_is_a_departure():
    text = "Each $\\mathbf{b} \\in \\mathbb{R}^t$ is a weight vector.\n\n$$H = XA$$\n"
    r = results(text)[-1]
    assert r.kind == "undecided" and "conventional shapes of A (n × n), X (n × d)" in r.message


def test_a_name_declared_with_the_chapter_sizes_is_no_departure():
    text = "Each $\\mathbf{b} \\in \\mathbb{R}^n$ is a weight vector.\n\n$$H = XA$$\n"
    assert verdicts(text)[-1] == "shape-error"


# ---- an index whose range only a conventional shape gave ------------------------------------

ROWS = "Let $Q, K \\in \\mathbb{R}^{L\\times d}$, with rows $q_i$ and $k_j$.\n\n"


def test_an_index_ranged_by_a_conventional_shape_is_undecided():
    # s_{ij} is an entry of the chapter's S (n × n): j runs over 1..n there, K has L rows
    (r,) = results(ROWS + "$$s_{i,j} = q_i k_j^T$$\n")
    assert r.kind == "undecided"
    assert "conventional shapes of S (n × n)" in r.message


@pytest.mark.parametrize(
    ("shape", "kind"), [("n\\times n", "shape-error"), ("L\\times L", "undecided")]
)
def test_an_index_ranged_by_a_declared_shape_is_the_texts(shape, kind):
    # the text's S: of other rows, a shape error; of its rows, the definition of its entries
    text = ROWS + f"Let $S \\in \\mathbb{{R}}^{{{shape}}}$.\n\n$$s_{{i,j}} = q_i k_j^T$$\n"
    assert verdicts(text) == [kind]


# ---- a vector declared in a later section with sizes of its own ----------------------------

FIRST = "# One\n\nLet $Q \\in \\mathbb{R}^{L\\times d_{model}}$.\n\n"


def test_a_row_declared_anew_in_a_later_section_is_undecided():
    (r,) = results(FIRST + "# Two\n\nGiven $q_n \\in \\mathbb{R}^d$, we rotate it.\n")
    assert r.kind == "undecided"
    assert "in an earlier section" in r.message


def test_a_row_declared_anew_in_the_same_section_is_a_shape_error():
    assert verdicts(FIRST + "Given $q_n \\in \\mathbb{R}^d$, we rotate it.\n") == ["shape-error"]
    ok = FIRST + "# Two\n\nGiven $q_n \\in \\mathbb{R}^{d_{model}}$, we rotate it.\n"
    assert "shape-error" not in verdicts(ok)


def test_a_row_declared_against_a_definition_of_guessed_shape_is_undecided():
    text = "Let $X \\in \\mathbb{R}^{n\\times d}$.\n\n" + DEFINED
    (r,) = results(text + "The new query is $q_t \\in \\mathbb{R}^{1\\times d}$.\n")[-1:]
    assert r.kind == "undecided" and "conventional shapes of W_Q (d × d_k)" in r.message
    # with W_Q declared, the width is the text's own: a shape error
    own = text.replace("$.\n\n", "$ and $W_Q \\in \\mathbb{R}^{d\\times d_k}$.\n\n", 1)
    assert verdicts(own + "The new query is $q_t \\in \\mathbb{R}^{1\\times d}$.\n")[-1] == (
        "shape-error"
    )
    assert verdicts(own + "The new query is $q_t \\in \\mathbb{R}^{1\\times d_k}$.\n")[-1] == (
        "verified"
    )


# ---- another case of named matrices in one section ----------------------------------------


def test_names_declared_anew_for_another_case_are_that_case():
    text = (
        "For matrices $A \\in \\mathbb{R}^{1 \\times n}$ and $B \\in \\mathbb{R}^{n \\times 1}$ "
        "the product costs $2n$; for matrices $A \\in \\mathbb{R}^{m \\times n}$ and "
        "$B \\in \\mathbb{R}^{n \\times p}$ it costs $2mnp$.\n\n"
    )
    assert "shape-error" not in verdicts(text)
    # the second case's shapes are in force after it
    assert verdicts(text + "$$AB \\in \\mathbb{R}^{m \\times p}$$\n")[-1] == "verified"
    assert verdicts(text + "$$AB \\in \\mathbb{R}^{1 \\times 1}$$\n")[-1] == "shape-error"


def test_a_name_declared_again_with_another_shape_without_a_new_case_is_a_shape_error():
    text = "Let $Q \\in \\mathbb{R}^{n\\times d}$ be the queries.\n\n"
    assert verdicts(text + "Then $Q \\in \\mathbb{R}^{n\\times d_k}$ holds.\n") == ["shape-error"]
