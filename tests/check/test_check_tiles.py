"""Tiles of a declared matrix (`\\mathbf Q_i \\in \\mathbb R^{B_r\\times d}` where Q is N × d), as
FlashAttention cuts Q, K and V into blocks: a family of matrices of the declared shape, while
`q_i` stays row i of Q."""

from __future__ import annotations

import pytest
from claim_helpers import kinds

from symattn.check import check_text

TILES = (
    r"Let $\mathbf{Q}, \mathbf{K}, \mathbf{V} \in \mathbb{R}^{N \times d}$. Cut $\mathbf{Q}$ into "
    r"blocks $\mathbf{Q}_i \in \mathbb{R}^{B_r \times d}$ and $\mathbf{K}$, $\mathbf{V}$ into "
    r"blocks $\mathbf{K}_j, \mathbf{V}_j \in \mathbb{R}^{B_c \times d}$."
)


@pytest.mark.parametrize(
    ("claim", "kind"),
    [
        (r"\mathbf{Q}_i \mathbf{K}_j^T \in \mathbb{R}^{B_r \times B_c}", "verified"),
        (r"\mathbf{Q}_i \mathbf{K}_j^T \mathbf{V}_j \in \mathbb{R}^{B_r \times d}", "verified"),
        (r"\mathbf{Q}_i \mathbf{K}_j^T \in \mathbb{R}^{B_c \times B_r}", "shape-error"),
        (r"\mathbf{Q}_i \mathbf{K}_j^T \mathbf{V}_j \in \mathbb{R}^{B_c \times d}", "shape-error"),
        (r"\mathbf{Q}_i \mathbf{K}_j \in \mathbb{R}^{B_r \times B_c}", "shape-error"),
        # a row of the declared matrix is still a row
        (r"q_i \in \mathbb{R}^{1 \times d}", "verified"),
    ],
)
def test_tiles_of_a_declared_matrix_have_the_declared_shape(claim, kind):
    assert kinds(f"{TILES}\n\nThen ${claim}$.\n") == [kind]


def test_every_tile_is_declared():
    got = [r.kind for r in check_text(TILES + "\n", "tiles.md")]
    assert got.count("declaration") == 6 and "not-understood" not in got, got


def test_a_shape_that_is_no_block_of_the_matrix_is_no_tile():
    # neither Q's width nor its height: Q_i is not read as a tile of Q
    text = r"Let $\mathbf{Q} \in \mathbb{R}^{N \times d}$ and "
    text += r"$\mathbf{Q}_i \in \mathbb{R}^{B \times C}$."
    got = [r.message for r in check_text(text, "tiles.md")]
    assert not any("a family of matrices" in m for m in got), got
