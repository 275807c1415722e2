"""A bracketed inner product before a vector, `(\\mathbf k_j^\\top\\mathbf q)\\mathbf v_j`, is the
number it holds. True and false uses, and the readings that stay as written."""

from __future__ import annotations

from claim_helpers import kinds

BASE = (
    "Every vector is a column vector.\n\n"
    r"Let $\mathbf{q}, \mathbf{k}, \mathbf{v} \in \mathbb{R}^{d}$." + "\n\n"
)


def test_a_bracketed_inner_product_scales_the_vector_after_it():
    good = r"$$(\mathbf{k}^\top\mathbf{q})\mathbf{v} = \mathbf{v}(\mathbf{k}^\top\mathbf{q})$$"
    assert kinds(BASE + good) == ["verified"]
    assert kinds(BASE + r"$$(\mathbf{k}^\top\mathbf{q})\mathbf{v} \in \mathbb{R}^{d}$$") == [
        "verified"
    ]
    # keys and values swapped: false
    bad = r"$$(\mathbf{k}^\top\mathbf{q})\mathbf{v} = \mathbf{k}(\mathbf{v}^\top\mathbf{q})$$"
    assert kinds(BASE + bad) == ["false"]


def test_what_is_no_bracketed_inner_product_stays_as_written():
    # an outer product in the brackets (d × d) before a vector of another length: an error
    decl = r"Let $\mathbf{x} \in \mathbb{R}^{m}$." + "\n\n"
    outer = r"$$(\mathbf{k}\mathbf{q}^\top)\mathbf{x} \in \mathbb{R}^{d}$$"
    assert kinds(BASE + decl + outer) == ["shape-error"]
    # a dropped transpose inside the brackets is still a shape error
    assert kinds(BASE + r"$$(\mathbf{k}\mathbf{q})\mathbf{v} \in \mathbb{R}^{d}$$") == [
        "shape-error"
    ]


AFTER = (
    "Every vector is a column vector.\n\n"
    r"Let $q, k \in \mathbb{R}^{d}$ and $W, X \in \mathbb{R}^{m\times d}$." + "\n\n"
)


def test_a_bracketed_inner_product_after_a_matrix_scales_it():
    assert kinds(AFTER + r"$$W (q^T k) = (k^T q) W$$") == ["verified"]
    assert kinds(AFTER + r"$$X [q^T k] = (q^T k) X$$") == ["verified"]
    assert kinds(AFTER + r"$$W (q^T k) = (q^T q) W$$") == ["false"]
    # a bracketed product that is no 1 × 1 stays a product that must conform
    assert kinds(AFTER + r"$$W (W q) = W$$") == ["shape-error"]


ROWS = r"Let $Q, K, V \in \mathbb{R}^{n\times d}$." + "\n\n"


def test_a_bracketed_inner_product_after_a_row_scales_it():
    good = r"$$\sum_j v_j (k_j q_t^T) = \sum_j (q_t k_j^T) v_j$$"
    assert kinds(ROWS + good) == ["verified"]
    # keys and values swapped on one side: false
    assert kinds(ROWS + good.replace("(q_t k_j^T) v_j", "(q_t v_j^T) k_j")) == ["false"]
