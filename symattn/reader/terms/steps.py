"""Vectors indexed by a step: with `h \\in \\mathbb R^d` (or `h_t \\in \\mathbb R^d`) declared,
`h_t`, `h_{t-1}`, `h_{\\tau+1}` are members of a sequence of vectors of that shape, not entries.

Imports sympy and the reader's AST; never the scope, the translator (which calls this), the
claim readers, the checker or the CLI.
"""

from __future__ import annotations

from typing import Any

import sympy

from symattn.reader.syntax import ast

__all__ = ["STEP_LETTERS", "step_letter", "step_vector"]

#: the letters a text counts the steps of a sequence with (time, and its second name)
STEP_LETTERS = ("t", "tau")


def step_letter(sub: ast.Node) -> str | None:
    """The step letter of a subscript that is one step of a sequence: `t`, `t-1`, `t+1`,
    `\\tau`, `(t-1)`; None for anything else (`i`, `ij`, `2t`, `t-s`).

    >>> from symattn.reader.syntax.parse import parse_formula
    >>> subs = [parse_formula(x).items[0].subjects[0].sub for x in ("h_t", "h_{t-1}", "h_i")]
    >>> [step_letter(s) for s in subs]
    ['t', 't', None]
    """
    if isinstance(sub, ast.Group) and sub.delim == "(" and len(sub.items) == 1:
        return step_letter(sub.items[0])
    if isinstance(sub, ast.Symbol):
        plain = sub.sub is None and sub.font is None
        return sub.name if plain and sub.name in STEP_LETTERS else None
    if isinstance(sub, ast.Add):
        letters = [step_letter(t) for t in sub.terms if not isinstance(t, ast.Number)]
        numbers = [t for t in sub.terms if isinstance(t, ast.Number)]
        if len(letters) != 1 or not numbers or sub.terms[0] is numbers[0]:
            return None
        if not all(n.text.isdigit() for n in numbers):
            return None
        return letters[0]
    return None


def step_vector(
    scope: Any, node: ast.Node, ranges: dict[str, sympy.Expr] | None = None
) -> tuple[str, Any] | None:
    """`h_{t-1}` when the text declares `h` (or `h_t`) as a vector of its own and no matrix H:
    the declared name and its entry, whose shape every member has. None otherwise, and when a
    sum around runs the step letter up to the vector's length (`\\sum_{t=1}^d x_t y_t` takes
    components)."""
    if not isinstance(node, ast.Symbol) or node.sub is None:
        return None
    if len(node.name) != 1 or not node.name.islower():
        return None
    if node.font not in (None, "mathbf", "boldsymbol", "bm"):
        return None
    letter = step_letter(node.sub)
    if letter is None:
        return None
    head = f"\\{node.font}{{{node.name}}}" if node.font else node.name
    entry = None
    for key in (head, f"{node.name}_{letter}"):  # `h`, `\mathbf h`, or `h_t` as declared
        entry = scope.lookup(key)
        if entry is not None:
            break
    if entry is None or getattr(entry, "origin", "convention") not in ("declared", "defined"):
        return None  # a shape only inferred from the formulas is no declaration of a vector
    rows, cols = entry.shape
    if not (rows == 1) ^ (cols == 1):
        return None
    document_matrix = getattr(scope, "document_matrix", None)
    if document_matrix is not None and document_matrix(node.name.upper()):
        return None  # `h_t` beside a declared H: row t of H, as ever
    upper = (ranges or {}).get(letter)
    length = rows if cols == 1 else cols
    if upper is not None and sympy.expand(scope.bind(upper) - scope.bind(length)) == 0:
        return None
    return key, entry
