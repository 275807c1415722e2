"""A worked example's written matrices are the values its claims use: a column written
`\\begin{bmatrix}1\\\\2\\end{bmatrix}`, or numbers given after a definition `Q = XW_Q`; a
counterexample never shows entries of them other than the written ones."""

from __future__ import annotations

import pytest

from symattn.check import check_text

EXAMPLE = (
    "# Setup\n\n{before}Take $n=2$, $d_k=1$ and $Q=\\begin{{bmatrix}}1\\\\2\\end{{bmatrix}}$, "
    "$K=\\begin{{bmatrix}}3\\\\4\\end{{bmatrix}}$. "
    "Then $QK^T=\\begin{{bmatrix}}{m}\\end{{bmatrix}}$.\n"
)
TRUE, WRONG = "3&4\\\\6&8", "3&4\\\\6&9"


def last(before: str, m: str):
    rs = check_text(EXAMPLE.format(before=before, m=m), "w.md")
    return rs, rs[-1]


@pytest.mark.parametrize(
    "before", ["", "We set $Q=XW_Q$ and $K=XW_K$. ", "We set $Q=XW_Q$.\n\n## Example\n\n"]
)
def test_written_columns_are_the_values_used(before):
    rs, ok = last(before, TRUE)
    assert (ok.kind, ok.status) == ("verified", "proved"), [r.message for r in rs]
    assert "Q is the 2 × 1 matrix written out" in " ".join(r.message for r in rs)
    _, wrong = last(before, WRONG)
    assert wrong.kind == "false", wrong.message
    # the written Q and K are the values: no made-up entry of them in the counterexample
    assert "Q[" not in wrong.counterexample and "K[" not in wrong.counterexample
    assert "left side = 8, right side = 9" in wrong.counterexample


def test_numbers_for_a_definition_computable_from_written_matrices_are_checked():
    text = (
        "# S\n\nWe set $Q=XW_Q$. Take $n=2$, $d=1$, $d_k=1$, "
        "$X=\\begin{bmatrix}1\\\\2\\end{bmatrix}$ and $W_Q=\\begin{bmatrix}3\\end{bmatrix}$. "
        "Then $Q=\\begin{bmatrix}3\\\\{v}\\end{bmatrix}$.\n"
    )
    assert check_text(text.replace("{v}", "6"), "s.md")[-1].kind == "verified"
    wrong = check_text(text.replace("{v}", "7"), "s.md")[-1]
    assert wrong.kind == "false" and "left side = 6, right side = 7" in wrong.counterexample


def test_a_declared_n_by_d_over_h_is_n_by_the_quotient():
    text = (
        "Let $Q\\in\\mathbb R^{n\\times d/H}$ and $K\\in\\mathbb R^{n\\times d/H}$. "
        "Then $(QK^T)_{ij}=q_i\\cdot k_j$ and $(QK^T)_{ij}=q_j\\cdot k_i$.\n"
    )
    rs = check_text(text, "h.md")
    assert "declares Q as n × " in rs[0].message and "n*d" not in rs[0].message
    assert [r.kind for r in rs[-2:]] == ["verified", "false"], [r.message for r in rs]


def test_an_index_that_runs_over_two_ranges_of_a_written_matrix_is_not_verified():
    text = (
        "# T\n\nTake $n=3$, $d_k=2$, $d_v=4$ and "
        "$P=\\begin{bmatrix}3&0&2&-1\\\\0&2&0&-1\\end{bmatrix}$. "
        "Then $(P^T)_{ws}=(P^T)_{sw}$ and $(P^T)_{ws}=P_{sw}$.\n"
    )
    rs = check_text(text, "p.md")
    assert rs[-2].kind == "not-understood" and "runs over 1..2 in one place" in rs[-2].message
    assert rs[-1].kind == "verified"


def test_sums_over_a_written_matrix_follow_the_one_semantics_of_sums():
    text = (
        "# S\n\nLet $B\\in\\mathbb{R}^{2\\times 3}$ with "
        "$B=\\begin{bmatrix}5&1&7\\\\2&0&3\\end{bmatrix}$.\n\n"
        "Then $\\sum_{c=1}^{3} B_{2c} = 5$ and $\\sum_{c=2}^{1} B_{1c} = 0$.\n\n"
        "Also $\\sum_{c=3}^{1} B_{1c} = -1$.\n"
    )
    rs = [r for r in check_text(text, "s.md") if r.kind != "declaration"]
    assert [r.status for r in rs[:2]] == ["proved", "proved"], [r.message for r in rs]
    # from 3 down to 1 is no sum (sympy's convention would make it minus the term at 2)
    assert rs[2].kind != "verified" and "reversed range" in rs[2].message, rs[2].message


# ---- numbers written for a name whose shape is only the chapter's convention -------------------

UNSIZED = (
    "# Worked\n\n{before}Take $Q=\\begin{{bmatrix}}1&0\\\\2&1\\end{{bmatrix}}$ and "
    "$K=\\begin{{bmatrix}}3&1\\\\4&0\\end{{bmatrix}}$.\n\n$$QK^\\top=\\begin{{bmatrix}}{m}"
    "\\end{{bmatrix}}$$\n"
)


@pytest.mark.parametrize(("m", "kind"), [("3&4\\\\7&8", "verified"), ("3&4\\\\7&9", "false")])
def test_written_matrices_set_the_sizes_a_convention_leaves_open(m, kind):
    """Q and K never declared: their conventional shape n x d_k is a guess, and the written
    2 x 2 matrices are the example's values (no shape error against the guess)."""
    rs = check_text(UNSIZED.format(before="", m=m), "w.md")
    assert [r.kind for r in rs if r.kind in ("shape-error", "shape_error")] == []
    assert rs[-1].kind == kind, [r.message for r in rs]


def test_written_matrices_against_a_size_the_text_fixed_are_undecided_not_a_shape_error():
    rs = check_text(UNSIZED.format(before="Take $n=3$. ", m="3&4\\\\7&8"), "w.md")
    written = [r for r in rs if "matrix written out shows 2 × 2" in r.message and r.line == 3]
    assert [r.kind for r in written] == ["undecided", "undecided"], [r.message for r in rs]
    assert all("the chapter's convention" in r.message for r in written)


@pytest.mark.parametrize(
    ("right", "kind"), [("1 & 2\\\\ 0 & 1", "verified"), ("1 & 2\\\\ 0 & 2", "false")]
)
def test_a_name_with_a_label_above_is_written_out_too(right: str, kind: str) -> None:
    # `W^Q` as papers write a projection: a matrix of the text's, given by its numbers
    text = (
        "Take $X = \\begin{bmatrix} 1 & 2\\\\ 0 & 1 \\end{bmatrix}$ and "
        "$W^Q = \\begin{bmatrix} 1 & 0\\\\ 0 & 1 \\end{bmatrix}$.\n\n"
        f"Then $XW^Q = \\begin{{bmatrix}} {right} \\end{{bmatrix}}$.\n"
    )
    rs = check_text(text, "w.md")
    assert rs[-1].kind == kind, [r.message for r in rs]
    assert any("W^Q is the 2 × 2 matrix written out" in r.message for r in rs)
