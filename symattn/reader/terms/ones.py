"""The all-ones vector written without its length, where the product it stands in fixes it.
Imports the kernel's leaves and the reader's AST; must not import the resolver or the checker.
"""

from __future__ import annotations

from symattn.kernel.expr import MatExpr
from symattn.kernel.leaves import Ones
from symattn.reader.syntax import ast

__all__ = ["ones_after"]

_BOLD = ("mathbf", "boldsymbol", "bm", "mathbb")


def _unsized_ones(node: ast.Node) -> bool:
    return (
        isinstance(node, ast.Symbol)
        and node.name == "1"
        and node.font in _BOLD
        and node.sub is None
    )


def ones_after(acc: object, factor: ast.Node) -> MatExpr | None:
    r"""`A\mathbf 1`: the column of ones right after a matrix is as long as the matrix is wide
    (the only length for which the product is defined); None for any other factor.

    >>> from symattn.kernel.expr import MatSym
    >>> from symattn.reader.syntax.parse import parse_formula
    >>> one = parse_formula(r"\mathbf 1").items[0].subjects[0]
    >>> ones_after(MatSym("A", 3, 5), one).shape
    (5, 1)
    """
    if not isinstance(acc, MatExpr) or not _unsized_ones(factor):
        return None
    return Ones(acc.shape[1], 1)
