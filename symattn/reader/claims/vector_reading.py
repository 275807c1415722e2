"""Claims about vectors a text never declares (`p_m^\\top p_n = \\langle p_m, p_n\\rangle`,
`\\langle u, v\\rangle = \\langle v, u\\rangle`): each name that carries a vector's mark (a
transpose, a norm, an inner product, a bold or arrowed letter) read as a vector of a length of
its own, the lengths the claim itself relates made one (`shape_walk`), and Greek letters read as
real numbers. Only a verdict for every such vector is gained: a failure is undecided, since the
text may mean vectors related in a way it states in words, or names that are no vectors.

Imports sympy, the kernel's leaves and the reader's AST, claims and terms; never the resolver,
the checker or the CLI.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection

import sympy

from symattn.kernel.dims import dims_equal, shape_str
from symattn.kernel.errors import ShapeError, SymattnError
from symattn.kernel.leaves import MatSym
from symattn.reader.claims.resolved import ResolvedClaim
from symattn.reader.claims.written_matrices import pending
from symattn.reader.syntax import ast
from symattn.reader.syntax.lexer_tables import GREEK
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.defined import shape_of
from symattn.reader.terms.identity import is_identity
from symattn.reader.terms.names import bold_letter
from symattn.reader.terms.problems import Problem, UnknownName
from symattn.reader.terms.scope import Scope
from symattn.reader.terms.shape_walk import _Walker
from symattn.reader.terms.translator import Terms, label_of, plain_name
from symattn.reader.terms.undeclared import undeclared
from symattn.reader.terms.unify import SCALAR, Mat, Unifier, Value, Vec, shown

__all__ = ["matrix_reading", "vector_reading"]

Pair = tuple[sympy.Basic, sympy.Basic]


def vector_reading(
    terms: Terms,
    span: MathSpan,
    left: ast.Node,
    right: ast.Node,
    names: list[str],
    start: int,
    end: int,
) -> ResolvedClaim | None:
    """`left = right` with the undeclared `names` read as vectors of any length (and Greek
    letters as real numbers), as columns and as rows unless the document settles which; None
    where a name is of another kind (a function, a capital, a letter with no vector's mark, a
    letter that is also a component: `q` beside `q_i`), where the claim relates no vectors,
    or where neither reading has two sides of one shape.

    Sound: a proof for vectors of every length (lengths equal only where the claim's own
    products need them) holds for the text's vectors; a failure is undecided (`defines`)."""
    scope = terms.scope
    if not isinstance(scope, Scope) or not names:
        return None
    names = _factors_before_parentheses(left, right, names)
    if any(x.endswith("(·)") or x.startswith("\\operatorname") for x in names):
        return None
    symbols = _undeclared_symbols((left, right), set(names))
    marked = _marked((left, right))
    vectors, numbers = _kinds(symbols, marked)
    if not (vectors or marked) or set(names) - set(symbols):
        return None  # a name that is no plain symbol (`x^{(1)}_m`, a head): not read here
    if any(not _greek(symbols[x]) for x in numbers):
        return None  # `q_i` beside `q`, a bare `a`: a component or a number, not said which
    if any(x.split("_")[0] in {y.split("_")[0] for y in numbers} for x in vectors):
        return None
    return _one_claim(terms, span, (left, right), symbols, vectors, numbers, {}, "", (start, end))


def matrix_reading(
    terms: Terms,
    span: MathSpan,
    left: ast.Node,
    right: ast.Node,
    unknown: UnknownName,
    start: int,
    end: int,
    contested: Collection[str] = (),
) -> ResolvedClaim | None:
    """`left = right` where `unknown` is a capital the text never declares
    (`(W_q x_i)^\\top (W_k x_j) = x_i^\\top W_q^\\top W_k x_j`): each such capital read as a
    matrix of a shape of its own (rows and columns the claim's products make one are one), its
    undeclared letters as in `vector_reading`. None where a capital is no plain name, where a
    shape collapses to a vector (`W x_i` with `x_i` a row makes W one column: the text means
    something else), or where a letter is of another kind.

    Sound as `vector_reading`: a proof for matrices of every shape the claim allows holds for
    the text's; a failure is undecided, and says the capital may be a typo. A capital whose
    uses elsewhere disagree (`contested`) is left to the message that names them."""
    scope = terms.scope
    if not isinstance(scope, Scope):
        return None
    nodes = (left, right)
    capitals: dict[ast.Node, str] = {}  # each capital as written (its tree), and its name
    labels: set[str] = set()
    for node in _capital_nodes(nodes):
        if node in capitals:
            continue
        if plain_name(node) in contested:
            return None
        try:
            terms.term(node)
        except UnknownName as u:
            if u.applied or u.defined:
                return None
            capitals[node] = _written(span.body[node.start : node.end], u.label)
            labels.add(u.label)
        except (SymattnError, RecursionError):
            return None
    if unknown.label not in labels or len(set(capitals.values())) != len(capitals):
        return None
    names: list[str] = []
    for sym in (s for n in nodes for s in ast.symbols(n, inside=False)):
        if sym in capitals or (_capital_letter(sym) and sym.sub is None):
            continue  # a capital read as a matrix, or the letter of a labelled one (`W^q`)
        if is_identity(terms, sym):
            continue  # read beside the matrix it multiplies (`terms.identity`)
        if label_of(sym) in names:
            continue
        try:
            terms.term(sym)
        except UnknownName as u:
            if u.applied or not undeclared(u):
                return None
            names.append(label_of(sym))
        except (SymattnError, RecursionError):
            continue
    symbols = _undeclared_symbols(nodes, set(names))
    vectors, numbers = _kinds(symbols, _marked(nodes))
    if any(not _greek(symbols[x]) for x in numbers):
        return None
    slips = [x for x in unknown.near if x.lower() == unknown.label.lower()]  # `W_o`, `W_O`
    hint = f"; did you mean {', '.join(slips)}?" if slips else ""
    return _one_claim(terms, span, nodes, symbols, vectors, numbers, capitals, hint, (start, end))


def _one_claim(
    terms: Terms,
    span: MathSpan,
    nodes: tuple[ast.Node, ast.Node],
    symbols: dict[str, ast.Symbol],
    vectors: set[str],
    numbers: set[str],
    capitals: dict[ast.Node, str],
    hint: str,
    where: tuple[int, int],
) -> ResolvedClaim | None:
    """The claim read with its undeclared `vectors`, `numbers` and `capitals` in place, as
    columns and as rows unless settled; None where it is not read so."""
    scope = terms.scope
    assert isinstance(scope, Scope)
    left, right = nodes
    start, end = where
    shapes = _lengths(terms, symbols, vectors, capitals, left, right)
    if shapes is None:
        return None
    lengths, sizes = shapes
    placed: dict[ast.Node, sympy.Basic] = {
        node: MatSym(name, *sizes[name]) for node, name in capitals.items()
    }
    readings = _readings(scope)
    read: dict[str, tuple[Pair, ...]] = {}
    consulted = set(scope.consulted)
    for how in readings:
        table: dict[str, sympy.Basic] = {x: sympy.Symbol(x, real=True) for x in numbers}
        for x in vectors:
            n = lengths[x]
            table[x] = MatSym(x, n, 1) if how == "column" else MatSym(x, 1, n)
        # the claim's other vectors, of unsettled orientation, read the same way
        before = scope.reading, scope.both_ways
        scope.reading, scope.both_ways = ("row", True) if how == "row" else before
        try:
            got = _read(terms, table, placed, left, right)
        finally:
            scope.reading, scope.both_ways = before
        if got is None:
            scope.consulted |= consulted
            return None  # a part the checker does not read with these names
        if got:
            read[how] = got
    if not read:
        scope.consulted |= consulted
        return None
    if len(readings) == 2:
        scope.consulted.clear()  # read both ways here: the resolver need not again
    pairs = tuple(p for how in readings if how in read for p in read[how])
    split = len(read["column"]) if len(read) == 2 else 0
    claim = pending(scope, span, start, end, pairs)
    shown_names = ", ".join(sorted(vectors, key=lambda x: symbols[x].start))
    reals = ", ".join(sorted(numbers))
    matrices = ", ".join(capitals.values())
    parts = []
    if capitals:
        shown_sizes = "; ".join(f"{x}: {shape_str(s)}" for x, s in sizes.items())
        what = "matrices" if len(capitals) > 1 else "a matrix"
        parts.append(f"{matrices} read as {what} of any shape ({shown_sizes})")
    if vectors:
        what = "vectors" if len(vectors) > 1 else "a vector"
        parts.append(f"{shown_names} read as {what} of any length, {_which(read, readings)}")
    if numbers:
        parts.append(f"{reals} read as {'real numbers' if len(numbers) > 1 else 'a real number'}")
    if capitals and not vectors and len(read) == 1 and len(readings) == 2:
        parts.append(f"the claim's vectors read {_which(read, readings)}")  # `x_i` beside `W_q`
    context = "; ".join(parts) + f" (not declared by the text{hint})"
    unknown = ", ".join(x for x in (matrices, shown_names, reals) if x)
    count = len(symbols) + len(capitals)
    why = (
        f"{unknown} {'is' if count == 1 else 'are'} not declared by the text{hint}; read so, "
        "the claim fails, but the text may mean values it relates in words"
    )
    return dataclasses.replace(claim, context=context, defines=why, split=split)


def _factors_before_parentheses(left: ast.Node, right: ast.Node, names: list[str]) -> list[str]:
    """`names` without `\\beta_t(·)` where the claim also writes `\\beta_t` as a plain factor
    and it is a lower-case Greek letter: `\\beta_t(\\mathbf S\\mathbf k - \\mathbf v)` is that
    number times the parentheses, as the translator reads it once `\\beta_t` is a number. A
    letter only ever written before parentheses (`\\sigma(x)`, `\\phi(x)`) stays a function."""
    plain = {label_of(s): s for n in (left, right) for s in ast.symbols(n)}
    return [
        x
        for x in names
        if not (x.endswith("(·)") and x[:-3] in names and x[:-3] in plain and _greek(plain[x[:-3]]))
    ]


def _kinds(symbols: dict[str, ast.Symbol], marked: set[str]) -> tuple[set[str], set[str]]:
    """The undeclared names read as vectors (bold, or marked and not Greek), and the rest."""
    vectors = {
        label
        for label, sym in symbols.items()
        if bold_letter(sym) or (label in marked and not _greek(sym))
    }
    return vectors, set(symbols) - vectors


def _readings(scope: Scope) -> list[str]:
    """The orientations to read the vectors in: the document's, where it settles it; else
    both, as columns first (the claim's other vectors of unsettled orientation with them)."""
    settled = scope.conventions.vectors
    if settled is not None and settled.applies() and settled.value in ("column", "row"):
        return [settled.value]
    if scope.reading == "row":
        return ["row"]
    return ["column", "row"]


def _which(read: dict[str, tuple[Pair, ...]], readings: list[str]) -> str:
    if len(read) == 2:
        return "as columns and as rows"
    how = next(iter(read))
    if len(readings) == 1:
        return f"as {how}s, as the document's vectors are"
    return f"as {how}s (as {'rows' if how == 'column' else 'columns'} the sides differ in shape)"


def _undeclared_symbols(nodes: tuple[ast.Node, ...], names: set[str]) -> dict[str, ast.Symbol]:
    """The first symbol of each label in `names` among `nodes`, in reading order."""
    out: dict[str, ast.Symbol] = {}
    for sym in sorted((s for n in nodes for s in ast.symbols(n)), key=lambda s: s.start):
        label = label_of(sym)
        if label in names:
            out.setdefault(label, sym)
    return out


def _marked(nodes: tuple[ast.Node, ...]) -> set[str]:
    """Labels of the symbols a transpose, a norm or an inner product is taken of (anywhere
    inside its operand), or that stand right after a transposed factor (`q^\\top k`) or a
    capital (`Wx`, `W(x + y)`)."""
    out: set[str] = set()
    for node in nodes:
        for x in ast.walk(node):
            if isinstance(x, ast.Transpose | ast.Norm):
                out |= {label_of(s) for s in ast.symbols(x.operand)}
            elif isinstance(x, ast.Inner):
                out |= {label_of(s) for s in ast.symbols(x.left) + ast.symbols(x.right)}
            elif isinstance(x, ast.Product | ast.Mul):
                for a, b in zip(x.factors, x.factors[1:], strict=False):
                    if isinstance(a, ast.Transpose) and isinstance(b, ast.Symbol):
                        out.add(label_of(b))
                    elif _capital(a) and isinstance(b, ast.Symbol | ast.Group):
                        # `Wy`, `P(x + y)`, `R_n k`: what a matrix multiplies
                        out |= {label_of(s) for s in ast.symbols(b)}
    return out


def _capital(node: ast.Node) -> bool:
    """`W`, `W_q`, `R_m`, `W^q`: a capital, with or without scripts (a matrix's look)."""
    if isinstance(node, ast.Labeled):
        return _capital_letter(node.operand)
    return isinstance(node, ast.Symbol) and len(node.name) == 1 and node.name.isupper()


def _greek(sym: ast.Symbol) -> bool:
    """`\\alpha`, `\\lambda_1`: a lower-case Greek letter with no font, a real number."""
    return (
        sym.name in GREEK
        and sym.name[:1].islower()
        and sym.font is None
        and sym.name not in ("pi", "infty")
    )


def _lengths(
    terms: Terms,
    symbols: dict[str, ast.Symbol],
    vectors: set[str],
    capitals: dict[ast.Node, str],
    left: ast.Node,
    right: ast.Node,
) -> tuple[dict[str, sympy.Expr], dict[str, tuple[sympy.Expr, sympy.Expr]]] | None:
    """Each vector's length and each capital's rows and columns: fresh sizes, one where the
    claim's products and sums make them alike (`p^\\top q`, `\\langle p, q\\rangle`, `p + q`,
    `W x`), or the size of a name in scope they meet; None where the claim's shapes clash, or
    where a capital's rows or columns come out as 1 (it would be a vector, not a matrix)."""
    u = Unifier()
    env: dict[str, Value] = _in_scope(terms, (left, right), set(symbols), set(capitals))
    mine: dict[str, Value] = {label: Vec(u.fresh(f"len({shown(label)})")) for label in vectors}
    placed: dict[ast.Node, Value] = {}
    for node, name in capitals.items():
        placed[node] = Mat(u.fresh(f"rows({name})"), u.fresh(f"cols({name})"))
    w = _LabelWalker(u, env, set(terms.scope.dims))
    w.mine, w.placed = mine, placed
    a, b = w.value(left), w.value(right)
    if a is not None and b is not None:
        w.same(a, b, left, right)
    if w.clash is not None:
        return None
    lengths = {x: u.value(v.size) for x, v in mine.items() if isinstance(v, Vec)}
    sizes = {
        capitals[x]: (u.value(v.rows), u.value(v.cols))
        for x, v in placed.items()
        if isinstance(v, Mat)
    }
    if any(sympy.Integer(1) in shape for shape in sizes.values()):
        return None
    return lengths, sizes


class _LabelWalker(_Walker):
    """The shape walk with the undeclared vectors known by their labels (`u_1` has no plain
    name: a number below a lower-case letter is an index)."""

    mine: dict[str, Value]
    placed: dict[ast.Node, Value]

    def value(self, node: ast.Node) -> Value:
        if isinstance(node, ast.Symbol | ast.Labeled) and node in self.placed:
            return self.placed[node]  # a capital read as a matrix, known by how it is written
        if isinstance(node, ast.Symbol) and label_of(node) in self.mine:
            return self.mine[label_of(node)]
        return super().value(node)


def _written(source: str, label: str) -> str:
    """The name as the text writes it (`R_{\\Theta,m}^d`), where that is a whole name; else
    the reader's label for it (a name cut out of a colour group: `\\boldsymbol{X}}_1`)."""
    text = " ".join(source.split())
    depth = 0
    for ch in text:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            return label
    return text if depth == 0 and not text.startswith("{") else label


def _capital_nodes(nodes: tuple[ast.Node, ...]) -> list[ast.Symbol | ast.Labeled]:
    """The capitals of the claim, a Latin letter alone or with scripts (`W`, `W_q`, `W^q`,
    `\\mathbf{W}`, `R_m`), in reading order; not those in another name's scripts."""
    out: list[ast.Symbol | ast.Labeled] = []
    stack: list[ast.Node] = list(nodes)
    while stack:
        x = stack.pop()
        if isinstance(x, ast.Labeled) and _capital_letter(x.operand):
            out.append(x)
            continue
        if isinstance(x, ast.Symbol):
            if _capital_letter(x):
                out.append(x)
            continue
        stack.extend(ast.children(x))
    return sorted(out, key=lambda n: n.start)


def _capital_letter(node: ast.Node) -> bool:
    return (
        isinstance(node, ast.Symbol)
        and len(node.name) == 1
        and "A" <= node.name <= "Z"
        and node.name not in ("H", "I")  # a head's letter; the identity (`terms.identity`)
    )


def _in_scope(
    terms: Terms,
    nodes: tuple[ast.Node, ...],
    undeclared: set[str],
    capitals: Collection[ast.Node] = (),
) -> dict[str, Value]:
    """The shapes of the claim's other names as the walk knows them: a vector (either way) by
    its length, a matrix by its rows and columns, a number as a scalar."""
    out: dict[str, Value] = {}
    for sym in (s for n in nodes for s in ast.symbols(n)):
        key = plain_name(sym)
        if key is None or key in out or label_of(sym) in undeclared or sym in capitals:
            continue
        try:
            value = terms.term(sym)
        except (SymattnError, RecursionError):
            continue
        shape = shape_of(value)
        if not isinstance(shape, tuple):
            out[key] = SCALAR
        elif 1 in shape:  # a column or a row: the walk knows a vector by its length
            out[key] = Vec(shape[0] if shape[1] == 1 else shape[1])
        else:
            out[key] = Mat(*shape)
    return out


def _read(
    terms: Terms,
    table: dict[str, sympy.Basic],
    placed: dict[ast.Node, sympy.Basic],
    left: ast.Node,
    right: ast.Node,
) -> tuple[Pair, ...] | None:
    """Both sides with `table`'s names in place: one pair; () where the sides do not have one
    shape in this reading (a product or a sum that does not typecheck); None where a part is
    not read at all."""
    before, placed_before = terms.scalars, terms.placed
    terms.scalars, terms.placed = table, placed
    try:
        lhs, rhs = terms.term(left), terms.term(right)
    except ShapeError:
        return ()
    except Problem as p:
        return () if p.status == "shape_error" else None
    except (SymattnError, RecursionError):
        return None
    finally:
        terms.scalars, terms.placed = before, placed_before
    if not (isinstance(lhs, sympy.Basic) and isinstance(rhs, sympy.Basic)):
        return None
    if not _same_shape(lhs, rhs):
        return ()
    if _names_clash(lhs, rhs):
        return None  # a name read here is also a matrix of another shape in the claim
    return ((lhs, rhs),)


def _names_clash(*terms: sympy.Basic) -> bool:
    """Two matrices of one name and two shapes (their entries would be taken for one)."""
    shapes: dict[str, set[tuple[sympy.Basic, ...]]] = {}
    for t in terms:
        for m in t.atoms(MatSym):
            shapes.setdefault(m.name, set()).add(tuple(m.shape))
    return any(len(s) > 1 for s in shapes.values())


def _same_shape(a: sympy.Basic, b: sympy.Basic) -> bool:
    one, other = shape_of(a), shape_of(b)
    if not (isinstance(one, tuple) and isinstance(other, tuple)):
        return one == other  # both numbers (or 1 × 1)
    return dims_equal(one[0], other[0]) and dims_equal(one[1], other[1])
