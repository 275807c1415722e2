"""Lists in brackets read as one matrix where the separator and the text's vectors say which:
`;` stacks rows, `,` puts columns or heads side by side; the other two readings (a longer row
or column) are named, not read. Each reading has a true use and a false one."""

from __future__ import annotations

from claim_helpers import kinds, results

ROWS = "---\nsymattn:\n  vectors: row\n---\n"
COLUMNS = "---\nsymattn:\n  vectors: column\n---\n"
EXAMPLE = r"Take $X \in \mathbb{R}^{3\times d}$. Then "
HEADS = (
    r"Let $W_O \in \mathbb{R}^{H d_v \times d}$ and $Z^{(h)} \in \mathbb{R}^{n \times d_v}$ "
    "for each head.\n\n"
)


def test_rows_stacked_by_semicolons_are_the_matrix() -> None:
    assert kinds(ROWS + EXAMPLE + r"$[x_1; x_2; x_3] = X$.") == ["verified"]
    gram = r"$[x_1; x_2; x_3]^T [x_1; x_2; x_3] = x_1^T x_1 + x_2^T x_2 + x_3^T x_3$."
    assert kinds(ROWS + EXAMPLE + gram) == ["verified"]
    dropped = r"$[x_1; x_2; x_3]^T [x_1; x_2; x_3] = x_1^T x_1 + x_2^T x_2$."
    assert kinds(ROWS + EXAMPLE + dropped) == ["false"]
    assert kinds(ROWS + EXAMPLE + r"$[x_1; x_2; x_3] = [x_1; x_2]$.") == ["shape-error"]


def test_columns_side_by_side_are_the_transpose() -> None:
    text = COLUMNS + r"Let $X \in \mathbb{R}^{n\times d}$, $W \in \mathbb{R}^{d\times d}$." + "\n\n"
    assert kinds(text + r"So $W [x_1, \dots, x_n] = (X W^T)^T$.") == ["verified"]
    assert kinds(text + r"So $W [x_1, \dots, x_n] = (X W)^T$.") == ["false"]


def test_the_other_readings_are_named_not_read() -> None:
    (longer,) = results(COLUMNS + EXAMPLE + r"$[x_1; x_2] = X$.")
    assert longer.kind == "not-understood" and "one longer column" in longer.message
    (row,) = results(ROWS + EXAMPLE + r"$[x_1, x_2, x_3] = X$.")
    assert row.kind == "not-understood" and "one longer row" in row.message
    (gap,) = results(ROWS + EXAMPLE + r"$[x_1; x_3] = X$.")  # not rows 1, 2, ...: no value
    assert gap.kind == "not-understood" and "list" in gap.message


def test_heads_side_by_side_are_their_concat() -> None:
    true = r"So $[Z^{(1)}, \dots, Z^{(H)}] W_O = \sum_{h=1}^{H} Z^{(h)} W_O^{(h)}$."
    assert kinds(HEADS + true) == ["verified"]
    rows = r"So $[z^{(1)}_i, \dots, z^{(H)}_i] W_O = \sum_{h=1}^{H} z^{(h)}_i W_O^{(h)}$."
    assert kinds(HEADS + rows) == ["verified"]
    one = r"So $[Z^{(1)}, \dots, Z^{(H)}] W_O = \sum_{h=1}^{H} Z^{(1)} W_O^{(h)}$."
    assert kinds(HEADS + one) != ["verified"]
    assert kinds(HEADS + r"So $[Z^{(1)}, \dots, Z^{(H)}] \in \mathbb{R}^{n \times H d_v}$.") == [
        "verified"
    ]
    assert kinds(HEADS + r"So $[Z^{(1)}, \dots, Z^{(H)}] \in \mathbb{R}^{n \times d_v}$.") == [
        "shape-error"
    ]


def test_positions_along_the_columns_leave_a_row_reading_a_guess() -> None:
    # X is d × n in a text of column vectors: x_1 may be its first column, so a shape error
    # that reads it as row 1 written as a column is undecided, naming the reading
    text = COLUMNS + r"Let $X \in \mathbb{R}^{d\times n}$, $W \in \mathbb{R}^{d\times d}$." + "\n\n"
    (r,) = results(text + r"So $W x_1 \in \mathbb{R}^{d}$.")
    assert r.kind == "undecided" and "row i of X (d × n)" in r.message, r.message
    # positions along the rows (n × d): the row reading is the text's, errors stay errors
    rows = COLUMNS + r"Let $X \in \mathbb{R}^{n\times d}$, $W \in \mathbb{R}^{n\times n}$." + "\n\n"
    assert kinds(rows + r"So $W x_1 \in \mathbb{R}^{d}$.") == ["shape-error"]
