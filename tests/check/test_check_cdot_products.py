"""`\\cdot` between two matrices, neither a vector, is their product (`Z = A \\cdot V`); between
two vectors it stays the dot product, and the product must still conform."""

from __future__ import annotations

from claim_helpers import kinds as all_kinds
from claim_helpers import results

BASE = (
    r"Let $Q, K, V \in \mathbb{R}^{n\times m}$ and $S = \mathrm{softmax}(QK^T/\sqrt{m})$." + "\n\n"
)


def kinds(text: str) -> list[str]:
    return all_kinds(text)[1:]  # after the definition of S, verified


def test_a_cdot_between_two_matrices_is_their_product():
    out = r"The mix is $Y = S\cdot V$." + "\n\n"
    assert kinds(BASE + out + r"So $Y_{ab} = \sum_c S_{ac}V_{cb}$.") == ["verified"]
    # the factors of the sum swapped: false
    assert kinds(BASE + out + r"So $Y_{ab} = \sum_c S_{ca}V_{cb}$.")[-1] == "false"
    assert kinds(BASE + r"$$S \cdot V = SV$$") == ["verified"]
    assert kinds(BASE + r"$$S \cdot V = S^TV$$") == ["false"]


def test_a_cdot_between_matrices_that_do_not_conform_is_a_shape_error():
    got = results(BASE + r"The mix is $Y = V\cdot S$.")[-1]
    assert got.kind == "shape-error" and "cannot multiply V" in got.message, got.message


def test_a_cdot_between_vectors_stays_the_dot_product():
    rows = r"$$q_a \cdot k_b = \sum_c Q_{ac}K_{bc}$$"
    assert kinds(BASE + rows) == ["verified"]
    assert kinds(BASE + rows.replace("K_{bc}", "K_{ac}")) == ["false"]
    # a matrix beside a row vector is no dot product and no matrix product
    assert kinds(BASE + r"$$S \cdot q_a = 0$$") == ["shape-error"]


MV = (
    r"Let $W \in \mathbb{R}^{m\times d}$, $x \in \mathbb{R}^{d\times 1}$ and"
    r" $y \in \mathbb{R}^{1\times m}$." + "\n\n"
)


def test_a_cdot_between_a_matrix_and_a_vector_is_their_product_where_it_conforms():
    assert all_kinds(MV + r"$$W \cdot x \in \mathbb{R}^{m\times 1}$$") == ["verified"]
    assert all_kinds(MV + r"$$y \cdot W \in \mathbb{R}^{1\times d}$$") == ["verified"]
    assert all_kinds(MV + r"$$(W \cdot x)^T = x^T W^T$$") == ["verified"]
    assert all_kinds(MV + r"$$(W \cdot x)^T = 2x^T W^T$$") == ["false"]
    # x beside W the other way round conforms neither as a product nor as a dot product
    assert all_kinds(MV + r"$$x \cdot W \in \mathbb{R}^{1\times m}$$") == ["shape-error"]
