"""Claims about vectors a text never declares, written with a vector's marks (a transpose, a
norm, an inner product, a bold letter): read as vectors of any length, Greek letters beside
them as real numbers. A true claim is verified and says how it was read; a false one is never
false (the text may relate its vectors in words), only undecided; one whose truth depends on
whether the vectors are rows or columns is undecided."""

from __future__ import annotations

import pytest
from claim_helpers import results

TRUE = [
    r"p_m^\top p_n = \langle p_m, p_n \rangle",
    r"\langle \mathbf{p}_m, \mathbf{p}_n \rangle = \langle \mathbf{p}_n, \mathbf{p}_m \rangle",
    r"\|a_t + b_t\|^2 = \|a_t\|^2 + 2\langle a_t, b_t\rangle + \|b_t\|^2",
    r"\langle u_1 + u_2, w_1\rangle = \langle u_1, w_1\rangle + \langle u_2, w_1\rangle",
    r"\|\lambda \mathbf{u}_1\|^2 = \lambda^2 \|\mathbf{u}_1\|^2",
    r"(\mathbf{u}_1 + \mathbf{w}_1)^\top \mathbf{z}_1"
    r" = \mathbf{u}_1^\top \mathbf{z}_1 + \mathbf{w}_1^\top \mathbf{z}_1",
]

FALSE = [
    r"p_m^\top p_n = 2\langle p_m, p_n \rangle",
    r"\|a_t + b_t\|^2 = \|a_t\|^2 + \|b_t\|^2",
    r"\langle u_1 + u_2, w_1\rangle = \langle u_1, w_1\rangle",
    r"\|\lambda \mathbf{u}_1\|^2 = \lambda \|\mathbf{u}_1\|^2",
    r"(\mathbf{u}_1 + \mathbf{w}_1)^\top \mathbf{z}_1"
    r" = \mathbf{u}_1^\top \mathbf{z}_1 - \mathbf{w}_1^\top \mathbf{z}_1",
]


@pytest.mark.parametrize("claim", TRUE)
def test_a_true_claim_about_undeclared_vectors_is_verified_and_says_how_it_was_read(claim):
    (r,) = results(f"Some vectors: $${claim}$$")
    assert r.kind == "verified", (claim, r.message)
    assert "of any length" in r.message or "a real number" in r.message, r.message
    assert "not declared by the text" in r.message


@pytest.mark.parametrize("claim", FALSE)
def test_a_false_claim_about_undeclared_vectors_is_undecided_never_false(claim):
    (r,) = results(f"Some vectors: $${claim}$$")
    assert r.kind == "undecided", (claim, r.kind, r.message)
    assert "not declared by the text" in r.message


@pytest.mark.parametrize(("claim", "kind"), [("Pu + Pw", "verified"), ("Pu - Pw", "undecided")])
def test_what_a_declared_matrix_multiplies_is_a_vector(claim, kind):
    text = r"Let $P \in \mathbb{R}^{m\times n}$." + f"\n\n$$P(u + w) = {claim}$$"
    (r,) = results(text)
    assert r.kind == kind, r.message
    assert "u, w read as vectors of any length" in r.message, r.message


def test_a_claim_true_only_for_columns_is_undecided_where_the_text_does_not_settle_it():
    # as columns p_m^T p_n is a number and equals p_n^T p_m; as rows both are matrices, not equal
    (r,) = results(r"$$\mathbf{p}_m^\top \mathbf{p}_n = \mathbf{p}_n^\top \mathbf{p}_m$$")
    assert r.kind == "undecided" and "rows or columns" in r.message, r.message
    text = "---\nsymattn:\n  vectors: column\n---\n\n"
    (r,) = results(text + r"$$\mathbf{p}_m^\top \mathbf{p}_n = \mathbf{p}_n^\top \mathbf{p}_m$$")
    assert r.kind == "verified", r.message


def test_a_reading_with_one_typing_orientation_says_so():
    (r,) = results(r"$$p_m^\top p_n = \langle p_m, p_n \rangle$$")
    assert r.kind == "verified"
    assert "as columns (as rows the sides differ in shape)" in r.message, r.message


@pytest.mark.parametrize(
    "text",
    [
        r"$$\langle q, k_i \rangle = \sum_j q_j k_{ij}$$",  # components beside the vectors
        r"$$\langle a_1, b_1\rangle = c$$",  # a letter with no vector's mark
        r"$$\langle F(a_1), b_1\rangle = \langle b_1, F(a_1)\rangle$$",  # a function of the text's
        r"$$\langle M a_1, b_1\rangle = a_1^\top M^\top b_1$$",  # an undeclared capital
    ],
)
def test_names_of_another_kind_leave_the_claim_undecided(text):
    (r,) = results(text)
    assert r.kind in ("undecided", "not-understood"), (text, r.kind, r.message)


def test_bold_letters_are_never_read_as_numbers():
    # two column vectors side by side are no product: never the number g_i times g_j
    text = (
        "Every vector is a column vector.\n\n"
        + r"$$\mathbf{g}_i\mathbf{g}_j=\mathbf{g}_i\cdot \mathbf{g}_j$$"
    )
    (r,) = results(text)
    assert r.kind not in ("verified", "false"), r.message
