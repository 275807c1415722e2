"""Sizes named by a capital and a letter below it: `B_r`, `B_c`, `D_h`, `N_h`.

FlashAttention's block sizes and a head's width are written this way. Such a name is a size only
where a size is read (a shape such as `\\mathbb R^{B_r \\times d}`) or once one was made there;
elsewhere `Q_i` stays row i of Q.
"""

from __future__ import annotations

from symattn.reader.syntax import ast


def lettered_size(node: ast.Node) -> str | None:
    """`B_r` -> "B_r"; None for anything else (`d_k` is a plain name, `Q_{ij}` an entry).

    >>> from symattn.reader.syntax.parse import parse_formula
    >>> lettered_size(parse_formula("B_r").items[0].subjects[0])
    'B_r'
    """
    if not (isinstance(node, ast.Symbol) and node.font is None and len(node.name) == 1):
        return None
    sub = node.sub
    if not node.name.isupper() or not isinstance(sub, ast.Symbol):
        return None
    if sub.sub is not None or sub.font is not None or len(sub.name) != 1:
        return None
    return f"{node.name}_{sub.name}" if sub.name.isalpha() and sub.name.islower() else None
