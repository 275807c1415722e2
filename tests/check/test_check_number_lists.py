"""Lists of numbers in a worked example (`0.40 \\times [0,2] + 0.20 \\times [1,1] = [0.2, 1]`):
read as vectors of numbers, entry by entry. A right computation is verified and says how it was
read, a wrong entry is false, lists of two lengths are a shape error, and a list beside a name
or inside a function is left to the other readings."""

from __future__ import annotations

import pytest

from symattn.check.document import check_text


def _claims(text: str):
    return [r for r in check_text(text, "t.md") if r.kind not in ("not-a-claim", "declaration")]


@pytest.mark.parametrize(
    "formula",
    [
        r"0.40 \times [0,2] + 0.20 \times [1,1] + 0.40 \times [2,0] = [1.00,\; 1.00]",
        r"[0,\;0.80] + [0.40,\;0.40] + [0.40,\;0] = [0.80,\;1.20]",
        r"(1.0, 2.0) + (3.0, 4.0) = (4.0, 6.0)",
        r"[1, 2, 3] - [1, 1, 1] = [0, 1, 2]",
        r"\begin{bmatrix} 1 & 2 \end{bmatrix} + [3, 4] = [4, 6]",
        r"[2, 4] / 2 = [1, 2]",
    ],
)
def test_a_right_computation_with_lists_is_verified(formula: str) -> None:
    (got,) = _claims(f"Then $${formula}$$\n")
    assert got.kind == "verified", got.message
    assert "entry by entry" in got.message


@pytest.mark.parametrize(
    "formula",
    [
        r"[0,\;0.80] + [0.40,\;0.40] + [0.40,\;0] = [0.80,\;1.30]",  # one entry wrong
        r"0.5 \times [2,3] + 0.5 \times [4,1] = [3, 2.5]",
        r"[1, 2] - [2, 1] = [1, 1]",
    ],
)
def test_a_wrong_entry_is_false(formula: str) -> None:
    (got,) = _claims(f"Then $${formula}$$\n")
    assert got.kind == "false", got.message


def test_lists_of_two_lengths_are_a_shape_error() -> None:
    (got,) = _claims("Then $[1, 2, 3] = [1, 2]$.\n")
    assert got.kind == "shape-error" and "3 numbers against a list of 2" in got.message


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        (r"[0.333, 0.667] \approx [1/3, 2/3]", "verified"),
        (r"[0.33, 0.60] \approx [1/3, 2/3]", "false"),
    ],
)
def test_an_approximation_between_lists_holds_each_entry_to_its_last_digit(formula, kind):
    (got,) = _claims(f"Then ${formula}$.\n")
    assert got.kind == kind, got.message


@pytest.mark.parametrize(
    "formula",
    [
        r"[0.3, 0.67] \approx [1/3, 2/3]",  # written to two digits: no one tolerance for both
        r"x = [1, 2]",  # a name's value, not a claim between lists
        r"(N, d) = (1024, 64)",  # sizes given in a tuple
        r"\mathrm{softmax}([0, 0]) = [0.5, 0.5]",  # a list inside a function
    ],
)
def test_other_uses_of_lists_are_not_read_as_lists_of_numbers(formula: str) -> None:
    got = _claims(f"Then ${formula}$.\n")
    assert all(r.kind != "verified" or "entry by entry" not in r.message for r in got), [
        r.message for r in got
    ]


WORKED = (
    r"Let $Q = \begin{bmatrix} 1 & 0 \\ 0 & 1 \\ 1 & 1 \end{bmatrix}$ and "
    r"$K = \begin{bmatrix} 1 & 1 \\ 0 & 1 \\ 1 & 0 \end{bmatrix}$." + "\n\n"
)


@pytest.mark.parametrize(
    ("cells", "kind"),
    [
        (r"0.71 & 0 & 0.71 \\ 0.71 & 0.71 & 0 \\ 1.41 & 0.71 & 0.71", "verified"),
        (r"0.71 & 0 & 0.71 \\ 0.71 & 0.81 & 0 \\ 1.41 & 0.71 & 0.71", "false"),  # one entry off
    ],
)
def test_a_matrix_of_a_worked_example_is_approximated_entry_by_entry(cells: str, kind: str):
    text = (
        WORKED
        + rf"Then $$\frac{{QK^T}}{{\sqrt{{2}}}} \approx \begin{{bmatrix}} {cells} \end{{bmatrix}}$$"
    )
    got = _claims(text + "\n")[-1]
    assert got.kind == kind, got.message
    if kind == "verified":
        assert "entry by entry, within one unit of the last digit written, 1/100" in got.message


def test_a_matrix_written_to_different_digits_is_not_approximated() -> None:
    cells = r"0.7 & 0 & 0.71 \\ 0.71 & 0.71 & 0 \\ 1.41 & 0.71 & 0.71"
    text = (
        WORKED
        + rf"Then $$\frac{{QK^T}}{{\sqrt{{2}}}} \approx \begin{{bmatrix}} {cells} \end{{bmatrix}}$$"
    )
    got = _claims(text + "\n")[-1]
    assert got.kind == "undecided", got.message
