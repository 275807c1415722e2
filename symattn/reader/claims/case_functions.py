"""A function or sequence of the text's defined by cases of an index's parity (`PE(pos, 2i) = ...`).
Imports sympy, the reader's AST, claims, spans and terms; never the resolver or the checker."""

from __future__ import annotations

import re

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

__all__ = ["define_case", "parity_rows"]

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
    cases = isinstance(right, ast.Matrix) and right.env == "cases"
    found = _case_left(left, one=cases)
    if found is None:
        return None
    key, position, parity = found
    if key.lower() in _NOT_OURS or any(terms.scope.lookup(k) for k in {key, key.upper()}):
        return None  # `p_{i,2j}` of a matrix P the text or the conventions know
    cases_key = f"{key}(·)"  # the cases' own key: never an entry's or a sequence's value
    if key in terms.defs.table and cases_key not in terms.defs.rules:
        return None  # a name the text defined otherwise: an equation about it is a claim
    text = span.body[left.start : left.end]
    if isinstance(right, ast.Matrix) and cases:
        found_left = (key, position, parity)
        return _by_parity(terms, span, found_left, left, right, text, (start, end))
    case = _parity(parity)
    if case is None:
        return None
    letter, a, c = case
    i = index(letter)
    read = _enter(terms, span, (key, position, letter), i, a * i + c, right, text)
    if read is None:
        return None
    _declare(terms, key, left, span.start.line, len(position) + 1)
    what = f"the case {text} of {key}, a function of a position and of the parity of an index"
    if not read:
        return new_claim(span, start, end, "declared", f"defines {what} (its value is not read)")
    return new_claim(span, start, end, "declared", f"defines {what}: a scalar")


def _by_parity(
    terms: Terms,
    span: MathSpan,
    found: tuple[str, list[str], ast.Node],
    left: ast.Node,
    right: ast.Matrix,
    text: str,
    where: tuple[int, int],
) -> ResolvedClaim | None:
    """`f(p, i) = \\begin{cases} A & i \\text{ even} \\\\ B & i \\text{ odd} \\end{cases}`: both
    cases at once, A where the index is even and B where it is odd (`i \\bmod 2 = 0`, `i` 为偶数,
    `\\text{otherwise}` for the other); None for cases of anything else."""
    key, position, parity = found
    rows = parity_rows(span.body, right, parity)
    if rows is None:
        return None
    letter = rows[0]
    i = index(letter)
    wanted = ((2 * i, rows[1]), (2 * i + 1, rows[2]))
    cases = terms.defs.rules.get(f"{key}(·)", [])
    if any(r.line != span.start.line and r.pattern[-1] in (2 * i, 2 * i + 1) for r in cases):
        return None  # a case defined before: the equation is a claim about it
    reads = [_enter(terms, span, (key, position, letter), v, v, value, text) for v, value in wanted]
    if None in reads:
        return None
    _declare(terms, key, left, span.start.line, len(position) + 1)
    what = f"{text} of {key}, a function defined by cases of the parity of {letter}"
    start, end = where
    if not all(reads):
        return new_claim(span, start, end, "declared", f"defines {what} (its value is not read)")
    return new_claim(span, start, end, "declared", f"defines {what}: a scalar")


def _declare(terms: Terms, key: str, left: ast.Node | None, line: int, count: int) -> None:
    if key not in terms.defs.table and not isinstance(left, ast.Symbol):
        params: tuple[None, ...] = (None,) * count
        terms.defs.table[key] = Defined(key, 0, params, "scalar", line, any_args=True)


def _enter(
    terms: Terms,
    span: MathSpan,
    found: tuple[str, list[str], str],
    value: sympy.Expr,
    index_at: sympy.Expr,
    right: ast.Node,
    text: str,
) -> bool | None:
    """Record the case of `key` at (position, `index_at`) whose value is `right` read with the
    index letter standing for `value`: True when that value is read (later claims use it),
    False when only the case is recorded, None when the text defined this case before."""
    key, position, letter = found
    cases_key = f"{key}(·)"  # the cases' own key: never an entry's or a sequence's value
    word = "".join(position)
    pos = sympy.Symbol(word, real=True)
    i = index(letter)
    table: dict[str, sympy.Expr] = {letter: value}
    for x in position:
        table.setdefault(x, sympy.Symbol(f"{word}:{x}", real=True))
    if len(position) > 1:
        table.setdefault(f"\\text{{{word}}}", pos)  # `pos` read as a word in the body
    for sym in ast.symbols(right, inside=False):
        if sym.name == "d" and label_of(sym) not in table:
            table[label_of(sym)] = dim(label_of(sym))
    body = _read(terms, right, table)
    pattern = (pos, index_at) if position else (index_at,)
    made = None
    if body is not None:
        letters = [table[x] for x in position]
        if letters:
            product = sympy.Mul(*letters)
            one = {letters[0]: pos}
            body = body.subs(product, pos) if len(letters) > 1 else body.xreplace(one)
        sizes = sizes_of(terms) | {v for k, v in table.items() if k.startswith("d")}
        if not (body.free_symbols & set(letters)):
            line = span.start.line
            made = make_rule(key, pattern, body, sizes, line, text, constant=not position)
    # the rule records which cases the text defined; a case whose value was not read keeps a
    # placeholder there, and only a read value (`made`) is used by later claims
    placeholder = pos if position else i
    kept = body if made is not None and body is not None else placeholder
    rule = Rule(cases_key, pattern, (pos, i), kept, span.start.line, text)
    cases = terms.defs.rules.get(cases_key, [])
    if any(r.line != span.start.line and r.pattern == pattern for r in cases):
        return None  # this case was defined before: the equation is a claim about it
    if not add_rule(terms.defs, rule):
        return None
    if made is not None:
        add_rule(terms.defs, made)  # the value later claims read at the arguments they write
    return made is not None


def _case_left(left: ast.Node, one: bool = False) -> tuple[str, list[str], ast.Node] | None:
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
    if len(args) == 1 and one and key.isalpha():
        return key, [], args[0]  # `f(i) = \\begin{cases}...`: a function of the index alone
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


#: Words around a parity condition that say nothing more (`\\text{if } i \\text{ is even}`).
_FILLER = re.compile(r"\b(?:if|when|for|is|where|whenever)\b|[,.;:]|当|时|若|如果")
_COMMANDS = re.compile(
    r"\\(?:text(?:rm|it|normal)?|mathrm|mbox|operatorname)\b|\\[,;:! ]|\\q?quad\b"
)


def parity_rows(
    body: str, cases: ast.Matrix, index: ast.Node
) -> tuple[str, ast.Expr, ast.Expr] | None:
    """(the index letter, the value where it is even, where it is odd) of cases whose two
    conditions are the index's parity, written `i \\text{ even}`, `\\text{if } i \\text{ is odd}`,
    `i \\bmod 2 = 0`, `i \\equiv 1 \\pmod 2`, `i` 为偶数, or `\\text{otherwise}` after the other.

    >>> from symattn.reader.syntax.parse import parse_formula
    >>> b = r"f(i) = \\begin{cases} 1 & i \\text{ even} \\\\ 0 & \\text{otherwise} \\end{cases}"
    >>> claim = parse_formula(b).items[0]
    >>> rows = parity_rows(b, claim.steps[0].rhs, claim.subjects[0].factors[1].items[0])
    >>> rows[0], ast.dump(rows[1]), ast.dump(rows[2])
    ('i', '1', '0')
    """
    if not (isinstance(index, ast.Symbol) and index.sub is None and index.font is None):
        return None
    letter = index.name
    if len(letter) != 1 or len(cases.rows) != 2:
        return None
    values, words = [], []
    for k, row in enumerate(cases.rows):
        if len(row) != 1 or row[0] is None:
            return None
        after = cases.rows[k + 1][0] if k + 1 < len(cases.rows) else None
        stop = after.start if after is not None else cases.end
        values.append(row[0])
        words.append(_parity_word(body[row[0].end : stop], letter))
    if words[1] == "otherwise" and words[0] in ("even", "odd"):
        words[1] = "odd" if words[0] == "even" else "even"
    if set(words) != {"even", "odd"}:
        return None
    even, odd = values if words[0] == "even" else values[::-1]
    return letter, even, odd


def _parity_word(condition: str, letter: str) -> str | None:
    """ "even", "odd" or "otherwise" for the condition column of one row, None for another."""
    t = condition.split("&", 1)[1] if "&" in condition else ""
    t = re.split(r"\\\\|\\end\s*\{", t)[0]
    t = _COMMANDS.sub(" ", t).replace("{", " ").replace("}", " ").lower()
    t = " ".join(_FILLER.sub(" ", t).split())
    if t == "otherwise" or t == "else" or t == "否则":
        return "otherwise"
    word = {"even": "even", "odd": "odd", "偶数": "even", "奇数": "odd"}
    m = re.fullmatch(rf"{letter} ?(?:为|是)? ?(even|odd|偶数|奇数)|(even|odd) {letter}", t)
    if m:
        return word[m.group(1) or m.group(2)]
    m = re.fullmatch(rf"{letter} ?(?:\\bmod|\\mod|mod|\\%|%) ?2 ?= ?([01])", t)
    m = m or re.fullmatch(rf"{letter} ?\\equiv ?([01]) ?\(? ?(?:\\pmod|\\bmod|mod) ?2 ?\)?", t)
    if m:
        return "even" if m.group(1) == "0" else "odd"
    return None
