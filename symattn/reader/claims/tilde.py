"""`\\sim` that claims nothing: a name drawn from a distribution (`s_i \\sim \\mathcal{N}(0, 1)`),
a declaration of a random name; a range of numbers (`0.6 \\sim 0.8`, "from 0.6 to 0.8").

Imports the reader's AST, spans and claims; never the resolver, the checker or the CLI.
"""

from __future__ import annotations

import sympy

from symattn.reader.claims.resolved import ResolvedClaim, new_claim
from symattn.reader.syntax import ast
from symattn.reader.syntax.scanner import MathSpan

__all__ = ["tilde_claim"]

#: The names distributions go by (`\\mathcal{N}`, `\\text{Uniform}`, `p(x \\mid \\theta)`).
_DISTRIBUTIONS = frozenset(
    "N U D P p q Normal Gaussian Uniform Unif Bernoulli Bern Categorical Cat Multinomial Mult "
    "Dir Dirichlet Beta Gamma Poisson Exp Exponential Laplace Binomial Bin Softmax softmax".split()
)


def tilde_claim(span: MathSpan, left: ast.Node, step: ast.Step) -> ResolvedClaim | None:
    """`x \\sim \\mathcal{N}(0, 1)`: `x` a random name of that distribution (declared, not a
    claim); `0.6 \\sim 0.8`: a range from the smaller number to the larger (not a claim). None
    for anything else (`\\ell \\sim \\sqrt n`, an order of growth, stays undecided)."""
    if step.rel != "sim":
        return None
    start, end = left.start, step.rhs.end
    shown = span.body[start:end]
    dist = _distribution(step.rhs)
    if dist and _random_name(left):
        name = span.body[left.start : left.end].strip()
        msg = f"{name} drawn from {dist}: a random name, not a claim"
        return new_claim(span, start, end, "declared", msg)
    low, high = _number(left), _number(step.rhs)
    if low is not None and high is not None and low < high:
        return new_claim(span, start, end, "prose", f"a range of numbers ({shown}), not a claim")
    return None


def _distribution(node: ast.Node) -> str:
    """The distribution's name when `node` is one applied to its parameters, else ''."""
    if isinstance(node, ast.Call) and node.parens:
        name = node.name.rstrip("|")
        return name if name in _DISTRIBUTIONS else ""
    if isinstance(node, ast.Product) and len(node.factors) == 2:
        head, args = node.factors
        if isinstance(head, ast.Symbol) and head.sub is None and isinstance(args, ast.Group):
            if args.delim == "(" and head.name in _DISTRIBUTIONS:
                return f"\\{head.font}{{{head.name}}}" if head.font else head.name
    return ""


def _random_name(node: ast.Node) -> bool:
    """A name (`x`, `s_i`, `\\boldsymbol\\omega_i`) or a tuple of names (`(x, y)`)."""
    if isinstance(node, ast.Symbol):
        return True
    if isinstance(node, ast.Group) and node.items:
        return all(isinstance(x, ast.Symbol) for x in node.items)
    return False


def _number(node: ast.Node) -> sympy.Rational | None:
    sign = 1
    if isinstance(node, ast.Neg):
        node, sign = node.operand, -1
    if not isinstance(node, ast.Number):
        return None
    try:
        return sign * sympy.Rational(node.text.replace(",", ""))
    except (TypeError, ValueError):
        return None
