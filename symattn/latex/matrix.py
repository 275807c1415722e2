"""Explicit small matrices as LaTeX: bracketed, or as a grid labelled by tokens on rows and columns.

Imports only latex.document; must not import the kernel (cells are LaTeX strings from the caller).
"""

from __future__ import annotations

from collections.abc import Sequence

from symattn.latex.document import LatexInputError, Math, render_prose

# amsmath's matrix environments stop at MaxMatrixCols (10) columns; wider ones use an array.
_AMS_MAX_COLS = 10


def _check_grid(cells: Sequence[Sequence[str]]) -> int:
    """Return the column count of a non-empty rectangular grid."""
    if not cells or not cells[0]:
        raise LatexInputError("a matrix needs at least one row and one column")
    width = len(cells[0])
    for number, row in enumerate(cells, start=1):
        if len(row) != width:
            raise LatexInputError(
                f"matrix row {number} has {len(row)} cells, row 1 has {width}; rows must be equal"
            )
    return width


def _rows(cells: Sequence[Sequence[str]]) -> str:
    return " \\\\\n".join(" & ".join(row) for row in cells)


def bmatrix(cells: Sequence[Sequence[str]]) -> str:
    """A matrix in square brackets, one row a line.

    >>> print(bmatrix([["1", "0"], ["a_{21}", "a_{22}"]]))
    \\begin{bmatrix}
    1 & 0 \\\\
    a_{21} & a_{22}
    \\end{bmatrix}
    """
    width = _check_grid(cells)
    if width > _AMS_MAX_COLS:
        return f"\\left[\\begin{{array}}{{{'c' * width}}}\n{_rows(cells)}\n\\end{{array}}\\right]"
    return f"\\begin{{bmatrix}}\n{_rows(cells)}\n\\end{{bmatrix}}"


def _label(label: str | Math) -> str:
    return label.latex if isinstance(label, Math) else f"\\text{{{render_prose(label)}}}"


def labelled_matrix(
    cells: Sequence[Sequence[str]],
    row_labels: Sequence[str | Math],
    col_labels: Sequence[str | Math],
) -> str:
    """A math-mode grid: a header row of column labels, a label column, a rule after each.

    Text labels (tokens) go in ``\\text{}``; ``Math`` labels are used as given. Put the result
    in a display (``Document.display``).

    >>> cells = [["1", "0"], ["0.4", "0.6"]]
    >>> print(labelled_matrix(cells, ["患者", "服用"], ["患者", Math("k_2")]))
    \\begin{array}{r|cc}
     & \\text{患者} & k_2 \\\\
    \\hline
    \\text{患者} & 1 & 0 \\\\
    \\text{服用} & 0.4 & 0.6
    \\end{array}
    """
    width = _check_grid(cells)
    if len(row_labels) != len(cells) or len(col_labels) != width:
        raise LatexInputError(
            f"a {len(cells)}×{width} matrix needs {len(cells)} row labels and {width} column "
            f"labels, got {len(row_labels)} and {len(col_labels)}"
        )
    header = " & " + " & ".join(_label(label) for label in col_labels)
    body = [[_label(label), *row] for label, row in zip(row_labels, cells, strict=True)]
    head = f"\\begin{{array}}{{r|{'c' * width}}}\n{header} \\\\\n\\hline\n"
    return f"{head}{_rows(body)}\n\\end{{array}}"
