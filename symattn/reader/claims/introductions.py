"""The first equation about a new name defines it: `\\omega_j = 1/10000^{2j/d}`, `e_{ij} = ...`,
`a(\\mathbf q,\\mathbf k) = \\mathbf q^\\top\\mathbf k`, `\\text{score}(s, h) = ...`.

Imports the reader's AST, claims, spans, defined names and translator; never the resolver, the
checker or the CLI (the resolver calls `introduce`).
"""

from __future__ import annotations

from symattn.kernel.errors import ShapeError, SymattnError
from symattn.kernel.expr import MatExpr
from symattn.reader.claims.resolved import ResolvedClaim, new_claim
from symattn.reader.syntax import ast
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.defined import Defined, Value, head_of, shape_of
from symattn.reader.terms.defined_values import record_sequence
from symattn.reader.terms.functions import OPERATORS
from symattn.reader.terms.names import worded
from symattn.reader.terms.row_operators import ROW_OPERATORS
from symattn.reader.terms.translator import UNREAD, Problem, Terms, label_of, plain_name

__all__ = [
    "declare_scalar",
    "definition_form",
    "index_letters",
    "introduce",
    "listed",
    "mentions",
    "parameters",
]

#: Operators the translator knows: `\text{softmax}(x) = ...` is a claim about softmax.
_KNOWN = OPERATORS | ROW_OPERATORS


def introduce(
    terms: Terms, span: MathSpan, left: ast.Node, right: ast.Node, start: int, end: int
) -> ResolvedClaim | None:
    """`left = right` where `left` is a name, a sequence term or a function application that
    nothing in scope gives a meaning to: the definition of that name (a declaration, which
    claims nothing). None when `left` already means something (then it is a claim).

    Why this is sound: a definition only gives a name to its right side, so it cannot be false;
    the name then stands for an opaque term whose value is never used, so a later claim about
    it is at most undecided, never verified or refuted (`Defs.used`, read by the resolver).
    """
    found = _new_name(terms, left)
    if found is None and (isinstance(right, ast.Set) or listed(right)):
        found = _set_name(terms, left)
    if found is None:
        return None
    key, indices, params = found
    param_shapes: tuple[Value, ...] | None = None
    why = ""
    value: Value = None
    vector: ast.Node | None = None
    opaque_before = len(terms.defs.used)
    try:
        if params is not None:
            param_shapes = tuple(_param_shape(terms, p) for p in params)
        terms.bound = index_letters(left) - set(terms.scope.dims) if indices else frozenset()
        body = terms.term(right)
        value = shape_of(body)
        if not indices and params is None and isinstance(body, MatExpr) and 1 in body.shape:
            vector = right if len(terms.defs.used) == opaque_before else None
        if indices and params is None and value == "scalar":
            shown = span.body[left.start : left.end]
            record_sequence(terms, key, left, body, span.start.line, shown)
    except Problem as p:
        if p.status == "shape_error" and (params is None or not _mentions_where(right, p, params)):
            raise  # `f(x) = QKx` with Q K ill-typed: the error is the text's, not a parameter's
        # a function's parameters are its own variables: the shapes the document gave letters
        # of the same name elsewhere are only a guess there, so a conflict is not an error
        why = f": {p.message}"
    except ShapeError as e:
        if params is None or not mentions(right, params):
            raise
        why = f": {str(e).splitlines()[0]}"
    except (SymattnError, RecursionError) as e:
        why = f": {e}"
    finally:
        terms.bound = frozenset()
    if params is not None and (param_shapes is None or None in param_shapes):
        value = None  # a value whose shape depends on arguments of unknown shape is not known
        why = why or ": the shapes of its arguments are not known"
    terms.defs.table[key] = Defined(
        key, indices, param_shapes, value, span.start.line, why, vector=vector
    )
    terms.defs.used.clear()
    what = "function" if params is not None else "sequence" if indices else "name"
    text = span.body[left.start : left.end]
    parameters = getattr(terms.scope, "parameters", None)
    if params is not None and parameters is not None:
        for param in params:  # `\mathrm{MultiHead}(Q, K, V)`: Q, K, V are its own from here on
            name = plain_name(param) if isinstance(param, ast.Symbol) else None
            if name is not None:
                parameters[name] = (span.start.line, text)
    if value is None:
        msg = f"defines the {what} {text} (its value is not read{why})"
    else:
        shape = "a scalar" if value == "scalar" else f"{value[0]} × {value[1]}"
        msg = f"defines the {what} {text}, {shape}"
    return new_claim(span, start, end, "declared", msg)


def declare_scalar(
    terms: Terms, span: MathSpan, subject: ast.Node, start: int, end: int
) -> ResolvedClaim | None:
    """`e_{ij} \\in \\mathbb R`, `x \\in \\mathbb R`, `\\alpha(\\mathbf q, \\mathbf k_i) \\in
    \\mathbb R`: declares a new scalar, sequence of scalars or scalar-valued function. None
    when the subject already means something. Sound as any declaration: it claims nothing,
    and the name stands for an opaque scalar (claims about it are at most undecided)."""
    found = _new_name(terms, subject)
    if found is None:
        return None
    key, indices, params = found
    any_args = params is not None
    shapes = tuple(None for _ in params) if params is not None else None
    terms.defs.table[key] = Defined(
        key, indices, shapes, "scalar", span.start.line, any_args=any_args
    )
    what = "function" if any_args else "sequence" if indices else "name"
    text = span.body[subject.start : subject.end]
    return new_claim(span, start, end, "declared", f"declares the {what} {text} as a scalar")


#: Functions of mathematics whose meaning no text redefines.
_MATH_FUNCTIONS = frozenset(
    "sin cos tan tanh exp log ln re im tr trace det rank diag max min floor ceil".split()
)


def _capitals_word(name: str) -> bool:
    """`LN` (layer norm), `MAX`: a word in capitals is the text's own name, not `\\ln`, `\\max`."""
    return len(name) > 1 and name.isupper()


def _new_name(terms: Terms, left: ast.Node) -> tuple[str, int, tuple[ast.Node, ...] | None] | None:
    """(key, number of indices, parameters) of a left side that names something new."""
    head = head_of(left)
    if head is not None:
        letter, group = head
        key = label_of(letter)
        if _taken(terms, key) or not _unknown(terms, letter):
            return None
        return key, 0, group.items
    if isinstance(left, ast.Call):
        if not left.parens or left.sub is not None or left.name.lower() in _KNOWN:
            return None
        if left.name.lower() in _MATH_FUNCTIONS and not _capitals_word(left.name):
            return None  # `\sin(\alpha+\beta) = ...` is an identity, not a new function sin
        if _taken(terms, left.name):
            return None
        return left.name, 0, left.args
    if not isinstance(left, ast.Symbol) or not _unknown(terms, left):
        return None
    worded_sub = left.sub is not None and worded(left.sub)  # `X_{norm}`: a name, no indices
    indices = _index_count(terms, left.sub) if left.sub is not None and not worded_sub else None
    if indices is None:  # `\\omega`, `\\hat y`, `d_{\\text{model}}`: a name
        key = label_of(left)
        return None if _taken(terms, key) else (key, 0, None)
    bare = label_of(ast.Symbol(left.name, left.font, start=left.start, end=left.end))
    if _taken(terms, bare):
        return None
    return bare, indices, None  # `e_{ij}`, `\\omega_j`: a sequence


def listed(node: ast.Node) -> bool:
    """`(\\mathbf a_1, \\ldots, \\mathbf a_m)`: a list with an ellipsis, a sequence."""
    return (
        isinstance(node, ast.Group)
        and len(node.items) > 1
        and any(isinstance(x, ast.Dots) for x in node.items)
    )


def _set_name(terms: Terms, left: ast.Node) -> tuple[str, int, None] | None:
    """`S_i = \\{j : j \\le i\\}`, `\\mathbf A = (\\mathbf a_1, \\ldots, \\mathbf a_m)`: a capital
    the document never declared (only a convention gives it a meaning, the scores S, the
    weights A) names a set, or a sequence, of the text's."""
    document = getattr(terms.scope, "document_matrix", None)
    if not isinstance(left, ast.Symbol) or document is None:
        return None
    if not left.name.isupper() or document(left.name):
        return None
    if left.sub is None:
        key = label_of(left)
        return None if _taken(terms, key) else (key, 0, None)
    indices = _index_count(terms, left.sub)
    bare = label_of(ast.Symbol(left.name, left.font, start=left.start, end=left.end))
    if indices is None or _taken(terms, bare):
        return None
    return bare, indices, None


def _taken(terms: Terms, key: str) -> bool:
    """Defined already: only the first equation about a name defines it; later ones are
    claims (undecided at best)."""
    return key in terms.defs.table


def definition_form(node: ast.Node) -> bool:
    """`f(x)`, `a(\\mathbf q, \\mathbf k)`, `\\text{score}(s, h)`: a function applied to plain
    names, the form of a definition, whose parameters are the formula's own variables."""
    head = head_of(node)
    args = head[1].items if head is not None else node.args if isinstance(node, ast.Call) else ()
    return bool(args) and all(isinstance(a, ast.Symbol) for a in args)


def parameters(node: ast.Node) -> tuple[ast.Node, ...]:
    """The arguments of `f(x)`, `\\text{score}(s, h)`; () for anything else."""
    head = head_of(node)
    if head is not None:
        return head[1].items
    return node.args if isinstance(node, ast.Call) else ()


def index_letters(left: ast.Node) -> frozenset[str]:
    """The index letters of `e_{ij}`, `\\omega_j`, `p_{i,2j+1}`: integers on the other side."""
    sub = left.sub if isinstance(left, ast.Symbol) else None
    out: set[str] = set()
    stack: list[ast.Node] = [sub] if sub is not None else []
    while stack:
        x = stack.pop()
        if isinstance(x, ast.Symbol):
            if x.sub is None and x.font is None and len(x.name) == 1 and x.name.isalpha():
                out.add(x.name)
        else:
            stack.extend(ast.children(x))
    return frozenset(out)


def mentions(node: ast.Node, params: tuple[ast.Node, ...]) -> bool:
    """Whether `node` uses one of `params`, as written (`\\mathbf q` in `\\mathbf q^\\top k`)."""
    wanted = {ast.dump(p) for p in params}
    stack = [node]
    while stack:
        x = stack.pop()
        if ast.dump(x) in wanted:
            return True
        stack.extend(ast.children(x))
    return False


def _mentions_where(right: ast.Node, problem: Problem, params: tuple[ast.Node, ...]) -> bool:
    """Whether the part of `right` the problem is about (the product up to the factor that
    does not fit) uses one of the parameters."""
    where = problem.where
    if where is None:
        return mentions(right, params)
    a, b = where
    stack = [right]
    while stack:
        x = stack.pop()
        if x.end <= a or x.start >= b:
            continue
        if x.start >= a and x.end <= b and mentions(x, params):
            return True
        stack.extend(ast.children(x))
    return False


def _unknown(terms: Terms, node: ast.Symbol) -> bool:
    """The symbol itself is what the translator does not know (not something inside it)."""
    try:
        terms.term(node)
    except UNREAD as u:
        return u.node is node
    except (SymattnError, RecursionError):
        return False
    return False


def _index_count(terms: Terms, sub: ast.Node) -> int | None:
    try:
        return len(terms.indices(sub))
    except (SymattnError, RecursionError):
        return None


def _param_shape(terms: Terms, node: ast.Node) -> Value:
    try:
        return shape_of(terms.term(node))
    except Problem as p:
        if p.status == "shape_error":
            raise
        return None
    except (SymattnError, RecursionError):
        return None
