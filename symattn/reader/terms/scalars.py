"""Functions of real numbers in a formula (`\\sin`, `\\cos`, `\\tan`, `\\tanh`, `\\exp`, `\\log`,
`\\max`, `\\min`): their sympy values, and the second reading of `\\cos (m-n)\\theta`.
Imports sympy, the kernel's expressions and the reader's AST; never the translator or claims.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import sympy

from symattn.kernel.expr import MatExpr
from symattn.reader.syntax import ast

__all__ = ["SCALAR_FUNCTIONS", "apply_scalar", "greedy_reading", "huge_power"]

#: A power of numbers with more digits than this is not evaluated (`10^{10^{10}}`).
MAX_DIGITS = 10_000

_ONE_ARGUMENT: dict[str, Callable[[sympy.Expr], sympy.Expr]] = {
    "sin": sympy.sin,
    "cos": sympy.cos,
    "tan": sympy.tan,
    "tanh": sympy.tanh,
    "exp": sympy.exp,
    "log": sympy.log,
    "ln": sympy.log,
    # the real and imaginary parts (`\\mathrm{Re}(a + bi) = a`)
    "re": sympy.re,
    "im": sympy.im,
    # `\\lfloor x \\rfloor`, `\\lceil x \\rceil` (the lexer writes them as calls)
    "floor": sympy.floor,
    "ceil": sympy.ceiling,
}
_MANY_ARGUMENTS: dict[str, Callable[..., sympy.Expr]] = {"max": sympy.Max, "min": sympy.Min}

#: The names of the functions `apply_scalar` reads.
SCALAR_FUNCTIONS = frozenset(_ONE_ARGUMENT) | frozenset(_MANY_ARGUMENTS)


def apply_scalar(name: str, args: Sequence[sympy.Basic]) -> sympy.Expr | None:
    """The value of the function `name` at real arguments; None when an argument is a matrix
    or the count does not fit (`\\sin(x, y)`), so the caller reports what it reads instead.

    `\\log` is the natural logarithm, as in the texts about attention (log-sum-exp, entropy).

    >>> x = sympy.Symbol("x", real=True)
    >>> apply_scalar("cos", [x]), apply_scalar("max", [x, sympy.Integer(2)])
    (cos(x), Max(2, x))
    >>> apply_scalar("sin", [x, x]) is None
    True
    """
    if any(isinstance(a, MatExpr) or not isinstance(a, sympy.Expr) for a in args):
        return None
    if name in _ONE_ARGUMENT and len(args) == 1:
        return _ONE_ARGUMENT[name](args[0])
    if name in _MANY_ARGUMENTS and len(args) >= 2:
        return _MANY_ARGUMENTS[name](*args)
    return None


def huge_power(base: sympy.Basic, exponent: sympy.Basic) -> str:
    """Why `base^exponent` is too large to write out ("" when it is not): a power of two
    numbers with more than `MAX_DIGITS` digits, which sympy would compute digit by digit.

    >>> huge_power(sympy.Integer(10), sympy.Integer(10) ** 10)
    'the number 10^10000000000 has more than 10000 digits; it is not evaluated'
    >>> huge_power(sympy.Integer(2), sympy.Integer(34))
    ''
    """
    if not (isinstance(base, sympy.Rational) and isinstance(exponent, sympy.Rational)):
        return ""
    size = max(abs(base.p), abs(base.q))
    if size <= 1:
        return ""
    digits = abs(exponent) * len(str(size))
    if digits <= MAX_DIGITS:
        return ""
    return f"the number {base}^{exponent} has more than {MAX_DIGITS} digits; it is not evaluated"


def greedy_reading(node: ast.Node) -> tuple[ast.Node, list[str]]:
    """`\\cos (m-n)\\theta` read as `\\cos((m-n)\\theta)`: a function of numbers whose parentheses
    are followed by more factors takes them into its argument, up to the next such function.
    Returns the node read so and the calls it changed (as written; none: the node itself).

    Texts write both `\\cos (m-n)\\theta` for the cosine of the product and `\\cos(x) y` for a
    product, so a claim with such a call is decided only when both readings agree.
    """
    changed: list[str] = []

    def go(x: ast.Node) -> ast.Node:
        updates: dict[str, object] = {}
        for f in dataclasses.fields(x):
            if f.name in ("start", "end"):
                continue
            v = getattr(x, f.name)
            if isinstance(v, ast.Node):
                nv: object = go(v)
            elif isinstance(v, tuple):
                nv = tuple(_map_item(go, item) for item in v)
            else:
                continue
            if nv != v:
                updates[f.name] = nv
        if updates:
            x = dataclasses.replace(x, **updates)  # type: ignore[arg-type]
        if isinstance(x, ast.Product):
            x = _absorb(x, changed)
        return x

    return go(node), changed


def _map_item(go: Callable[[ast.Node], ast.Node], item: object) -> object:
    if isinstance(item, ast.Node):
        return go(item)
    if isinstance(item, tuple):  # the rows of a matrix
        return tuple(go(c) if isinstance(c, ast.Node) else c for c in item)
    return item


def _scalar_call(f: ast.Node) -> bool:
    return isinstance(f, ast.Call) and f.name in _ONE_ARGUMENT and f.sub is None


def _absorb(node: ast.Product, changed: list[str]) -> ast.Expr:
    out: list[ast.Expr] = []
    fs = node.factors
    k = 0
    while k < len(fs):
        f = fs[k]
        j = k + 1
        while j < len(fs) and not _scalar_call(fs[j]) and not isinstance(fs[j], ast.Power):
            j += 1
        if _scalar_call(f) and isinstance(f, ast.Call) and len(f.args) == 1 and j > k + 1:
            arg = ast.Group((f.args[0],), "(", start=f.args[0].start, end=f.args[0].end)
            rest = fs[k + 1 : j]
            body = ast.Product((arg, *rest), start=arg.start, end=rest[-1].end)
            out.append(ast.Call(f.name, (body,), None, True, start=f.start, end=rest[-1].end))
            changed.append(f.name)
            k = j
            continue
        out.append(f)
        k += 1
    if len(out) == 1:
        return out[0]
    return ast.Product(tuple(out), start=node.start, end=node.end)
