"""Sizes named by a capital and a letter below it (`B_r`, `B_c`, `D_h`), as block sizes and head
widths are written: a size where a shape names it, and the same size wherever it appears after."""

from __future__ import annotations

import pytest
from claim_helpers import kinds

from symattn.check import check_text

BLOCKS = (
    r"Cut the keys and values into blocks "
    r"$\mathbf{K}_j, \mathbf{V}_j \in \mathbb{R}^{B_c \times d}$."
)
HEADS = (
    r"With $H$ heads of width $D_h$, let $W \in \mathbb{R}^{D \times H D_h}$ and "
    r"$X \in \mathbb{R}^{L \times D}$."
)


@pytest.mark.parametrize(
    ("claim", "kind"),
    [
        (r"\mathbf{K}_j^T \mathbf{V}_j \in \mathbb{R}^{d \times d}", "verified"),
        (r"\mathbf{K}_j \mathbf{V}_j^T \in \mathbb{R}^{B_c \times B_c}", "verified"),
        (r"\mathbf{K}_j \mathbf{V}_j^T \in \mathbb{R}^{d \times d}", "shape-error"),
        (r"\mathbf{K}_j^T \mathbf{V}_j \in \mathbb{R}^{B_c \times d}", "shape-error"),
    ],
)
def test_a_block_size_named_in_a_shape_is_a_size(claim, kind):
    assert kinds(f"{BLOCKS}\n\nThen ${claim}$.\n") == [kind]


@pytest.mark.parametrize(
    ("claim", "kind"),
    [
        (r"XW \in \mathbb{R}^{L \times H D_h}", "verified"),
        (r"XW \in \mathbb{R}^{L \times D_h}", "shape-error"),
    ],
)
def test_a_head_width_named_in_a_shape_is_a_size(claim, kind):
    assert kinds(f"{HEADS}\n\nThen ${claim}$.\n") == [kind]


def test_every_declaration_is_read():
    got = [r.kind for r in check_text(BLOCKS + "\n\n" + HEADS + "\n", "sizes.md")]
    assert got.count("declaration") == 4 and "not-understood" not in got, got
