"""Golden strings of matrices: bmatrix, and matrices labelled by tokens."""

from __future__ import annotations

import pytest

from symattn.latex import (
    LatexInputError,
    Math,
    bmatrix,
    labelled_matrix,
)

TOKENS = ["患者", "服用", "华法林", "后", "出现"]

MATRIX_CASES = [
    ([["1"]], "\\begin{bmatrix}\n1\n\\end{bmatrix}"),
    ([["a", "b"], ["c", "d"]], "\\begin{bmatrix}\na & b \\\\\nc & d\n\\end{bmatrix}"),
    ([["x_1", "x_2", "x_3"]], "\\begin{bmatrix}\nx_1 & x_2 & x_3\n\\end{bmatrix}"),
    (
        [["0"] * 11],
        "\\left[\\begin{array}{"
        + "c" * 11
        + "}\n"
        + " & ".join(["0"] * 11)
        + "\n\\end{array}\\right]",
    ),
]


@pytest.mark.parametrize(("cells", "expected"), MATRIX_CASES)
def test_bmatrix(cells: list[list[str]], expected: str) -> None:
    assert bmatrix(cells) == expected


@pytest.mark.parametrize(
    ("cells", "message"),
    [
        ([], "at least one row"),
        ([[]], "at least one row"),
        ([["1", "2"], ["3"]], "row 2 has 1 cells, row 1 has 2"),
    ],
)
def test_bmatrix_rejects_ragged(cells: list[list[str]], message: str) -> None:
    with pytest.raises(LatexInputError, match=message):
        bmatrix(cells)


def test_labelled_matrix_tokens() -> None:
    cells = [["1" if i == j else "0" for j in range(2)] for i in range(2)]
    assert labelled_matrix(cells, ["后", "出现"], [Math("k_1"), "a_b"]) == (
        "\\begin{array}{r|cc}\n"
        " & k_1 & \\text{a\\_b} \\\\\n"
        "\\hline\n"
        "\\text{后} & 1 & 0 \\\\\n"
        "\\text{出现} & 0 & 1\n"
        "\\end{array}"
    )


def test_labelled_matrix_five_tokens_shape() -> None:
    out = labelled_matrix([["0"] * 5] * 5, TOKENS, TOKENS)
    assert out.startswith(
        "\\begin{array}{r|ccccc}\n & \\text{患者} & \\text{服用} & \\text{华法林}"
    )
    assert out.count("\\\\") == 5


def test_labelled_matrix_label_count() -> None:
    with pytest.raises(
        LatexInputError, match=r"^a 2×2 matrix needs 2 row labels and 2 column labels, got 1 and 2"
    ):
        labelled_matrix([["1", "0"], ["0", "1"]], ["a"], ["a", "b"])
