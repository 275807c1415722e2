"""Formulas that list names (`W^Q, W^K, W^V`), as prose writes them: a list computes nothing.
Imports the reader's AST only; never the translator, the inference, the claims or the checker."""

from __future__ import annotations

from symattn.reader.syntax import ast

__all__ = ["lists_names"]

#: the parts of a name: a letter with its font, scripts and labels
_NAME_PARTS = (ast.Symbol, ast.Labeled)


def lists_names(c: ast.Claim) -> bool:
    """`W^Q, W^K W^V` (a comma left out in the prose's list of the weight matrices): several
    subjects and no relation, every one a name of one letter told apart by its label or script
    (`W^Q`, `W_K`), alone or side by side. Such a list gives no shape to infer: two of its names
    side by side are two items, not a product. `XW^Q, XW^K` lists products (other letters).

    >>> from symattn.reader.syntax.parse import parse_formula
    >>> [lists_names(parse_formula(t).items[0]) for t in ("W^Q, W^K W^V", "XW^Q, W^K", "W^K W^V")]
    [True, False, False]
    """
    if c.steps or len(c.subjects) < 2:
        return False
    letters: set[str] = set()
    product = False
    for s in c.subjects:
        parts = s.factors if isinstance(s, ast.Product) else (s,)
        product = product or len(parts) > 1
        for p in parts:
            letter = _marked_letter(p)
            if letter is None:
                return False
            letters.add(letter)
    return product and len(letters) == 1


def _marked_letter(node: ast.Node) -> str | None:
    """`W^K` -> W, `\\mathbf W_V` -> W: a capital told apart by a label or a subscript."""
    if isinstance(node, ast.Labeled) and isinstance(node.operand, ast.Symbol):
        name = node.operand.name
    elif isinstance(node, ast.Symbol) and node.sub is not None:
        name = node.name
    else:
        return None
    return name if len(name) == 1 and name.isupper() else None
