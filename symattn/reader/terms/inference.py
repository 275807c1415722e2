"""Shapes for the names a text uses but never declares, solved by unification over its formulas.
Imports sympy, the kernel's dims, the reader's syntax, scope, translator; never claims or check."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import sympy

from symattn.kernel.dims import STANDARD_DIMS, dim, shape_str
from symattn.kernel.errors import ParseError, SymattnError
from symattn.reader.syntax import ast
from symattn.reader.syntax.notes import blank_notes
from symattn.reader.syntax.parse import parse_formula
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.conventions import CONVENTIONS
from symattn.reader.terms.name_lists import lists_names
from symattn.reader.terms.scope import Name, Scope
from symattn.reader.terms.sizes_equal import sizes_differ
from symattn.reader.terms.translator import Terms, plain_name
from symattn.reader.terms.vectors import component_letters, length_constraints

__all__ = [
    "Conflict",
    "Inference",
    "Inferred",
    "Proposal",
    "Unifier",
    "infer_spans",
    "install",
    "parsed",
    "proposals",
]

#: A dim while it is solved: a variable (an int) or a known size (a sympy expression).
Dim: TypeAlias = "int | sympy.Expr"

_BOLD = ("mathbf", "boldsymbol", "bm", "vec")
#: Functions applied entry by entry (or row by row): the value keeps its argument's shape.
_SAME_SHAPE = frozenset(("softmax", "exp", "tanh", "relu", "sigmoid", "gelu", "mask", "dropout"))


class Clash(SymattnError):
    """Two uses give one dim two different sizes."""


class Unifier:
    """Dims as a union-find: a class of variables, possibly bound to one known size.

    >>> from symattn.kernel.dims import d_k
    >>> u = Unifier(); a, b = u.fresh("a"), u.fresh("b")
    >>> u.unify(a, b); u.unify(b, d_k); u.value(a)
    d_k
    """

    def __init__(self) -> None:
        self.parent: list[int] = []
        self.bound: dict[int, sympy.Expr] = {}
        self.labels: list[str] = []

    def fresh(self, label: str) -> int:
        while label in self.labels:
            label += "'"  # two names shown alike (`\\mathbf a`, `\\vec a`) keep two sizes
        self.parent.append(len(self.parent))
        self.labels.append(label)
        return len(self.parent) - 1

    def find(self, x: int) -> int:
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def resolve(self, x: Dim) -> Dim:
        if isinstance(x, int):
            root = self.find(x)
            return self.bound.get(root, root)
        return x

    def unify(self, a: Dim, b: Dim) -> None:
        """Make `a` and `b` one size; raises `Clash` when they are two different known sizes."""
        a, b = self.resolve(a), self.resolve(b)
        if isinstance(a, int) and isinstance(b, int):
            if a != b:
                self.parent[b] = a
        elif isinstance(a, int):
            self.bound[a] = b
        elif isinstance(b, int):
            self.bound[b] = a
        elif sizes_differ(a, b):
            raise Clash(f"need the sizes {a} and {b} to be equal")

    def value(self, x: Dim) -> sympy.Expr:
        """The size `x` stands for: a known size, or a fresh dim named after its variable."""
        got = self.resolve(x)
        if isinstance(got, int):
            return dim(self.labels[got])
        return got

    def snapshot(self) -> tuple[list[int], dict[int, sympy.Expr], int]:
        return list(self.parent), dict(self.bound), len(self.labels)

    def restore(self, snap: tuple[list[int], dict[int, sympy.Expr], int]) -> None:
        self.parent, self.bound = list(snap[0]), dict(snap[1])
        del self.labels[snap[2] :]
        del self.parent[snap[2] :]


@dataclass(frozen=True)
class Mat:
    rows: Dim
    cols: Dim


@dataclass(frozen=True)
class Vec:
    """A vector of `size` entries, row or column as the document says; `t`: written transposed."""

    size: Dim
    t: bool = False


SCALAR = "scalar"
Value: TypeAlias = "Mat | Vec | str | None"


@dataclass(frozen=True)
class Inferred:
    """A name's inferred shape: (rows, cols), a vector as (size, 1); the lines it comes from."""

    name: str
    shape: tuple[sympy.Expr, sympy.Expr]
    vector: bool
    lines: tuple[int, ...]
    declared: bool = False  # declared by the text, after the formulas that use it

    def size(self) -> str:
        return f"{self.shape[0]} entries" if self.vector else shape_str(self.shape)

    def describe(self) -> str:
        return f"{shown(self.name)}: {self.size()}"


def shown(name: str) -> str:
    """A name as the messages show it: `\\mathbf{q}` is q.

    >>> shown("\\\\mathbf{q}"), shown("W_q")
    ('q', 'W_q')
    """
    return re.sub(r"\\(?:mathbf|boldsymbol|bm|vec)\{(\w+)\}", r"\1", name)


@dataclass(frozen=True)
class Conflict:
    """Two places in one formula that give an undeclared name's dim two sizes."""

    line: int
    first: tuple[int, int]
    second: tuple[int, int]
    message: str


@dataclass
class Inference:
    """What a document's formulas say of the names it never declares."""

    names: dict[str, Inferred] = field(default_factory=dict)
    #: names whose uses disagree: the line of the use that clashes, and the earlier ones
    contested: dict[str, tuple[int, tuple[int, ...]]] = field(default_factory=dict)
    #: undeclared names under a square root (`\\sqrt{p}`): sizes
    sizes: set[str] = field(default_factory=set)
    conflicts: dict[tuple[int, int], Conflict] = field(default_factory=dict)
    #: formulas that typecheck only if these conventional names (never declared by the text)
    #: have other shapes than the chapter's
    conventions: dict[tuple[int, int], list[str]] = field(default_factory=dict)
    uses: dict[tuple[int, int], set[str]] = field(default_factory=dict)
    #: names declared after a formula uses them: (section of the first declaration, whether
    #: every declaration agrees, the first declaration's shape)
    forward: dict[str, tuple[int, bool, Inferred]] = field(default_factory=dict)
    sections: list[int] = field(default_factory=list)
    #: the names installed in the scope now, as `install` and `enter` put them there
    installed: dict[str, Inferred] = field(default_factory=dict)
    #: per formula (line, column), the vectors it knows by their components (`q \\cdot k =
    #: \\sum_i q_i k_i`): in scope for that formula only
    components: dict[tuple[int, int], dict[str, Inferred]] = field(default_factory=dict)
    _entered: list[str] = field(default_factory=list)

    def note(self, span: MathSpan, names: set[str] | None = None) -> str:
        """`with Q, K: n × d_k inferred from line 12` for the inferred names `span` uses (a
        name declared later: `with W_q: h × q declared at line 20`)."""
        if names is None:
            names = self.uses.get((span.start.line, span.start.column), set())
        used = [self.installed[k] for k in sorted(names) if k in self.installed]
        parts = []
        for declared in (False, True):
            group: dict[str, list[str]] = {}
            for got in used:
                if got.declared == declared:
                    group.setdefault(got.size(), []).append(shown(got.name))
            if not group:
                continue
            lines = sorted({x for got in used if got.declared == declared for x in got.lines})
            what = "declared at" if declared else "inferred from"
            where = "line" if len(lines) == 1 else "lines"
            shapes = "; ".join(f"{', '.join(v)}: {k}" for k, v in group.items())
            parts.append(f"{shapes} {what} {where} {', '.join(map(str, lines))}")
        return f"with {'; '.join(parts)}" if parts else ""

    def circular(self, span: MathSpan) -> bool:
        """Whether a name `span` uses has its shape inferred from `span` itself."""
        names = self.uses.get((span.start.line, span.start.column), set())
        return any(
            span.start.line in got.lines and not got.declared
            for k, got in self.installed.items()
            if k in names
        )

    def enter(self, scope: Scope, span: MathSpan | None = None) -> None:
        """At a formula of `scope.section`: a name the text declares only later takes the shape
        of its first declaration, where that one is in this section or all of them agree; the
        name's own declaration, once read, replaces it. The vectors `span` knows by their
        components are in scope for it alone."""
        layer = scope.document
        for name in self._entered:
            entry = layer.names.get(name)
            if entry is not None and entry.origin == "inferred" and name not in self.names:
                layer.names.pop(name, None)
                self.installed.pop(name, None)
            elif entry is not None:
                entry.components = False
        self._entered = []
        key = (span.start.line, span.start.column) if span is not None else (-1, -1)
        for name, got in self.components.get(key, {}).items():
            current = layer.names.get(name)
            if current is None and scope.lookup(name) is None:
                _put(scope, got)
                self.installed[name] = got
            elif current is None or current.origin != "inferred":
                continue  # the text's own vector: its declaration holds
            layer.names[name].components = True
            self._entered.append(name)
        for name, (section, agree, got) in self.forward.items():
            current = layer.names.get(name)
            if current is not None and current.origin != "inferred":
                self.installed.pop(name, None)
                continue
            wanted = scope.line < got.lines[0] and (section == scope.section or agree)
            if wanted and name not in self.installed:
                _put(scope, got)
                self.installed[name] = got
            elif not wanted and name in self.installed:
                layer.names.pop(name, None)  # its declaration is read from here on
                del self.installed[name]


# ---- reading one formula ---------------------------------------------------------------------


class _Walker:
    """The values of a formula's parts, unifying dims as it goes (one formula at a time)."""

    def __init__(
        self, unifier: Unifier, env: dict[str, Value], dims: set[str], vectors: str = ""
    ) -> None:
        self.vectors = vectors  # `column` or `row` where the document settles it
        self.u = unifier
        self.env = env
        self.dims = dims
        self.used: set[str] = set()
        self.places: dict[str, tuple[int, int]] = {}
        #: the first clash: the two parts whose sizes disagree, and the two sizes
        self.clash: tuple[tuple[int, int], tuple[int, int], str] | None = None

    def claim(self, c: ast.Claim) -> None:
        if lists_names(c):
            return  # `W^Q, W^K W^V`: a list of names with a comma left out, no product
        left = self.value(c.subjects[0]) if len(c.subjects) == 1 else None
        prev: ast.Node = c.subjects[0]
        for s in c.subjects[1:]:
            self.value(s)
        for step in c.steps:
            if step.rel == "in" and isinstance(step.rhs, ast.Reals):
                right = _reals_value(self, step.rhs)
            else:
                right = self.value(step.rhs)
            if step.rel in ("=", "in") and left is not None and right is not None:
                self.same(left, right, prev, step.rhs)
            left, prev = right, step.rhs

    def same(self, a: Value, b: Value, one: ast.Node, other: ast.Node) -> None:
        pairs: list[tuple[Dim, Dim]] = []
        if isinstance(a, Mat) and isinstance(b, Mat):
            pairs = [(a.rows, b.rows), (a.cols, b.cols)]
        elif isinstance(a, Vec) and isinstance(b, Vec):
            pairs = [(a.size, b.size)]
        for x, y in pairs:
            self.unify(x, y, one, other)

    def unify(self, x: Dim, y: Dim, one: ast.Node, other: ast.Node) -> None:
        try:
            self.u.unify(x, y)
        except Clash as e:
            if self.clash is None:
                self.clash = ((one.start, one.end), (other.start, other.end), str(e))

    def value(self, node: ast.Node) -> Value:
        handler: Any = _VALUES.get(type(node))
        if handler is None:
            for kid in ast.children(node):
                self.value(kid)
            return None
        out: Value = handler(self, node)
        return out

    def symbol(self, node: ast.Symbol | ast.Labeled) -> Value:
        name = plain_name(node)
        if name is None:
            return None
        if name in self.dims:
            return SCALAR
        if name in self.env:
            self.used.add(name)
            self.places.setdefault(name, (node.start, node.end))
            return self.env[name]
        if isinstance(node, ast.Symbol) and node.sub is not None and len(node.name) == 1:
            whole = self.env.get(node.name.upper())
            if isinstance(whole, Mat) and node.name.islower() and _one_index(node.sub):
                return Vec(whole.cols)  # `x_i`, a row of X
            if isinstance(whole, Mat) and _two_indices(node.sub):
                return SCALAR  # `Q_{ij}`, `a_{ij}`: an entry
        return None

    def product(self, factors: Sequence[ast.Node], ops: Sequence[str]) -> Value:
        values = [self.value(f) for f in factors]
        acc = values[0]
        for k, op in enumerate(ops):
            acc = self.times(acc, values[k + 1], factors[k], factors[k + 1], op)
        return acc

    def times(self, a: Value, b: Value, left: ast.Node, node: ast.Node, op: str) -> Value:
        if op == "/":
            return a if b == SCALAR else None
        if a == SCALAR:
            return b
        if b == SCALAR:
            return a
        if a is None or b is None:
            return None
        if op == "cdot" and isinstance(a, Vec) and isinstance(b, Vec) and not (a.t or b.t):
            self.unify(a.size, b.size, left, node)  # `\mathbf q \cdot \mathbf k`
            return SCALAR
        if isinstance(a, Mat) and isinstance(b, Mat):
            self.unify(a.cols, b.rows, left, node)
            return Mat(a.rows, b.cols)
        if isinstance(a, Mat) and isinstance(b, Vec) and not b.t:
            self.unify(a.cols, b.size, left, node)  # `W x`: x a column
            return Vec(a.rows)
        if isinstance(a, Vec) and isinstance(b, Mat):
            self.unify(a.size, b.rows, left, node)  # `x^T W` or, x a row, `x W`
            return Vec(b.cols, a.t)
        if isinstance(a, Vec) and isinstance(b, Vec) and a.t and not b.t:
            self.unify(a.size, b.size, left, node)  # `q^T k`
            return SCALAR
        if isinstance(a, Vec) and isinstance(b, Vec) and a.t == b.t and self.vectors:
            # two columns (or two rows) side by side: no product, whatever their lengths
            kind = self.vectors if not a.t else ("row" if self.vectors == "column" else "column")
            if self.clash is None:
                why = f"multiply two {kind} vectors (the document's vectors are {self.vectors}s)"
                self.clash = ((left.start, left.end), (node.start, node.end), why)
        return None

    def add(self, node: ast.Add) -> Value:
        values = [self.value(t) for t in node.terms]
        known = [v for v in values if v is not None]
        if not known or len(known) != len(values):
            return known[0] if known and all(type(v) is type(known[0]) for v in known) else None
        if not all(type(v) is type(known[0]) for v in known):
            return None
        for t, v in zip(node.terms[1:], known[1:], strict=True):
            self.same(known[0], v, node.terms[0], t)
        return known[0]

    def call(self, node: ast.Call) -> Value:
        values = [self.value(a) for a in node.args]
        name = node.name.lower()
        if name in _SAME_SHAPE and len(values) == 1:
            return values[0]
        if name == "attention" and len(values) == 3:
            q, k, v = values
            if isinstance(q, Mat) and isinstance(k, Mat) and isinstance(v, Mat):
                a, b, c = node.args
                self.unify(q.cols, k.cols, a, b)
                self.unify(k.rows, v.rows, b, c)
                return Mat(q.rows, v.cols)
        return None


def _transpose(w: _Walker, node: ast.Transpose) -> Value:
    v = w.value(node.operand)
    if isinstance(v, Mat):
        return Mat(v.cols, v.rows)
    if isinstance(v, Vec):
        return Vec(v.size, not v.t)
    return v


def _inner(w: _Walker, node: ast.Inner) -> Value:
    a, b = w.value(node.left), w.value(node.right)
    if isinstance(a, Vec) and isinstance(b, Vec):
        w.unify(a.size, b.size, node.left, node.right)
    return SCALAR


def _norm(w: _Walker, node: ast.Norm) -> Value:
    w.value(node.operand)
    return SCALAR


def _power(w: _Walker, node: ast.Power) -> Value:
    base = w.value(node.base)
    w.value(node.exponent)
    return SCALAR if base == SCALAR else None


def _group(w: _Walker, node: ast.Group) -> Value:
    values = [w.value(x) for x in node.items]
    return values[0] if len(values) == 1 and node.delim in ("(", "[", "{") else None


def _frac(w: _Walker, node: ast.Frac) -> Value:
    num, den = w.value(node.num), w.value(node.den)
    return num if den == SCALAR else None


def _sqrt(w: _Walker, node: ast.Sqrt) -> Value:
    w.value(node.radicand)
    return SCALAR


def _sum(w: _Walker, node: ast.Sum) -> Value:
    for x in (node.lower, node.upper):
        if x is not None:
            w.value(x)
    return w.value(node.body)


def _neg(w: _Walker, node: ast.Neg) -> Value:
    return w.value(node.operand)


_VALUES = {
    ast.Symbol: _Walker.symbol,
    ast.Labeled: _Walker.symbol,
    ast.Number: lambda w, node: SCALAR,
    ast.Transpose: _transpose,
    ast.Inner: _inner,
    ast.Norm: _norm,
    ast.Abs: _norm,
    ast.Power: _power,
    ast.Group: _group,
    ast.Frac: _frac,
    ast.Gradient: lambda w, node: w.value(node.wrt),  # the gradient has the shape of wrt
    ast.Sqrt: _sqrt,
    ast.Sum: _sum,
    ast.Neg: _neg,
    ast.Add: _Walker.add,
    ast.Call: _Walker.call,
    ast.Product: lambda w, node: w.product(node.factors, ["*"] * (len(node.factors) - 1)),
    ast.Mul: lambda w, node: w.product(node.factors, node.ops),
}


def _reals_value(w: _Walker, node: ast.Reals) -> Value:
    found = [_size(w, x) for x in node.shape]
    sizes = [x for x in found if x is not None]
    if len(sizes) != len(found):
        return None
    if not sizes:
        return SCALAR
    if len(sizes) == 1:
        return Vec(sizes[0])
    if len(sizes) == 2:
        return Mat(sizes[0], sizes[1])
    return None


def _size(w: _Walker, node: ast.Node) -> sympy.Expr | None:
    try:
        return _SIZES.dim_term(node)
    except (SymattnError, RecursionError):
        return None


def _one_index(sub: ast.Node) -> bool:
    return isinstance(sub, ast.Symbol | ast.Number) and len(getattr(sub, "name", "1")) == 1


def _two_indices(sub: ast.Node) -> bool:
    return isinstance(sub, ast.Product | ast.Seq) or (
        isinstance(sub, ast.Number) and len(sub.text) == 2
    )


# ---- a document --------------------------------------------------------------------------------


@dataclass
class _Formula:
    span: MathSpan
    claims: list[ast.Claim]


#: A formula's tree, read once for the inference and the resolver (trees are immutable).
parsed = functools.lru_cache(maxsize=4096)(parse_formula)


def _formulas(spans: Iterable[object]) -> list[_Formula]:
    out = []
    for span in spans:
        if not isinstance(span, MathSpan):
            continue
        try:
            formula = parsed(blank_notes(span.body), span.env)
        except (ParseError, RecursionError):
            continue
        claims = [x for x in _items(formula.items) if isinstance(x, ast.Claim)]
        out.append(_Formula(span, claims))
    return out


def _items(items: Iterable[ast.Node]) -> Iterable[ast.Node]:
    for x in items:
        if isinstance(x, ast.Boxed):
            yield from _items(x.items)
        else:
            yield x


def _names(node: ast.Node) -> Iterable[ast.Symbol | ast.Labeled]:
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, ast.Symbol | ast.Labeled):
            yield x
            if isinstance(x, ast.Labeled):
                continue
        stack.extend(ast.children(x))


def _candidate(node: ast.Symbol | ast.Labeled) -> str | None:
    """The kind a name the text may use undeclared has by its look: `matrix` for a capital
    (`W_q`, `\\mathbf M`, `W^Q_i`), `vector` for a bold or arrowed lower-case letter with no
    index (`\\mathbf q`, `\\vec a`); None for anything else (plain letters may be numbers)."""
    name = plain_name(node)
    if name is None or not _whole_name(node):
        return None
    sym = node.operand if isinstance(node, ast.Labeled) else node
    if sym.name[:1].isupper() and len(sym.name) == 1 and name not in STANDARD_DIMS:
        return "matrix"
    if sym.font in _BOLD and sym.name.islower() and len(sym.name) == 1 and sym.sub is None:
        return "vector"
    return None


def _declared(formulas: list[_Formula]) -> tuple[set[str], set[str]]:
    """The names the text declares (`\\in \\mathbb R^{...}`) and those it defines (`X = ...`)."""
    declared: set[str] = set()
    defined: set[str] = set()
    for f in formulas:
        for c in f.claims:
            if not c.steps:
                continue
            names = {plain_name(s) for s in c.subjects} - {None}
            if c.steps[0].rel == "in":
                declared |= names  # type: ignore[arg-type]
            elif c.steps[0].rel in ("=", "coloneqq", ":=") and len(c.subjects) == 1:
                defined |= names  # type: ignore[arg-type]
    return declared, defined


def _declarations(
    formulas: list[_Formula], u: Unifier, dims: set[str]
) -> dict[str, list[tuple[int, Value]]]:
    """Each name declared with `\\in \\mathbb R^{...}`, its declarations in order (line, value)."""
    out: dict[str, list[tuple[int, Value]]] = {}
    for f in formulas:
        for c in f.claims:
            if not (c.steps and c.steps[0].rel == "in" and isinstance(c.steps[0].rhs, ast.Reals)):
                continue
            value = _reals_value(_Walker(u, {}, dims), c.steps[0].rhs)
            if value is None:
                continue
            for subject in c.subjects:
                name = plain_name(subject)
                if name is not None and _whole_name(subject):
                    out.setdefault(name, []).append((f.span.start.line, value))
    return out


#: Subscripts that index a family (`k_i` is the i-th key, `W_t` the t-th step), not label
#: one name (`W_q`, `W_k`, `w_v`).
_INDEX_LETTERS = frozenset("ijklmnt")
_INDEX_CAPITAL = frozenset("ijlmnt")


def _whole_name(node: ast.Node) -> bool:
    """A name that stands for one matrix or vector: not `k_i`, `x_1` (members of a family)."""
    if isinstance(node, ast.Labeled):
        return True  # `W_i^Q`: one name with its label, as the translator reads it
    sym = node
    if not isinstance(sym, ast.Symbol):
        return False
    sub = sym.sub
    if sub is None:
        return True
    if isinstance(sub, ast.Symbol) and sub.sub is None:
        index = _INDEX_CAPITAL if sym.name[:1].isupper() else _INDEX_LETTERS
        return sub.name not in index and (sub.font is not None or len(sub.name) == 1)
    return _is_word(sub)


def _is_word(node: ast.Node) -> bool:
    """`\\text{model}`, `{\\rm ff}`: a label written as a word."""
    return plain_name(node) is None and isinstance(node, ast.Symbol) and len(node.name) > 1


def _in_claims(formulas: list[_Formula], defined: set[str]) -> set[str]:
    """The names used in a claim (not a shape claim), not only in the definition of another
    name (`B = QM`: a name used once to define B is more likely a slip than a matrix of the
    text's own)."""
    out: set[str] = set()
    for f in formulas:
        for c in f.claims:
            if not c.steps:
                continue
            subject = plain_name(c.subjects[0]) if len(c.subjects) == 1 else None
            if subject in defined and c.steps[0].rel == "=" and len(c.steps) == 1:
                continue
            if c.steps[0].rel == "in":
                continue  # a shape claim: a shape inferred from it would only repeat it
            for node in (*c.subjects, *(s.rhs for s in c.steps)):
                out |= {n for n in map(plain_name, _names(node)) if n is not None}
    return out


def _matrix_evidence(formulas: list[_Formula], known: set[str]) -> set[str]:
    """Capitals used as matrices somewhere: in bold (`\\mathbf W`), transposed, given to
    softmax or attention, or multiplied by (or equal to) one of those or a known matrix. A
    plain capital
    with none of these (`N`, `L`, `T`) may be a number, and gets no matrix shape."""
    out: set[str] = set()
    products: list[tuple[ast.Node, ...]] = []
    for f in formulas:
        for c in f.claims:
            sides = [c.subjects[0], *(s.rhs for s in c.steps if s.rel == "=")]
            products.append(tuple(sides))  # `M N = P`: P is what M N is
            stack: list[ast.Node] = [*c.subjects, *(s.rhs for s in c.steps)]
            while stack:
                x = stack.pop()
                stack.extend(ast.children(x))
                label = _name_of(x)
                sym = x.operand if isinstance(x, ast.Labeled) else x
                if label is not None and isinstance(sym, ast.Symbol) and sym.font in _BOLD:
                    out.add(label)
                if isinstance(x, ast.Transpose) and _name_of(x.operand) is not None:
                    out.add(_name_of(x.operand) or "")
                if isinstance(x, ast.Call) and x.name.lower() in ("softmax", "attention"):
                    out |= {n for n in map(_name_of, x.args) if n is not None}
                if isinstance(x, ast.Product):
                    products.append(x.factors)
    grown = True
    while grown:  # `softmax(M) N P`: N is multiplied by a matrix, then P by N
        grown = False
        for fs in products:
            for a, b in zip(fs, fs[1:], strict=False):
                for one, other in ((a, b), (b, a)):
                    label = _name_of(one)
                    if label is not None and label not in out and _matrixlike(other, out | known):
                        out.add(label)
                        grown = True
    return out


def _name_of(node: ast.Node) -> str | None:
    return plain_name(node) if isinstance(node, ast.Symbol | ast.Labeled) else None


def _matrixlike(node: ast.Node, matrices: set[str]) -> bool:
    if isinstance(node, ast.Transpose):
        return True
    if isinstance(node, ast.Call):
        return node.name.lower() in ("softmax", "attention")
    if isinstance(node, ast.Group) and len(node.items) == 1:
        return _matrixlike(node.items[0], matrices)
    if isinstance(node, ast.Product):
        return any(_matrixlike(f, matrices) for f in node.factors)
    label = _name_of(node)
    return label is not None and label in matrices


def _indexed_letters(formulas: list[_Formula]) -> set[str]:
    """Capitals the text also writes with an index (`M_k`, `Q_1`): a family, so the bare
    letter's shape is not inferred (which member, or the whole, it means is not said)."""
    out: set[str] = set()
    for f in formulas:
        for c in f.claims:
            for node in (*c.subjects, *(s.rhs for s in c.steps)):
                for sym in _names(node):
                    if isinstance(sym, ast.Symbol) and sym.sub is not None:
                        if sym.name[:1].isupper():
                            out.add(sym.name)
    return out


#: Reads sizes as they are written (`d_k`, `Hd_v`, `d/h`), in a scope of its own.
_SIZES = Terms(Scope())


def _roots(formulas: list[_Formula]) -> set[str]:
    """Plain names alone under a square root (`\\sqrt{d_k}`, `\\sqrt{p}`): sizes."""
    out: set[str] = set()
    for f in formulas:
        for c in f.claims:
            stack: list[ast.Node] = [*c.subjects, *(s.rhs for s in c.steps)]
            while stack:
                x = stack.pop()
                stack.extend(ast.children(x))
                if isinstance(x, ast.Sqrt) and isinstance(x.radicand, ast.Symbol):
                    name = plain_name(x.radicand)
                    if name is not None and x.radicand.font is None and name[:1].isalpha():
                        out.add(name)
    return out


def _size_names(formulas: list[_Formula]) -> set[str]:
    """Names the text uses as sizes or indices: in a shape, a sum's bounds, under a square
    root or in an exponent (`N` of `\\mathbb R^{N\\times d}` is no matrix)."""
    out: set[str] = set()
    for f in formulas:
        for c in f.claims:
            stack: list[ast.Node] = [*c.subjects, *(s.rhs for s in c.steps)]
            while stack:
                x = stack.pop()
                stack.extend(ast.children(x))
                sizes: list[ast.Node] = []
                if isinstance(x, ast.Reals):
                    sizes = list(x.shape)
                elif isinstance(x, ast.Sum):
                    sizes = [y for y in (x.lower, x.upper) if y is not None]
                elif isinstance(x, ast.Sqrt):
                    sizes = [x.radicand]
                elif isinstance(x, ast.Power):
                    sizes = [x.exponent]
                for y in sizes:
                    out |= {n for n in map(plain_name, _names(y)) if n is not None}
    return out


def infer_spans(spans: Sequence[object], scope: Scope | None = None) -> Inference:
    """Give each name the text never declares a shape, from how its formulas use it.

    A matrix product fixes an inner dim, `+` and `=` equal shapes, softmax keeps its argument's
    shape, `\\in\\mathbb R^{a\\times b}` fixes a shape, `\\mathbf q^\\top\\mathbf k`,
    `\\mathbf q\\cdot\\mathbf k` and `\\langle q, k\\rangle` make vectors of one length,
    `Attention(Q, K, V)` takes its standard arguments. A formula that gives a name another size
    than the formulas before it contributes nothing and the name is contested (no shape: the
    text may reuse the letter); one that contradicts itself is a conflict.

    >>> from symattn.reader.syntax.scanner import scan
    >>> got = infer_spans(scan("$M N = P$ and $N \\\\in \\\\mathbb R^{d\\\\times d_k}$", kind="md"))
    >>> got.names["M"].describe(), got.names["P"].describe()
    ('M: rows(M) × d', 'P: rows(M) × d_k')
    """
    formulas = _formulas(spans)
    declared, defined = _declared(formulas)
    settled = scope.conventions.vectors if scope is not None else None
    vectors = settled.value if settled is not None and settled.applies() else ""
    dims = set((scope.dims if scope is not None else STANDARD_DIMS).keys())
    dims |= _size_names(formulas) - declared - defined
    numbers = set(scope.numbers) if scope is not None else set()
    dims |= numbers  # shown to be numbers (`terms.numbers`): no shape for them
    u = Unifier()
    env: dict[str, Value] = {}
    kinds: dict[str, str] = {}
    indexed = _indexed_letters(formulas)
    evidence = _matrix_evidence(formulas, (set(CONVENTIONS) - numbers) | set(declared))
    for name, shape in CONVENTIONS.items():
        if name not in declared and name not in numbers:
            env[name] = Mat(*shape)
    for f in formulas:
        for c in f.claims:
            for node in (*c.subjects, *(s.rhs for s in c.steps)):
                for sym in _names(node):
                    label = plain_name(sym)
                    kind = _candidate(sym)
                    if label is None or kind is None or label in env or label in dims:
                        continue
                    if label in indexed or (kind == "matrix" and label not in evidence):
                        continue
                    env[label] = _fresh(u, label, kind)
                    kinds[label] = kind
    decls = _declarations(formulas, u, dims)
    for name, found in decls.items():
        values = {_shown(u, v) for _, v in found}
        kinds.pop(name, None)
        if len(values) == 1:
            env[name] = found[0][1]  # declared once (or alike each time): that shape
        else:
            env.pop(name, None)  # declared with two shapes: none is assumed
    out = Inference()
    lines: dict[str, list[int]] = {}
    against: dict[tuple[int, int], tuple[_Formula, set[str]]] = {}
    for f in formulas:
        key = (f.span.start.line, f.span.start.column)
        alone = _alone(f, env, kinds, dims, set(decls), vectors)
        if alone is not None:
            out.conflicts[key] = alone
            out.uses[key] = _plain_names(f)
            continue  # an error of its own: it says nothing of the shapes elsewhere
        snap = u.snapshot()
        w = _Walker(u, env, dims, vectors)
        for c in f.claims:
            w.claim(c)
        out.uses[key] = {
            n
            for c in f.claims
            for node in (*c.subjects, *(s.rhs for s in c.steps))
            for n in map(plain_name, _names(node))
            if n is not None
        }
        if w.clash is not None:
            u.restore(snap)
            conventional = w.used & (set(CONVENTIONS) - set(decls))
            # the text's own declarations disagree with the chapter's convention (`Q W_i^Q`
            # with W_i^Q declared d_model × d_k): which Q the text means is not said
            theirs = w.used & set(decls)
            if conventional and theirs and not _clashes([f], u, env, dims, conventional):
                against[key] = (f, conventional)
            u.restore(snap)
            for name in w.used & set(kinds):
                earlier = tuple(dict.fromkeys(lines.get(name, [])))
                out.contested.setdefault(name, (f.span.start.line, earlier))
            continue
        for name in w.used & set(kinds):
            lines.setdefault(name, []).append(f.span.start.line)
    out.conventions = _other_conventions(against, u, env, dims)
    claimed = _in_claims(formulas, defined)
    known = {x.lower() for x in (*CONVENTIONS, *decls)}
    for name, kind in kinds.items():
        if name in out.contested or name in declared or name in defined or name not in lines:
            continue
        slip = name.lower() in known and name not in decls and len(set(lines[name])) < 2
        if name not in claimed or slip:
            continue  # used only to define another name, or once for a known one (`W_o`)
        got_shape = _shape(u, env[name])
        if got_shape is None:
            continue
        out.names[name] = Inferred(
            name, got_shape, kind == "vector", tuple(dict.fromkeys(lines[name]))
        )
    out.sizes = _roots(formulas) - set(env) - declared - defined - set(decls)
    sections = scope.sections if scope is not None else []
    for name, found in decls.items():
        line, value = found[0]
        first = _shape(u, value)
        if first is None or name in CONVENTIONS:
            continue  # before its declaration, a conventional name keeps the chapter's shape
        agree = len({_shown(u, v) for _, v in found}) == 1
        got = Inferred(name, first, isinstance(value, Vec), (line,), declared=True)
        out.forward[name] = (_section(sections, line), agree, got)
    out.sections = list(sections)
    # a letter beside a matrix of the text's own (`q_i` and Q) is read as a component only
    # inside a sum up to the vector's length (`terms.components`)
    known_dims = set((scope.dims if scope is not None else STANDARD_DIMS).keys())
    taken = known_dims | declared | defined
    for f in formulas:
        by_components = _components_of(f, taken)
        if by_components:
            out.components[(f.span.start.line, f.span.start.column)] = by_components
    return out


def _components_of(f: _Formula, taken: set[str]) -> dict[str, Inferred]:
    """The vectors formula `f` knows by their components, each with its length: what the
    formula's sums and products fix, else a size of its own (`len(x)`). None where the
    formula gives one vector two lengths (then its letters keep their other readings)."""
    letters = component_letters(f.claims, taken)
    if not letters:
        return {}
    u = Unifier()
    var = {x: u.fresh(f"len({shown(x)})") for x in sorted(letters)}
    same, bounds = length_constraints(f.claims, letters)
    try:
        for a, b in same:
            u.unify(var[a], var[b])
        for a, node in bounds:
            size = _size_of(node)
            if size is None:
                return {}
            if not (size.is_Symbol or size.is_Integer):
                continue  # `\sum_{i=1}^{d_k+1}`: a bound off a size says nothing of the length
            u.unify(var[a], size)
    except Clash:
        return {}
    line = f.span.start.line
    return {x: Inferred(x, (u.value(v), sympy.Integer(1)), True, (line,)) for x, v in var.items()}


def _size_of(node: ast.Node) -> sympy.Expr | None:
    try:
        return _SIZES.dim_term(node)
    except (SymattnError, RecursionError):
        return None


def _shape(u: Unifier, value: Value) -> tuple[sympy.Expr, sympy.Expr] | None:
    if isinstance(value, Mat):
        return (u.value(value.rows), u.value(value.cols))
    if isinstance(value, Vec):
        return (u.value(value.size), sympy.Integer(1))
    return None


def _shown(u: Unifier, value: Value) -> str:
    return f"{type(value).__name__}{_shape(u, value)}"


def _section(sections: Sequence[int], line: int) -> int:
    return sum(1 for s in sections if s <= line)


def _clashes(
    fs: list[_Formula], u: Unifier, env: dict[str, Value], dims: set[str], fresh: set[str]
) -> bool:
    """Whether the formulas clash with the names in `fresh` given shapes of their own (one
    shape per name for all of them)."""
    local = dict(env)
    for name in fresh:
        local[name] = _fresh(u, name, "matrix")
    snap = u.snapshot()
    w = _Walker(u, local, dims)
    for f in fs:
        for c in f.claims:
            w.claim(c)
    u.restore(snap)
    return w.clash is not None


def _other_conventions(
    against: dict[tuple[int, int], tuple[_Formula, set[str]]],
    u: Unifier,
    env: dict[str, Value],
    dims: set[str],
) -> dict[tuple[int, int], list[str]]:
    """The formulas where the text's declarations say its conventional names have other
    shapes than the chapter's: at least two of them, all typing with one shape per name (the
    text's `Q` is then its own, n × d_model, not the chapter's n × d_k). One formula alone
    against the convention is a shape error as usual (a dropped transpose looks the same)."""
    names = set().union(*(x for _, x in against.values())) if against else set()
    fs = [f for f, _ in against.values()]
    if len(fs) < 2 or _clashes(fs, u, env, dims, names):
        return {}
    return {key: sorted(x) for key, (_, x) in against.items()}


def _fresh(u: Unifier, name: str, kind: str) -> Value:
    label = shown(name)
    if kind == "vector":
        return Vec(u.fresh(f"len({label})"))
    return Mat(u.fresh(f"rows({label})"), u.fresh(f"cols({label})"))


def _plain_names(f: _Formula) -> set[str]:
    return {
        n
        for c in f.claims
        for node in (*c.subjects, *(s.rhs for s in c.steps))
        for n in map(plain_name, _names(node))
        if n is not None
    }


def _alone(
    f: _Formula,
    env: dict[str, Value],
    kinds: dict[str, str],
    dims: set[str],
    declared: set[str],
    vectors: str = "",
) -> Conflict | None:
    """The formula read by itself, its undeclared names fresh: a clash there is a conflict
    inside the formula (only when every name it involves is the text's own or undeclared)."""
    u = Unifier()
    local: dict[str, Value] = {}
    for name, value in env.items():
        if name in kinds:
            local[name] = _fresh(u, name, kinds[name])
        elif name not in CONVENTIONS or name in declared:
            local[name] = value
    w = _Walker(u, local, dims, vectors)
    for c in f.claims:
        w.claim(c)
    if w.clash is None or not (w.used & set(kinds)):
        return None
    one, other, detail = w.clash
    names = sorted(w.used & set(kinds))
    body = f.span.body
    line = f.span.start.line
    msg = (
        f"no shape of {', '.join(map(shown, names))} makes this formula typecheck: "
        f"{' '.join(body[one[0] : one[1]].split())} (line {_where(f.span, one[0])}) and "
        f"{' '.join(body[other[0] : other[1]].split())} (line {_where(f.span, other[0])}) "
        f"{detail}"
    )
    return Conflict(line, one, other, msg)


def _where(span: MathSpan, offset: int) -> str:
    """`12, column 7`: where a body offset of `span` is in the file."""
    before = span.body[:offset]
    if "\n" not in before:
        return f"{span.start.line}, column {span.start.column + offset}"
    line = span.start.line + before.count("\n")
    return f"{line}, column {offset - before.rfind(chr(10))}"


def install(scope: Scope, inference: Inference) -> None:
    """Put the inferred names in the document's layer of `scope` (`Inference.enter` adds those
    the text declares later, section by section)."""
    for name, got in inference.names.items():
        if name not in scope.document.names:
            _put(scope, got)
            inference.installed[name] = got
    for name in inference.sizes:
        scope.dims.setdefault(name, dim(name))


def _put(scope: Scope, got: Inferred) -> None:
    """One inferred name in the document's layer: a vector is read both ways (row or column)
    unless the document settles which, as if declared in R^{n}."""
    vectors = scope.conventions.vectors.value
    shape = got.shape
    if got.vector and vectors == "row":
        shape = (shape[1], shape[0])
    entry = Name(shape, "inferred", -1, got.lines[0])
    entry.unsettled = got.vector and vectors not in ("row", "column")
    for x in shape:
        for s in x.free_symbols:
            if isinstance(s, sympy.Symbol) and "(" not in s.name:
                scope.dims.setdefault(s.name, s)
    scope.document.names[got.name] = entry


@dataclass(frozen=True)
class Proposal:
    """A declaration the text could add for an inferred name: its LaTeX, the line of the
    name's first use and every line that uses it."""

    name: str
    latex: str
    line: int
    lines: tuple[int, ...]


def proposals(inference: Inference, text: str) -> list[Proposal]:
    r"""The declarations the inference proposes, a size it could not name given a name of
    its own that the text does not use (`m_a`, `m_b`, ...).

    >>> from symattn.reader.syntax.scanner import scan
    >>> doc = r"$$(M N)^T = N^T M^T$$ and $N \in \mathbb R^{d\times d}$"
    >>> print([p.latex for p in proposals(infer_spans(scan(doc, kind="md")), doc)][0])
    M \in \mathbb{R}^{m_{a} \times d}
    """
    fresh: dict[sympy.Basic, sympy.Basic] = {}
    letters = iter(f"m_{c}" for c in "abcdefghopqrsuvwxyz")
    out: list[Proposal] = []
    for name, got in sorted(inference.names.items(), key=lambda x: (x[1].lines, x[0])):
        sizes = []
        for x in got.shape[: 1 if got.vector else 2]:
            for s in sorted(x.free_symbols, key=str):
                if isinstance(s, sympy.Symbol) and "(" in s.name and s not in fresh:
                    label = next(letters, None)
                    while label is not None and label in text:
                        label = next(letters, None)
                    if label is None:
                        return out  # more unnamed sizes than free names: propose no more
                    fresh[s] = sympy.Symbol(label)
            sizes.append(sympy.latex(x.xreplace(fresh)))
        times = " \\times ".join(sizes)
        latex = f"{name} \\in \\mathbb{{R}}^{{{times}}}"
        out.append(Proposal(name, latex, got.lines[0], got.lines))
    return out
