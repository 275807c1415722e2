"""The online softmax's step as papers write it, read into a kernel step over one block of keys.
Imports sympy, the kernel's entries and segments, and the reader's AST; nothing above the reader.

A value is a row's scalar (`m^{(b)}`, `\\operatorname{rowsum}(...)`), a block (`S^{(b)}`,
`e^{S^{(b)}-m^{(b)}}`: an entry per key of the block), the block of values (`V_b`), or an output
row (`O^{(b)}`, `e^{S^{(b)}-m^{(b)}}V_b`: an entry per column of V). Anything else is not read:
`Unread` names it, and the claim is then not understood, never guessed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

import sympy

from symattn.kernel.errors import Signal
from symattn.kernel.expr import Entry
from symattn.kernel.recurrences import c, i
from symattn.kernel.recurrent import Operands, Segment
from symattn.reader.syntax import ast

__all__ = ["Env", "Unread", "Value", "block_of", "evaluate", "member", "source"]

Kind = Literal["row", "block", "values", "out", "diag", "inverse"]


class Unread(Signal):
    """A part of the recurrence the reader cannot map exactly (the message names it)."""


@dataclass(frozen=True)
class Value:
    kind: Kind
    value: object = None  # row/out: an expression; block: key -> expression; diag: a row

    def row(self) -> sympy.Expr:
        return self.value


@dataclass
class Env:
    """What the names of one formula stand for: the families at the step's letter (`new`) and
    at the letter minus one (`old`), the state at the claim's count (`final`), the blocks."""

    ops: Operands
    seg: Segment | None
    letter: str  # the step's letter (b)
    row: str | None  # the row's letter of the per-row form (m_i), None for matrices
    scores: str  # S of S^{(b)}
    values: str  # V of V_b
    old: Mapping[str, Value] = field(default_factory=dict)
    new: Mapping[str, Value] = field(default_factory=dict)
    final: Mapping[str, Value] = field(default_factory=dict)
    count: str = ""  # the claim's count letter (B)
    aux: Mapping[str, ast.Node] = field(default_factory=dict)
    #: what the text defines for each block (`m_s = \\operatorname{rowmax}(S_s)`): name -> value
    partial: Mapping[str, ast.Node] = field(default_factory=dict)
    #: the partials already computed in this step: one sum per partial, so that `ℓ_s` times
    #: `O_s = ... / ℓ_s` cancels
    cache: dict[str, Value] = field(default_factory=dict)


def source(node: ast.Node, body: str) -> str:
    return body[node.start : node.end]


def member(node: ast.Node) -> tuple[str, str | None, ast.Node] | None:
    """`m^{(b)}` -> ("m", None, b); `m_i^{(b)}` -> ("m", "i", b); else None."""
    if not isinstance(node, ast.HeadSup) or not isinstance(node.operand, ast.Symbol):
        return None
    sym = node.operand
    if sym.sub is None:
        return _letter(sym), None, node.head
    if isinstance(sym.sub, ast.Symbol) and sym.sub.sub is None and len(sym.sub.name) == 1:
        return _letter(sym), sym.sub.name, node.head
    return None


def _letter(sym: ast.Symbol) -> str:
    return sym.name if sym.font is None else f"{sym.font}:{sym.name}"


def head_is(head: ast.Node, letter: str, minus: int = 0) -> bool:
    """`b` (minus 0) or `b-1` (minus 1)."""
    if minus == 0:
        return isinstance(head, ast.Symbol) and head.sub is None and head.name == letter
    return (
        isinstance(head, ast.Add)
        and head.ops == ("-",)
        and len(head.terms) == 2
        and head_is(head.terms[0], letter)
        and isinstance(head.terms[1], ast.Number)
        and head.terms[1].text == str(minus)
    )


def block_of(node: ast.Node, letter: str) -> str | None:
    """`V_b` (or `V^{(b)}`) -> "V"."""
    if isinstance(node, ast.Symbol) and isinstance(node.sub, ast.Symbol):
        if node.sub.sub is None and node.sub.name == letter and node.font is None:
            return node.name
    m = member(node)
    if m is not None and m[1] is None and head_is(m[2], letter):
        return m[0]
    return None


def evaluate(node: ast.Node, env: Env) -> Value:
    """The value of `node` at row i (and column c) in `env`."""
    handler = _HANDLERS.get(type(node))
    if handler is None:
        raise Unread(f"{type(node).__name__.lower()} {_what(node)}")
    return handler(node, env)


def _what(node: ast.Node) -> str:
    return getattr(node, "name", "") or ""


def _member_value(node: ast.HeadSup, env: Env) -> Value:
    got = member(node)
    if got is None:
        raise Unread("a superscript that is not a step's index")
    letter, row, head = got
    if row != env.row and not (row is None and letter == env.scores):
        raise Unread(
            f"{letter} indexed by {row or 'no row'}, the recurrence by {env.row or 'none'}"
        )
    if head_is(head, env.letter, 1):
        if letter in env.old:
            return env.old[letter]
        raise Unread(f"{letter} at {env.letter}-1, which has no step")
    if head_is(head, env.letter):
        if letter in env.new:
            return env.new[letter]
        if letter in env.aux:
            return evaluate(env.aux[letter], env)
        if letter == env.scores:
            return _scores(env)
        if letter == env.values:
            return Value("values")
        raise Unread(f"{letter} at {env.letter} before its step")
    if env.count and head_is(head, env.count) and letter in env.final:
        return env.final[letter]
    raise Unread(f"{letter} at an index the recurrence does not step")


def _scores(env: Env) -> Value:
    S = env.ops["S"]
    return Value("block", lambda k: Entry(S, i, k))


def _symbol(node: ast.Symbol, env: Env) -> Value:
    name = block_of(node, env.letter)
    if name is not None and name in env.partial and isinstance(node.sub, ast.Symbol):
        if name not in env.cache:
            rest = {k: v for k, v in env.partial.items() if k != name}  # no cycle
            env.cache[name] = evaluate(env.partial[name], dataclasses.replace(env, partial=rest))
        return env.cache[name]
    if name == env.values:
        return Value("values")
    if name == env.scores and env.row is None:
        return _scores(env)
    if node.sub is not None and node.name == env.scores and env.row is not None:
        sub = node.sub
        if isinstance(sub, ast.Seq) and [_plain(x) for x in sub.items] == [env.row, env.letter]:
            return _scores(env)  # S_{i,b}: row i of block b
    raise Unread(f"the name {node.name}")


def _plain(node: ast.Node) -> str:
    return node.name if isinstance(node, ast.Symbol) and node.sub is None else "?"


def _number(node: ast.Number, env: Env) -> Value:
    return Value("row", sympy.Rational(node.text))


def _neg(node: ast.Neg, env: Env) -> Value:
    v = evaluate(node.operand, env)
    return _combine(Value("row", sympy.Integer(0)), v, "-")


def _add(node: ast.Add, env: Env) -> Value:
    acc = evaluate(node.terms[0], env)
    for op, term in zip(node.ops, node.terms[1:], strict=True):
        acc = _combine(acc, evaluate(term, env), op)
    return acc


def _combine(a: Value, b: Value, op: str) -> Value:
    sign = 1 if op == "+" else -1
    if a.kind == b.kind == "row" or a.kind == b.kind == "out":
        return Value(a.kind, a.row() + sign * b.row())
    if {a.kind, b.kind} <= {"row", "block"}:
        fa, fb = _as_block(a), _as_block(b)
        return Value("block", lambda k: fa(k) + sign * fb(k))
    raise Unread(f"a {a.kind} {op} a {b.kind}")


def _as_block(v: Value) -> Callable[[sympy.Symbol], sympy.Expr]:
    if v.kind == "block":
        return v.value  # type: ignore[return-value]
    return lambda k: v.row()  # a row's scalar, the same for every key of the row


def _exp(v: Value) -> Value:
    if v.kind == "row":
        return Value("row", sympy.exp(v.row()))
    if v.kind == "block":
        f = _as_block(v)
        return Value("block", lambda k: sympy.exp(f(k)))
    raise Unread(f"the exponential of a {v.kind}")


def _power(node: ast.Power, env: Env) -> Value:
    base = node.base
    if isinstance(base, ast.Symbol) and base.name == "e" and base.sub is None:
        return _exp(evaluate(node.exponent, env))
    inv = (
        isinstance(node.exponent, ast.Neg)
        and isinstance(node.exponent.operand, ast.Number)
        and node.exponent.operand.text == "1"
    )
    if inv:
        v = evaluate(base, env)
        if v.kind == "diag":
            return Value("inverse", v.value)
    raise Unread("a power")


def _call(node: ast.Call, env: Env) -> Value:
    args = [evaluate(a, env) for a in node.args]
    kinds = [a.kind for a in args]
    if node.name == "exp" and len(args) == 1:
        return _exp(args[0])
    if node.name == "max" and kinds == ["row", "row"] and node.sub is None:
        return Value("row", sympy.Max(args[0].row(), args[1].row(), evaluate=False))
    if node.name in ("rowmax", "rowsum") and kinds == ["block"] and env.seg is not None:
        f = _as_block(args[0])
        way = env.seg.max if node.name == "rowmax" else env.seg.sum
        return Value("row", way(f))
    if node.name == "diag" and kinds == ["row"]:
        return Value("diag", args[0].row())
    raise Unread(f"\\operatorname{{{node.name}}} of {', '.join(kinds) or 'nothing'}")


def _group(node: ast.Group, env: Env) -> Value:
    if node.delim != "(" or len(node.items) != 1:
        raise Unread("a bracket")
    return evaluate(node.items[0], env)


def _frac(node: ast.Frac, env: Env) -> Value:
    return _times(evaluate(node.num, env), evaluate(node.den, env), "/", env)


def _product(node: ast.Product, env: Env) -> Value:
    """From the right, as a product of matrices: in `\\operatorname{diag}(\\ell)^{-1}e^{S-m}V_b`
    the rows' factor stays outside the sum over the block's keys."""
    values = [evaluate(f, env) for f in node.factors]
    acc = values[-1]
    for v in reversed(values[:-1]):
        acc = _times(v, acc, "*", env)
    return acc


def _mul(node: ast.Mul, env: Env) -> Value:
    acc = evaluate(node.factors[0], env)
    for op, f in zip(node.ops, node.factors[1:], strict=True):
        acc = _times(acc, evaluate(f, env), "/" if op == "/" else "*", env)
    return acc


def _times(a: Value, b: Value, op: str, env: Env) -> Value:
    if op == "/":
        if b.kind == "row" and a.kind in ("row", "out"):
            # a matrix over the vector of its rows' normalisers: each row over its own
            return Value(a.kind, a.row() / b.row())
        raise Unread(f"a {a.kind} over a {b.kind}")
    if a.kind == b.kind == "row":
        return Value("row", a.row() * b.row())
    if a.kind == "diag" and b.kind in ("diag", "row"):  # diag(ℓ) e^{m - m'}: one row's factor
        return Value("diag", a.row() * b.row())
    if a.kind == "row" and b.kind == "diag":
        return Value("diag", a.row() * b.row())
    if a.kind in ("diag", "inverse", "row") and b.kind == "block":  # each row by its factor
        f, r = _as_block(b), a.row()
        return Value("block", (lambda k: f(k) / r) if a.kind == "inverse" else (lambda k: f(k) * r))
    if a.kind == "diag" and b.kind == "out":
        return Value("out", a.row() * b.row())
    if a.kind == "inverse" and b.kind == "out":
        return Value("out", b.row() / a.row())
    if a.kind == "row" and b.kind == "out":
        # the vector of the rows' rescale factors times the matrix: each row scaled by its own
        return Value("out", a.row() * b.row())
    if a.kind == "block" and b.kind == "values" and env.seg is not None:
        f, V = _as_block(a), env.ops["V"]
        return Value("out", env.seg.sum(lambda k: f(k) * Entry(V, k, c)))
    raise Unread(f"a {a.kind} times a {b.kind}")


_HANDLERS: dict[type, Callable[..., Value]] = {
    ast.HeadSup: _member_value,
    ast.Symbol: _symbol,
    ast.Number: _number,
    ast.Neg: _neg,
    ast.Add: _add,
    ast.Power: _power,
    ast.Call: _call,
    ast.Group: _group,
    ast.Frac: _frac,
    ast.Product: _product,
    ast.Mul: _mul,
}
