"""Plain text of kernel expressions (kernel.text): what messages and `symattn shapes` show."""

from __future__ import annotations

import pytest

from symattn.kernel.attention import single_head
from symattn.kernel.dims import d, d_k, n
from symattn.kernel.expr import MatSym, RowBlock, Transpose, index
from symattn.kernel.text import plain, text

X, Y = MatSym("X", n, d), MatSym("Y", n, d)
W_K, Q = MatSym("W_K", d, d_k), MatSym("Q", n, d_k)
S = single_head()
i, j = index("i"), index("j")


@pytest.mark.parametrize(
    ("expr", "shown"),
    [
        (Q @ (Y @ W_K).T, "Q(YW_K)^T"),  # not QYW_K^T, which would be Q Y (W_K^T)
        ((Y @ W_K).T, "(YW_K)^T"),
        (Y @ W_K.T.T, "Y(W_K^T)^T"),
        ((X + Y).T, "(X + Y)^T"),
        ((2 * X).T, "(2 X)^T"),
        (Transpose(Transpose(X)), "(X^T)^T"),
        (X.T, "X^T"),
        (S.scores, "QK^T"),
        (S.output, "softmax(QK^T/sqrt(d_k))V"),
        (X @ (W_K @ Q.T), "X(W_KQ^T)"),  # grouped as built, so associativity prints two sides
    ],
)
def test_plain_text_keeps_the_meaning(expr, shown):
    assert plain(expr) == shown


def test_a_superscript_on_a_product_is_parenthesised():
    h = index("h")
    assert plain(RowBlock(MatSym("W_O", 2 * d_k, d), h, d_k, 2)) == "W_O^(h)"
    assert plain(RowBlock(X.T @ Y, h, 1, d)) == "(X^TY)^(h)"


def test_entries_and_sums():
    assert text(S.scores[i, j]) == "(QK^T)_{ij}"
