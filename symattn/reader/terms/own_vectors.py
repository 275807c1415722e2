"""Vectors a text declares with a running index (`k_t \\in \\mathbb R^r`) beside the chapter's K.
Imports sympy and the kernel's dims; never the scope, the resolver, the checker or the CLI."""

from __future__ import annotations

from typing import Any

import sympy

from symattn.kernel.dims import dims_equal, shape_str

Shape = tuple[sympy.Expr, sympy.Expr]

__all__ = ["own_vector_clash"]


def own_vector_clash(scope: Any, letter: str, matrix: str, shape: Shape) -> str:
    """Why `k_j` is not read as row j of the chapter's K when the text declares `k_t` (one
    letter, one lower-case index) as a vector that is no row of K, written either way, and
    never declares K itself: the text's k's are vectors of its own, and the conventional
    row would be a guess the text contradicts. "" when nothing stands against the row.

    >>> from symattn.reader.terms.scope import Name, Scope
    >>> s = Scope()
    >>> r, one = sympy.Symbol("r"), sympy.Integer(1)
    >>> s.document.names["k_t"] = Name((r, one), "declared")
    >>> own_vector_clash(s, "k", "K", (sympy.Symbol("n"), sympy.Symbol("d_k")))[:40]
    'the text declares k_t as r × 1, which is'
    """
    document_matrix = getattr(scope, "document_matrix", None)
    if document_matrix is None or document_matrix(matrix):
        return ""  # a symbol table without the document's own layers (`symattn shapes`)
    one = sympy.Integer(1)
    row = scope.bind_shape((one, shape[1]))
    column = (row[1], row[0])
    for layer in scope.layers[1:]:
        for name, entry in sorted(layer.names.items()):
            head, _, sub = name.partition("_")
            if head != letter or len(sub) != 1 or not (sub.isalpha() and sub.islower()):
                continue
            if entry.origin != "declared" or one not in entry.shape:
                continue
            have = scope.bind_shape(entry.shape)
            if _same(have, row) or _same(have, column):
                continue
            return (
                f"the text declares {name} as {shape_str(have)}, which is no row of the "
                f"chapter's {matrix} ({shape_str(scope.bind_shape(shape))}), and never declares "
                f"{matrix}: {letter} with another index may be a vector of the text's own "
                f"({name} at that index), which the checker does not read"
            )
    return ""


def _same(a: Shape, b: Shape) -> bool:
    return dims_equal(a[0], b[0]) and dims_equal(a[1], b[1])
