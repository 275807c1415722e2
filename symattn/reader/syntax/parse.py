"""Formula text -> `ast.Formula`: lark's LALR parser over lexer tokens, then an iterative build.

The only module that imports lark; of the kernel it imports only kernel.errors, and it must not
import the rest of the kernel (dims, expr, ...).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from importlib import resources
from typing import TYPE_CHECKING, Any

from symattn.kernel.errors import ParseError, Position
from symattn.reader.syntax import ast
from symattn.reader.syntax.asides import open_asides, open_gaps
from symattn.reader.syntax.component_softmax import with_component_softmax
from symattn.reader.syntax.differentials import MAY_MARK, with_differentials
from symattn.reader.syntax.empty_groups import without_empty_groups
from symattn.reader.syntax.gradients import DIFFERENTIALS, with_gradients
from symattn.reader.syntax.lexer import tokenize
from symattn.reader.syntax.lexer_base import MAX_NESTING, Tok, position_in
from symattn.reader.syntax.scripts import apply_scripts, call_sub, join_items, sum_range
from symattn.reader.syntax.unexpected import unexpected_end, unexpected_form

if TYPE_CHECKING:
    from lark import Lark

    from symattn.reader.syntax.scanner import MathSpan

__all__ = ["parse_formula", "parse_span"]


def parse_formula(body: str, env: str | None = None) -> ast.Formula:
    """Read one formula body; raise ParseError (position relative to the body) if it cannot.

    >>> ast.dump(parse_formula(r"Q,K\\in\\mathbb R^{n\\times d_k}"))
    '[Q, K \\\\in R^(n, d_{k})]'
    >>> parse_formula(r"A=\\foo")
    Traceback (most recent call last):
    symattn.kernel.errors.ParseError: 1:3: unknown command \\foo
    """
    if not isinstance(body, str):
        raise ParseError(f"a formula must be text, not {type(body).__name__}", Position(1, 1, 0))
    tokens = open_gaps(body, open_asides(tokenize(without_empty_groups(body), env)))
    tree = _run_lark(body, tokens)
    formula = _Builder(body).build(tree)
    if ast.depth(formula) > MAX_NESTING:
        raise ParseError(f"nesting deeper than {MAX_NESTING} levels", position_in(body, 0))
    if any(t.value in _DERIVATIVE_MARKS for t in tokens) or DIFFERENTIALS.search(body):
        formula = with_gradients(formula)
    if MAY_MARK.search(body):
        formula = with_differentials(formula)
    if "softmax" in body.lower():
        formula = with_component_softmax(formula)
    return formula


_DERIVATIVE_MARKS = frozenset(("|partial", "|nabla"))


def parse_span(span: MathSpan) -> ast.Formula:
    """Read a scanned span; a ParseError carries the position in the file, not in the formula.

    >>> from symattn.reader.syntax.scanner import scan
    >>> span = scan("text\\n\\n$$\\nQ=\\\\foo X\\n$$\\n", kind="md")[0]
    >>> parse_span(span)
    Traceback (most recent call last):
    symattn.kernel.errors.ParseError: 4:3: unknown command \\foo
    """
    try:
        return parse_formula(span.body)
    except ParseError as err:
        offset = err.position.offset if err.position is not None else 0
        raise ParseError(err.message, span.position_at(offset)) from None


# --- lark ------------------------------------------------------------------------------------


@functools.cache
def _parser() -> Lark:
    from lark import Lark
    from lark.lexer import Lexer

    class _TokenFeed(Lexer):
        """Hands lark the tokens already made by lexer.py (passed in place of the text)."""

        __future_interface__ = 2

        def __init__(self, conf: Any) -> None:
            pass

        def lex(self, state: Any, parser_state: Any) -> Any:
            return iter(state.text)

    grammar = resources.files("symattn.reader.syntax").joinpath("grammar.lark").read_text("utf-8")
    return Lark(grammar, parser="lalr", lexer=_TokenFeed, propagate_positions=True)


def _run_lark(body: str, tokens: list[Tok]) -> Any:
    from lark import Token
    from lark.exceptions import LarkError, UnexpectedToken

    # Only offsets are used downstream; line/column come from LineIndex when an error needs them.
    feed = [Token(t.kind, t.value, t.start, None, None, None, None, t.end) for t in tokens]
    try:
        return _parser().parse(feed)
    except UnexpectedToken as err:
        raise _unexpected(body, err.token, tokens) from None
    except LarkError as err:  # pragma: no cover - lark's other errors need a text lexer
        raise ParseError(
            f"cannot read the formula ({type(err).__name__})", Position(1, 1)
        ) from None


_NAMES = {
    "RBRACE": "'}'",
    "LBRACE": "'{'",
    "RPAR": "')'",
    "RBRACK": "']'",
    "ROWSEP": "'\\\\'",
    "QUAD": "\\quad",
    "TEXT": "\\text{...}",
    "END_MATRIX": "\\end{...}",
    "BOXED": "\\boxed",
    "PRIME": '"\'"',
    "BAR_CLOSE": "'|'",
    "NORM_CLOSE": "'\\|'",
    "RANGLE": "\\rangle",
    "RSET": "'\\}'",
    "COLON": "':'",
}


def _unexpected(body: str, token: Any, tokens: list[Tok]) -> ParseError:
    if token.type == "$END":
        what = unexpected_end(tokens)
        return ParseError(f"unexpected end of formula{what}", position_in(body, len(body)))
    shown = _NAMES.get(token.type) or repr(body[token.start_pos : token.end_pos])
    before = [t for t in tokens if t.end <= token.start_pos]
    what = unexpected_form(token.type, str(token), before)
    return ParseError(f"unexpected {shown}{what}", position_in(body, token.start_pos))


#: Operators whose arguments must be in parentheses; a text's own (`\\text{cosine}[u, v]`) may
#: take brackets (it is read as a function of the text's, never decided).
_BUILTIN_CALLS = frozenset(("softmax", "mask", "attention", "concat", "exp", "sqrt"))


# --- building the AST without recursion ------------------------------------------------------


class _Braced:
    """The contents of `{...}` before the context says what they are."""

    def __init__(self, items: list[tuple[Any, list[tuple[str, Any]]]], start: int, end: int):
        self.items = items
        self.start = start
        self.end = end


class _Script:
    def __init__(self, kind: str, arg: Any, start: int, end: int) -> None:
        self.kind = kind  # "SUB" | "SUP" | "PRIME" (its mark the arg: `'` or `*`)
        self.arg = arg
        self.start = start
        self.end = end


class _Builder:
    """Post-order walk over lark's tree with an explicit stack; one handler per rule."""

    def __init__(self, body: str) -> None:
        self.body = body

    def fail(self, message: str, offset: int) -> ParseError:
        return ParseError(message, position_in(self.body, offset))

    def build(self, tree: Any) -> ast.Formula:
        from lark import Tree

        results: dict[int, Any] = {}
        stack: list[tuple[Any, bool]] = [(tree, False)]
        while stack:
            node, ready = stack.pop()
            if not ready:
                stack.append((node, True))
                stack.extend((c, False) for c in node.children if isinstance(c, Tree))
                continue
            kids = [results.pop(id(c)) if isinstance(c, Tree) else c for c in node.children]
            results[id(node)] = self.handle(node, kids)
        formula = results[id(tree)]
        assert isinstance(formula, ast.Formula)
        return formula

    def handle(self, tree: Any, kids: list[Any]) -> Any:
        handler: Callable[[list[Any], int, int], Any] = getattr(self, "r_" + tree.data)
        meta = tree.meta
        if getattr(meta, "empty", True):
            start = end = _first_start(kids)
        else:
            start, end = meta.start_pos, meta.end_pos
        return handler(kids, start, end)

    # -- atoms: tokens become nodes where they are used -------------------------------------

    def expr(self, x: Any) -> ast.Expr:
        """Any child standing as a value: a token, a node, or braces holding one value."""
        from lark import Token

        if isinstance(x, Token):
            return self.token_expr(x)
        if isinstance(x, _Braced):
            return self.braced_expr(x)
        if isinstance(x, _Script):  # pragma: no cover - the grammar never puts one here
            raise self.fail("misplaced script", x.start)
        return x

    def token_expr(self, t: Any) -> ast.Expr:
        s, e = t.start_pos, t.end_pos
        kind = t.type
        if kind == "LETTER":
            return ast.Symbol(str(t), start=s, end=e)
        if kind == "SYMBOL":
            font, name = str(t).split("|")
            return ast.Symbol(name, font or None, start=s, end=e)
        if kind == "NUMBER":
            return ast.Number(str(t), start=s, end=e)
        if kind == "REALS":
            return ast.Reals(start=s, end=e)
        if kind == "DOTS":
            return ast.Dots(str(t), start=s, end=e)
        if kind == "TOP":
            raise self.fail("\\top is only read as a superscript, x^\\top", s)
        raise self.fail(f"unexpected {str(t)!r}", s)  # pragma: no cover

    def braced_expr(self, b: _Braced) -> ast.Expr:
        for _value, rels in b.items:
            if rels:
                raise self.fail("a relation inside braces is only read in \\sum_{j=1}", b.start)
        values = [self.expr(v) for v, _ in b.items]
        if len(values) == 1:
            return values[0]
        return ast.Seq(tuple(values), start=b.start, end=b.end)

    # -- statements --------------------------------------------------------------------------

    def r_start(self, kids: list[Any], s: int, e: int) -> ast.Formula:
        items = kids[0]
        return ast.Formula(tuple(items), start=0, end=len(self.body))

    def r_items(self, kids: list[Any], s: int, e: int) -> list[ast.Item]:
        from lark import Token

        return _join_items(kids, Token, self.fail)

    def r_boxed(self, kids: list[Any], s: int, e: int) -> ast.Boxed:
        return ast.Boxed(tuple(kids[2]), start=s, end=e)

    def r_claim(self, kids: list[Any], s: int, e: int) -> ast.Claim:
        subject = self.expr(kids[0])
        return ast.Claim((subject,), tuple(kids[1:]), start=s, end=e)

    def r_condition(self, kids: list[Any], s: int, e: int) -> ast.Claim:
        subject = self.expr(kids[1])
        steps = tuple(k for k in kids[2:-1] if isinstance(k, ast.Step))
        return ast.Claim((subject,), steps, start=subject.start, end=steps[-1].end)

    def r_continuation(self, kids: list[Any], s: int, e: int) -> ast.Claim:
        return ast.Claim((), tuple(kids), start=s, end=e)

    def r_step(self, kids: list[Any], s: int, e: int) -> ast.Step:
        return ast.Step(str(kids[0]), self.expr(kids[1]), start=s, end=e)

    # -- operators ---------------------------------------------------------------------------

    def r_add(self, kids: list[Any], s: int, e: int) -> ast.Add:
        terms = tuple(self.expr(k) for k in kids[0::2])
        return ast.Add(terms, tuple(str(o) for o in kids[1::2]), start=s, end=e)

    def r_mul(self, kids: list[Any], s: int, e: int) -> ast.Mul:
        factors = tuple(self.expr(k) for k in kids[0::2])
        return ast.Mul(factors, tuple(str(o) for o in kids[1::2]), start=s, end=e)

    def r_juxt(self, kids: list[Any], s: int, e: int) -> ast.Expr:
        if (
            len(kids) == 2
            and isinstance(kids[0], ast.Group)
            and kids[0].delim == "("
            and getattr(kids[1], "type", None) == "TOP"
        ):
            # `K^{(h)\top}`: head h, transposed, as `K^{(h)\mathsf T}` (scripts.py)
            top = ast.Symbol("T", "mathsf", start=kids[1].start_pos, end=kids[1].end_pos)
            return ast.Product((kids[0], top), start=s, end=e)
        factors = _unbracketed_arguments([self.expr(k) for k in kids])
        if len(factors) == 1:
            return factors[0]
        return ast.Product(tuple(factors), start=s, end=e)

    def r_neg(self, kids: list[Any], s: int, e: int) -> ast.Neg:
        return ast.Neg(self.expr(kids[1]), start=s, end=e)

    def r_pos(self, kids: list[Any], s: int, e: int) -> ast.Expr:
        raise self.fail("a unary '+' is not read; drop it", s)

    # -- scripts -----------------------------------------------------------------------------

    def r_script(self, kids: list[Any], s: int, e: int) -> _Script:
        if kids[0].type == "PRIME":
            return _Script("PRIME", str(kids[0]), s, e)  # `'`, or `*` raised on a name
        return _Script(kids[0].type, kids[1], s, e)

    def r_postfix(self, kids: list[Any], s: int, e: int) -> ast.Expr:
        return apply_scripts(self.expr(kids[0]), kids[1:], self.expr, self.fail, s)

    # -- groups ------------------------------------------------------------------------------

    def r_group(self, kids: list[Any], s: int, e: int) -> ast.Group:
        return ast.Group(tuple(kids[1]), delim=str(kids[0]), start=s, end=e)

    def r_exprs(self, kids: list[Any], s: int, e: int) -> list[ast.Expr]:
        return [self.expr(k) for k in kids[0::2]]

    def r_stacked(self, kids: list[Any], s: int, e: int) -> ast.Group:
        """`[\\mathbf s_t; \\mathbf h_i]`: vectors written one after another, a list."""
        items = tuple(self.expr(k) for k in kids[1:-1:2])
        return ast.Group(items, delim="[", stacked=True, start=s, end=e)

    def r_set(self, kids: list[Any], s: int, e: int) -> ast.Set:
        items = kids[1] if len(kids) == 3 else []
        return ast.Set(tuple(items), start=s, end=e)

    def r_set_of(self, kids: list[Any], s: int, e: int) -> ast.Set:
        such_that: list[ast.Expr] = []
        for value, rels in kids[3:-1:2]:
            such_that.append(self.expr(value))
            such_that.extend(x for _, x in rels)
        return ast.Set((self.expr(kids[1]),), tuple(such_that), start=s, end=e)

    def r_braced(self, kids: list[Any], s: int, e: int) -> _Braced:
        return _Braced(list(kids[1:-1:2]), s, e)

    def r_bitem(self, kids: list[Any], s: int, e: int) -> tuple[Any, list[tuple[str, Any]]]:
        rels = [(str(r), self.expr(x)) for r, x in zip(kids[1::2], kids[2::2], strict=True)]
        return (kids[0], rels)

    # -- named constructs --------------------------------------------------------------------

    def r_call(self, kids: list[Any], s: int, e: int) -> ast.Call | ast.Power:
        name = str(kids[0])
        rest = kids[1:]
        group = rest.pop() if rest and isinstance(rest[-1], ast.Group) else None
        power, rest = _function_power(name, rest, self.expr)
        if name in _RANGED:
            _ranged_scripts(name, rest, self.fail)
        sub = call_sub(name, rest, self.expr, self.fail)
        if group is not None and group.delim != "(" and name.lower() in _BUILTIN_CALLS:
            if len(group.items) != 1:
                raise self.fail(f"\\{name}[...]: arguments go in parentheses", group.start)
            # `\\exp[\\phi(x)]`: brackets around one argument, as parentheses
            group = ast.Group(group.items, start=group.start, end=group.end)
        args = group.items if group is not None else ()
        call = ast.Call(name, args, sub, group is not None, start=s, end=e)
        return call if power is None else ast.Power(call, power, start=s, end=e)

    def r_frac(self, kids: list[Any], s: int, e: int) -> ast.Frac:
        return ast.Frac(self.expr(kids[1]), self.expr(kids[2]), start=s, end=e)

    def r_sqrt(self, kids: list[Any], s: int, e: int) -> ast.Sqrt:
        return ast.Sqrt(self.expr(kids[1]), start=s, end=e)

    def r_sum(self, kids: list[Any], s: int, e: int) -> ast.Sum:
        ranges = sum_range(kids[1:-1], self.expr, self.fail, s)
        return _nested(ranges, self.expr(kids[-1]), s, e)

    def r_sum_neg(self, kids: list[Any], s: int, e: int) -> ast.Sum:
        """`\\sum_{x} -\\log p(x)`: a sum of negated terms."""
        ranges = sum_range(kids[1:-2], self.expr, self.fail, s)
        body = ast.Neg(self.expr(kids[-1]), start=kids[-2].start_pos, end=e)
        return _nested(ranges, body, s, e)

    def r_accent(self, kids: list[Any], s: int, e: int) -> ast.Symbol:
        letter = self.expr(kids[1])
        if not isinstance(letter, ast.Symbol) or letter.font == "text":
            raise self.fail(f"\\{kids[0]} is read on one letter, as in \\{kids[0]} y", s)
        if letter.sub is not None and (letter.font is not None or len(letter.name) != 1):
            raise self.fail(f"\\{kids[0]} is read on one letter, as in \\{kids[0]} y", s)
        # `\widetilde{Z_j}` is `\widetilde Z_j`: the accent makes the name, the index stays
        return ast.Symbol(letter.name, str(kids[0]), letter.sub, start=s, end=e)

    def r_inner(self, kids: list[Any], s: int, e: int) -> ast.Inner:
        return ast.Inner(self.expr(kids[1]), self.expr(kids[3]), start=s, end=e)

    def r_abs(self, kids: list[Any], s: int, e: int) -> ast.Abs:
        return ast.Abs(self.expr(kids[1]), start=s, end=e)

    def r_norm(self, kids: list[Any], s: int, e: int) -> ast.Norm:
        return ast.Norm(self.expr(kids[1]), start=s, end=e)

    def r_matrix(self, kids: list[Any], s: int, e: int) -> ast.Matrix:
        env = str(kids[0])
        rows = list(kids[1:-1:2])
        if len(rows) > 1 and rows[-1] == [None]:
            rows.pop()  # a trailing \\ before \end
        if env == "array":
            rows = _without_labels(rows)
        for row in rows:
            if any(cell is None for cell in row):
                raise self.fail(f"empty cell in \\begin{{{env}}}", s)
        return ast.Matrix(env, tuple(tuple(r) for r in rows), start=s, end=e)

    def r_mrow(self, kids: list[Any], s: int, e: int) -> list[ast.Expr | None]:
        return list(kids[0::2])

    def r_cell(self, kids: list[Any], s: int, e: int) -> ast.Expr | None:
        return self.expr(kids[0]) if kids else None


def _nested(ranges: list[Any], body: ast.Expr, s: int, e: int) -> ast.Sum:
    """`\\sum_{kl} body`: the sum over k of the sum over l of body."""
    for var, lower, upper in reversed(ranges):
        body = ast.Sum(var, lower, upper, body, start=s, end=e)
    assert isinstance(body, ast.Sum)
    return body


def _without_labels(rows: list[list[Any]]) -> list[list[Any]]:
    """A table's header row and label column (all `\\text`, so all empty here) are prose."""
    if len(rows) > 1 and all(cell is None for cell in rows[0]):
        rows = rows[1:]
    if rows and all(len(r) > 1 and r[0] is None for r in rows):
        rows = [r[1:] for r in rows]
    return rows


def _first_start(kids: list[Any]) -> int:
    for k in kids:
        start = getattr(k, "start_pos", None)
        if start is None:
            start = getattr(k, "start", None)
        if isinstance(start, int):
            return start
    return 0


#: Functions whose argument TeX writes without parentheses: `\\cos m\\theta` is cos(mθ).
_UNBRACKETED = frozenset("sin cos tan tanh log ln exp".split())


def _function_power(name: str, scripts: list[Any], expr: Callable[[Any], Any]) -> tuple[Any, list]:
    """`\\sin^2 x`, `\\cos^2(x)`: a positive whole power of a function of numbers is the power
    of its value (`\\sin^{-1}` is another function, and stays refused)."""
    for k, script in enumerate(scripts):
        if script.kind == "SUP" and name in _UNBRACKETED:
            power = expr(script.arg)
            if isinstance(power, ast.Number) and power.text.isdigit():
                return power, scripts[:k] + scripts[k + 1 :]
    return None, scripts


def _bare_function(f: ast.Expr) -> bool:
    """A function of numbers written without parentheses (`\\cos m`, `\\sin^2 x`)."""
    if isinstance(f, ast.Power):
        f = f.base
    return isinstance(f, ast.Call) and not f.parens and f.sub is None and f.name in _UNBRACKETED


#: Operators over an index written before what they range over: `\\max_i s_i`, `\\min_j x_j`.
_RANGED = frozenset("max min argmax argmin sup inf".split())


def _ranged_scripts(name: str, scripts: list[Any], fail: Callable[[str, int], ParseError]) -> None:
    """`\\max_{k=1}^V x_k`, `\\max_{0 \\le i < d/2}`: the range of a largest value is refused
    by name (the reader reads `\\max_k x_k`, over an index alone)."""
    for script in scripts:
        ranged = script.kind == "SUP" or any(rels for _, rels in getattr(script.arg, "items", ()))
        if ranged:
            raise fail(
                f"\\{name} over a range of its index (\\{name}_{{k=1}}^n x_k) is not read: "
                f"write \\{name}_k x_k",
                script.start,
            )


def _ranged_function(f: ast.Expr) -> bool:
    """`\\max_i s_i`: an operator with its index below and no parentheses."""
    return isinstance(f, ast.Call) and not f.parens and f.sub is not None and f.name in _RANGED


def _applied(f: ast.Expr, body: ast.Expr, end: int) -> ast.Expr:
    if isinstance(f, ast.Power):
        inner = _applied(f.base, body, end)
        return ast.Power(inner, f.exponent, start=f.start, end=end)
    assert isinstance(f, ast.Call)
    return ast.Call(f.name, (body,), f.sub, True, start=f.start, end=end)


def _unbracketed_arguments(factors: list[ast.Expr]) -> list[ast.Expr]:
    """`\\cos m\\theta \\sin n\\theta`: each of sin, cos, tan written without parentheses takes
    the factors after it, up to the next such function, as its argument; so does `\\max_i`
    (`\\max_i p_i q_i` is the largest of the products)."""
    out: list[ast.Expr] = []
    k = 0
    while k < len(factors):
        f = factors[k]
        if _bare_function(f) or _ranged_function(f):
            j = k + 1
            while j < len(factors):
                g = factors[j]
                g = g.base if isinstance(g, ast.Power) else g
                if isinstance(g, ast.Call) and g.name in _UNBRACKETED:
                    break
                j += 1
            arg = factors[k + 1 : j]
            if arg:
                body = (
                    arg[0]
                    if len(arg) == 1
                    else ast.Product(tuple(arg), start=arg[0].start, end=arg[-1].end)
                )
                out.append(_applied(f, body, arg[-1].end))
                k = j
                continue
        out.append(f)
        k += 1
    return out


def _join_items(kids: list[Any], token_class: type, fail: Callable[[str, int], ParseError]) -> Any:

    return join_items(kids, token_class, fail)
