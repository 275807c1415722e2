"""A vector's components: with `q, k \\in \\mathbb R^{d_k}` declared, `q_i` is component i of q (not
row i of a matrix Q), and a sum over that index runs over the vector's length.

Imports the reader's AST and the translator's plain names; never the translator itself (which
calls this), the claim readers, the checker or the CLI.
"""

from __future__ import annotations

from typing import Any

import sympy

from symattn.reader.syntax import ast

__all__ = ["component_length", "component_of", "vector_key"]


def vector_key(node: ast.Symbol) -> str:
    """The name a declared vector has in scope: `q`, `\\mathbf{q}`."""
    bold = node.font in ("mathbf", "boldsymbol", "bm")
    return f"\\{node.font}{{{node.name}}}" if bold else node.name


def component_of(scope: Any, node: ast.Node) -> tuple[str, Any] | None:
    """`q_i` (one index below a lower-case letter) when the text declares `q` itself as a vector
    (`q \\in \\mathbb R^{d_k}`, a length × 1 or 1 × length entry of its own) and no matrix `Q`
    of its own: the vector's name and its entry. None otherwise (then `q_i` is row i of Q)."""
    if not isinstance(node, ast.Symbol) or node.sub is None:
        return None
    if len(node.name) != 1 or not node.name.islower():
        return None
    if not (isinstance(node.sub, ast.Symbol | ast.Number | ast.Add)):
        return None
    key = vector_key(node)
    entry = scope.lookup(key)
    if entry is None or getattr(entry, "origin", "convention") == "convention":
        return None
    rows, cols = entry.shape
    if not (rows == 1) ^ (cols == 1):
        return None
    document_matrix = getattr(scope, "document_matrix", None)
    if document_matrix is not None and document_matrix(node.name.upper()):
        return None  # `s_i` of a declared S stays its row
    return key, entry


def component_length(scope: Any, body: ast.Node, letter: str) -> sympy.Expr | None:
    """The length of the declared vectors whose components `body` takes at the index `letter`
    (`\\sum_i v_i w_i`): None when there are none, or their lengths differ."""
    lengths: set[sympy.Expr] = set()
    stack = [body]
    while stack:
        x = stack.pop()
        stack.extend(ast.children(x))
        if not isinstance(x, ast.Symbol) or not isinstance(x.sub, ast.Symbol):
            continue
        if x.sub.name != letter or x.sub.sub is not None:
            continue
        found = component_of(scope, x)
        if found is None:
            continue
        rows, cols = found[1].shape
        lengths.add(scope.bind(rows if cols == 1 else cols))
    return lengths.pop() if len(lengths) == 1 else None
