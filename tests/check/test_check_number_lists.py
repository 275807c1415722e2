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


def _bm(*rows: str) -> str:
    """A bmatrix of the rows given."""
    return r"\begin{bmatrix}" + r" \\ ".join(rows) + r"\end{bmatrix}"


ROWS = _bm("1 & 0", "0 & 1", "1 & 0", "0 & 1")
A, SWAP, I2 = _bm("2 & 2", "1 & 2"), _bm("0 & 1", "1 & 0"), _bm("1 & 2", "3 & 4")


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        # a list on the left of a matrix is a row vector; the product is taken as matrices
        (rf"[1, 2, 1, 0] \times {ROWS} = [2, 2]", "verified"),
        (rf"[1, 2, 1, 0] \times {ROWS} = [2, 3]", "false"),
        (r"[1*1 + 2*0 + 1*1 + 0*0,\; 1*0 + 2*1 + 1*0 + 0*1] = [2,\; 2]", "verified"),
        (r"[1,3]\begin{bmatrix}1\\2\end{bmatrix}=1+6", "verified"),
        (r"[1,3]\begin{bmatrix}1\\2\end{bmatrix}=1+5", "false"),
        (f"{A} {SWAP} = " + _bm("2 & 2", "2 & 1"), "verified"),
        (f"{A} {SWAP} = {A}", "false"),
        (f"{I2}^T = " + _bm("1 & 3", "2 & 4"), "verified"),
        (f"{I2}^T = {I2}", "false"),
        # a column result written as a list: the same entries, in order
        (f"{I2}" + _bm("1", "1") + " = [3, 7]", "verified"),
        (r"\frac{[2,\;4]}{2} = [1,\;2]", "verified"),
        (_bm("1 & 2") + f" = {I2}", "shape-error"),
    ],
)
def test_products_of_lists_and_matrices_of_numbers(formula: str, kind: str) -> None:
    (got,) = _claims(f"Then $${formula}$$\n")
    assert got.kind == kind, got.message
    if kind in ("verified", "false"):
        assert "entry by entry" in got.message or "multiplied out" in got.message, got.message


@pytest.mark.parametrize(
    "formula",
    [
        # a list on the right of a matrix (a row or a column?) and two lists side by side
        f"{I2} [1, 1] = [3, 7]",
        r"[1, 2] [3, 4] = 11",
        # inner sizes that do not meet: no product is formed
        rf"[1, 2] \times {ROWS} = [1, 2]",
    ],
)
def test_products_no_reading_types_are_not_decided_as_arrays(formula: str) -> None:
    got = _claims(f"Then $${formula}$$\n")
    assert all(r.kind not in ("verified", "false") for r in got), [r.message for r in got]


@pytest.mark.parametrize(
    ("formula", "kind", "said"),
    [
        # a value no decimal of three digits writes, given rounded with `=`: no exact
        # equation holds, so undecided (not false); far off, it is false
        (r"\frac{1}{\sqrt{2}} = 0.707", "undecided", "the value rounded to its last digit"),
        (r"\frac{1}{\sqrt{2}} = 0.9", "false", "more than"),
        (r"[\sin(1), 2] = [0.841, 2]", "undecided", "the values rounded to their last digit"),
        (r"[\sin(1), 2] = [0.541, 2]", "false", ""),
        # a value written out exactly is held exactly: a wrong last digit is wrong
        (r"0.5 + 0.25 = 0.76", "false", ""),
        (r"[0.5 + 0.25, 1] = [0.76, 1]", "false", ""),
        # entries written to different digits: no one tolerance holds them all
        (r"[\sin(1), \cos(1)] = [0.841, 0.54]", "undecided", "written to different digits"),
    ],
)
def test_a_result_written_with_decimals_is_the_value_rounded(
    formula: str, kind: str, said: str
) -> None:
    (got,) = _claims(f"Then $${formula}$$\n")
    assert got.kind == kind, got.message
    assert said in got.message, got.message
