"""Two rows of a matrix the text never declares, multiplied (`a_1a_2`): no product of two rows of
one width exists either way round, so the text means numbers of its own; the shape error rests
on the chapter's convention and is undecided, naming it. Rows of a matrix the text declares keep
their shape error."""

from __future__ import annotations

from claim_helpers import kinds, results


def test_products_of_rows_of_undeclared_matrices_are_no_alarm() -> None:
    for text in (
        "$$a_1a_2 + b_1b_2 = b_1b_2 + a_1a_2$$",
        "$$(a_1 + b_1)(a_2 + b_2) = a_1a_2 + a_1b_2 + b_1a_2 + b_1b_2$$",
        # a false expansion is no alarm either: its reading rests on the same guess
        "$$(a_1 + b_1)(a_2 + b_2) = a_1a_2 + b_1b_2$$",
    ):
        got = results(text)
        assert [r.kind for r in got] == ["undecided"], text
        assert "rows of the chapter's A" in got[0].message or "convention" in got[0].message


def test_rows_of_a_declared_matrix_keep_the_shape_error() -> None:
    declared = "Let $A\\in\\mathbb R^{n\\times n}$.\n\n"
    assert kinds(declared + "$$a_1a_2 = a_2a_1$$") == ["shape-error"]
    # the same rows multiplied as the text's shapes allow are decided
    assert kinds(declared + "$$a_1a_2^T = a_2a_1^T$$") == ["verified"]
    assert kinds(declared + "$$a_1a_2^T = a_1a_1^T$$") == ["false"]


def test_rows_of_attention_arguments_keep_the_shape_error() -> None:
    # q_i and k_j are rows of the chapter's Q and K in every attention text
    assert kinds("$$(QK^T)_{ij} = q_ik_j$$") == ["shape-error"]


def test_rows_of_a_matrix_used_elsewhere_as_the_chapters_are_still_a_guess() -> None:
    # A is used as the chapter's n x n matrix in a formula that typechecks; a_1 a_2 is still no
    # product of two rows, so the text means numbers there
    text = "$$A^T A = (A^T A)^T$$\n\n$$a_1a_2 + b_1b_2 = b_1b_2 + a_1a_2$$"
    assert kinds(text) == ["verified", "undecided"]
