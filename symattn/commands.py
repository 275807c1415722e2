"""The CLI's own commands, `prove`, `rules` and `shapes`: the work and its text/JSON output.

Imports the kernel and the reader; the checker (symattn.check) only lazily, inside `prove`.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any, TextIO

import sympy

from symattn import dims as D
from symattn import expr as E
from symattn.errors import ParseError, ShapeError, SymattnError, UnknownNameError
from symattn.show import plain, text

OK, FALSE, USAGE = 0, 1, 2

# ---- colour -----------------------------------------------------------------------------

_COLOURS = {
    "proved": "32",
    "checked": "36",
    "agreed": "33",
    "unknown": "33",
    "false": "31",
    "shape_error": "31",
    "error": "31",
    "ok": "32",
}


def use_colour(stream: TextIO, mode: str = "auto") -> bool:
    """Colour only on a terminal, never when NO_COLOR is set (unless forced with `always`).

    >>> import io
    >>> use_colour(io.StringIO()), use_colour(io.StringIO(), "always")
    (False, True)
    """
    if mode == "always":
        return True
    if mode == "never" or os.environ.get("NO_COLOR"):
        return False
    return hasattr(stream, "isatty") and stream.isatty()


def paint(word: str, key: str, on: bool) -> str:
    """`word` in the colour of `key` (a status) when `on`.

    >>> paint("false", "false", True), paint("false", "false", False)
    ('\\x1b[31mfalse\\x1b[0m', 'false')
    """
    code = _COLOURS.get(key)
    return f"\033[{code}m{word}\033[0m" if on and code else word


def _emit_json(data: object, out: TextIO) -> None:
    json.dump(data, out, ensure_ascii=False, indent=2)
    out.write("\n")


class Progress:
    """`k/N what` on one stderr line, rewritten in place; silent unless stderr is a terminal."""

    def __init__(self, total: int, what: str, stream: TextIO | None = None):
        self.total, self.what = total, what
        self.stream = stream if stream is not None else sys.stderr
        self.on = hasattr(self.stream, "isatty") and self.stream.isatty()

    def __call__(self, k: int, label: str) -> None:
        if self.on:
            self.stream.write(f"\r\033[K{self.what} {k}/{self.total}: {label}")
            self.stream.flush()

    def done(self) -> None:
        if self.on:
            self.stream.write("\r\033[K")
            self.stream.flush()


# ---- --dims and --assume ----------------------------------------------------------------


@dataclass(frozen=True)
class Declared:
    """A matrix named on the command line: `Q` (n × d_k), or a head family `Z^{(h)}`."""

    name: str
    rows: sympy.Expr
    cols: sympy.Expr
    family: bool = False


_NAME = r"[A-Za-z](?:_\{?[A-Za-z0-9]+\}?)?"
_SEP = re.compile(r"\s+x\s+|\s*×\s*|\s*\\times\s*")
_DIM_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z](?:_\{?[A-Za-z0-9]+\}?)?)|([*/()]))")


def _key(name: str, family: bool) -> str:
    return name + "^{(h)}" if family else name


def _norm_name(name: str) -> str:
    return re.sub(r"_\{([A-Za-z0-9]+)\}", r"_\1", name.strip())


def parse_dims(spec: str | None) -> dict[str, Declared]:
    """Read `--dims 'Q,K: n x d_k; V: n x d_v; Z^{(h)}: n x d_v'` (`x`, `×` or `\\times`).

    >>> m = parse_dims("Q,K: n x d_k; W_O: H*d_v x d")
    >>> m["K"].rows, m["W_O"].rows
    (n, H*d_v)
    """
    out: dict[str, Declared] = {}
    for part in (spec or "").replace("\n", ";").split(";"):
        if not part.strip():
            continue
        names, colon, shape = part.partition(":")
        sides = _SEP.split(shape.strip())
        if not colon or len(sides) != 2 or not names.strip():
            raise ParseError(
                f"cannot read --dims entry {part.strip()!r}: write 'Q,K: n x d_k' "
                "(names, a colon, rows x cols; entries separated by ';')"
            )
        rows, cols = (parse_dim(s) for s in sides)
        for raw in names.split(","):
            name, family = _declared_name(raw, part)
            out[_key(name, family)] = Declared(name, rows, cols, family)
    return out


def _declared_name(raw: str, part: str) -> tuple[str, bool]:
    text = raw.strip()
    family = text.endswith("^{(h)}") or text.endswith("^(h)")
    base = re.sub(r"\^\{?\(h\)\}?$", "", text)
    if not re.fullmatch(_NAME, base):
        raise ParseError(f"cannot read the name {text!r} in --dims entry {part.strip()!r}")
    return _norm_name(base), family


def parse_dim(text: str) -> sympy.Expr:
    """A dim written `n`, `d_k`, `64`, `H*d_v`, `H d_v` or `d/H` (no eval of user text).

    >>> parse_dim("H d_v"), parse_dim("2*n")
    (H*d_v, 2*n)
    """
    tokens = _dim_tokens(text)
    value, rest = _dim_product(tokens, text)
    if rest:
        raise ParseError(f"cannot read the dim {text.strip()!r}: unexpected {rest[0]!r}")
    try:
        return D.as_dim(value)
    except SymattnError as exc:
        raise ParseError(f"cannot use the dim {text.strip()!r}: {exc}") from None


def _dim_tokens(text: str) -> list[str]:
    pos, out = 0, []
    while pos < len(text.rstrip()):
        m = _DIM_TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise ParseError(f"cannot read the dim {text.strip()!r} at {text[pos:].strip()!r}")
        out.append(m.group(0).strip())
        pos = m.end()
    if not out:
        raise ParseError("empty dim: write rows x cols, e.g. 'n x d_k'")
    return out


def _dim_product(tokens: list[str], text: str) -> tuple[sympy.Expr, list[str]]:
    value, tokens = _dim_atom(tokens, text)
    while tokens and tokens[0] != ")":
        op = tokens[0] if tokens[0] in "*/" else "*"
        if tokens[0] in "*/":
            tokens = tokens[1:]
        rhs, tokens = _dim_atom(tokens, text)
        value = value * rhs if op == "*" else value / rhs
    return value, tokens


def _dim_atom(tokens: list[str], text: str) -> tuple[sympy.Expr, list[str]]:
    if not tokens:
        raise ParseError(f"cannot read the dim {text.strip()!r}: it ends too early")
    tok, rest = tokens[0], tokens[1:]
    if tok == "(":
        value, rest = _dim_product(rest, text)
        if not rest or rest[0] != ")":
            raise ParseError(f"cannot read the dim {text.strip()!r}: unbalanced parentheses")
        return value, rest[1:]
    if tok.isdigit():
        return sympy.Integer(int(tok)), rest
    if tok in "*/)":
        raise ParseError(f"cannot read the dim {text.strip()!r}: unexpected {tok!r}")
    name = _norm_name(tok)
    return D.STANDARD_DIMS.get(name, D.dim(name)), rest


def parse_assume(items: list[str] | None) -> dict[str, sympy.Expr]:
    """Read `--assume d_k=d/H` (repeatable) into keyword arguments for `symattn.dims.assume`.

    >>> parse_assume(["d_k=d/H"])
    {'d_k': d/H}
    """
    out: dict[str, sympy.Expr] = {}
    for item in items or []:
        name, eq, value = item.partition("=")
        if not eq or not re.fullmatch(_NAME, name.strip()):
            raise ParseError(f"cannot read --assume {item!r}: write NAME=DIM, e.g. d_k=d/H")
        out[_norm_name(name)] = parse_dim(value)
    return out


def _assuming(equalities: Mapping[str, sympy.Expr]) -> AbstractContextManager[Any]:
    return D.assume(**equalities) if equalities else nullcontext()


# ---- shapes -----------------------------------------------------------------------------


@dataclass
class ShapeStep:
    """One subexpression, where it is written (offsets in the user's text) and its shape."""

    text: str
    shape: tuple[str, str] | None  # None for a scalar
    start: int
    end: int

    def as_json(self) -> dict[str, Any]:
        return {
            "expr": self.text,
            "shape": list(self.shape) if self.shape else "scalar",
            "start": self.start,
            "end": self.end,
        }


@dataclass
class ShapeReport:
    """The steps that typechecked, in the order they were built, and the first error if any."""

    source: str
    steps: list[ShapeStep] = field(default_factory=list)
    error: str | None = None
    error_span: tuple[int, int] | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def default_matrices() -> dict[str, Declared]:
    """The chapter's names (X, W_Q, ..., W_O, O) and head families Z^{(h)}, Q^{(h)}, ... .

    >>> m = default_matrices()
    >>> (m["W_O"].rows, m["W_O"].cols), m["Z^{(h)}"].family
    ((H*d_v, d), True)
    """
    n, d, d_k, d_v, H = D.n, D.d, D.d_k, D.d_v, D.H
    table = {
        "X": (n, d),
        "W_Q": (d, d_k),
        "W_K": (d, d_k),
        "W_V": (d, d_v),
        "Q": (n, d_k),
        "K": (n, d_k),
        "V": (n, d_v),
        "A": (n, n),
        "S": (n, n),
        "Z": (n, d_v),
        "W_O": (H * d_v, d),
        "O": (n, d),
    }
    out = {k: Declared(k, r, c) for k, (r, c) in table.items()}
    for name in ("Z", "Q", "K", "V", "A", "W_Q", "W_K", "W_V"):  # per-head families
        r, c = table[name]
        out[_key(name, True)] = Declared(name, r, c, family=True)
    return out


_WORDS = re.compile(r"(?<![\\{A-Za-z])(softmax|sqrt|mask|Concat|concat)(?=\s*\()")


def _latexify(source: str) -> tuple[str, Callable[[int], int]]:
    """Accept `softmax(...)`, `sqrt(...)` as well as LaTeX; map offsets back to the source."""
    pieces: list[tuple[int, int, int, int]] = []  # new start, new length, old start, old length
    out, last, shift = [], 0, 0
    for m in _WORDS.finditer(source):
        new = rf"\operatorname{{{m.group(1)}}}"
        out += [source[last : m.start()], new]
        pieces.append((m.start() + shift, len(new), m.start(), len(m.group(1))))
        shift += len(new) - len(m.group(1))
        last = m.end()
    out.append(source[last:])

    def back(pos: int) -> int:
        delta = 0
        for new_start, new_len, old_start, old_len in pieces:
            if pos < new_start:
                break
            if pos < new_start + new_len:
                return old_start + min(max(pos - new_start - (new_len - old_len), 0), old_len)
            delta += new_len - old_len
        return pos - delta

    return "".join(out), back


def shapes(
    source: str,
    declared: Mapping[str, Declared] | None = None,
    equalities: Mapping[str, sympy.Expr] | None = None,
) -> ShapeReport:
    """The shape of every subexpression of `source`, bottom up; stops at the first shape error.

    >>> r = shapes("softmax(QK^T/sqrt(d_k))V")
    >>> [(s.text, s.shape) for s in r.steps][-1]
    ('softmax(QK^T/sqrt(d_k))V', ('n', 'd_v'))
    >>> shapes("QK").error.splitlines()[0]
    'cannot multiply Q (n × d_k) by K (n × d_k): inner dims d_k and n are not provably equal'
    """
    from symattn.reader import ast, parse_formula

    body, back = _latexify(source)
    try:
        formula = parse_formula(body)
    except ParseError as exc:
        pos = exc.position
        if pos is not None:
            raise ParseError(exc.message, _position(back(pos.offset), source)) from None
        raise
    report = ShapeReport(source)
    table = {**default_matrices(), **dict(declared or {})}
    builder = _Builder(table, report, back, source)
    claims = [it for it in formula.items if isinstance(it, ast.Claim)]
    if len(claims) != 1 or len(claims[0].subjects) != 1:
        raise ParseError("shapes takes one expression (or one chain 'a = b = ...')")
    claim = claims[0]
    with _assuming(equalities or {}):
        try:
            sides = [builder.build(claims[0].subjects[0])]
            for step in claim.steps:
                if step.rel != "=":
                    raise ParseError(f"shapes reads '=' chains only, not {step.rel!r}")
                sides.append(builder.build(step.rhs))
            _compare_sides(sides, claim, report, back)
        except ShapeError as exc:
            report.error = str(exc)
    return report


def _position(offset: int, source: str) -> Any:
    from symattn.errors import Position

    line = source.count("\n", 0, offset) + 1
    col = offset - (source.rfind("\n", 0, offset) + 1) + 1
    return Position(line, col, offset)


def _compare_sides(sides: list[sympy.Basic], claim: Any, report: ShapeReport, back: Any) -> None:
    from symattn.proof import check_shapes

    for k in range(1, len(sides)):
        problem = check_shapes(sides[0], sides[k])
        if problem is not None:
            node = claim.steps[k - 1].rhs
            report.error_span = (back(node.start), back(node.end))
            raise ShapeError(f"the sides of '=' differ: {problem}")


class _Builder:
    """A small resolver for `shapes`: reader AST -> kernel expression, recording every step."""

    def __init__(self, table: Mapping[str, Declared], report: ShapeReport, back: Any, src: str):
        self.table, self.report, self.back, self.src = table, report, back, src

    def build(self, node: Any) -> sympy.Basic:
        try:
            value = self._build(node)
        except ShapeError:
            if self.report.error_span is None:
                self.report.error_span = (self.back(node.start), self.back(node.end))
            raise
        self._record(node, value)
        return value

    def _record(self, node: Any, value: sympy.Basic, end_node: Any = None) -> None:
        start, end = self.back(node.start), self.back((end_node or node).end)
        if self.report.steps and (self.report.steps[-1].start, self.report.steps[-1].end) == (
            start,
            end,
        ):
            return  # a group and what it holds: show once
        shape = None
        if isinstance(value, E.MatExpr):
            shape = (D.dim_str(value.rows), D.dim_str(value.cols))
        elif isinstance(value, (sympy.Symbol, sympy.Number)):
            return  # a bare dim or number needs no line of its own
        self.report.steps.append(ShapeStep(text(value), shape, start, end))

    def _build(self, node: Any) -> sympy.Basic:
        from symattn.reader import ast

        handler = getattr(self, f"_{type(node).__name__.lower()}", None)
        if handler is None:
            what = ast.dump(node)
            raise self._unsupported(node, f"'{what}' is not supported by shapes")
        result: sympy.Basic = handler(node)
        return result

    def _unsupported(self, node: Any, message: str) -> ParseError:
        return ParseError(message, _position(self.back(node.start), self.src))

    # -- leaves --
    def _symbol(self, node: Any) -> sympy.Basic:
        from symattn.reader import ast

        name = node.name
        if node.sub is not None:
            if not isinstance(node.sub, (ast.Symbol, ast.Number, ast.Product)):
                raise self._unsupported(node, f"cannot read the subscript of {name}")
            name += "_" + "".join(_leaf_text(f) for f in _flat(node.sub))
        if name in self.table:
            m = self.table[name]
            return E.MatSym(name, m.rows, m.cols)
        if name in D.STANDARD_DIMS or _is_declared_dim(name, self.table):
            return D.STANDARD_DIMS.get(name, D.dim(name))
        raise UnknownNameError(_unknown(name, self.table))

    def _number(self, node: Any) -> sympy.Basic:
        return sympy.Rational(node.text)

    def _headsup(self, node: Any) -> sympy.Basic:
        from symattn.reader import ast

        op = node.operand
        if not isinstance(op, ast.Symbol):
            raise self._unsupported(node, "a head superscript must follow a name, as in Z^{(h)}")
        name = op.name + (
            "_" + "".join(_leaf_text(f) for f in _flat(op.sub)) if op.sub is not None else ""
        )
        head = self._head(node.head)
        family = self.table.get(_key(name, True))
        if family is not None:
            return E.HeadSym(name, head, family.rows, family.cols)
        m = self.table.get(name)
        if m is None or name != "W_O":
            raise UnknownNameError(_unknown(_key(name, True), self.table))
        # W_O^{(h)} is the h-th block of d_v rows of W_O (the chapter's block identity)
        return E.RowBlock(E.MatSym(name, m.rows, m.cols), head, D.d_v, D.H)

    def _head(self, node: Any) -> sympy.Basic:
        from symattn.reader import ast

        if isinstance(node, ast.Symbol) and node.sub is None and node.name.islower():
            return E.index(node.name)  # the head index h of Z^{(h)}
        return self._build(node)

    def _power(self, node: Any) -> sympy.Basic:
        raise self._unsupported(
            node,
            "a power or mixed superscript is not supported by shapes: write ^T for a "
            "transpose and (K^{(h)})^T for the transpose of a head",
        )

    # -- structure --
    def _group(self, node: Any) -> sympy.Basic:
        if len(node.items) != 1:
            raise self._unsupported(node, "a tuple has no shape")
        return self.build(node.items[0])

    def _product(self, node: Any) -> sympy.Basic:
        return self._fold(node, ["*"] * (len(node.factors) - 1))

    def _mul(self, node: Any) -> sympy.Basic:
        return self._fold(node, list(node.ops))

    def _fold(self, node: Any, ops: list[str]) -> sympy.Basic:
        """Left to right; each partial product is a step, and an error points at its span."""
        value = self.build(node.factors[0])
        for k, (op, f) in enumerate(zip(ops, node.factors[1:], strict=True), start=2):
            rhs = self.build(f)
            try:
                value = _divide(value, rhs) if op == "/" else _times(value, rhs)
            except ShapeError:
                self.report.error_span = (self.back(node.start), self.back(f.end))
                raise
            if k < len(node.factors):  # the whole node is recorded by build()
                self._record(node, value, end_node=f)
        return value

    def _frac(self, node: Any) -> sympy.Basic:
        return _divide(self.build(node.num), self.build(node.den))

    def _sqrt(self, node: Any) -> sympy.Basic:
        return self._sqrt_value(self.build(node.radicand))

    def _transpose(self, node: Any) -> sympy.Basic:
        x = self.build(node.operand)
        if not isinstance(x, E.MatExpr):
            raise ShapeError(f"cannot transpose the scalar {text(x)}")
        return x.T

    def _add(self, node: Any) -> sympy.Basic:
        value = self.build(node.terms[0])
        for op, t in zip(node.ops, node.terms[1:], strict=True):
            rhs = self.build(t)
            both = isinstance(value, E.MatExpr), isinstance(rhs, E.MatExpr)
            if both[0] != both[1]:
                raise ShapeError(f"cannot add a matrix and a scalar: {text(value)} and {text(rhs)}")
            value = value + rhs if op == "+" else value - rhs
        return value

    def _neg(self, node: Any) -> sympy.Basic:
        return -self.build(node.operand)

    def _call(self, node: Any) -> sympy.Basic:
        name = node.name
        if name in ("Concat", "concat"):
            return self._concat(node)
        if len(node.args) != 1:
            raise self._unsupported(node, f"{name} takes one argument here")
        x = self.build(node.args[0])
        if name == "sqrt":
            return self._sqrt_value(x)
        if not isinstance(x, E.MatExpr):
            raise ShapeError(f"{name} needs a matrix, got the scalar {text(x)}")
        if name == "softmax":
            return E.Softmax(x)
        if name == "mask":
            return E.CausalMask(x)
        raise self._unsupported(node, f"unknown operator {name!r} (known: softmax, mask, Concat)")

    def _sqrt_value(self, x: sympy.Basic) -> sympy.Basic:
        if isinstance(x, E.MatExpr):
            raise ShapeError(f"cannot take the square root of the matrix {plain(x)}")
        return sympy.sqrt(x)

    def _concat(self, node: Any) -> sympy.Basic:
        from symattn.reader import ast

        args = node.args
        ok = len(args) == 3 and isinstance(args[1], ast.Dots)
        if not ok or not all(isinstance(a, ast.HeadSup) for a in (args[0], args[2])):
            raise self._unsupported(node, "write Concat(Z^{(1)},\\ldots,Z^{(H)})")
        first, last = self.build(args[0]), self.build(args[2])
        if not isinstance(first, E.HeadSym) or first.head != 1:
            raise self._unsupported(node, "Concat must start at head 1: Concat(Z^{(1)},...)")
        assert isinstance(last, E.HeadSym)
        h = E.index("h")
        return E.Concat(E.HeadSym(first.name, h, first.rows, first.cols), h, last.head)


def _flat(node: Any) -> list[Any]:
    from symattn.reader import ast

    return list(node.factors) if isinstance(node, ast.Product) else [node]


def _leaf_text(node: Any) -> str:
    from symattn.reader import ast

    if isinstance(node, ast.Symbol) and node.sub is None:
        return str(node.name)
    if isinstance(node, ast.Number):
        return str(node.text)
    raise ParseError("subscripts of names are letters or digits here (W_Q, d_k, W_{O})")


def _is_declared_dim(name: str, table: Mapping[str, Declared]) -> bool:
    return any(name in {str(s) for s in (m.rows * m.cols).free_symbols} for m in table.values())


def _unknown(name: str, table: Mapping[str, Declared]) -> str:
    import difflib

    close = difflib.get_close_matches(name, list(table), n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return f"unknown name {name!r}: declare it with --dims '{name}: rows x cols'{hint}"


def _times(a: sympy.Basic, b: sympy.Basic) -> sympy.Basic:
    am, bm = isinstance(a, E.MatExpr), isinstance(b, E.MatExpr)
    if am and bm:
        return a @ b
    if am:
        return E.Scale(b, a)
    if bm:
        return E.Scale(a, b)
    return a * b


def _divide(a: sympy.Basic, b: sympy.Basic) -> sympy.Basic:
    if isinstance(b, E.MatExpr):
        raise ShapeError(f"cannot divide by the matrix {plain(b)}")
    return a / b


# ---- rules ------------------------------------------------------------------------------


def rule_rows(words: str = "", *, check: bool = True, lang: str = "en") -> list[dict[str, Any]]:
    """One record per named rule matching `words` (all rules when empty), with its verdict.

    >>> row = rule_rows("mul_transpose_apply_dot")[0]
    >>> row["statement"], row["status"], row["witnesses"]
    ('(QK^T)_{ij} = q_i·k_j', 'proved', ['symbolic', 'exact', 'numeric'])
    """
    from symattn import rules

    found = rules.search(words) if words.strip() else list(rules.registry().values())
    progress = Progress(len(found), "checking rule")
    rows = []
    for k, rule in enumerate(found, start=1):
        progress(k, rule.name)
        rows.append(_rule_row(rule, check, lang))
    progress.done()
    return rows


def _rule_row(rule: Any, check: bool, lang: str) -> dict[str, Any]:
    from symattn.rules import describe

    lhs, rhs = rule.sides()
    conditions = [text(c) for c in rule.assuming()]
    row: dict[str, Any] = {
        "name": rule.name,
        "statement": f"{text(lhs)} = {text(rhs)}",
        "lhs": text(lhs),
        "rhs": text(rhs),
        "assuming": conditions,
        "description": describe(rule.name, lang),
    }
    if check:
        verdict = rule.check()
        row.update(_verdict_record(verdict))
    return row


def _verdict_record(v: Any) -> dict[str, Any]:
    """A verdict as JSON-ready data."""
    return {
        "status": v.status,
        "witnesses": list(v.witnesses),
        "summary": v.summary(),
        "counterexample": str(v.counterexample) if v.counterexample is not None else None,
    }


def _print_rules(rows: list[dict[str, Any]], out: TextIO, colour: bool) -> None:
    width = max((len(r["name"]) for r in rows), default=0)
    for r in rows:
        head = r["name"].ljust(width)
        if "status" in r:
            badge = paint(r["status"], r["status"], colour)
            head += f"  {badge} [{'+'.join(r['witnesses']) or 'none'}]"
        out.write(head + "\n")
        cond = f"    (when {', '.join(r['assuming'])})" if r["assuming"] else ""
        out.write(f"    {r['statement']}{cond}\n    {r['description']}\n")


# ---- command runners (called by symattn.cli) -------------------------------------------


def run_rules(args: Any, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    rows = rule_rows(" ".join(args.words), check=not args.no_check, lang=args.lang)
    if not rows:
        sys.stderr.write(f"symattn rules: no rule matches {' '.join(args.words)!r}\n")
    if args.format == "json":
        _emit_json(rows, out)
    else:
        _print_rules(rows, out, use_colour(out, args.color))
    bad = [r for r in rows if "status" in r and r["status"] not in ("proved", "checked")]
    return FALSE if bad else OK


def run_shapes(args: Any, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    report = shapes(args.expression, parse_dims(args.dims), parse_assume(args.assume))
    if args.format == "json":
        _emit_json(
            {
                "expression": report.source,
                "ok": report.ok,
                "steps": [s.as_json() for s in report.steps],
                "error": report.error,
                "error_span": list(report.error_span) if report.error_span else None,
            },
            out,
        )
    else:
        _print_shapes(report, out, use_colour(out, args.color))
    return OK if report.ok else FALSE


def _print_shapes(report: ShapeReport, out: TextIO, colour: bool) -> None:
    width = min(max((len(s.text) for s in report.steps), default=0), 48)
    for s in report.steps:
        shape = " × ".join(s.shape) if s.shape else "scalar"
        out.write(f"{s.text.ljust(width)}  {shape}\n")
    if report.error is not None:
        out.write(f"{paint('error[shape]', 'error', colour)}: {report.error}\n")
        if report.error_span is not None and "\n" not in report.source:
            a, b = report.error_span
            out.write(f"  {report.source}\n  {' ' * a}{'^' * max(b - a, 1)}\n")


def run_prove(args: Any, out: TextIO | None = None) -> int:
    """`symattn prove`: 0 proved or checked, 1 false, a shape error or not proved, 2 unreadable."""
    out = out or sys.stdout
    check = import_optional("symattn.check", "prove")
    progress = Progress(1, "proving")
    progress(1, args.formula[:60])
    try:
        equalities = parse_assume(args.assume)
        with _assuming(equalities):
            results = check.check_formula(args.formula, args.dims, assume=equalities)
    finally:
        progress.done()
    claims = [r for r in results if r.kind not in ("declaration", "not-a-claim")]
    code = prove_exit_code([r.kind for r in claims])
    if args.format == "json":
        _emit_json(
            {
                "formula": args.formula,
                "ok": code == OK,
                "exit_code": code,
                "results": [r.to_json() for r in results],
            },
            out,
        )
    else:
        colour = use_colour(out, args.color)
        for r in results:
            out.write(check.format_diagnostic(r, colour) + "\n")
    if not claims:
        sys.stderr.write(f"symattn prove: error: no claim to prove in {args.formula!r}\n")
    elif code != OK and args.format != "json":
        sys.stderr.write(f"symattn prove: {_prove_outcome(claims)}\n")
    return code


def prove_exit_code(kinds: list[str]) -> int:
    """0 when every claim is verified; 2 when one cannot be read, the kernel failed on one (a
    soundness alarm, an internal error) or there is none; else 1.

    `prove` is asked to prove, so a claim only agreed numerically or undecided fails (1).

    >>> prove_exit_code(["verified"]), prove_exit_code(["false"]), prove_exit_code([])
    (0, 1, 2)
    """
    if not kinds or "not-understood" in kinds or "error" in kinds:
        return USAGE
    return OK if all(k == "verified" for k in kinds) else FALSE


def _prove_outcome(claims: list[Any]) -> str:
    kinds = [r.kind for r in claims]
    for kind, words in (
        ("error", "the kernel failed on this claim (a soundness alarm or an internal error)"),
        ("not-understood", "the formula could not be read"),
        ("false", "the claim is false"),
        ("shape-error", "the shapes do not agree"),
        ("undecided", "the claim is not proved (undecided or numeric agreement only)"),
    ):
        if kind in kinds:
            return words
    return "not proved"


def import_optional(module: str, command: str) -> Any:
    """Import a front-end module for a subcommand, or say clearly that it is missing.

    >>> import_optional("symattn.no_such_front_end", "frob")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    symattn.commands.MissingCommand: 'frob' is not available in this installation (...)
    """
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingCommand(
            f"'{command}' is not available in this installation ({module}: {exc})"
        ) from None


class MissingCommand(SymattnError):
    """A subcommand whose module is not installed or could not be imported (exit 2)."""
