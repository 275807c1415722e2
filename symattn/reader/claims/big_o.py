"""Asymptotic classes (`O(n^2 d + n d^2) = O(n^2 d)`, `\\mathcal{O}(3n^2) = \\mathcal{O}(n^2)`):
never a product with the output matrix O. Two classes whose arguments have a constant ratio
are equal (a claim for the kernel); any other claim about a class is undecided, never false.

Imports sympy, the kernel's errors and expressions and the reader's AST, spans and claims;
never the resolver itself, the checker or the CLI (the resolver passes itself in).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import sympy

from symattn.kernel.expr import MatExpr, MatSym
from symattn.kernel.nodes import Scale
from symattn.reader.claims.resolved import ResolvedClaim, new_claim
from symattn.reader.syntax import ast
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.translator import plain_name

__all__ = ["big_o_claim", "has_big_o", "names_new"]

#: The letters of asymptotic classes: O, \mathcal{O}, \Theta, \Omega.
_CLASSES = frozenset({"O", "Theta", "Omega"})


def has_big_o(node: ast.Node) -> bool:
    """`node` holds a class `O(...)`: the letter O (or Θ, Ω) written against parentheses."""
    return any(_argument(x) is not None for x in ast.walk(node))


def names_new(scope: Any, left: ast.Node, right: ast.Node) -> bool:
    """`B_c = O(M/d)`: a name the text has not used before, given its order (a definition)."""
    bare = right if has_big_o(left) else left
    name = plain_name(bare)
    if name is None or has_big_o(bare):
        return False
    known = scope.lookup(name) is not None or name in scope.dims
    return not known and name not in scope.number_values


def big_o_claim(
    reader: Any, span: MathSpan, left: ast.Node, right: ast.Node, start: int, end: int
) -> ResolvedClaim:
    """`O(f) = O(g)` (also `c \\cdot O(f)` with c a number): the claim that `f / g` is the
    constant it is where every size is 1, for the kernel; proved, the classes are equal. Where
    the ratio is not constant the classes may still be equal in the regime the text means
    (`O(L^2 + Ld) = O(L^2)` for d <= L), so a `false` is undecided. Anything else about a class
    (`T = O(n^2)`, a sum of classes) is undecided."""
    letter = _letter(left) or _letter(right)
    sides = [_class(left), _class(right)]
    earlier = _defined_class(reader, left if sides[0] is None else right)
    if earlier is not None and letter == "O" and (sides[0] or sides[1]) is not None:
        # `D = O(n)` again, after `D = O(n)` defined D (read then as the matrix O times n)
        read = _read(
            reader, span, *(earlier, sides[1]) if sides[0] is None else (sides[0], earlier)
        )
    elif sides[0] is None or sides[1] is None or _letter(left) != _letter(right):
        msg = f"an asymptotic class ({letter}(·)): its claims are not decided"
        return new_claim(span, start, end, "unknown", msg)
    else:
        read = _read(reader, span, sides[0], sides[1])
    if read is None:
        msg = f"an asymptotic class ({letter}(·)) whose arguments are not read as numbers"
        return new_claim(span, start, end, "unknown", msg)
    f, g, claim = read
    ratio = sympy.cancel(f / g)
    one = {s: sympy.Integer(1) for s in ratio.free_symbols}
    constant = ratio.subs(one)
    if not (constant.is_positive and constant.is_finite):
        msg = f"an asymptotic class ({letter}(·)) whose arguments have no positive ratio"
        return new_claim(span, start, end, "unknown", msg)
    why = (
        f"{letter}({sympy.sstr(f)}) = {letter}({sympy.sstr(g)}) read as a constant ratio of "
        "the arguments; classes may be equal without one, in a regime the text does not state"
    )
    context = f"{claim.context}; {why}" if claim.context else why
    out = new_claim(span, start, end, "pending", pairs=((ratio, constant),), defs=claim.defs)
    return dataclasses.replace(out, context=context, defines=why)


def _defined_class(reader: Any, node: ast.Node) -> sympy.Expr | None:
    """The argument f of a name the text defined as `O(f)` (the matrix O times f, as that
    definition was read), or None."""
    try:
        named = reader.terms.term(node)
    except Exception:  # noqa: BLE001 - no such name: no class
        return None
    value = reader.scope.defs().get(named)
    if isinstance(value, Scale) and isinstance(value.args[1], MatSym) and value.args[1].name == "O":
        return value.scalar
    return None


def _argument(node: ast.Node) -> ast.Node | None:
    if not (isinstance(node, ast.Product) and len(node.factors) == 2):
        return None
    head, group = node.factors
    if not (isinstance(head, ast.Symbol) and head.sub is None and head.name in _CLASSES):
        return None
    if head.font not in (None, "mathcal"):
        return None
    if not (isinstance(group, ast.Group) and group.delim == "(" and len(group.items) == 1):
        return None
    return group.items[0]


def _letter(node: ast.Node) -> str:
    for x in ast.walk(node):
        if _argument(x) is not None:
            assert isinstance(x, ast.Product) and isinstance(x.factors[0], ast.Symbol)
            head = x.factors[0]
            return head.name if head.name == "O" else f"\\{head.name}"
    return ""


def _class(node: ast.Node) -> ast.Node | None:
    """The argument of `O(f)` or of `c \\cdot O(f)`, c a written number; else None."""
    got = _argument(node)
    if got is not None:
        return got
    if isinstance(node, ast.Mul | ast.Product) and len(node.factors) == 2:
        number, term = node.factors
        if isinstance(number, ast.Number):
            return _argument(term)
    return None


def _read(
    reader: Any, span: MathSpan, f_node: Any, g_node: Any
) -> tuple[sympy.Expr, sympy.Expr, ResolvedClaim] | None:
    """The two arguments as scalars: sizes and numbers as they are, other names as the sides
    of `=` read them (without a trace); an argument already read is kept."""
    scope = reader.scope
    if not isinstance(f_node, ast.Node) or not isinstance(g_node, ast.Node):
        known = f_node if not isinstance(f_node, ast.Node) else g_node
        other = g_node if known is f_node else f_node
        try:
            read = scope.bind(reader.terms.term(other))
        except Exception:  # noqa: BLE001 - not read: undecided
            return None
        f, g = (known, read) if known is f_node else (read, known)
        made = new_claim(span, other.start, other.end, "pending")
        return (f, g, made) if _scalars(f, g) else None
    claim: ResolvedClaim | None = None
    try:
        f, g = (scope.bind(reader.terms.term(x)) for x in (f_node, g_node))
    except Exception:  # noqa: BLE001 - read as an equation below
        step = ast.Step(start=g_node.start, end=g_node.end, rel="=", rhs=g_node)  # type: ignore[arg-type]
        (got,) = reader._traceless(lambda: [reader._link(span, f_node, step, first=False)])
        if got.status != "pending" or got.split or len(got.pairs) != 1:
            return None
        f, g = got.pairs[0]
        claim = got
    if not _scalars(f, g):
        return None
    if claim is None:
        claim = new_claim(span, f_node.start, g_node.end, "pending")
    return f, g, claim


def _scalars(*xs: Any) -> bool:
    """Scalars in positive names, no decimals."""
    for x in xs:
        if not isinstance(x, sympy.Expr) or isinstance(x, MatExpr) or x.atoms(sympy.Float):
            return False
        if not all(s.is_positive for s in x.free_symbols):
            return False
    return True
