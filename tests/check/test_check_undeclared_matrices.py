"""Claims about capitals a text never declares (`W_q`, `\\mathbf W`, `W^q`, `R_{\\Theta,m}^d`), read
as matrices of any shape for the claim alone: a true identity is verified and says so, a false
one is undecided (never false: the text may mean matrices it relates in words), and a reading
that makes a capital a vector, or a capital whose uses elsewhere disagree, is not taken."""

from __future__ import annotations

import pytest
from claim_helpers import last

from symattn.check.document import check_text

TRUE = [
    r"$(W_q x_i)^T (W_k x_j) = x_i^T W_q^T W_k x_j$",
    r"$(W_1 W_2)^T = W_2^T W_1^T$",
    r"$\mathbf{x}_i \mathbf{W} (\mathbf{x}_j \mathbf{W})^\top"
    r" = \mathbf{x}_i \mathbf{W}\mathbf{W}^\top \mathbf{x}_j^\top$",
    r"$(\mathbf{W}^q \mathbf{W}^k)^\top = (\mathbf{W}^k)^\top (\mathbf{W}^q)^\top$",
    r"$( R_{\Theta,m}^{d} W_{q} x_{m} )^{T} ( R_{\Theta,n}^{d} W_{k} x_{n} )"
    r" = x_{m}^{T} W_{q}^T (R_{\Theta,m}^{d})^T R_{\Theta,n}^{d} W_{k} x_{n}$",
    r"$(W_1 W_2) W_3 = W_1 (W_2 W_3)$",
]


@pytest.mark.parametrize("formula", TRUE)
def test_a_true_identity_of_undeclared_capitals_is_verified_for_every_shape(formula: str) -> None:
    got = last(f"Then {formula}.\n")
    assert got.kind == "verified", got.message
    # read here as matrices of any shape, or with the shapes the document's inference gave
    said = ("read as matri" in got.message and "of any shape" in got.message) or (
        "inferred from line" in got.message
    )
    assert said, got.message


FALSE = [
    r"$(W_q x_i)^T (W_k x_j) = x_i^T W_k^T W_q x_j$",  # the two weights swapped
    r"$(W_1 W_2)^T = W_1^T W_2^T$",  # the order of a transposed product kept
    r"$( R_{\Theta,m}^{d} W_{q} x_{m} )^{T} ( R_{\Theta,n}^{d} W_{k} x_{n} )"
    r" = x_{m}^{T} W_{q}^T R_{\Theta,m}^{d} R_{\Theta,n}^{d} W_{k} x_{n}$",  # a transpose dropped
]


@pytest.mark.parametrize("formula", FALSE)
def test_a_failing_identity_of_undeclared_capitals_is_undecided_never_false(formula: str) -> None:
    got = last(f"Then {formula}.\n")
    assert got.kind == "undecided", got.message
    assert "read so, the claim fails" in got.message


def test_a_slip_of_case_is_named_in_the_verdict() -> None:
    got = last("Then $(Q W_o)^T = W_o^T Q^T$.\n")
    assert got.kind == "verified" and "did you mean W_O?" in got.message
    other = last("Then $(W_1 W_2)^T = W_2^T W_1^T$.\n")
    assert "did you mean" not in other.message  # W_V, W_Q are no slip of W_1


def test_a_capital_that_would_be_a_vector_is_not_read_as_a_matrix() -> None:
    # W x^T with x a row makes W one column wide: the claim stays as it was, not understood
    got = last(r"Then $(W \mathbf{1}_n^T)^T = \mathbf{1}_n W^T$." + "\n")
    assert got.kind in ("not-understood", "shape-error", "undecided")
    assert got.kind != "verified"


def test_a_function_of_the_text_is_not_read_as_a_matrix() -> None:
    got = last("Then $F(W_1) = F(W_1)^T$.\n")
    assert got.kind != "verified" and got.kind != "false"


def test_prove_reads_undeclared_capitals_the_same_way() -> None:
    from symattn.cli import main

    assert main(["prove", "(W_1 W_2)^T = W_2^T W_1^T"]) == 0
    assert main(["prove", "(W_1 W_2)^T = W_1^T W_2^T"]) != 0


def test_a_capital_with_one_index_of_an_undeclared_letter_is_a_name_of_the_text() -> None:
    # O and Q are only the chapter's conventions here: O_m, Q_i are the text's own names
    got = check_text("Then $O_m = \\sum_{n=1}^N a_{m,n}v_n$.\n", "t.md")
    assert [r.kind for r in got] == ["declaration"], [r.message for r in got]
    block = last("Then $(Q_i K_j^T)^T = K_j Q_i^T$.\n")
    assert block.kind == "verified", block.message
    assert "Q_i, K_j read as matrices" in block.message or "Q_•" in block.message
    # a text that declares Q: Q_i is then most likely a slip for the row q_i
    declared = last("Let $Q \\in \\mathbb R^{n\\times d}$.\n\nThen $(Q_i Q^T)^T = Q Q_i^T$.\n")
    assert declared.kind == "not-understood" and "write q_i for a row" in declared.message
