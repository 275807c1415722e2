"""Verdicts that rest on what the text leaves unsaid, in the ways texts nobody here wrote leave
it: a supposition `K = V` between two matrices, the entries of a matrix given for the first time,
a formula that is the tail of prose arithmetic, column vectors beside declared matrices. Each
with the variant whose verdict rests on the text and must stay."""

from __future__ import annotations

from claim_helpers import results

DECLARED = (
    "Here $Q \\in \\mathbb{R}^{n \\times d_k}$, $K \\in \\mathbb{R}^{n \\times d_k}$ and "
    "$V \\in \\mathbb{R}^{n \\times d_v}$.\n\n"
)


def kinds(text: str) -> list[str]:
    return [r.kind for r in results(text)]


def test_a_supposed_equality_of_two_matrices_gives_no_new_shape():
    text = (
        "Note that $K=V$ is no obstacle.\n\n"
        + DECLARED
        + "$$S = QK^T \\in \\mathbb{R}^{n\\times n}$$\n"
    )
    got = kinds(text)
    assert "shape-error" not in got and got[0] == "undecided"


def test_an_alias_of_the_same_shape_is_still_a_definition():
    text = DECLARED.replace("d_v}$.", "d_k}$.") + "Take $K = V$.\n\n$$QK^T = QV^T$$\n"
    assert kinds(text)[-1] == "verified"


def test_the_entries_of_a_matrix_given_for_the_first_time_are_no_false_claim():
    text = DECLARED + (
        "$$S = QK^T$$\n\n"
        "$$A_{i,j} = \\frac{\\exp(S_{i,j}/\\sqrt{d_k})}"
        "{\\sum_{k=1}^n \\exp(S_{i,k}/\\sqrt{d_k})}$$\n"
    )
    assert kinds(text)[-1] == "undecided"


def test_entries_against_a_defined_matrix_are_still_refuted():
    text = DECLARED + (
        "$$A = \\operatorname{softmax}(QK^T/\\sqrt{d_k})$$\n\n"
        "$$A_{i,j} = \\frac{\\exp(S_{i,j})}{\\sum_{k=1}^n \\exp(S_{i,k})}$$\n"
    ).replace("S_{i,j}", "(QK^T)_{i,j}").replace("S_{i,k}", "(QK^T)_{i,k}")
    assert kinds(text)[-1] == "false"


def test_the_tail_of_prose_arithmetic_is_no_false_claim():
    text = "The cache needs $536,870,912$ bytes / $32=16,777,216$ bytes per head.\n"
    assert kinds(text) == ["undecided"]


def test_an_arithmetic_slip_after_plain_prose_is_still_false():
    assert kinds("The cache needs $2 \\times 3 = 7$ bytes.\n") == ["false"]


def test_rows_of_declared_matrices_may_be_the_texts_columns():
    # the formulas write column vectors (`q_i^T k_j`); q_i, k_j, v_j are rows of the declared
    # Q, K, V as the chapter reads them, or the text's columns: a shape error in one reading
    # only is the convention's
    text = (
        "Here $\\boldsymbol{Q} \\in \\mathbb{R}^{n \\times d_k}$, "
        "$\\boldsymbol{K} \\in \\mathbb{R}^{n \\times d_k}$ and "
        "$\\boldsymbol{V} \\in \\mathbb{R}^{n \\times d_v}$.\n\n"
        "The output $\\boldsymbol{o}_i \\in \\mathbb{R}^{d_v}$ is a vector.\n\n"
        "$$\\exp(q_i^T k_j) \\approx \\phi(\\boldsymbol{q}_i)^T \\phi(\\boldsymbol{k}_j)$$\n\n"
        "$$\\boldsymbol{o}_i \\approx \\frac{\\sum_{j=1}^n \\phi(\\boldsymbol{q}_i)^T "
        "\\phi(\\boldsymbol{k}_j) \\boldsymbol{v}_j}{\\sum_{j=1}^n \\phi(\\boldsymbol{q}_i)^T "
        "\\phi(\\boldsymbol{k}_j)}$$\n"
    )
    got = [r for r in results(text) if r.line == 7]
    assert got and "shape-error" not in [r.kind for r in got]


VARIANT = DECLARED + (
    "With a mask $M \\in \\mathbb{R}^{n \\times n}$ the masked form is $$O = (QK^T \\odot M)V$$\n\n"
)


def test_a_defined_name_given_a_variant_is_no_false_claim():
    # "without the mask", the text gives O another value: a variant, not an identity
    r = results(VARIANT + "Without the mask, $O = (QK^T)V$.\n")[-1]
    assert r.kind == "undecided" and "another value here (a variant)" in r.message


def test_a_restatement_of_a_defined_name_is_still_verified():
    assert results(VARIANT + "That is, $O = (QK^T \\odot M)V$.\n")[-1].kind == "verified"


def test_a_bold_vector_with_two_indices_is_no_entry():
    # `\mathbf q_{t,i}`: the query of token t in head i, not the entry (Q)_{ti}
    text = DECLARED + (
        "$$\\mathbf{o}_{t,i} = \\sum_{j=1}^{t} \\operatorname{softmax}_j\\left("
        "\\frac{\\mathbf{q}_{t,i} \\mathbf{k}_{j,i}^\\top}{\\sqrt{d_k}}\\right) "
        "\\mathbf{v}_{j,i}$$\n"
    )
    assert "shape-error" not in kinds(text)


def test_a_numbered_block_of_a_family_of_the_texts_is_no_missing_head():
    # `\mathcal R_m^{(0)}`: block 0 of the text's own rotation, not head 0 of the chapter's
    text = "$$\\mathcal{R}_m^T = \\operatorname{diag}((\\mathcal{R}_m^{(0)})^T, \\ldots)$$\n"
    assert "shape-error" not in kinds(text)
    assert kinds("$$Z^{(0)} = Z^{(1)}$$\n") == ["shape-error"]
