"""Declarations and definitions of families indexed by time or position: `\\mathbf S_t \\in
\\mathbb R^{d\\times d}`, `\\mathbf S_t = \\mathbf S_{t-1} + \\mathbf v_t\\mathbf k_t^\\top`.

Imports sympy, the kernel and the reader's AST, spans, claims, scope, members and translator;
never the resolver, the checker or the CLI (the resolver and `shape_claims` call this).
"""

from __future__ import annotations

import dataclasses

import sympy

from symattn.kernel.dims import dims_equal, shape_str
from symattn.kernel.errors import ShapeError, SymattnError
from symattn.kernel.expr import MatExpr, MatSym, walk
from symattn.kernel.text import plain
from symattn.reader.claims.recurrence_claims import base_case, record_recurrence
from symattn.reader.claims.resolved import ResolvedClaim, new_claim, shape_claim
from symattn.reader.syntax import ast
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.defined import Defs
from symattn.reader.terms.members import (
    Member,
    family_letter,
    lookup_member,
    member_label,
    open_size,
    record_member,
    unfixed_sizes,
)
from symattn.reader.terms.scope import Scope, Shape, same_shape
from symattn.reader.terms.translator import UNREAD, Problem, Terms

__all__ = [
    "declare_member",
    "define_member",
    "members_only",
    "redefines_family",
    "with_family_values",
]


def redefines_family(scope: Scope, left: ast.Node, right: ast.Node) -> str:
    """`\\mathbf S_t = \\mathbf G_t \\odot \\mathbf S_{t-1} + \\mathbf v_t\\mathbf k_t^\\top` after
    `\\mathbf S_t = \\sum_{j=1}^t \\mathbf v_j\\mathbf k_j^\\top`: an equation about a member of a
    family defined by a closed form, that brings in names the form does not use (a gate G_t)
    or comes in another section, may define the family anew (a variant of the model): why a
    `false` is then undecided. "" for a claim in the closed form's own names (`S_t = S_{t-1}
    + v_t k_t^T`, decided)."""
    letter = family_letter(left)
    family = lookup_member(scope, letter) if letter is not None else None
    if family is None or family.closed is None:
        return ""
    label = f"{letter}_•"
    if scope.section != family.section:
        return (
            f"{label} is defined at line {family.line}, in another section: this may define it anew"
        )
    new = sorted(_names_in(right) - _names_in(family.closed) - {letter})
    if not new:
        return ""
    return (
        f"it brings in {', '.join(new)}, which the definition of {label} at line {family.line} "
        "does not use: this may define it anew"
    )


def with_family_values(claim: ResolvedClaim, scope: Scope) -> ResolvedClaim:
    """A claim for the kernel whose formula uses members of a family (`S_t`, `S_{t-1}`): a
    kernel shape error is then undecided (`ResolvedClaim.families`: the text leaves the range
    of the family's index unsaid); where the members were read from the closed form that
    defines them, the verdict says so (`with S_• as defined at line 81`)."""
    if claim.status != "pending":
        return claim
    line = claim.span.start.line
    read, used = [], []
    for layer in scope.layers:
        for family in layer.members.values():
            if family.closed is not None and line in family.read_at:
                read.append(f"{family.letter}_• as defined at line {family.line}")
            if line in family.read_at or line in family.used_at:
                used.append(f"{family.letter}_•")
    if not used:
        return claim
    families = ", ".join(dict.fromkeys(used))
    if not read:
        return dataclasses.replace(claim, families=families)
    note = "with " + ", ".join(dict.fromkeys(read))
    context = f"{claim.context}; {note}" if claim.context else note
    return dataclasses.replace(claim, context=context, families=families)


def members_only(defs: Defs) -> str:
    """When every opaque term a claim used is a member of a family the text defined (`S_t`,
    `S_{t-1}`): why a `false` is undecided (the definition, not read, may relate the members),
    while a claim that holds for every value of the members is decided. "" otherwise."""
    if not defs.used or not set(defs.used) <= set(defs.members):
        return ""
    used = list(dict.fromkeys(defs.used))
    lines = sorted({defs.members[x] for x in used})
    where = ", ".join(str(x) for x in lines)
    verb = "belong" if len(used) > 1 else "belongs"
    return (
        f"{', '.join(used)} {verb} to a family the text defines (line {where}) by a formula "
        "whose value the checker does not read, and its members are read as independent matrices"
    )


def declare_member(
    scope: Scope,
    span: MathSpan,
    subject: ast.Node,
    shape: Shape,
    start: int,
    end: int,
    one_dim: bool = False,
) -> ResolvedClaim | None:
    """`\\mathbf S_t \\in \\mathbb R^{d\\times d}`: every member of the family S_• is d × d.
    None when `subject` is no member of a family (`W_q`, `S_{ij}`, a vector's `R^d`), or when
    its letter is a matrix the document declares itself (then `S_t` is that matrix's business).
    A second declaration with another shape in the same section is a shape error. Members
    declared as vectors (`K_t \\in \\mathbb R^{1\\times d}`, `V_j \\in \\mathbb R^d`, `one_dim`)
    make a family of vectors; in R^d, a row or a column as the document's vector convention
    says, and where it never settles it, read both ways (`Member.vector`)."""
    letter = family_letter(subject)
    if letter is None:
        return None
    unsettled = False
    if sympy.Integer(1) in shape:
        vectors = scope.conventions.vectors
        if one_dim and vectors.value == "row":
            shape = (shape[1], shape[0])
        unsettled = one_dim and vectors.value not in ("row", "column")
    current = lookup_member(scope, letter)
    if current is None and scope.document_matrix(letter) and not tile_of(scope, letter, shape):
        return None
    label = member_label(span.body, subject)  # type: ignore[arg-type]
    fixed = _fix_open(scope, current, shape) if current is not None else None
    if fixed is not None and current is not None:
        current.shape = fixed[0]
        msg = (
            f"declares {label} as {shape_str(shape)}, which gives {fixed[1]} (a size the "
            f"definition at line {current.line} leaves open)"
        )
        return new_claim(span, start, end, "declared", msg)
    kept = [
        f"{x} {what}"
        for x, what in zip(current.shape if current else (), ("rows", "columns"), strict=False)
        if not unfixed_sizes((x,))
    ]
    if current is not None and len(kept) == 1 and current.section == scope.section:
        raise Problem(
            "shape_error",
            f"the family {letter}_• was defined with {' and '.join(kept)} at line "
            f"{current.line}, here {shape_str(shape)}",
            subject,
        )
    if (
        current is not None
        and unsettled
        and same_shape(scope.bind_shape(current.shape), shape[::-1])
    ):
        shape = current.shape  # `V_j \in \mathbb R^d` after `V_t \in \mathbb R^{1\times d}`: rows
    if current is not None:
        got = scope.bind_shape(current.shape)
        if same_shape(got, scope.bind_shape(shape)):
            if current.defined:
                msg = f"{label} is {shape_str(got)}, as its definition at line {current.line} gives"
                return shape_claim(span, start, end, got, scope.bind_shape(shape), msg)
            msg = f"declares {label} as {shape_str(shape)} (as at line {current.line})"
            return new_claim(span, start, end, "declared", msg)
        if current.section == scope.section and current.settled:
            how = "defined" if current.defined else "declared"
            raise Problem(
                "shape_error",
                f"the family {letter}_• was {how} {shape_str(got)} at line {current.line}, "
                f"here {shape_str(shape)}",
                subject,
            )
        if current.defined and not current.settled:
            msg = (
                f"{label} is declared {shape_str(shape)}; its definition at line {current.line} "
                f"reads as {shape_str(got)} with vectors as columns, and the text does not "
                "settle its vectors' rows or columns"
            )
            return new_claim(span, start, end, "unknown", msg)
    family = Member(letter, shape, scope.line, scope.section, label, settled=not unsettled)
    family.vector = unsettled
    record_member(scope, family)
    sub = getattr(subject, "sub", None)
    index = span.body[sub.start : sub.end] if sub is not None else ""
    what = "vectors" if sympy.Integer(1) in shape else "matrices"
    by = "" if index.isdigit() else f" indexed by {index}"  # `V_1, \ldots, V_N`: members
    msg = f"declares {label} as {shape_str(shape)}: a family of {what}{by}"
    if unsettled:
        msg += (
            f"; row or column is not settled (vectors: {scope.conventions.vectors.source}), so "
            "formulas that depend on it are undecided"
        )
    return new_claim(span, start, end, "declared", msg)


def _fix_open(scope: Scope, current: Member, shape: Shape) -> tuple[Shape, str] | None:
    """`Y_t \\in \\mathbb R^{n\\times d}` after `Y_2 = Y_1 W` left the rows of Y_• open: the
    declaration gives them, when it agrees with every size the definition did fix."""
    if not unfixed_sizes(current.shape):
        return None
    given: list[str] = []
    for have, want in zip(current.shape, shape, strict=True):
        if unfixed_sizes((have,)) and have.is_Symbol:
            given.append(f"{have} = {want}")
        elif not dims_equal(scope.bind(have), scope.bind(want)):
            return None
    return (shape[0], shape[1]), ", ".join(given)


def define_member(
    scope: Scope,
    terms: Terms,
    span: MathSpan,
    left: ast.Node,
    right: ast.Node,
    start: int,
    end: int,
) -> ResolvedClaim | None:
    """The first equation with a member of a family on its left (`\\mathbf S_t = \\sum_{j=1}^t
    \\mathbf v_j\\mathbf k_j^\\top`, or the recurrence `\\mathbf S_t = \\mathbf S_{t-1} + ...`)
    defines the family: it claims nothing, its right side must typecheck (and have the declared
    shape), and later claims about members are at most undecided (the value is not read).
    None when `left` is no member of a family, or the family is already defined (a claim)."""
    letter = family_letter(left)
    if letter is None:
        return None
    base = base_case(scope, terms, span, left, right, start, end)
    if base is not None:
        return base
    current = lookup_member(scope, letter)
    if current is not None and current.defined:
        return None
    if current is None and scope.document_matrix(letter):
        return None
    label = member_label(span.body, left)  # type: ignore[arg-type]
    # read as the document's claims are by default; where that gives no matrix of the declared
    # shape, with the vectors whose rows or columns the text does not settle as columns (the
    # reading that makes `v_t k_t^T` an outer product): the family's shape is then not settled
    failed: Problem | None = None
    for both_ways in (False, True):
        scope.consulted.clear()
        scope.both_ways = both_ways
        try:
            got = _define(scope, terms, span, letter, label, current, right, start, end)
        except Problem as p:
            if p.status != "shape_error":
                raise
            got, failed = None, failed or p
        finally:
            scope.both_ways = False
        if got is not None and got.status in ("declared", "shape"):
            if _closed_form(scope, terms, letter, left, right):
                read = "its members are read as this form at their index"
                got = dataclasses.replace(
                    got, message=got.message.replace("its value is not read", read)
                )
                return got
            return _with_recurrence(scope, terms, letter, left, right, got)
        if both_ways and not scope.consulted:
            break  # the second reading was the first one: no vector is unsettled
    if failed is not None and not scope.consulted:
        raise failed
    if failed is not None:
        msg = (
            f"undecided (convention): {failed.message}, and the text does not settle whether "
            "its vectors are rows or columns"
        )
        return new_claim(span, start, end, "unknown", msg)
    return got


def _with_recurrence(
    scope: Scope, terms: Terms, letter: str, left: ast.Node, right: ast.Node, got: ResolvedClaim
) -> ResolvedClaim:
    """The definition, its message saying so when it is a recurrence whose value is read."""
    family = lookup_member(scope, letter)
    if family is None or family.recurrence is not None:
        return got
    if not record_recurrence(scope, terms, family, left, right):
        return got
    how = "with its base case" if family.base is not None else "its base case still to come"
    msg = got.message.replace("(its value is not read)", f"(a recurrence, read {how})")
    return dataclasses.replace(got, message=msg)


def _closed_form(scope: Scope, terms: Terms, letter: str, left: ast.Node, right: ast.Node) -> bool:
    """`\\mathbf S_t = \\sum_{j=1}^t \\mathbf v_j\\mathbf k_j^\\top` defines every member by a
    form of its index letter t: later claims read `S_{t-1}`, `S_t` as that form at t - 1, t. A
    recurrence (the right side names the family) or an index that is no plain letter (`S_1 =`,
    `S_{t+1} =`) leaves the members opaque."""
    family = lookup_member(scope, letter)
    sub = getattr(left, "sub", None)
    if family is None or not family.defined or _mentions_family(right, letter):
        return False
    if not (isinstance(sub, ast.Symbol) and sub.sub is None and sub.font is None):
        return False
    if len(sub.name) != 1 or not sub.name.islower() or sub.name in scope.dims:
        return False
    family.closed, family.index = right, terms.index_term(sub)
    return True


def _define(
    scope: Scope,
    terms: Terms,
    span: MathSpan,
    letter: str,
    label: str,
    current: Member | None,
    right: ast.Node,
    start: int,
    end: int,
) -> ResolvedClaim | None:
    if current is None:
        found = _recurrent_shape(scope, terms, letter, label, right)
        if found is None:
            return None
        shape, value = found
        settled = not scope.consulted
        uses = frozenset(x.name for x in walk(value) if isinstance(x, MatSym))
        record_member(
            scope,
            Member(letter, shape, scope.line, scope.section, label, True, settled, uses=uses),
        )
        msg = (
            f"defines {label} = {plain(value)}, a family of {shape_str(shape)} matrices "
            "(its value is not read)"
        )
        return new_claim(span, start, end, "declared", msg)
    value = _read(terms, right)
    if not isinstance(value, MatExpr) and _zero(value):
        # `S_0 = 0`: the zero matrix of the declared shape, as every text writes it
        msg = f"{label} = 0, the zero {shape_str(current.shape)} matrix (its value is not read)"
        return new_claim(span, start, end, "declared", msg)
    if not isinstance(value, MatExpr):
        raise Problem(
            "shape_error",
            f"{label} is declared {shape_str(current.shape)} at line {current.line}, "
            f"but {plain(value)} is a scalar",
            right,
        )
    declared = scope.bind_shape(current.shape)
    got = scope.bind_shape(value.shape)
    settled = not scope.consulted
    if not same_shape(declared, got):
        if not settled:
            msg = (
                f"{label} is declared {shape_str(declared)}, and {plain(value)} is "
                f"{shape_str(got)} with vectors as columns; the text does not settle its "
                "vectors' rows or columns"
            )
            return new_claim(span, start, end, "unknown", msg)
        raise Problem(
            "shape_error",
            f"{label} is declared {shape_str(declared)} at line {current.line}, but "
            f"{plain(value)} is {shape_str(got)}",
            right,
        )
    current.defined, current.line = True, scope.line
    msg = f"definition of {label}: both sides are {shape_str(got)} (its value is not read)"
    return shape_claim(span, start, end, got, declared, msg)


def _read(terms: Terms, node: ast.Node) -> sympy.Basic:
    try:
        return terms.term(node)
    except ShapeError as e:
        raise Problem("shape_error", str(e).splitlines()[0], node) from None


def _recurrent_shape(
    scope: Scope, terms: Terms, letter: str, label: str, right: ast.Node
) -> tuple[Shape, MatExpr] | None:
    """The shape of a new family from its definition's right side: read whole, or, when it
    names members of the family itself (a recurrence), from a term without them, then checked
    whole with that shape. None when no term gives a matrix (not 1 × 1 or a vector)."""
    mentioned = _mentions_family(right, letter)
    if isinstance(right, ast.Set):
        return None  # `S_i = \\{j : j \\le i\\}` names a set
    if isinstance(right, ast.Matrix):
        return _written_shape(terms, right)
    if not mentioned:
        try:
            value = terms.term(right)
        except Problem as p:
            if p.status == "shape_error":
                raise
            return None
        except ShapeError as e:
            raise Problem("shape_error", str(e).splitlines()[0], right) from None
        return (value.shape, value) if _matrix(value) else None
    terms_of = right.terms if isinstance(right, ast.Add) else (right,)
    for part in terms_of:
        if _mentions_family(part, letter):
            continue
        try:
            value = terms.term(part)
        except (Problem, ShapeError):
            continue
        if not _matrix(value):
            continue
        assert isinstance(value, MatExpr)
        shape = value.shape
        trial = Member(letter, shape, scope.line, scope.section, label)
        record_member(scope, trial)
        try:
            whole = _read(terms, right)
        except UNREAD:
            scope.top().members.pop(letter, None)
            return None
        except Problem:
            scope.top().members.pop(letter, None)
            raise
        scope.top().members.pop(letter, None)
        if isinstance(whole, MatExpr) and same_shape(whole.shape, shape):
            return shape, whole
        raise Problem(
            "shape_error",
            f"{label} = {plain(whole)}: the right side is "
            f"{shape_str(whole.shape) if isinstance(whole, MatExpr) else 'a scalar'}, "
            f"its term {plain(value)} is {shape_str(shape)}",
            right,
        )
    return _solved_shape(scope, terms, letter, label, right)


def _solved_shape(
    scope: Scope, terms: Terms, letter: str, label: str, right: ast.Node
) -> tuple[Shape, MatExpr] | None:
    """`\\mathbf S_t = \\mathbf S_{t-1} - \\beta_t(\\mathbf S_{t-1}\\mathbf k_t - \\mathbf v_t)
    \\mathbf k_t^\\top`, where every term names the family: the one shape, of the sizes the
    other names have, with which the right side typechecks and has that shape. None when no
    shape or several do."""
    based = _base_shape(scope, terms, letter)
    if based is not None:
        whole = _whole_with(scope, terms, letter, label, right, based)
        if whole is not None:
            return based, whole  # the text's own base case (`Y_1 = XW`) gives the shape
    sizes: list[sympy.Expr] = []
    for leaf in _leaves(right, letter):
        try:
            value = terms.term(leaf)
        except (SymattnError, RecursionError):
            continue
        if isinstance(value, MatExpr):
            sizes.extend(x for x in value.shape if x != 1 and x not in sizes)
    found: list[tuple[Shape, MatExpr]] = []
    for rows in sizes[:4]:
        for cols in sizes[:4]:
            whole = _whole_with(scope, terms, letter, label, right, (rows, cols))
            if whole is not None:
                found.append(((rows, cols), whole))
    if len(found) != 1:
        return None
    return _opened(scope, terms, letter, label, right, *found[0])


def _whole_with(
    scope: Scope, terms: Terms, letter: str, label: str, right: ast.Node, shape: Shape
) -> MatExpr | None:
    """The right side read with the family's members of `shape`; None unless it typechecks
    and has that shape."""
    record_member(scope, Member(letter, shape, scope.line, scope.section, label))
    try:
        whole = terms.term(right)
    except (SymattnError, RecursionError):
        return None
    finally:
        scope.top().members.pop(letter, None)
    if isinstance(whole, MatExpr) and same_shape(whole.shape, shape):
        return whole
    return None


def _base_shape(scope: Scope, terms: Terms, letter: str) -> Shape | None:
    """The shape of the base case read before the family's definition (`Y_1 = XW`), when
    its right side is a matrix the text gives a shape."""
    for layer in reversed(scope.layers):
        pending = layer.bases.get(letter)
        if pending is None:
            continue
        try:
            value = terms.term(pending[1])
        except (SymattnError, RecursionError):
            return None
        return value.shape if _matrix(value) else None
    return None


def _opened(
    scope: Scope,
    terms: Terms,
    letter: str,
    label: str,
    right: ast.Node,
    shape: Shape,
    whole: MatExpr,
) -> tuple[Shape, MatExpr]:
    """`Y_2 = Y_1 W` fixes the columns of Y_• (W's) but not its rows: a dim the definition
    leaves open is a size of its own (`rows(Y_•)`), never one of the other names' sizes."""
    sizes = list(shape)
    for i, what in enumerate(("rows", "cols")):
        trial = list(sizes)
        trial[i] = open_size(what, letter)
        again = _whole_with(scope, terms, letter, label, right, (trial[0], trial[1]))
        if again is not None:
            sizes, whole = trial, again
    return (sizes[0], sizes[1]), whole


def _leaves(node: ast.Node, letter: str) -> list[ast.Node]:
    """The names of a formula other than the members of the family `letter`."""
    out: list[ast.Node] = []
    todo = [node]
    while todo:
        x = todo.pop()
        if isinstance(x, ast.Symbol | ast.Labeled):
            if family_letter(x) != letter:
                out.append(x)
            continue
        if isinstance(x, ast.Sum):
            todo.append(x.body)
            continue
        todo.extend(ast.children(x))
    return out


def _written_shape(terms: Terms, right: ast.Matrix) -> tuple[Shape, MatExpr] | None:
    """`\\mathbf{M_k} = \\begin{bmatrix} \\cos(\\omega_i k) & \\ldots \\end{bmatrix}`: rows by
    columns as written, when every cell is a number or a scalar of letters (no capital or bold
    name, which may be a block); the entries' values are not read."""
    if right.env == "cases" or not right.rows:
        return None
    widths = {len(row) for row in right.rows}
    if len(widths) != 1:
        return None
    for row in right.rows:
        for cell in row:
            todo: list[ast.Node] = [cell]
            while todo:
                x = todo.pop()
                if isinstance(x, ast.Matrix | ast.Dots):
                    return None
                if isinstance(x, ast.Symbol) and (
                    x.name[:1].isupper() or x.font in ("mathbf", "boldsymbol", "bm")
                ):
                    return None
                todo.extend(ast.children(x))
    shape: Shape = (sympy.Integer(len(right.rows)), sympy.Integer(widths.pop()))
    if 1 in shape:
        return None
    return shape, MatSym("[" + ", ".join(["..."] * len(right.rows)) + "]", *shape)


def _matrix(value: sympy.Basic) -> bool:
    return isinstance(value, MatExpr) and value.rows != 1 and value.cols != 1


def _mentions_family(node: ast.Node, letter: str) -> bool:
    todo = [node]
    while todo:
        x = todo.pop()
        if family_letter(x) == letter:
            return True
        todo.extend(ast.children(x))
    return False


def _names_in(node: ast.Node) -> set[str]:
    """The letters a formula names its matrices, vectors and scalars by (`G`, `\\beta`, `v`):
    never an index below a name or a sum's bounds and letter."""
    out: set[str] = set()
    todo = [node]
    while todo:
        x = todo.pop()
        if isinstance(x, ast.Sum):
            todo.append(x.body)
            continue
        if isinstance(x, ast.Symbol):
            if x.sub is not None or x.font is not None or len(x.name) > 1 or x.name.isupper():
                out.add(x.name)
            continue
        todo.extend(ast.children(x))
    return out


def _zero(value: object) -> bool:
    """The number 0 (`S_0 = 0`), not an expression that may vanish."""
    return isinstance(value, sympy.Basic) and value.is_zero is True and not value.free_symbols


def tile_of(scope: Scope, letter: str, shape: Shape) -> bool:
    """`\\mathbf Q_i \\in \\mathbb R^{B_r\\times d}` where the text declared Q as N × d: blocks of
    Q's rows (or columns), as FlashAttention cuts Q, K and V into tiles. A shape that is no block
    of the matrix (another width and another height) leaves Q_i row i of Q."""
    entry = scope.lookup(letter)
    if entry is None or len(entry.shape) != 2 or len(shape) != 2:
        return False
    rows, cols = (scope.bind(x) for x in entry.shape)
    tile_rows, tile_cols = (scope.bind(x) for x in shape)
    if sympy.simplify(cols - tile_cols) == 0:
        return sympy.simplify(rows - tile_rows) != 0
    return sympy.simplify(rows - tile_rows) == 0
