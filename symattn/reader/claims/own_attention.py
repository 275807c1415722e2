"""The text's own attention (`\\mathrm{Attention}(Q,K,V) = \\mathrm{softmax}(QK^T)V`): from its
definition on, a later `\\mathrm{Attention}(\\ldots)` is the text's function, not the scaled
dot-product attention the checker knows, until the text states that one.

Imports the kernel's dims and the reader's AST, names and defined names; never the resolver,
the checker or the CLI.
"""

from __future__ import annotations

from collections.abc import Callable

from symattn.kernel.dims import dims_equal
from symattn.kernel.expr import MatExpr
from symattn.reader.syntax import ast
from symattn.reader.terms.defined import OWN_ATTENTION, Defined
from symattn.reader.terms.names import plain_name
from symattn.reader.terms.translator import Terms

__all__ = ["own_attention"]


def own_attention(
    terms: Terms, left: ast.Node, right: ast.Node, line: int
) -> Callable[[], None] | None:
    """For `\\mathrm{Attention}(Q, K, V) = right` with plain names as arguments and a softmax
    on the right: the text's attention in force before the equation is set aside (the
    equation is read against the checker's), and the returned step, run once the equation
    is read, puts the text's in force when `right` is not the scaled one (a scale by the
    square root of the keys' width). In the section of the text's own attention, unless the
    text says it redefines it (`let`), the equation is a claim about the text's: None, as for
    any other equation."""
    if not (isinstance(left, ast.Call) and left.name.lower() == "attention"):
        return None
    names = [plain_name(a) for a in left.args]
    if len(names) != 3 or None in names or not _softmax(right):
        return None
    section = getattr(terms.scope, "section", -1)
    redefining = getattr(terms.scope, "redefining", False)
    earlier = terms.defs.table.get(OWN_ATTENTION)
    if earlier is not None and earlier.section == section and not redefining:
        return None  # in the section of the text's own: a claim about it, read as the text's
    terms.defs.table.pop(OWN_ATTENTION, None)
    try:
        args = [terms.term(a) for a in left.args]
        value = terms.term(right)
    except Exception:  # noqa: BLE001 - an ill-typed side is the claim's to report
        return None
    if not all(isinstance(a, MatExpr) for a in args) or not isinstance(value, MatExpr):
        return None
    if _scaled(terms, right, args[1]):
        return None
    shapes = tuple(a.shape for a in args if isinstance(a, MatExpr))
    own = Defined(left.name, 0, shapes, value.shape, line, section=section)

    def put() -> None:
        terms.defs.table[OWN_ATTENTION] = own

    return put


def _softmax(node: ast.Node) -> bool:
    if isinstance(node, ast.Call) and node.name.lower() == "softmax":
        return True
    return any(_softmax(k) for k in ast.children(node))


def _scaled(terms: Terms, node: ast.Node, key: MatExpr) -> bool:
    """One square root in `node`, of the keys' width (`\\sqrt{d_k}` of K n × d_k)."""
    roots = [x for x in ast.walk(node) if isinstance(x, ast.Sqrt)]
    if len(roots) != 1:
        return False
    try:
        width = terms.term(roots[0].radicand)
    except Exception:  # noqa: BLE001 - an unread radicand is no scale the checker knows
        return False
    return dims_equal(width, key.cols) if not isinstance(width, MatExpr) else False
