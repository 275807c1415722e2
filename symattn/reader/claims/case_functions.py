"""A function or sequence of the text's defined by cases of an index's parity (`PE(pos, 2i) = ...`).
Imports sympy, the reader's AST, claims, spans and terms; never the resolver or the checker."""

from __future__ import annotations

import sympy

from symattn.kernel.dims import dim
from symattn.kernel.errors import SymattnError
from symattn.kernel.expr import MatExpr, index
from symattn.reader.claims.resolved import ResolvedClaim, new_claim
from symattn.reader.syntax import ast
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.defined import Defined, head_of
from symattn.reader.terms.defined_values import Rule, add_rule, make_rule, sizes_of
from symattn.reader.terms.translator import Terms, label_of

__all__ = ["define_case"]

#: Names that are operators or functions of mathematics, never a function of the text's.
_NOT_OURS = frozenset("sin cos tan tanh exp log ln softmax attention concat mask sqrt".split())


def define_case(
    terms: Terms, span: MathSpan, left: ast.Node, right: ast.Node, start: int, end: int
) -> ResolvedClaim | None:
    """`PE(pos, 2i) = \\sin(pos/10000^{2i/d})`, `PE_{(pos,2i+1)} = \\cos(...)`, `P E_{(p o s, 2
    i)} = ...`: one case of the text's function of a position and of an index's parity (a
    declaration, which claims nothing). The first argument is a letter or a word (`pos`), read
    as a real number; the second `a·i + c` with an integer a >= 2. None for any other form,
    or when the text already defined this case (then it is a claim)."""
    found = _case_left(left)
    if found is None:
        return None
    key, position, parity = found
    if key.lower() in _NOT_OURS or any(terms.scope.lookup(k) for k in {key, key.upper()}):
        return None  # `p_{i,2j}` of a matrix P the text or the conventions know
    cases_key = f"{key}(·)"  # the cases' own key: never an entry's or a sequence's value
    if key in terms.defs.table and cases_key not in terms.defs.rules:
        return None  # a name the text defined otherwise: an equation about it is a claim
    case = _parity(parity)
    if case is None:
        return None
    letter, a, c = case
    word = "".join(position)
    pos = sympy.Symbol(word, real=True)
    i = index(letter)
    table: dict[str, sympy.Expr] = {letter: i}
    for x in position:
        table.setdefault(x, sympy.Symbol(f"{word}:{x}", real=True))
    if len(position) > 1:
        table.setdefault(f"\\text{{{word}}}", pos)  # `pos` read as a word in the body
    for sym in ast.symbols(right, inside=False):
        if sym.name == "d" and label_of(sym) not in table:
            table[label_of(sym)] = dim(label_of(sym))
    body = _read(terms, right, table)
    pattern = (pos, a * i + c)
    text = span.body[left.start : left.end]
    read = False
    if body is not None:
        letters = [table[x] for x in position]
        product = sympy.Mul(*letters)
        body = body.subs(product, pos) if len(letters) > 1 else body.xreplace({letters[0]: pos})
        sizes = sizes_of(terms) | {v for k, v in table.items() if k.startswith("d")}
        good = not (body.free_symbols & set(letters))
        read = good and make_rule(key, pattern, body, sizes, span.start.line, text) is not None
    # the rule records which cases the text defined (their values are not read at other
    # arguments: a claim about the function stays undecided)
    value = body if read and body is not None else pos
    rule = Rule(cases_key, pattern, (pos, i), value, span.start.line, text)
    cases = terms.defs.rules.get(cases_key, [])
    if any(r.line != span.start.line and r.pattern == pattern for r in cases):
        return None  # this case was defined before: the equation is a claim about it
    if not add_rule(terms.defs, rule):
        return None
    if key not in terms.defs.table and not isinstance(left, ast.Symbol):
        terms.defs.table[key] = Defined(
            key, 0, (None, None), "scalar", span.start.line, any_args=True
        )
    what = f"the case {text} of {key}, a function of a position and of the parity of an index"
    if not read:
        return new_claim(span, start, end, "declared", f"defines {what} (its value is not read)")
    return new_claim(span, start, end, "declared", f"defines {what}: a scalar")


def _case_left(left: ast.Node) -> tuple[str, list[str], ast.Node] | None:
    """(name, the letters of the position, the index) of `PE(pos, 2i)`, `PE_{(pos,2i)}`,
    `\\text{PE}_{pos,2i}` or `P E_{(p o s, 2 i)}`."""
    args: tuple[ast.Node, ...] = ()
    applied = head_of(left)
    if isinstance(left, ast.Call) and left.parens and left.sub is None:
        key, args = left.name, left.args
    elif applied is not None and applied[0].sub is None and applied[0].font is None:
        key, args = applied[0].name, applied[1].items  # `E(p, 2i)`: a letter, parentheses
    elif isinstance(left, ast.Symbol) and left.sub is not None and left.font in (None, "text"):
        key, args = left.name, _pair(left.sub)
    elif isinstance(left, ast.Product) and all(
        isinstance(f, ast.Symbol) and len(f.name) == 1 and f.name.isupper() and f.font is None
        for f in left.factors
    ):
        *head, last = left.factors
        assert isinstance(last, ast.Symbol)
        if last.sub is None or any(isinstance(f, ast.Symbol) and f.sub for f in head):
            return None
        key = "".join(f.name for f in left.factors if isinstance(f, ast.Symbol))
        args = _pair(last.sub)
    else:
        return None
    if len(args) != 2 or not key.isalpha():
        return None
    position = _letters(args[0])
    if position is None:
        return None
    return key, position, args[1]


def _pair(sub: ast.Node) -> tuple[ast.Node, ...]:
    if isinstance(sub, ast.Group) and sub.delim == "(" and len(sub.items) == 1:
        sub = sub.items[0]
    if isinstance(sub, ast.Group | ast.Seq):
        return tuple(sub.items)
    return ()


def _letters(node: ast.Node) -> list[str] | None:
    """`pos` (a product of bare letters) or `t`: its letters, in order."""
    if isinstance(node, ast.Symbol) and node.font == "text" and node.sub is None:
        if node.name.isalpha():
            return [label_of(node)]  # `pos` read as one word name
    factors = node.factors if isinstance(node, ast.Product) else (node,)
    out = []
    for f in factors:
        if not (isinstance(f, ast.Symbol) and f.sub is None and f.font is None):
            return None
        if len(f.name) != 1 or not f.name.isalpha():
            return None
        out.append(f.name)
    return out if len(set(out)) == len(out) else None


def _parity(node: ast.Node) -> tuple[str, int, int] | None:
    """(i, a, c) of `a i + c` with an integer a >= 2 (`2i`, `2i+1`, `2 i`)."""
    c = 0
    if isinstance(node, ast.Add) and len(node.terms) == 2 and node.ops == ("+",):
        node, last = node.terms
        if not (isinstance(last, ast.Number) and last.text.isdigit()):
            return None
        c = int(last.text)
    if not (isinstance(node, ast.Product) and len(node.factors) == 2):
        return None
    a, letter = node.factors
    if not (isinstance(a, ast.Number) and a.text.isdigit() and int(a.text) >= 2):
        return None
    if not (isinstance(letter, ast.Symbol) and letter.sub is None and len(letter.name) == 1):
        return None
    if c >= int(a.text):
        return None
    return letter.name, int(a.text), c


def _read(terms: Terms, right: ast.Node, table: dict[str, sympy.Expr]) -> sympy.Expr | None:
    """The right side with the position's letters, the index and the sizes as in `table`."""
    saved = terms.scalars
    terms.scalars = table
    terms.defs.used.clear()
    try:
        value = terms.term(right)
    except (SymattnError, RecursionError):
        return None
    finally:
        terms.scalars = saved
    if terms.defs.used or isinstance(value, MatExpr) or not isinstance(value, sympy.Expr):
        terms.defs.used.clear()
        return None
    return value
