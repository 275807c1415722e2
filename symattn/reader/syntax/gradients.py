"""Gradients of the loss as texts write them (`\\frac{\\partial L}{\\partial M}`, `\\nabla_M L`,
`M^\\nabla`, ...), rewritten in a tree as `ast.Gradient`; the names of the matrices for them.

Imports the reader's AST only; never lark, the kernel, the translator or above.
"""

from __future__ import annotations

import re
from typing import Any

from symattn.reader.syntax import ast
from symattn.reader.syntax.ast import Gradient

__all__ = [
    "UNREAD_DERIVATIVE",
    "gradient_name",
    "gradient_of",
    "leibniz_quotient",
    "partial_quotient",
    "with_gradients",
    "writes_gradient",
]

#: What a `\\partial` or `\\nabla` that is not a gradient of the loss leaves unread.
UNREAD_DERIVATIVE = {
    "nabla": (
        "a gradient (\\nabla) in a form that is not read (\\nabla_M L and M^\\nabla are, "
        "for the loss L and a matrix M of the text)"
    ),
    "partial": (
        "a partial derivative (\\partial) that is not the loss's with respect to a matrix "
        "(a Jacobian or a function's derivative): not read"
    ),
}

#: The letters and words texts use for the loss (`L`, `\\mathcal L`, `\\ell`, `l`, `J`, loss).
_LOSSES = frozenset(("L", "ell", "l", "J", "loss", "Loss"))
_LOSS_FONTS = frozenset((None, "mathcal", "mathscr", "mathrm", "text", "mathit", "mathbf"))
#: The mark of `M^\\nabla`: the loss is the text's, not named.
_NAMELESS = "∇"
_NAME = re.compile(r"\A∂(?P<loss>[^/]+)/∂(?P<wrt>.+)\Z|\A(?P<bare>.+)\^∇\Z")


def gradient_name(loss: str, wrt: str) -> str:
    """The name of the matrix that stands for the gradient of `loss` with respect to `wrt`.

    >>> gradient_name("L", "W"), gradient_name("∇", "V")
    ('∂L/∂W', 'V^∇')
    """
    return f"{wrt}^∇" if loss == _NAMELESS else f"∂{loss}/∂{wrt}"


def gradient_of(name: str) -> tuple[str, str] | None:
    """`(loss, wrt)` of a name made by `gradient_name`; None for any other name.

    >>> gradient_of("∂L/∂W"), gradient_of("W")
    (('L', 'W'), None)
    """
    hit = _NAME.match(name)
    if hit is None:
        return None
    if hit.group("bare") is not None:
        return _NAMELESS, hit.group("bare")
    return hit.group("loss"), hit.group("wrt")


def _loss(node: ast.Node) -> str | None:
    if isinstance(node, ast.Symbol) and node.sub is None and node.font in _LOSS_FONTS:
        if node.name in _LOSSES:
            name = "\\ell" if node.name == "ell" else node.name
            return name if node.font in (None, "mathit") else f"\\{node.font}{{{name}}}"
    return None


def _marked(node: ast.Node, marks: tuple[str, ...]) -> ast.Expr | None:
    """`\\partial X` (or `dX`): X; None for anything else."""
    if isinstance(node, ast.Product) and len(node.factors) == 2:
        head, rest = node.factors
        if isinstance(head, ast.Symbol) and head.sub is None and head.name in marks:
            if head.font is None or (head.name == "d" and head.font == "mathrm"):
                return rest
    return None


def _quotient(num: ast.Node, den: ast.Node, node: ast.Node) -> Gradient | None:
    for marks in (("partial",), ("d",)):
        top, bottom = _marked(num, marks), _marked(den, marks)
        if top is not None and bottom is not None:
            loss = _loss(top)
            if loss is not None:
                return Gradient(loss, bottom, start=node.start, end=node.end)
    return None


def partial_quotient(node: ast.Node) -> tuple[ast.Expr, ast.Expr] | None:
    """`\\frac{\\partial y}{\\partial x}` that is not a gradient of the loss: `(y, x)`; None
    for anything else.

    >>> s = lambda name, k: ast.Symbol(name, start=k, end=k + 1)
    >>> num = ast.Product((s("partial", 0), s("y", 1)), start=0, end=2)
    >>> den = ast.Product((s("partial", 3), s("x", 4)), start=3, end=5)
    >>> y, x = partial_quotient(ast.Frac(num, den, start=0, end=5))
    >>> y.name, x.name
    ('y', 'x')
    """
    if not isinstance(node, ast.Frac):
        return None
    top, bottom = _marked(node.num, ("partial",)), _marked(node.den, ("partial",))
    if top is None or bottom is None or _loss(top) is not None:
        return None
    return top, bottom


def _differential(node: ast.Node) -> bool:
    """`d` alone (`\\frac{d}{dx}`), upright or not, as the top of a derivative."""
    return (
        isinstance(node, ast.Symbol)
        and node.name == "d"
        and node.sub is None
        and node.font in (None, "mathrm")
    )


def leibniz_quotient(node: ast.Node) -> bool:
    """`\\frac{dy}{dx}` or `\\frac{d}{dx}` that is not a gradient of the loss: a derivative in
    Leibniz's notation (a quotient of differentials, never the size d times a name).

    >>> s = lambda name, k: ast.Symbol(name, start=k, end=k + 1)
    >>> den = ast.Product((s("d", 3), s("x", 4)), start=3, end=5)
    >>> leibniz_quotient(ast.Frac(s("d", 0), den, start=0, end=5))
    True
    >>> leibniz_quotient(ast.Frac(s("d", 0), s("h", 3), start=0, end=5))
    False
    """
    if not isinstance(node, ast.Frac):
        return False
    wrt = _marked(node.den, ("d",))
    if not isinstance(wrt, ast.Symbol):
        return False
    if _differential(node.num):
        return True
    of = _marked(node.num, ("d",))
    return of is not None and _loss(of) is None


def as_gradient(node: ast.Node) -> ast.Node | None:
    """The gradient a node writes (perhaps transposed: `X^{\\nabla T}`); None when it writes none.

    >>> s = lambda name, k: ast.Symbol(name, start=k, end=k + 1)
    >>> num = ast.Product((s("partial", 0), s("L", 1)), start=0, end=2)
    >>> den = ast.Product((s("partial", 3), s("W", 4)), start=3, end=5)
    >>> g = as_gradient(ast.Frac(num, den, start=0, end=5))
    >>> g.loss, g.wrt.name
    ('L', 'W')
    """
    if isinstance(node, ast.Frac):
        return _quotient(node.num, node.den, node)
    if isinstance(node, ast.Mul) and node.ops == ("/",):
        return _quotient(node.factors[0], node.factors[1], node) or _inline(node)
    if isinstance(node, ast.Power):
        exp = node.exponent
        if _is_nabla(exp):
            return Gradient(_NAMELESS, node.base, start=node.start, end=node.end)
        if isinstance(exp, ast.Product) and len(exp.factors) == 2 and _is_nabla(exp.factors[0]):
            mark = exp.factors[1]
            if isinstance(mark, ast.Symbol) and mark.name in ("T", "top") and mark.sub is None:
                g = Gradient(_NAMELESS, node.base, start=node.start, end=node.end)
                return ast.Transpose(g, start=node.start, end=node.end)
    return None


def _factors(node: ast.Node) -> tuple[ast.Expr, ...]:
    return node.factors if isinstance(node, ast.Product) else (node,)  # type: ignore[return-value]


def _inline(node: ast.Mul) -> ast.Node | None:
    """`X^T \\partial L/\\partial Y W`: the slash joins the differentials next to it, not
    the whole products around it (read as `X^T (\\partial L/\\partial Y) W`)."""
    left, right = _factors(node.factors[0]), _factors(node.factors[1])
    if len(left) < 2 or len(right) < 2:
        return None
    top = ast.Product(left[-2:], start=left[-2].start, end=left[-1].end)
    bottom = ast.Product(right[:2], start=right[0].start, end=right[1].end)
    g = _quotient(top, bottom, ast.Product((), start=top.start, end=bottom.end))
    if g is None:
        return None
    out = left[:-2] + (g,) + right[2:]
    return out[0] if len(out) == 1 else ast.Product(out, start=node.start, end=node.end)


def _is_nabla(node: ast.Node) -> bool:
    return isinstance(node, ast.Symbol) and node.name == "nabla" and node.sub is None


def _applied(rest: tuple[ast.Expr, ...]) -> bool:
    """`\\nabla_\\theta L(\\theta)`: the loss applied to a point, a function the text does not
    define; never a product with what follows."""
    return bool(rest) and isinstance(rest[0], ast.Group) and rest[0].delim == "("


def merge_nabla(factors: tuple[ast.Expr, ...]) -> tuple[ast.Expr, ...]:
    """`\\nabla_M L` among the factors of a product (`\\eta \\nabla_\\theta L`) as one gradient."""
    out: list[ast.Expr] = []
    k = 0
    while k < len(factors):
        f = factors[k]
        if (
            k + 1 < len(factors)
            and isinstance(f, ast.Symbol)
            and f.name == "nabla"
            and f.sub is not None
            and _loss(factors[k + 1]) is not None
            and not _applied(factors[k + 2 : k + 3])
        ):
            loss = _loss(factors[k + 1])
            assert loss is not None
            out.append(Gradient(loss, f.sub, start=f.start, end=factors[k + 1].end))
            k += 2
            continue
        out.append(f)
        k += 1
    return tuple(out)


#: A quotient of differentials `\\frac{dL}{dW}`, `\\frac{\\mathrm d L}{...}` in a formula's text.
DIFFERENTIALS = re.compile(r"\\[dt]?frac\s*\{\s*(?:\\mathrm\s*\{?\s*)?d")


def with_gradients(node: Any) -> Any:
    """The tree with every gradient of the loss it writes as an `ast.Gradient` (the same tree
    when it writes none). Recursive: call it on trees no deeper than the parser's limit.

    >>> from symattn.reader.syntax.parse import parse_formula
    >>> ast.dump(parse_formula(r"\\frac{\\partial L}{\\partial W} = X^T \\nabla_Y L"))
    '[(grad L W) = (* (T X) (grad L Y))]'
    """
    if not isinstance(node, ast.Node):
        return node
    found = as_gradient(node)
    if found is not None:
        return found
    if isinstance(node, ast.Product):
        merged = merge_nabla(node.factors)
        if merged != node.factors:
            node = ast.Product(merged, start=node.start, end=node.end)
            if len(merged) == 1:
                return merged[0]
    return ast.rebuilt(node, with_gradients)


def writes_gradient(node: ast.Node) -> bool:
    """Whether a rewritten tree holds a gradient of the loss (`\\eta \\nabla_\\theta L`)."""
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, Gradient):
            return True
        stack.extend(ast.children(x))
    return False
