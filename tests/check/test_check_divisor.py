"""A number divided by a letter that is a matrix only by the chapter's convention (`M = N/K` in
a text that never declares K) is undecided: the text means a K of its own. A declared matrix
as the divisor, or a matrix over a matrix, stays a shape error."""

from __future__ import annotations

from claim_helpers import kinds, results

SIZE_N = "The count is $a = \\sqrt{N}$.\n\n"


def test_a_number_over_a_conventional_letter_is_undecided():
    (r,) = results(SIZE_N + "Let $M = N/K$.")
    assert r.kind == "undecided"
    assert "the text never declares K" in r.message


def test_a_number_over_a_declared_matrix_is_a_shape_error():
    doc = SIZE_N + "Let $K \\in \\mathbb{R}^{n \\times d_k}$.\n\nThen $M = N/K$."
    (r,) = results(doc)
    assert r.kind == "shape-error"
    assert r.message == "cannot divide the scalar N by the matrix K"


def test_a_matrix_over_a_conventional_matrix_stays_a_shape_error():
    assert kinds("$$Z = \\frac{Q}{V}$$") == ["shape-error"]
