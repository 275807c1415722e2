"""Jupyter notebooks: the Markdown cells of a `.ipynb` file as one text, and where each line was.

Imports only the standard library and kernel.errors; the raw JSON is never read as text by
anyone else.
"""

from __future__ import annotations

import bisect
import json
from dataclasses import dataclass

from symattn.kernel.errors import InputError

__all__ = ["Notebook", "NotebookError", "read_notebook"]


class NotebookError(InputError):
    """A `.ipynb` file that is not a notebook (bad JSON, no list of cells)."""


@dataclass(frozen=True)
class Notebook:
    """The Markdown cells of a notebook joined by blank lines into `text`.

    `cells[k]` is (the cell's number in the notebook, counted from 1 over all cells, the line of
    `text` where its source starts, its offset in `text`, the offset where it ends).
    """

    text: str
    cells: tuple[tuple[int, int, int, int], ...]

    def where(self, line: int) -> tuple[int, int]:
        """(cell number, line within that cell) of a line of `text`.

        >>> nb = read_notebook('{"cells": [{"cell_type": "code", "source": "x"},'
        ...     ' {"cell_type": "markdown", "source": ["a\\\\n", "b"]}]}')
        >>> nb.text, nb.where(2)
        ('a\\nb', (2, 2))
        """
        starts = [c[1] for c in self.cells]
        k = max(0, bisect.bisect_right(starts, line) - 1)
        if not self.cells:
            return (0, line)
        number, first, _, _ = self.cells[k]
        return (number, line - first + 1)

    def segments(self) -> list[tuple[int, int]]:
        """(start, end) offsets of each cell in `text`: math never runs from one to the next."""
        return [(c[2], c[3]) for c in self.cells]


def read_notebook(text: str) -> Notebook:
    """The Markdown cells of a notebook's JSON; `NotebookError` naming the problem.

    >>> read_notebook("[1]")
    Traceback (most recent call last):
    symattn.reader.syntax.notebook.NotebookError: not a Jupyter notebook: no "cells" list
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise NotebookError(
            f"not a Jupyter notebook: invalid JSON at line {e.lineno}, column {e.colno}: {e.msg}"
        ) from None
    cells = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(cells, list):
        if isinstance(data, dict) and isinstance(data.get("worksheets"), list):
            raise NotebookError("not a supported notebook: nbformat 3 (worksheets); convert it")
        raise NotebookError('not a Jupyter notebook: no "cells" list')
    parts: list[str] = []
    where: list[tuple[int, int, int, int]] = []
    line = 1
    offset = 0
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "markdown":
            continue
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(s for s in source if isinstance(s, str))
        if not isinstance(source, str):
            continue
        source = source.replace("\r\n", "\n")
        if parts:
            parts.append("\n\n")
            line += 2
            offset += 2
        where.append((number, line, offset, offset + len(source)))
        parts.append(source)
        line += source.count("\n")
        offset += len(source)
    return Notebook("".join(parts), tuple(where))
