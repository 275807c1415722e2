"""The syntax tree of one formula of the attention dialect: frozen dataclasses, plus `dump`.

Imports nothing but the standard library; it says only what is written, never what it means.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields, replace
from typing import Any

__all__ = [
    "Abs",
    "Add",
    "Boxed",
    "Call",
    "Claim",
    "Dots",
    "Expr",
    "Formula",
    "Frac",
    "Gradient",
    "Group",
    "HeadSup",
    "IndexedGroup",
    "Inner",
    "Item",
    "Labeled",
    "Matrix",
    "Mul",
    "Neg",
    "Node",
    "Norm",
    "Number",
    "Power",
    "Product",
    "Prose",
    "Reals",
    "Seq",
    "Sqrt",
    "Step",
    "Sum",
    "Symbol",
    "Transpose",
    "depth",
    "dump",
    "rebuilt",
]


@dataclass(frozen=True)
class Node:
    """Base of every node: `start`/`end` are 0-based offsets in the formula body (end exclusive).

    Positions do not take part in equality, so `W_Q` and `W_{Q}` give equal trees.
    """

    start: int = field(kw_only=True, compare=False)
    end: int = field(kw_only=True, compare=False)


# --- atoms -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Symbol(Node):
    """One letter or Greek letter, with its font and subscript, as written.

    `name` is the letter (`"Q"`) or the command name without backslash (`"alpha"`, `"infty"`);
    `font` is the font command without backslash (`"mathbf"`, `"boldsymbol"`, `"mathsf"`, ...) or
    None; `sub` is the subscript (`W_Q` -> Symbol Q, `Q_{ir}` -> Product(i, r)) or None.
    """

    name: str
    font: str | None = None
    sub: Expr | None = None


@dataclass(frozen=True)
class Number(Node):
    """A decimal literal, kept as its text (`"64"`, `"0.5"`)."""

    text: str


@dataclass(frozen=True)
class Reals(Node):
    """The reals `\\mathbb R` (also `\\mathbb{R}`, `\\mathbf{R}`, `\\R`) with the written shape.

    `\\mathbb R^{n\\times d_k}` has shape (n, d_k); a bare `\\mathbb R` has shape ().
    """

    shape: tuple[Expr, ...] = ()


@dataclass(frozen=True)
class Dots(Node):
    """An ellipsis `\\ldots`, `\\dots`, `\\cdots`, `\\vdots` or `\\ddots`; `kind` is the command."""

    kind: str


# --- grouping --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Group(Node):
    """Parentheses `( )` (also `\\left( \\right)`, `\\bigl( \\bigr)`) or brackets `[ ]`.

    `items` has one element for `(QK^T)` and several for a tuple such as `(Q,K,V)`;
    `delim` is `"("` or `"["`; `stacked` when the items are separated by `;` (`[x_1; x_2]`).
    """

    items: tuple[Expr, ...]
    delim: str = "("
    stacked: bool = False


@dataclass(frozen=True)
class Seq(Node):
    """A comma-separated list inside braces that is not a function call, as in `p_{i,2j}`."""

    items: tuple[Expr, ...]


@dataclass(frozen=True)
class IndexedGroup(Node):
    """A parenthesised expression with a subscript: `(QK^T)_{ij}` -> group, index Product(i, j)."""

    group: Group
    index: Expr


# --- scripts ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Transpose(Node):
    """`x^T`, `x^{T}`, `x^{\\mathsf T}`, `x^\\top`: `mark` is `"T"` or `"top"`."""

    operand: Expr
    mark: str = "T"


@dataclass(frozen=True)
class HeadSup(Node):
    """A parenthesised superscript, the head label of `Z^{(h)}` or `W_Q^{(1)}`."""

    operand: Expr
    head: Expr


@dataclass(frozen=True)
class Labeled(Node):
    """A letter whose superscript is part of its name: `W^Q`, `W_i^q`, `P^v`, `W_i^{(q)}`,
    `W^{\\text{out}}`. `label` is the superscript as written (`"Q"`, `"(q)"`, `"out"`)."""

    operand: Symbol
    label: str


@dataclass(frozen=True)
class Power(Node):
    """Any other superscript: `x^2`, `d_k^{1/2}`, `10^{6}`."""

    base: Expr
    exponent: Expr


@dataclass(frozen=True)
class Inner(Node):
    """`\\langle u, v\\rangle`."""

    left: Expr
    right: Expr


@dataclass(frozen=True)
class Abs(Node):
    """`|x|` (also `\\left| x \\right|`, `\\vert x\\vert`)."""

    operand: Expr


@dataclass(frozen=True)
class Norm(Node):
    """`\\|x\\|` (also `\\Vert x\\Vert`); `p` is its subscript as written (`"2"` for
    `\\|x\\|_2`, `"F"`, `"1"`), empty when it has none."""

    operand: Expr
    p: str = ""


# --- operators -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Product(Node):
    """Juxtaposition, in the written order: `XW_Q` -> Product(X, W_Q); `Hd_v` -> Product(H, d_v)."""

    factors: tuple[Expr, ...]


@dataclass(frozen=True)
class Mul(Node):
    """A chain of explicit products `a \\cdot b`, `n \\times d`, `a / b`.

    `ops[i]` joins `factors[i]` and `factors[i+1]`; each is `"cdot"`, `"times"` or `"/"`.
    """

    factors: tuple[Expr, ...]
    ops: tuple[str, ...]


@dataclass(frozen=True)
class Add(Node):
    """A chain `a + b - c`: `ops[i]` (`"+"` or `"-"`) joins `terms[i]` and `terms[i+1]`."""

    terms: tuple[Expr, ...]
    ops: tuple[str, ...]


@dataclass(frozen=True)
class Neg(Node):
    """Unary minus `-x`."""

    operand: Expr


@dataclass(frozen=True)
class Frac(Node):
    """`\\frac{num}{den}`."""

    num: Expr
    den: Expr


@dataclass(frozen=True)
class Gradient(Node):
    """The gradient of the loss with respect to `wrt`, however written: `\\frac{\\partial L}
    {\\partial W}`, `\\partial L/\\partial W`, `\\nabla_W L`, `\\frac{dL}{dW}`, `W^\\nabla`.
    `loss` is the loss as written (`L`, `\\mathcal{L}`, `\\ell`), or "∇" for `W^\\nabla`."""

    loss: str
    wrt: Expr


@dataclass(frozen=True)
class Sqrt(Node):
    """`\\sqrt{radicand}`."""

    radicand: Expr


@dataclass(frozen=True)
class Call(Node):
    """A named operator: `\\operatorname{softmax}(X)`, `\\exp(x)`, `\\max_j`, bare `\\tanh`.

    `name` is the operator's name (`"softmax"`, `"exp"`); `sub` its subscript or None;
    `args` the arguments inside the parentheses that follow it (empty when none follow),
    `parens` whether parentheses followed.
    """

    name: str
    args: tuple[Expr, ...] = ()
    sub: Expr | None = None
    parens: bool = False


@dataclass(frozen=True)
class Sum(Node):
    """`\\sum_{var=lower}^{upper} body`; `\\sum_j body` has lower and upper None.

    The body is the product that follows (juxtaposition, `\\cdot`, `\\times`, `/`): it stops at
    `+`, `-`, a relation, a separator or a closing bracket.
    """

    var: Symbol | None
    lower: Expr | None
    upper: Expr | None
    body: Expr


@dataclass(frozen=True)
class Set(Node):
    """A set: `\\{S_1, \\ldots, S_n\\}` (`items`), or `\\{j : j \\le i\\}` (`items` the one
    element, `such_that` the values of the condition, read only to check they are readable)."""

    items: tuple[Expr, ...]
    such_that: tuple[Expr, ...] = ()


@dataclass(frozen=True)
class Matrix(Node):
    """`\\begin{bmatrix} ... \\end{bmatrix}` (or pmatrix): `rows` of cells, as written."""

    env: str
    rows: tuple[tuple[Expr, ...], ...]


Expr = (
    Symbol
    | Number
    | Reals
    | Dots
    | Group
    | Seq
    | IndexedGroup
    | Transpose
    | HeadSup
    | Labeled
    | Power
    | Product
    | Mul
    | Add
    | Neg
    | Frac
    | Gradient
    | Sqrt
    | Call
    | Sum
    | Matrix
    | Set
    | Inner
    | Abs
    | Norm
)


# --- statements ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Step(Node):
    """One link of a relation chain: `rel` (`"="`, `"in"`, `"neq"`, `"le"`, ...), right side."""

    rel: str
    rhs: Expr


@dataclass(frozen=True)
class Claim(Node):
    """A statement: subjects, then a chain of steps.

    `a=b=c` -> subjects (a,), steps (= b, = c); `Q,K\\in\\mathbb R^{n\\times d_k}` -> subjects
    (Q, K), one step; a bare expression (`W_Q,W_K,W_V`) has no steps.
    """

    subjects: tuple[Expr, ...]
    steps: tuple[Step, ...] = ()


@dataclass(frozen=True)
class Prose(Node):
    """Words between claims, `\\text{ for all }`."""

    text: str


@dataclass(frozen=True)
class Boxed(Node):
    """`\\boxed{...}` around claims."""

    items: tuple[Item, ...]


Item = Claim | Prose | Boxed


@dataclass(frozen=True)
class Formula(Node):
    """A whole formula body: its claims, prose and boxes in order."""

    items: tuple[Item, ...]


# --- walking and printing --------------------------------------------------------------------


def children(node: Node) -> list[Node]:
    """The nodes directly below `node`, in field order.

    >>> x, w = Symbol("X", start=0, end=1), Symbol("W", start=1, end=2)
    >>> [dump(c) for c in children(Product((x, w), start=0, end=2))]
    ['X', 'W']
    """
    out: list[Node] = []
    for name in _field_names(type(node)):
        _collect(getattr(node, name), out)
    return out


def rebuilt(node: Node, again: Callable[[Node], Any]) -> Node:
    """`node` with `again` applied to each node directly below it (also inside tuples and a
    matrix's rows); `node` itself when nothing changed, so a rewrite that finds nothing to do
    keeps the tree it was given.

    >>> x, w = Symbol("X", start=0, end=1), Symbol("W", start=1, end=2)
    >>> dump(rebuilt(Product((x, w), start=0, end=2), lambda c: Symbol("Y", start=0, end=1)))
    '(* Y Y)'
    >>> p = Product((x, w), start=0, end=2); rebuilt(p, lambda c: c) is p
    True
    """
    changes = {}
    for name in _field_names(type(node)):
        old = getattr(node, name)
        new = _again(old, again)
        if new is not old:
            changes[name] = new
    return replace(node, **changes) if changes else node


def _again(value: Any, again: Callable[[Node], Any]) -> Any:
    if isinstance(value, Node):
        return again(value)
    if isinstance(value, tuple):
        new = tuple(_again(v, again) for v in value)
        return value if all(a is b for a, b in zip(new, value, strict=True)) else new
    return value


def walk(node: Node) -> Iterator[Node]:
    """`node` and every node below it (depth first, the last child first)."""
    stack = [node]
    while stack:
        x = stack.pop()
        yield x
        stack.extend(children(x))


def symbols(node: Node, inside: bool = True) -> list[Symbol]:
    """The symbols in `node`, in `walk` order; `inside=False`: not those in a symbol's own
    scripts (`x` of `W_x`).

    >>> x, w = Symbol("X", start=0, end=1), Symbol("W", start=1, end=2)
    >>> [s.name for s in symbols(Product((x, w), start=0, end=2))]
    ['W', 'X']
    """
    out: list[Symbol] = []
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, Symbol):
            out.append(x)
            if not inside:
                continue
        stack.extend(children(x))
    return out


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type[Node]) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = tuple(f.name for f in fields(cls) if f.name not in ("start", "end"))
        _FIELD_NAMES[cls] = names
    return names


def _collect(value: object, out: list[Node]) -> None:
    if isinstance(value, Node):
        out.append(value)
    elif isinstance(value, tuple):
        for v in value:
            if isinstance(v, Node):
                out.append(v)
            elif isinstance(v, tuple):  # matrix rows
                out.extend(c for c in v if isinstance(c, Node))


def depth(node: Node) -> int:
    """The number of nodes on the longest downward path from `node`, computed without recursion.

    >>> depth(Neg(Neg(Symbol("x", start=2, end=3), start=1, end=3), start=0, end=3))
    3
    """
    best = 0
    stack: list[tuple[Node, int]] = [(node, 1)]
    while stack:
        current, d = stack.pop()
        best = max(best, d)
        stack.extend((c, d + 1) for c in children(current))
    return best


_OPS = {"cdot": "\\cdot", "times": "\\times", "/": "/"}


def dump(node: Node) -> str:
    """A canonical one-line summary of a tree, for golden tests (positions are left out).

    >>> from symattn.reader.syntax.parse import parse_formula
    >>> dump(parse_formula("Q=XW_Q"))
    '[Q = (* X W_{Q})]'
    >>> dump(parse_formula(r"(QK^T)_{ij}=\\sum_{r=1}^{d_k}Q_{ir}K_{jr}"))
    '[(index (group (* Q (T K))) (* i j)) = (sum r 1 d_{k} (* Q_{(* i r)} K_{(* j r)}))]'
    """
    handler = _DUMPERS.get(type(node))
    if handler is None:
        return f"<{type(node).__name__}>"
    return handler(node)


def _opt(node: Node | None) -> str:
    return "_" if node is None else dump(node)


def _dump_symbol(n: Node) -> str:
    assert isinstance(n, Symbol)
    base = n.name if len(n.name) == 1 or not n.name.isalpha() else "\\" + n.name
    if n.font == "text":
        base = f"\\text{{{n.name}}}"
    elif n.font is not None:
        base = f"\\{n.font}{{{base}}}"
    return base if n.sub is None else f"{base}_{{{dump(n.sub)}}}"


def _dump_claim(n: Node) -> str:
    assert isinstance(n, Claim)
    text = ", ".join(dump(s) for s in n.subjects)
    for step in n.steps:
        text += f" {_rel_text(step.rel)} {dump(step.rhs)}"
    return f"[{text}]"


def _rel_text(rel: str) -> str:
    return rel if not rel.isalpha() else "\\" + rel


def _dump_call(n: Node) -> str:
    assert isinstance(n, Call)
    head = n.name if n.sub is None else f"{n.name}_{{{dump(n.sub)}}}"
    if not n.parens:
        return head
    return f"{head}({', '.join(dump(a) for a in n.args)})"


def _dump_chain(n: Node) -> str:
    assert isinstance(n, Add | Mul)
    parts = n.terms if isinstance(n, Add) else n.factors
    text = dump(parts[0])
    for op, part in zip(n.ops, parts[1:], strict=True):
        text += f" {_OPS.get(op, op)} {dump(part)}"
    return f"({text})"


def _dump_group(n: Node) -> str:
    assert isinstance(n, Group)
    tag = "group" if n.delim == "(" else "bracket"
    return f"({tag} {', '.join(dump(i) for i in n.items)})"


def _dump_set(n: Node) -> str:
    assert isinstance(n, Set)
    items = ", ".join(dump(i) for i in n.items)
    if n.such_that:
        items += " : " + ", ".join(dump(c) for c in n.such_that)
    return f"(set {items})"


def _dump_matrix(n: Node) -> str:
    assert isinstance(n, Matrix)
    rows = "; ".join(", ".join(dump(c) for c in row) for row in n.rows)
    return f"{n.env}[{rows}]"


def _dump_sum(n: Node) -> str:
    assert isinstance(n, Sum)
    return f"(sum {_opt(n.var)} {_opt(n.lower)} {_opt(n.upper)} {dump(n.body)})"


def _dump_reals(n: Node) -> str:
    assert isinstance(n, Reals)
    return "R" if not n.shape else f"R^({', '.join(dump(d) for d in n.shape)})"


def _fmt(template: str, *attrs: str) -> Callable[[Any], str]:
    def run(n: Node) -> str:
        return template.format(*(dump(getattr(n, a)) for a in attrs))

    return run


_DUMPERS: dict[type, Callable[[Any], str]] = {
    Symbol: _dump_symbol,
    Number: lambda n: n.text,
    Reals: _dump_reals,
    Dots: lambda n: "...",
    Group: _dump_group,
    Seq: lambda n: "(seq " + ", ".join(dump(i) for i in n.items) + ")",
    IndexedGroup: _fmt("(index {} {})", "group", "index"),
    Transpose: _fmt("(T {})", "operand"),
    HeadSup: _fmt("(head {} {})", "operand", "head"),
    Labeled: lambda n: f"(label {dump(n.operand)} {n.label})",
    Inner: _fmt("(inner {} {})", "left", "right"),
    Abs: _fmt("(abs {})", "operand"),
    Norm: lambda n: f"(norm{'_' + n.p if n.p else ''} {dump(n.operand)})",
    Power: _fmt("(^ {} {})", "base", "exponent"),
    Product: lambda n: "(* " + " ".join(dump(f) for f in n.factors) + ")",
    Mul: _dump_chain,
    Add: _dump_chain,
    Neg: _fmt("(- {})", "operand"),
    Frac: _fmt("(frac {} {})", "num", "den"),
    Gradient: lambda n: f"(grad {n.loss} {dump(n.wrt)})",
    Sqrt: _fmt("(sqrt {})", "radicand"),
    Call: _dump_call,
    Sum: _dump_sum,
    Matrix: _dump_matrix,
    Set: _dump_set,
    Claim: _dump_claim,
    Prose: lambda n: f"text({n.text!r})",
    Boxed: lambda n: "boxed{" + " ; ".join(dump(i) for i in n.items) + "}",
    Formula: lambda n: " ; ".join(dump(i) for i in n.items),
}
