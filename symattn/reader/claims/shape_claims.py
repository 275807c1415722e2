"""Formulas with `\\in`: shape declarations (`Q \\in \\mathbb R^{n\\times d_k}`, a family, a
worked example's `\\mathbb R^{5\\times 4}`), vectors (`k_j\\in\\mathbb R^{d_k}`), shape claims.

Imports sympy, the kernel and the reader's AST, spans, claims, conventions, definitions, scope
and translator; never the resolver, the checker or the CLI.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

import sympy

from symattn.kernel.dims import STANDARD_DIMS, dims_equal, shape_str
from symattn.kernel.errors import ShapeError
from symattn.kernel.expr import Entry, MatExpr, MatSym, Row, walk
from symattn.kernel.modern import FeatureMap
from symattn.kernel.text import plain
from symattn.reader.claims.array_claims import batch_shape, forget_array, with_batch
from symattn.reader.claims.defined_shapes import declare_defined
from symattn.reader.claims.definitions import head_symbol
from symattn.reader.claims.departures import departure, guessed_operands, note_guessed
from symattn.reader.claims.free_sizes import unsettled_size
from symattn.reader.claims.introductions import declare_scalar
from symattn.reader.claims.member_claims import declare_member
from symattn.reader.claims.redeclared import rederive
from symattn.reader.claims.resolved import ResolvedClaim, Shape, new_claim, shape_claim
from symattn.reader.syntax import ast
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.conventions import CONVENTIONS, looks_like_matrix
from symattn.reader.terms.functions import FEATURE_WIDTH
from symattn.reader.terms.names import labelled_name
from symattn.reader.terms.problems import not_understood
from symattn.reader.terms.scope import HEAD, Name, Scope, same_shape
from symattn.reader.terms.translator import KEEP_FONTS, UNREAD, Problem, Terms, plain_name
from symattn.reader.terms.undeclared import membership, read_around, undeclared

__all__ = ["declaration"]

#: The shape of a scalar, a 1 × 1 matrix.
_SCALAR: Shape = (sympy.Integer(1), sympy.Integer(1))


def declaration(
    scope: Scope, terms: Terms, span: MathSpan, subject: ast.Node, step: ast.Step
) -> ResolvedClaim:
    """`subject \\in \\mathbb R^{...}`: declares a name, states a vector's orientation, or
    claims the shape of an expression. Raises `Problem` for what is wrong or unread."""
    start, end = subject.start, step.rhs.end
    if isinstance(step.rhs, ast.Reals) and not step.rhs.shape:
        scalar = declare_scalar(terms, span, subject, start, end)
        if scalar is not None:
            return scalar
        return _both_ways(
            scope, span, start, end, lambda: _scalar_claim(terms, span, subject, start, end)
        )
    if not isinstance(step.rhs, ast.Reals):
        return new_claim(span, start, end, "unknown", membership(terms, subject, step.rhs))
    batch = batch_shape(scope, terms, subject, step.rhs)
    if batch is not None:  # `X \in \mathbb R^{B\times L\times d}`: L × d per element of B
        name = plain_name(subject)
        assert name is not None
        got = _declare(scope, span, name, False, batch, subject, start, end)
        return with_batch(got, name, scope)
    shape = _reals_shape(terms, step.rhs)
    named = plain_name(subject)
    forget_array(scope, named)
    if named is not None and scope.arrays:  # `Q` defined from an array
        terms._batched(named, scope.lookup(named))
    one_dim = isinstance(step.rhs, ast.Reals) and len(step.rhs.shape) == 1
    member = declare_member(scope, span, subject, shape, start, end, one_dim)
    if member is None:
        member = declare_defined(scope, terms, span, subject, shape, start, end)
    if member is not None:
        return member
    name = plain_name(subject)
    fam, head = None, None
    if isinstance(subject, ast.HeadSup):
        fam, head = plain_name(subject.operand), head_symbol(subject.head)
    if name in scope.conventions.unsettled_matrices and len(shape) == 2 and not one_dim:
        msg = (
            f"undecided (convention): {scope.conventions.matrices.source}; say which it is "
            f"(front matter symattn: matrices: {name}, or --conventions matrices={name})"
        )
        return new_claim(span, start, end, "unknown", msg)
    vector = _vector_of(scope, terms, subject)
    if vector is not None and (
        scope.document_matrix(vector[0].upper()) or _fits_row(vector[1], shape)
    ):
        if one_dim:
            return _vector_in_rd(scope, span, subject, vector, shape, start, end)
        return _vector_declaration(scope, span, subject, vector, shape, start, end)
    if name is not None and (
        name in scope.lookup_all()
        or looks_like_matrix(name)
        or name in scope.conventions.matrix_letters()
    ):
        return _declare(scope, span, name, False, shape, subject, start, end)
    if fam is not None and head is not None:
        return _declare(scope, span, fam, True, shape, subject, start, end)
    labelled = labelled_name(subject, scope.dims) if name is None and not one_dim else None
    if labelled is not None:
        return _declare(scope, span, labelled, False, shape, subject, start, end)
    if name is not None and name not in scope.dims and len(shape) == 2:
        if one_dim and _LOWER.match(name):
            return _bare_vector(scope, span, name, shape, subject, start, end)
        return _declare(scope, span, name, False, shape, subject, start, end)

    def read() -> ResolvedClaim:
        try:
            value = terms.term(subject)
        except UNREAD as u:
            if not undeclared(u):
                raise
            return _undeclared_shape(terms, span, subject, start, end)
        return _shape_claim(scope, span, value, shape, subject, start, end)

    return _both_ways(scope, span, start, end, read)


def _both_ways(
    scope: Scope, span: MathSpan, start: int, end: int, read: Callable[[], ResolvedClaim]
) -> ResolvedClaim:
    """A shape claim about vectors whose rows or columns the document does not settle: read
    as columns, then as rows; a verdict stands only when both readings give it."""
    scope.consulted.clear()
    scope.both_ways = True
    try:
        first, raised = _attempt(read)
    finally:
        scope.both_ways = False
    if not scope.consulted:
        if raised is not None:
            raise raised
        assert first is not None
        return first
    names = ", ".join(sorted(scope.consulted))
    scope.reading = "row"
    scope.both_ways = True
    try:
        second, raised2 = _attempt(read)
    finally:
        scope.reading = None
        scope.both_ways = False
    kinds = [
        c.status if c is not None else (e.status if isinstance(e, Problem) else "error")
        for c, e in ((first, raised), (second, raised2))
    ]
    if kinds[0] == kinds[1]:
        if raised is not None:
            raise raised
        assert first is not None
        return first
    msg = (
        f"undecided (convention): the document does not settle whether {names} are rows or "
        f"columns; as columns: {kinds[0]}, as rows: {kinds[1]}; set it in front matter "
        "(symattn: vectors: row) or with --conventions vectors=row|column"
    )
    ill = [_ill_typed(c, e) for c, e in ((first, raised), (second, raised2))]
    typed = ""
    if kinds[0] == "shape" and ill[1]:
        typed = "column"
    elif kinds[1] == "shape" and ill[0]:
        typed = "row"
    return dataclasses.replace(new_claim(span, start, end, "unknown", msg), typed=typed)


def _ill_typed(claim: ResolvedClaim | None, raised: Exception | None) -> bool:
    """A reading that does not typecheck: a shape error, or a matrix claimed a scalar."""
    if claim is not None:
        return claim.status == "shape_error"
    if isinstance(raised, ShapeError):
        return True
    return isinstance(raised, Problem) and (
        raised.status == "shape_error" or "claimed a scalar" in str(raised)
    )


def _attempt(
    read: Callable[[], ResolvedClaim],
) -> tuple[ResolvedClaim | None, Exception | None]:
    try:
        return read(), None
    except (Problem, ShapeError) as e:
        return None, e


def _scalar_claim(
    terms: Terms, span: MathSpan, subject: ast.Node, start: int, end: int
) -> ResolvedClaim:
    """`\\frac{\\exp(a_i)}{\\sum_j \\exp(a_j)} \\in \\mathbb R`: the subject is a scalar (or a
    1 × 1 matrix); a larger matrix is not read (a convention may make it 1 × 1)."""
    try:
        value = terms.term(subject)
    except UNREAD as u:
        if not undeclared(u):
            raise
        return _undeclared_shape(terms, span, subject, start, end)
    if isinstance(value, MatExpr) and not (dims_equal(value.rows, 1) and dims_equal(value.cols, 1)):
        raise not_understood(
            f"{plain(value)} is {shape_str(value.shape)}, claimed a scalar", subject
        )
    has = value.shape if isinstance(value, MatExpr) else _SCALAR
    return shape_claim(span, start, end, has, _SCALAR, f"{plain(value)} is a scalar")


def _undeclared_shape(
    terms: Terms, span: MathSpan, subject: ast.Node, start: int, end: int
) -> ResolvedClaim:
    """The shape of an expression with names the text does not declare (`f(\\ldots) \\in
    \\mathbb R^{p_v}`): its other parts are read, the shape is not decided."""
    names = ", ".join(dict.fromkeys(read_around(terms, subject)))
    msg = f"shape not decided: {names} not declared by the text (names of unknown shape)"
    return new_claim(span, start, end, "unknown", msg)


def _reals_shape(terms: Terms, node: ast.Node) -> Shape:
    if not isinstance(node, ast.Reals):
        raise not_understood("the right side of \\in must be \\mathbb R^{rows \\times cols}", node)
    if len(node.shape) == 1:
        return (terms.dim_term(node.shape[0]), sympy.Integer(1))
    if not node.shape:
        raise not_understood("\\mathbb R alone (a scalar) is not checked", node)
    if len(node.shape) != 2:
        raise not_understood(
            f"only matrices and vectors are checked, not order-{len(node.shape)} arrays", node
        )
    return (terms.dim_term(node.shape[0]), terms.dim_term(node.shape[1]))


def _declare(
    scope: Scope,
    span: MathSpan,
    name: str,
    family: bool,
    shape: Shape,
    subject: ast.Node,
    start: int,
    end: int,
) -> ResolvedClaim:
    label = f"{name}^(h)" if family else name
    current = scope.lookup(name, family)
    numeric = [x for x in shape if x.is_number and x != 1]
    departs = departure(scope, current, shape) if current is not None and numeric else None
    if departs is not None:
        entry = Name(shape, "declared", scope.section, scope.line, HEAD if family else None)
        entry.label = _head_label(subject)
        (scope.example().families if family else scope.example().names)[name] = entry
        msg = f"declares {label} as {shape_str(shape)} ({departs})"
        return new_claim(span, start, end, "declared", msg)
    if current is not None and numeric:
        new = _example_bindings(scope, current.shape, shape, label, subject)
        if current.origin == "convention":
            note_guessed(scope, label, new)
    elif not numeric and any(x in scope.bindings for x in _free_dims(shape)):
        scope.close_example()
        current = scope.lookup(name, family)
    if current is not None and current.definition is not None:
        value = scope.bind(current.definition)
        assert isinstance(value, MatExpr)
        got = scope.bind_shape(value.shape)
        if same_shape(got, scope.bind_shape(shape)):
            msg = f"{label} = {plain(value)} is {shape_str(got)}"
            return shape_claim(span, start, end, got, scope.bind_shape(shape), msg)
        said = f"{label} = {plain(value)} (line {current.line}) is {shape_str(got)}, "
        said += f"not {shape_str(scope.bind_shape(shape))}"
        guessed = guessed_operands(scope, current, got, scope.bind_shape(shape))
        if not guessed or numeric:  # a worked example's sizes are the text's own
            raise Problem("shape_error", said, subject)
        # the text's declaration is its own; the definition's shape was only the chapter's guess
        _enter(scope, name, family, shape, _head_label(subject))
        said += f"; but that rests on the chapter's conventional shapes of {', '.join(guessed)}, "
        said += f"which the text never declares: {label} is taken as {shape_str(shape)}"
        return new_claim(span, start, end, "unknown", said)
    label_here = _head_label(subject)
    renamed = ""
    if current is not None and current.origin == "declared" and not numeric:
        relabelled = family and current.label != label_here
        if (
            current.section == scope.section
            and not relabelled
            and not same_shape(current.shape, shape)
        ):
            if _joint(span) and renamed_sizes(current.shape, shape):
                renamed = f" (was {shape_str(current.shape)} at line {current.line}: the text "
                renamed += "writes its sizes anew)"
            elif scope.anew:
                renamed = f" (was {shape_str(current.shape)} at line {current.line}: the text "
                renamed += "opens another case of its matrices here)"
            else:
                raise Problem(
                    "shape_error",
                    f"{label} was declared {shape_str(current.shape)} at line {current.line}, "
                    f"here {shape_str(shape)}",
                    subject,
                )
    if current is not None and numeric:
        got = scope.bind_shape(current.shape)
        if not same_shape(got, shape):
            raise Problem(
                "shape_error",
                f"{label} is {shape_str(got)} in this worked example, not {shape_str(shape)}",
                subject,
            )
        return new_claim(
            span, start, end, "declared", f"worked example: {label} is {shape_str(got)}"
        )
    _enter(scope, name, family, shape, label_here)
    what = f"declares {label} as {shape_str(shape)}{renamed}"
    return new_claim(span, start, end, "declared", what)


def _enter(scope: Scope, name: str, family: bool, shape: Shape, label: str) -> None:
    """The text's declaration of `name` (a head family when `family`) in the current layer;
    the definitions made from its old shape are read again with this one (`rederive`)."""
    current = scope.lookup(name, family)
    if current is not None:
        rederive(scope, name, family, current.shape, shape)
    scope.stale.pop(name, None)
    entry = Name(shape, "declared", scope.section, scope.line, HEAD if family else None)
    entry.label = label
    (scope.top().families if family else scope.top().names)[name] = entry


def _joint(span: MathSpan) -> bool:
    """Whether the formula declares several names at once (`Q, K, V \\in \\mathbb R^{n \\times
    d}`): a text setting its notation for all of them, not restating one name's shape."""
    head = span.body.split("\\in", 1)[0]
    return "\\in" in span.body and "," in head


def renamed_sizes(old: tuple[sympy.Expr, ...], new: tuple[sympy.Expr, ...]) -> bool:
    """Whether a second declaration, of several names at once, only writes other size names
    (`n × d_k`, then `Q, K \\in \\mathbb R^{n × d}`):
    every size that changes is a plain name on both sides and the shape is not the old one
    turned over (`d × n` after `n × d` is a slip, not a new notation)."""
    if len(old) != len(new) or same_shape(tuple(reversed(old)), new):
        return False
    changed = [(a, b) for a, b in zip(old, new, strict=True) if a != b]
    return bool(changed) and all(
        isinstance(a, sympy.Symbol) and isinstance(b, sympy.Symbol) for a, b in changed
    )


def _example_bindings(
    scope: Scope, have: Shape, want: Shape, label: str, node: ast.Node
) -> dict[sympy.Symbol, sympy.Integer]:
    """A declaration with explicit sizes binds the general dims it replaces (`n = 5`); the
    sizes it bound are returned."""
    new: dict[sympy.Symbol, sympy.Integer] = {}
    bound = scope.bindings
    for h, w in zip(have, want, strict=True):
        if not w.is_number or not isinstance(h, sympy.Symbol):
            continue
        if h in bound and bound[h] != w:
            raise Problem(
                "shape_error",
                f"{label} needs {h} = {w}, but {h} = {bound[h]} in this worked example",
                node,
            )
        if h not in bound:
            new[h] = sympy.Integer(w)
    if new:
        scope.example().bindings.update(new)
    return new


def _shape_claim(
    scope: Scope,
    span: MathSpan,
    value: sympy.Basic,
    shape: Shape,
    node: ast.Node,
    start: int,
    end: int,
) -> ResolvedClaim:
    if not isinstance(value, MatExpr):
        if shape == (sympy.Integer(1), sympy.Integer(1)) or not shape:
            return shape_claim(span, start, end, _SCALAR, _SCALAR, f"{plain(value)} is a scalar")
        if isinstance(value, Entry) and not any(dims_equal(x, 1) for x in shape):
            # `S_{ij} \in \mathbb R^{B_r\times B_c}`: the text names a block (i, j) so
            msg = (
                f"not decided: {plain(value)} is read as an entry, a scalar, but the text "
                f"gives it the shape {shape_str(shape)}: its {plain(value)} is likely a block "
                "of a tiled matrix, which the checker does not read"
            )
            return new_claim(span, start, end, "unknown", msg)
        raise Problem("shape_error", f"{plain(value)} is a scalar, not {shape_str(shape)}", node)
    got = scope.bind_shape(value.shape)
    want = scope.bind_shape(shape)
    if same_shape(got, want):
        return shape_claim(span, start, end, got, want, f"{plain(value)} is {shape_str(got)}")
    width = _map_width(scope, value, got, want)
    if width is not None:
        msg = f"the feature map \\{value.fname} has {plain(width)} features here"
        return new_claim(span, start, end, "declared", msg)
    unsettled = unsettled_size(scope, got, want)
    if unsettled is not None:
        msg = f"{plain(value)} is {shape_str(got)}: it is {shape_str(want)} {unsettled}"
        return new_claim(span, start, end, "unknown", msg)
    clash = [
        f"{what} {a} vs {b}"
        for what, a, b in zip(("rows", "cols"), got, want, strict=True)
        if not dims_equal(a, b)
    ]
    guessed = _conventional_sizes(scope, value, got, want)
    if guessed:
        # `BV \in \mathbb R^{n\times h}` with V never declared: h is the text's width of V
        msg = (
            f"not decided: {plain(value)} is {shape_str(got)}, not {shape_str(want)} "
            f"({'; '.join(clash)}), but that rests on the chapter's conventional shapes of "
            f"{guessed}, which the text never declares, against a size of its own"
        )
        return new_claim(span, start, end, "unknown", msg)
    raise Problem(
        "shape_error",
        f"{plain(value)} is {shape_str(got)}, not {shape_str(want)} "
        f"({'; '.join(clash)}: not provably equal)",
        node,
    )


def _conventional_sizes(scope: Scope, value: MatExpr, got: Shape, want: Shape) -> str:
    """The chapter's names with a conventional shape only (the text never declares nor defines
    them) that give `value` a width the claim contradicts with a size none of the chapter's
    (`V`, n × d_v, against the text's h): '' when there are none. The count of positions n
    and of heads H are no widths: a text's n is the chapter's."""
    chapter = set(STANDARD_DIMS.values())
    widths = chapter - {STANDARD_DIMS["n"], STANDARD_DIMS["H"]}
    ours = {
        s
        for a, b in zip(got, want, strict=True)
        if not dims_equal(a, b) and a.free_symbols <= widths and b.free_symbols - chapter
        for s in a.free_symbols
    }
    if not ours:
        return ""
    out = []
    for x in sorted({m.name for m in walk(value) if isinstance(m, MatSym)}):
        entry = next((layer.names[x] for layer in reversed(scope.layers) if x in layer.names), None)
        if entry is None or entry.origin != "convention" or entry.definition is not None:
            continue
        if ours & set().union(*(d.free_symbols for d in entry.shape)):
            out.append(f"{x} ({shape_str(entry.shape)})")
    return ", ".join(out)


def _map_width(scope: Scope, value: MatExpr, got: Shape, want: Shape) -> sympy.Expr | None:
    r"""`\phi(Q) \in \mathbb R^{n\times r}`: the text gives its feature map's width, which the
    reader left as a size of its own (D_phi); from here on that width is r. None when the
    value is not such a map or its rows disagree."""
    if not isinstance(value, FeatureMap) or got[1] != FEATURE_WIDTH:
        return None
    if not dims_equal(got[0], want[0]) or FEATURE_WIDTH in want[1].free_symbols:
        return None
    known = scope.document.relations.get(FEATURE_WIDTH)
    if known is not None:
        return want[1] if dims_equal(known, want[1]) else None
    scope.dims.setdefault(FEATURE_WIDTH.name, FEATURE_WIDTH)
    scope.document.relations[FEATURE_WIDTH] = want[1]
    return want[1]


def _vector_of(scope: Scope, terms: Terms, node: ast.Node) -> tuple[str, MatExpr] | None:
    """`q_i` (also bold) when Q is a matrix in force: its letter and row i of Q."""
    if not (
        isinstance(node, ast.Symbol)
        and node.sub is not None
        and node.font in KEEP_FONTS
        and len(node.name) == 1
        and node.name.islower()
    ):
        return None
    entry = scope.lookup(node.name.upper())
    if entry is None or scope.lookup(plain_name(node) or "") is not None:
        return None
    try:
        idx = terms.indices(node.sub)
    except Problem:
        return None
    if len(idx) != 1:
        return None
    m = terms.named(node.name.upper(), None, entry)
    return node.name, Row(m, idx[0])


def _vector_declaration(
    scope: Scope,
    span: MathSpan,
    subject: ast.Node,
    vector: tuple[str, MatExpr],
    shape: Shape,
    start: int,
    end: int,
) -> ResolvedClaim:
    """`q_i\\in\\mathbb R^{1\\times d_k}` states the row convention (checked: row i of Q has
    d_k entries); `k_j\\in\\mathbb R^{d_k}` (or `d_k\\times 1`) states that the document
    writes the rows of K as columns: from here on `k_j` is `(row j of K)^T`, d_k × 1, so
    `q_i^\\top k_j` is a 1 × 1 product there. Any other shape is a shape error."""
    letter, row = vector
    label = f"{plain(row)}, row {plain(row.args[1])} of {plain(row.args[0])},"
    want = scope.bind_shape(shape)
    as_row = scope.bind_shape(row.shape)
    as_col = (as_row[1], as_row[0])
    layer = scope.document if scope.top().kind != "example" else scope.top()
    if same_shape(want, as_row) and not same_shape(want, as_col):
        layer.orient[letter] = "row"
        msg = f"{label} is a row vector, {shape_str(as_row)}"
        return shape_claim(span, start, end, as_row, want, msg)
    if same_shape(want, as_col) and not same_shape(want, as_row):
        layer.orient[letter] = "column"
        msg = (
            f"{label} is written as a column, {shape_str(as_col)}: "
            f"the document's convention for {letter} from here on"
        )
        return new_claim(span, start, end, "declared", msg)
    if same_shape(want, as_row):
        return shape_claim(span, start, end, as_row, want, f"{label} is {shape_str(as_row)}")
    matrix = row.args[0]
    entry = scope.lookup(matrix.name) if isinstance(matrix, MatSym) else None
    if entry is not None and entry.origin == "inferred":
        # `\\mathbf r_{i-j} \\in \\mathbf R^d` beside a capital R the text never declares: R's
        # shape is inferred from other formulas, and this may be the text's only word on it
        msg = (
            f"{plain(row)} as row {plain(row.args[1])} of {plain(matrix)} would have "
            f"{as_row[1]} entries, not {shape_str(want)}, but the text never declares "
            f"{plain(matrix)} (its shape {shape_str(matrix.shape)} is inferred)"
        )
        return new_claim(span, start, end, "unknown", msg)
    guessed = guessed_operands(scope, entry, as_row, want)
    if guessed:
        # `Q = XW_Q`, then `q_t \\in \\mathbb R^{1\\times d}`: Q's width was the chapter's guess
        msg = (
            f"{plain(row)} as row {plain(row.args[1])} of {plain(matrix)} would have "
            f"{as_row[1]} entries, not {shape_str(want)}; but that rests on the chapter's "
            f"conventional shapes of {', '.join(guessed)}, which the text never declares"
        )
        return new_claim(span, start, end, "unknown", msg)
    if entry is not None and entry.origin == "declared" and 0 < entry.section < scope.section:
        # as a matrix declared anew in a later section: each section may set its own sizes
        msg = (
            f"{plain(row)} as row {plain(row.args[1])} of {plain(matrix)} would have "
            f"{as_row[1]} entries, not {shape_str(want)}, but {plain(matrix)} was declared "
            f"{shape_str(matrix.shape)} on line {entry.line}, in an earlier section, and this "
            "one may set sizes of its own"
        )
        return new_claim(span, start, end, "unknown", msg)
    if _columns_perhaps(scope, matrix, want):
        msg = (
            f"{letter}_{plain(row.args[1])} has the length of a column of {plain(matrix)} "
            f"({shape_str(matrix.shape)}): the text's vectors may be its columns, where this "
            f"reader takes the rows of a matrix (the chapter's convention, which the text's "
            f"{plain(matrix)}, of another shape than the chapter's, does not confirm)"
        )
        return new_claim(span, start, end, "unknown", msg)
    raise Problem(
        "shape_error",
        f"{plain(row)} is row {plain(row.args[1])} of {plain(row.args[0])} "
        f"({shape_str(row.args[0].shape)}), with {as_row[1]} entries: not {shape_str(want)}",
        subject,
    )


def _columns_perhaps(scope: Scope, matrix: MatExpr, want: Shape) -> bool:
    """`X \\in \\mathbb R^{n\\times t}` and `x_j \\in \\mathbb R^n`: x_j has the length of X's
    columns. The row reading is the chapter's convention; it holds for a matrix the text
    declares with the chapter's shape (`Q \\in \\mathbb R^{n\\times d_k}`, then `q_i` of length
    n is a shape error), not for one it declares with a shape of its own."""
    if not isinstance(matrix, MatSym):
        return False
    entry = scope.lookup(matrix.name)
    if entry is None or entry.origin != "declared" or entry.line <= 0:
        return False
    if entry.definition is not None or entry.label:
        return False
    base = CONVENTIONS.get(matrix.name)
    if base is not None and same_shape(scope.bind_shape(entry.shape), scope.bind_shape(base)):
        return False
    rows = scope.bind_shape(matrix.shape)[0]
    one = sympy.Integer(1)
    return any(same_shape(want, w) for w in ((rows, one), (one, rows)))


_LOWER = re.compile(r"^(?:\\[a-z]+\{?\s*)?[a-z]")  # `\mathbf{q}`, `q`: a vector's name


def _vector_in_rd(
    scope: Scope,
    span: MathSpan,
    subject: ast.Node,
    vector: tuple[str, MatExpr],
    shape: Shape,
    start: int,
    end: int,
) -> ResolvedClaim:
    """`k_j\\in\\mathbb R^{d_k}` says how many entries, not whether a row or a column: the
    document's vector convention decides (`row vectors` in its prose, front matter,
    `--conventions`); where it never settles it, the letter is `unsettled` and each formula
    using it is read both ways (`Resolver`)."""
    letter, row = vector
    vectors = scope.conventions.vectors
    if vectors.value == "row":
        return _vector_declaration(scope, span, subject, vector, (shape[1], shape[0]), start, end)
    if vectors.value == "column":
        return _vector_declaration(scope, span, subject, vector, shape, start, end)
    as_row = scope.bind_shape(row.shape)
    if not same_shape(scope.bind_shape(shape), (as_row[1], as_row[0])):
        return _vector_declaration(scope, span, subject, vector, shape, start, end)
    layer = scope.document if scope.top().kind != "example" else scope.top()
    layer.orient[letter] = "unsettled"
    msg = (
        f"{plain(row)}, row {plain(row.args[1])} of {plain(row.args[0])}, has {as_row[1]} "
        f"entries; row or column is not settled (vectors: {vectors.source}), so formulas "
        f"that depend on it are undecided"
    )
    return new_claim(span, start, end, "declared", msg)


def _bare_vector(
    scope: Scope, span: MathSpan, name: str, shape: Shape, subject: ast.Node, start: int, end: int
) -> ResolvedClaim:
    """`\\mathbf q\\in\\mathbb R^{d}`: a row (1 × d) or a column (d × 1) as the document's
    vector convention says; not settled, it is kept as d × 1 and marked `unsettled`."""
    vectors = scope.conventions.vectors
    if vectors.value == "row":
        return _declare(scope, span, name, False, (shape[1], shape[0]), subject, start, end)
    claim = _declare(scope, span, name, False, shape, subject, start, end)
    if not vectors.value and claim.status == "declared":
        entry = scope.top().names.get(name)
        if entry is not None and entry.origin == "declared":
            entry.unsettled = True
            msg = (
                f"declares {name} with {shape[0]} entries; row or column is not settled "
                f"(vectors: {vectors.source}), so formulas that depend on it are undecided"
            )
            claim = new_claim(span, start, end, "declared", msg)
    return claim


def _fits_row(row: MatExpr, shape: Shape) -> bool:
    """The shape of the row, or of the row written as a column."""
    r, c = row.shape
    return same_shape(shape, (r, c)) or same_shape(shape, (c, r))


def _head_label(node: ast.Node) -> str:
    return ast.dump(node.head) if isinstance(node, ast.HeadSup) else ""


def _free_dims(shape: Shape) -> set[sympy.Symbol]:
    out: set[sympy.Symbol] = set()
    for x in shape:
        out |= {s for s in x.free_symbols if isinstance(s, sympy.Symbol)}
    return out
