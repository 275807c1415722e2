"""The one translator from formulas to kernel terms: reader AST -> matrix expressions and scalars.

Imports the kernel (dims, errors, expr, modern, text), the reader's AST, conventions and defined
names; never the resolver's scope, the checker or the CLI: names and sizes come from the `Scope`
it is given.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Any, Literal, Protocol

import sympy

from symattn.kernel.dims import H, d_v, dim, dims_equal, shape_str
from symattn.kernel.errors import ShapeError, SymattnError
from symattn.kernel.expr import (
    CausalMask,
    Concat,
    Dot,
    Entry,
    FromColumn,
    HeadSym,
    MatAdd,
    MatExpr,
    MatMul,
    MatSum,
    MatSym,
    Ones,
    Row,
    RowBlock,
    Scale,
    Softmax,
    index,
    walk,
)
from symattn.kernel.modern import FeatureMap, OnlineSoftmax
from symattn.kernel.ranges import definite_range_problem
from symattn.kernel.text import plain
from symattn.reader.syntax import ast
from symattn.reader.syntax.gradients import UNREAD_DERIVATIVE, gradient_name
from symattn.reader.terms.bracketed_scalars import bracketed_scalar
from symattn.reader.terms.components import (
    ambiguous,
    component_length,
    component_of,
    row_run,
    run_bound,
)
from symattn.reader.terms.conventions import SUM_LETTERS
from symattn.reader.terms.defined import Defined, Defs, head_of, shape_of
from symattn.reader.terms.members import (
    family_letter,
    lookup_member,
    member_of,
    member_value,
    recurrence_member,
)
from symattn.reader.terms.products import NotRead, causal_ones, entrywise
from symattn.reader.terms.scalars import SCALAR_FUNCTIONS, apply_scalar, huge_power

__all__ = [
    "KEEP_FONTS",
    "Problem",
    "Scope",
    "Terms",
    "UnknownName",
    "UnknownOperator",
    "UNREAD",
    "as_comparable",
    "label_of",
    "orientation",
    "plain_name",
    "word_name",
]

Shape = tuple[sympy.Expr, sympy.Expr]
Kind = Literal["not_understood", "shape_error"]
#: Fonts that leave a letter's meaning alone (`\mathbf Q` is Q); others make a new symbol.
KEEP_FONTS = (None, "mathbf", "boldsymbol", "bm", "mathit", "mathrm")


class Problem(SymattnError):
    """A formula the translator refuses: `not_understood` (cannot read it) or `shape_error`.

    `node` is what it is about; `span` (body offsets), when set, is narrower or wider than the
    node (the product up to the factor that does not fit); `detail` is the full message, hint
    lines included, where `message` is its first line.
    """

    def __init__(
        self,
        status: Kind,
        message: str,
        node: ast.Node | None,
        *,
        detail: str = "",
        span: tuple[int, int] | None = None,
    ):
        super().__init__(message)
        self.status: Kind = status
        self.message = message
        self.node = node
        self.detail = detail or message
        self.span = span

    @property
    def where(self) -> tuple[int, int] | None:
        if self.span is not None:
            return self.span
        return (self.node.start, self.node.end) if self.node is not None else None


class UnknownName(Problem):
    """A name with no shape in scope; `label` is how it was written, `near` the close names,
    `defined` whether the text defined it (its value unread)."""

    def __init__(
        self,
        message: str,
        node: ast.Node,
        label: str,
        near: list[str],
        defined: bool = False,
        applied: bool = False,
    ):
        super().__init__("not_understood", message, node)
        self.label = label
        self.near = near
        self.defined = defined  # defined by the text, with a value the checker did not read
        self.applied = applied  # a letter applied to arguments, `F(x)`: a function


class UnknownOperator(Problem):
    """An operator the checker does not know (`\\tanh`, `\\text{FFN}`): a function of the
    text's, around which the rest of a claim is read (not an `UnknownName`: `symattn shapes`
    asks for --dims only for names)."""

    def __init__(self, message: str, node: ast.Node, label: str):
        super().__init__("not_understood", message, node)
        self.label = label
        self.near: list[str] = []
        self.defined = False
        self.applied = True


#: What a reader may read around: a name or an operator the text never declared.
UNREAD = (UnknownName, UnknownOperator)

#: Letters read as a feature map when applied to a matrix they are not declared as (`\phi(Q)`).
FEATURE_MAPS = frozenset(("phi", "varphi"))
#: The width of such a map: a size of its own, so what is proved holds for every width.
FEATURE_WIDTH = dim("D_phi")


def not_understood(message: str, node: ast.Node | None) -> Problem:
    return Problem("not_understood", message, node)


def shape_problem(exc: ShapeError, node: ast.Node, span: tuple[int, int] | None = None) -> Problem:
    text = str(exc)
    return Problem("shape_error", _first_line(text), node, detail=text, span=span)


class NameEntry(Protocol):
    """What the translator needs of a name in scope: its shape."""

    shape: Shape


class Scope(Protocol):
    """The names and sizes in force (the resolver's symbol table implements it)."""

    dims: dict[str, sympy.Symbol]

    def lookup(self, name: str, family: bool = False) -> Any: ...

    def bind(self, e: sympy.Basic) -> sympy.Basic: ...

    def orientation(self, letter: str) -> str: ...

    def known_names(self) -> list[str]: ...


#: Called with each node translated, its value and where its text ends (a partial product of
#: `XW_QK` ends before the whole product does): how `symattn shapes` lists every step.
Observer = Callable[[ast.Node, sympy.Basic, int], None]


class Terms:
    """Translate syntax trees into kernel terms in a scope; the only place that does.

    >>> from symattn.reader import parse_formula
    >>> from symattn.reader.claims.resolve import Resolver
    >>> claim = parse_formula("QK^T").items[0]
    >>> Terms(Resolver()).term(claim.subjects[0]).shape
    (n, n)
    """

    def __init__(self, scope: Scope, observer: Observer | None = None) -> None:
        self.scope = scope
        self.observer = observer
        self.trial = False  # reading a part only to learn its sizes (`_indexed_range`)
        self.defs = Defs()
        #: the feature maps `\\phi(X)` the current claim read (arbitrary maps: see verdicts)
        self.maps: list[str] = []
        #: the indices of a sequence being defined (`\\omega_j = 1/10000^{2j/d}`): values there
        self.bound: frozenset[str] = frozenset()
        # names the text never declares, read as real numbers for one scalar claim (`3hk\,k/h`)
        self.scalars: dict[str, sympy.Expr] = {}

    def term(self, node: ast.Node) -> sympy.Basic:
        """The kernel term a node stands for: a matrix expression or a scalar."""
        handler: Any = _TERMS.get(type(node))
        if handler is None:
            raise not_understood(_unsupported(node), node)
        value: sympy.Basic = handler(self, node)
        if isinstance(value, (Entry, Row, RowBlock)):
            # checked as built: a factor zero at the sizes ((n-5) at n = 5) would drop it
            outside = definite_range_problem(value, getattr(self, "sum_limits", {}))
            if outside is not None:
                raise Problem("shape_error", outside, node)
        if self.observer is not None:
            self.observer(node, value, node.end)
        return value

    # ---- sizes and indices ------------------------------------------------------------------

    def dim_term(self, node: ast.Node) -> sympy.Expr:
        """A size as written in a shape: numbers, dims (new names become dims), `Hd_v`, `+-/`."""
        if isinstance(node, ast.Number):
            if not node.text.isdigit() or int(node.text) < 1:
                raise not_understood(f"a size must be a positive integer, not {node.text}", node)
            return sympy.Integer(int(node.text))
        dims = self.scope.dims
        name = plain_name(node)
        if name is not None:
            if name not in dims:
                dims[name] = dim(name)
            return dims[name]
        name = word_name(node)
        if name is not None:
            if name not in dims:
                dims[name] = dim(name)
            return dims[name]
        if isinstance(node, ast.Product):
            return sympy.Mul(*(self.dim_term(f) for f in node.factors))
        if isinstance(node, ast.Mul):
            return chain_scalar(node, [self.dim_term(f) for f in node.factors])
        if isinstance(node, ast.Add):
            return add_scalars(node, [self.dim_term(t) for t in node.terms])
        if isinstance(node, ast.Group) and len(node.items) == 1:
            return self.dim_term(node.items[0])
        if isinstance(node, ast.Frac):
            return self.dim_term(node.num) / self.dim_term(node.den)
        raise not_understood("this size is not a product of dims and numbers", node)

    def index_term(self, node: ast.Node) -> sympy.Expr:
        """An index value: a letter (`i`), a number, a dim (`n`), or `+ -` of those."""
        dims = self.scope.dims
        if isinstance(node, ast.Number):
            if not node.text.isdigit():
                raise not_understood(f"an index must be an integer, not {node.text}", node)
            return sympy.Integer(int(node.text))
        if isinstance(node, ast.Symbol) and node.sub is None and node.font is None:
            if node.name in dims:
                return self.scope.bind(dims[node.name])
            if _index_letter(node.name):
                return index(node.name)
        if isinstance(node, ast.Symbol) and plain_name(node) in dims:
            return self.scope.bind(dims[plain_name(node) or ""])
        if isinstance(node, ast.Symbol) and word_name(node) in dims:
            return self.scope.bind(dims[word_name(node) or ""])
        if isinstance(node, ast.Add):
            return add_scalars(node, [self.index_term(t) for t in node.terms])
        if isinstance(node, ast.Product):
            return sympy.Mul(*(self.index_term(f) for f in node.factors))
        if isinstance(node, ast.Group) and node.delim == "(" and len(node.items) == 1:
            return self.index_term(node.items[0])  # `(h-1)d_v+u`
        if isinstance(node, ast.Mul) and set(node.ops) <= {"mod", "cdot", "times"}:
            return chain_scalar(node, [self.index_term(f) for f in node.factors])
        if isinstance(node, ast.Neg):
            return -self.index_term(node.operand)
        if isinstance(node, ast.Symbol) and node.sub is None and node.font is None:
            if node.name.isalpha() and node.name.islower() and len(node.name) > 1:
                raise self._unknown(node)  # `p_{i+\\delta, 2j}`: an offset the text names
        raise not_understood("an index must be a letter, a number or a size", node)

    def entry_indices(self, sub: ast.Node) -> list[sympy.Expr]:
        """The two indices of an entry; `_{11}`, `_{23}` (two digits, as the printer writes
        explicit entries) are two one-digit indices, since an entry needs two."""
        if isinstance(sub, ast.Number) and len(sub.text) == 2 and "0" not in sub.text:
            return [sympy.Integer(int(c)) for c in sub.text]
        return self.indices(sub)

    def indices(self, sub: ast.Node) -> list[sympy.Expr]:
        """The indices of a subscript: `ij`, `i,j`, `i+1`."""
        if isinstance(sub, ast.Product) and all(
            isinstance(f, ast.Symbol | ast.Number) for f in sub.factors
        ):
            return [self.index_term(f) for f in sub.factors]
        if isinstance(sub, ast.Seq):
            return [self.index_term(f) for f in sub.items]
        return [self.index_term(sub)]

    # ---- names ------------------------------------------------------------------------------

    def named(self, name: str, head: sympy.Basic | None, entry: NameEntry) -> MatExpr:
        """The matrix `name` (or member `head` of the family `name`) with its shape in scope."""
        if head is not None:
            return self.scope.bind(HeadSym(name, head, *entry.shape))
        return self.scope.bind(MatSym(name, *entry.shape))

    def _symbol(self, node: ast.Symbol) -> sympy.Basic:
        limits: dict[sympy.Symbol, object] = getattr(self, "sum_limits", {})
        if node.sub is None and node.font is None and index(node.name) in limits:
            return index(node.name)  # `i` in `\sum_{i=1}^{n} i`: the sum's own index
        if node.name in UNREAD_DERIVATIVE:
            raise not_understood(UNREAD_DERIVATIVE[node.name], node)
        if self.scalars and _label(node) in self.scalars:
            return self.scalars[_label(node)]
        if node.name == "1" and node.font in ("mathbf", "boldsymbol", "bm", "mathbb"):
            if node.sub is None:
                raise not_understood("write the length of the all-ones vector: \\mathbf 1_n", node)
            return Ones(self.dim_term(node.sub), 1)  # `\mathbf 1_n`, the column of n ones
        seqs: dict[str, sympy.Expr] = getattr(self.scope, "sequences", {})
        if node.sub is None and node.font is None and node.name in seqs:
            return FromColumn(node.name, seqs[node.name], 1)
        name = plain_name(node)
        if name is not None:
            if name in self.scope.dims:
                return self.scope.bind(self.scope.dims[name])
            entry = self.scope.lookup(name)
            if entry is not None and getattr(entry, "causal_ones", False):
                rows, cols = (self.scope.bind(x) for x in entry.shape)
                return causal_ones((rows, cols))  # the matrix the prose calls the causal mask
            if entry is not None:
                return self.named(name, None, entry)
        word = word_name(node)
        if word is not None and word in self.scope.dims:
            return self.scope.bind(self.scope.dims[word])  # `d_{ff}`, a size declared as such
        if node.sub is None and node.font is None and node.name in self.bound:
            return index(node.name)  # `j` in `\\omega_j = 1/10000^{2j/d}`
        defined = self.defs.table.get(_label(node))
        if defined is not None and defined.indices == 0 and defined.params is None:
            return self._opaque(defined, _label(node), node)
        if node.font in KEEP_FONTS and node.sub is not None and not _named_sub(node.sub):
            return self._indexed(node)
        if node.sub is not None:  # `\\hat q_i` of `\\hat q_i = ...`: a sequence the text defined
            bare = _label(ast.Symbol(node.name, node.font, start=node.start, end=node.end))
            defined = self.defs.table.get(bare)
            if defined is not None and defined.params is None and defined.indices:
                if defined.indices == len(self.indices(node.sub)):
                    return self._opaque(defined, _label(node), node)
        raise self._unknown(node)

    def _indexed(self, node: ast.Symbol) -> sympy.Basic:
        """`q_i` is row i of Q, `a_{ij}` is A[i, j], `Q_{ir}` is Q[i, r] (also in bold)."""
        base = node.name
        assert node.sub is not None
        if _labels_a_name(node.sub, self.scope.dims):
            # `\\mathbf v_{A,i}`, `\\mathbf v_A`: a label, not row A of V
            bare = _label(ast.Symbol(node.name, node.font, start=node.start, end=node.end))
            defined = self.defs.table.get(bare)
            if defined is not None and defined.params is None:
                if defined.indices == len(self.indices(node.sub)):
                    return self._opaque(defined, _label(node), node)
            raise self._unknown(node)
        member = self._member(node)
        if member is not None:
            return member
        last = run_bound(node.sub) if base.islower() and len(base) == 1 else None
        if last is not None:
            return self._row_run(node, last)
        idx = self.indices(node.sub)
        if node.name.isupper():
            # `S_i` of `S_i = \\{j : j \\le i\\}`, where S is only the conventions' scores
            bare = _label(ast.Symbol(node.name, node.font, start=node.start, end=node.end))
            defined = self.defs.table.get(bare)
            document = getattr(self.scope, "document_matrix", None)
            if defined is not None and defined.params is None and defined.indices == len(idx):
                if document is not None and not document(node.name):
                    return self._opaque(defined, _label(node), node)
        ranges: dict[str, sympy.Expr] = getattr(self, "sum_ranges", {})
        component = component_of(self.scope, node, ranges) if len(idx) == 1 else None
        if component is not None:  # `q_i`, component i of the vector q the text declares
            vector = self.named(component[0], None, component[1])
            return Entry(vector, idx[0], 1) if vector.cols == 1 else Entry(vector, 1, idx[0])
        two_readings = ambiguous(self.scope, node, ranges) if len(idx) == 1 else ""
        if two_readings:
            raise not_understood(two_readings, node)
        if base == "delta" and len(idx) == 2 and node.font is None:
            return sympy.KroneckerDelta(*idx)  # `\delta_{rt}`: 1 when r = t, else 0
        matrix_name = base.upper() if base.islower() else base
        entry = self.scope.lookup(matrix_name)
        seqs: dict[str, sympy.Expr] = getattr(self.scope, "sequences", {})
        if entry is None and base in seqs and len(idx) == 1 and node.font is None:
            # `c_i`, term i of a sequence the text uses as a column (`c\mathbf 1_n^T`)
            return Entry(FromColumn(base, seqs[base], 1), idx[0], 1)
        if entry is None:
            bare = _label(ast.Symbol(node.name, node.font, start=node.start, end=node.end))
            defined = self.defs.table.get(bare)
            if defined is not None and defined.indices == len(idx) and defined.params is None:
                return self._opaque(defined, _label(node), node)  # `e_{ir}` of `e_{ij} = ...`
        if entry is None or len(base) != 1:
            raise self._unknown(node)
        m = self.named(matrix_name, None, entry)
        if len(idx) == 1 and (base.isupper() or _beyond_rows(idx[0], m) or _square(node, m)):
            idx = self.entry_indices(node.sub)
        if len(idx) == 2:
            return Entry(m, *idx)
        if len(idx) == 1 and base.islower():
            row = Row(m, idx[0])
            return row.T if self.scope.orientation(base) == "column" else row
        raise not_understood(
            f"{base}_{{...}} with {len(idx)} index: write {base.lower()}_i for a row, "
            f"{base.upper()}_{{ij}} for an entry",
            node,
        )

    def _row_run(self, node: ast.Symbol, last: ast.Node) -> sympy.Basic:
        """`x_{1:t}`: the vectors x_1, ..., x_t, rows 1..t of X."""
        entry = self.scope.lookup(node.name.upper())
        if entry is None:
            raise self._unknown(node)
        matrix = self.named(node.name.upper(), None, entry)
        upper = self.index_term(last)
        try:
            return row_run(matrix, upper, self.scope.orientation(node.name) == "column")
        except ShapeError:
            bound = f"{plain(upper)} <= {plain(matrix.rows)}"
            msg = f"{node.name}_{{1:{plain(upper)}}}: {bound} is not known"
            raise not_understood(msg, node) from None

    def _member(self, node: ast.Symbol) -> sympy.Basic | None:
        """`\\mathbf S_{t-1}` of a family the text declared or defined (`terms.members`); a
        member of a defined family is an opaque term (its value is not read)."""
        letter = family_letter(node)
        family = lookup_member(self.scope, letter) if letter is not None else None
        if family is None or node.sub is None:
            return None
        idx = self.indices(node.sub)
        if len(idx) != 1:
            return None
        value = member_value(self, family, idx[0]) if family.defined else None
        if value is not None:
            return value  # the closed form the text defines its members by, at this index
        if family.defined:
            read = recurrence_member(family, idx[0])
            if read is not None:  # a recurrence with its base case: its value is read
                return read
            self.defs.used.append(_label(node))
            if family.settled:  # its shape is certain: claims about it are decided as usual
                self.defs.members[_label(node)] = family.line
        return member_of(self.scope, family, idx[0])

    def _unknown(self, node: ast.Symbol) -> UnknownName:
        label = _label(node)
        known = self.scope.known_names()
        same = [k for k in known if k.lower() == label.lower() and k != label]
        near = same + [
            k for k in difflib.get_close_matches(label, known, n=3, cutoff=0.5) if k not in same
        ]
        near = near[:3]
        hint = f"; did you mean {', '.join(near)}?" if near else ""
        msg = f"unknown symbol {label} (declare its shape){hint}"
        return UnknownName(msg, node, label, near)

    def _head_sup(self, node: ast.HeadSup) -> sympy.Basic:
        op = node.operand
        if (
            isinstance(op, ast.Symbol)
            and op.sub is not None
            and len(op.name) == 1
            and op.name != "W"
            and self.scope.lookup(plain_name(op) or "", True) is None
        ):
            return self._head_indexed(node, op)
        fam = plain_name(node.operand)
        head = self.index_term(node.head)
        heads = self.scope.bind(H)
        if head.is_Integer and (head < 1 or (heads.is_Integer and head > heads)):
            count = f"1..{heads}" if heads.is_Integer else "1..H"
            msg = f"there is no head {head}: the heads are {count}"
            raise Problem("shape_error", msg, node)
        lookup = self.scope.lookup
        whole = lookup("W_O") if fam == "W_O" else None
        if whole is not None and _row_block_of(lookup("W_O", True), whole, self.scope.bind):
            w_o = self.named("W_O", None, whole)
            return RowBlock(w_o, head, self.scope.bind(d_v), self.scope.bind(H))
        entry = lookup(fam, True) if fam is not None else None
        if fam is None or entry is None:
            text = _label(node.operand) if isinstance(node.operand, ast.Symbol) else "this"
            msg = f"unknown head family {text}^(h) (declare its shape)"
            raise UnknownName(msg, node, f"{text}^{{(h)}}", [])
        return self.named(fam, head, entry)

    def _head_indexed(self, node: ast.HeadSup, op: ast.Symbol) -> sympy.Basic:
        """`z^{(h)}_i` is row i of `Z^{(h)}`, `Z^{(h)}_{iu}` and `a^{(h)}_{ij}` are entries:
        the letters of a head family read as those of a matrix (`q_i`, `Q_{ir}`, `a_{ij}`)."""
        if self.scalars and isinstance(node.operand, ast.Symbol) and label_of(node) in self.scalars:
            return self.scalars[label_of(node)]  # `x^{(1)}_m` read as a number
        assert op.sub is not None
        letter = op.name.upper()
        bare = ast.Symbol(letter, op.font, None, start=op.start, end=op.start + 1)
        try:
            member = self._head_sup(ast.HeadSup(bare, node.head, start=node.start, end=node.end))
        except UnknownName:
            if not op.name.islower():
                raise
            # `x^{(1)}_m` with no family X^{(h)} anywhere: a name of the text's own (feature 1
            # of x at m), undeclared, not an unknown matrix
            label = f"{op.name}^{{({ast.dump(node.head)})}}_{{{ast.dump(op.sub)}}}"
            raise UnknownName(f"unknown symbol {label}", node, label, []) from None
        assert isinstance(member, MatExpr)
        idx = self.indices(op.sub)
        if len(idx) == 1 and op.name.isupper():
            idx = self.entry_indices(op.sub)
        if len(idx) == 2:
            return Entry(member, *idx)
        if len(idx) == 1 and op.name.islower():
            return Row(member, idx[0])
        raise not_understood("write z^{(h)}_i for a row, Z^{(h)}_{iu} for an entry", node)

    # ---- products, sums, quotients ----------------------------------------------------------

    def _product(self, node: ast.Product) -> sympy.Basic:
        applied = self._applications(node)
        if applied is not node:
            if not isinstance(applied, ast.Product):
                return self.term(applied)
            node = applied
        return self._fold(node, ["*"] * (len(node.factors) - 1))

    def _applications(self, node: ast.Product) -> ast.Node:
        """`a(\\mathbf q, \\mathbf k_i)\\mathbf v_i`: a letter the document defined as a
        function, followed by parentheses, is that function applied (an `ast.Call`)."""
        out: list[ast.Expr] = []
        fs = node.factors
        k = 0
        while k < len(fs):
            f = fs[k]
            if k + 1 < len(fs) and isinstance(f, ast.Symbol):
                pair = ast.Product((f, fs[k + 1]), start=f.start, end=fs[k + 1].end)
                head = head_of(pair)
                mapped = self._feature_map(f, fs[k + 1])
                if mapped is not None:
                    out.append(mapped)
                    k += 2
                    continue
                if head is not None and self.applied_unknown(f):
                    label = f"{_label(f)}(·)"
                    msg = f"unknown function {label} (declare it)"
                    raise UnknownName(msg, pair, label, [], applied=True)
                defined = self.defs.table.get(_label(f)) if head is not None else None
                if head is not None and defined is not None and defined.params is not None:
                    out.append(
                        ast.Call(_label(f), head[1].items, parens=True, start=f.start, end=pair.end)
                    )
                    k += 2
                    continue
            out.append(f)
            k += 1
        if len(out) == len(fs):
            return node
        if len(out) == 1:
            return out[0]
        return ast.Product(tuple(out), start=node.start, end=node.end)

    def _feature_map(self, f: ast.Symbol, nxt: ast.Expr) -> ast.Expr | None:
        r"""`\phi(Q)`, `\phi(K)^{\mathsf T}`, `\varphi(k_j)` with the letter meaning nothing in
        scope and a matrix or a row inside: the feature map of linear attention, as the
        printer writes the kernel's `FeatureMap` (a `Call` for `_call`; the transpose kept).
        None for anything else (a scalar argument stays an unknown function)."""
        if f.name not in FEATURE_MAPS or f.sub is not None or f.font is not None:
            return None
        group, mark = (nxt.operand, nxt.mark) if isinstance(nxt, ast.Transpose) else (nxt, "")
        if not (isinstance(group, ast.Group) and group.delim == "(" and len(group.items) == 1):
            return None
        if not self.applied_unknown(f):
            return None
        try:
            arg = self.term(group.items[0])
        except (SymattnError, RecursionError):
            return None
        if not isinstance(arg, MatExpr):
            return None
        call = ast.Call(f.name, group.items, parens=True, start=f.start, end=group.end)
        if mark:
            return ast.Transpose(call, mark, start=f.start, end=nxt.end)
        return call

    def applied_unknown(self, f: ast.Symbol) -> bool:
        """`F(x)`, `G(y_1)`: a letter nothing in scope means, written before parentheses."""
        if _label(f) in self.defs.table:
            return False
        try:
            self.term(f)
        except UnknownName as u:
            return u.node is f and "^{(h)}" not in u.label
        except SymattnError:
            return False
        return False

    def _opaque(self, d: Defined, text: str, node: ast.Node) -> sympy.Basic:
        if d.value is None:
            msg = f"{text}: its definition (line {d.line}) was not read{d.why}"
            raise UnknownName(msg, node, text, [], defined=True)
        return self.defs.opaque(d, text)

    def _apply(self, d: Defined, node: ast.Call) -> sympy.Basic:
        """`f(x)` of a function the document defined: an opaque value of the shape its
        definition gave, when the arguments have the shapes its parameters had there."""
        assert d.params is not None
        if len(node.args) != len(d.params):
            msg = f"{d.name} was defined with {len(d.params)} argument(s), not {len(node.args)}"
            raise not_understood(msg, node)
        text = f"{d.name}({', '.join(ast.dump(a) for a in node.args)})"
        if d.value is None:
            return self._opaque(d, text, node)
        if d.any_args:
            for arg in node.args:
                try:
                    self.term(arg)  # an argument that does not typecheck is still an error
                except Problem as p:
                    if p.status == "shape_error":
                        raise
            return self.defs.opaque(d, text)
        for arg, want in zip(node.args, d.params, strict=True):
            got = shape_of(self.term(arg))
            if want is None or not _same_value(got, want):
                msg = (
                    f"{d.name} is applied to arguments of other shapes than in its definition "
                    f"(line {d.line}): its value there is not known"
                )
                raise not_understood(msg, node)
        return self.defs.opaque(d, text)

    def _gradient(self, node: ast.Gradient) -> sympy.Basic:
        """The gradient of the loss with respect to a matrix, a vector or an entry of one: a
        matrix of its shape (its entry, its row), standing for the unknown gradient."""
        wrt = self.term(node.wrt)
        base = wrt.args[0] if isinstance(wrt, (Entry, Row)) else wrt
        if not isinstance(base, MatSym):
            what = "a size or a number" if not isinstance(base, MatExpr) else plain(base)
            msg = f"a gradient with respect to {what}: only gradients of the loss with respect "
            raise not_understood(msg + "to a named matrix or vector are read", node)
        loss = self.scope.lookup(node.loss) if node.loss != "∇" else None
        if loss is not None and tuple(loss.shape) != (1, 1):
            msg = f"{node.loss} is a matrix of the text here, not the loss: its derivative "
            raise not_understood(msg + "is a Jacobian, which is not read", node)
        grad = MatSym(gradient_name(node.loss, base.name), *base.shape)
        return wrt.xreplace({base: grad})

    def _mul(self, node: ast.Mul) -> sympy.Basic:
        return self._fold(node, list(node.ops))

    def _fold(self, node: ast.Product | ast.Mul, ops: list[str]) -> sympy.Basic:
        """Left to right; each partial product is a step, and an error spans the factors so far."""
        factors = node.factors
        self._note_shift(factors)
        acc = self.term(factors[0])
        for k, (op, f) in enumerate(zip(ops, factors[1:], strict=True), start=2):
            b = self.term(f)
            span = (node.start, f.end)
            if op == "mod":
                if isinstance(acc, MatExpr) or isinstance(b, MatExpr):
                    raise not_understood("mod is read between integers only", node)
                acc = sympy.Mod(acc, b)
            elif op == "/":
                acc = _divide(acc, b, node, span)
            elif op == "star" and (isinstance(acc, MatExpr) or isinstance(b, MatExpr)):
                msg = "'*' is read between numbers only; between matrices write the product"
                raise not_understood(msg, node)
            elif op == "cdot" and isinstance(acc, MatExpr) and isinstance(b, MatExpr):
                before, acc = acc, _dot(acc, b, node, span)
                self._confirm(before, b)
            elif op in ("odot", "otimes"):
                masks = (k == 2 and self._is_mask(factors[0]), self._is_mask(f))
                try:
                    acc = entrywise(op, acc, b, masks)
                except ShapeError as e:
                    raise shape_problem(e, node, span) from None
                except NotRead as e:
                    raise not_understood(str(e), node) from None
            else:
                acc = bracketed_scalar(factors[0], acc, b) if k == 2 else acc
                before, acc = acc, _times(acc, b, node, span)
                if isinstance(before, MatExpr) and isinstance(b, MatExpr):
                    self._confirm(before, b)
            if k < len(factors) and self.observer is not None:
                self.observer(node, acc, f.end)
        return acc

    def _note_shift(self, factors: tuple[ast.Expr, ...]) -> None:
        r"""`c\mathbf 1_n^{\mathsf T}` with `c` a letter not in scope: c is a column of numbers
        `c_i`, one per row (the kernel's `FromColumn`), as long as the ones vector (a square
        shift; another length is then a shape error, never a silent guess that verifies)."""
        seqs: dict[str, sympy.Expr] | None = getattr(self.scope, "sequences", None)
        if seqs is None:
            return
        for a, b in zip(factors, factors[1:], strict=False):
            if (
                isinstance(a, ast.Symbol)
                and a.sub is None
                and a.font is None
                and len(a.name) == 1
                and a.name.islower()
                and a.name not in self.scope.dims
                and self.scope.lookup(a.name.upper()) is None
                and isinstance(b, ast.Transpose)
                and isinstance(b.operand, ast.Symbol)
                and b.operand.name == "1"
                and b.operand.sub is not None
            ):
                seqs.setdefault(a.name, self.dim_term(b.operand.sub))

    def _add(self, node: ast.Add) -> sympy.Basic:
        masks = [k for k, t in enumerate(node.terms) if self._is_mask(t)]
        if masks:
            return self._masked(node, masks)
        parts = [self.term(t) for t in node.terms]
        if any(not isinstance(p, MatExpr) for p in parts):
            # `\mathbf q^\top\mathbf k - \frac12\|\mathbf k\|^2`: a 1 × 1 matrix beside numbers
            parts = [as_comparable(p, sympy.Integer(0))[0] for p in parts]
        if all(not isinstance(p, MatExpr) for p in parts):
            return add_scalars(node, parts)
        acc = parts[0]
        for op, p, t in zip(node.ops, parts[1:], node.terms[1:], strict=True):
            span = (node.start, t.end)
            if isinstance(acc, MatExpr) != isinstance(p, MatExpr):
                kinds = [("a matrix" if isinstance(x, MatExpr) else "a scalar") for x in (acc, p)]
                msg = f"cannot add {kinds[0]} and {kinds[1]}: {plain(acc)} and {plain(p)}"
                raise Problem("shape_error", msg, node, span=span)
            try:
                before, acc = acc, MatAdd(acc, Scale(-1, p) if op == "-" else p)
            except ShapeError as e:
                raise shape_problem(e, node, span) from None
            self._confirm(before, p)
        return acc

    def _confirm(self, *operands: sympy.Basic) -> None:
        """Matrices combined in a product or a sum that typechecks: the shapes they were read
        with are the text's own use of them (`XW_Q` confirms the chapter's X and W_Q)."""
        confirmed: set[str] | None = getattr(self.scope, "confirmed", None)
        if confirmed is None or self.trial or not getattr(self.scope, "confirming", False):
            return
        for x in operands:
            confirmed.update(m.name for m in walk(x) if isinstance(m, MatSym))

    def _is_mask(self, node: ast.Node) -> bool:
        name = plain_name(node)
        entry = self.scope.lookup(name) if name is not None else None
        return bool(getattr(entry, "mask", False))

    def _masked(self, node: ast.Add, masks: list[int]) -> sympy.Basic:
        """`S + M` with M the additive causal mask (defined by its two cases) is
        `CausalMask(S)`: S on and below the diagonal, -∞ above it."""
        ops = ["+", *node.ops]
        if len(masks) != 1 or ops[masks[0]] != "+" or len(node.terms) < 2:
            raise not_understood("the causal mask is read only added once: S + M", node)
        rest = [t for k, t in enumerate(node.terms) if k != masks[0]]
        rest_ops = [o for k, o in enumerate(ops) if k != masks[0]][1:]
        if ops[0] == "-" and masks[0] != 0:
            raise not_understood("the causal mask is read only added once: S + M", node)
        inner: ast.Node = rest[0]
        if len(rest) > 1:
            inner = ast.Add(tuple(rest), tuple(rest_ops), start=node.start, end=node.end)
        s = self.term(inner)
        if not isinstance(s, MatExpr):
            raise Problem("shape_error", "the causal mask is added to a matrix", node)
        try:
            return CausalMask(s)
        except ShapeError as e:
            raise shape_problem(e, node) from None

    def _neg(self, node: ast.Neg) -> sympy.Basic:
        v = self.term(node.operand)
        return Scale(-1, v) if isinstance(v, MatExpr) else -v

    def _frac(self, node: ast.Frac) -> sympy.Basic:
        return _divide(self.term(node.num), self.term(node.den), node, None)

    def _sqrt(self, node: ast.Sqrt) -> sympy.Basic:
        return _sqrt_of(self.term(node.radicand), node)

    def _euler(self, node: ast.Power) -> bool:
        """`e` raised to a power where the text gives no e of its own: Euler's number. Not
        with an `i` or `j` among the exponent's factors (`e^{im\\theta}`: the imaginary unit,
        which the reader does not take for an index)."""
        base = node.base
        if not isinstance(base, ast.Symbol) or base.name != "e" or base.sub or base.font:
            return False
        if _imaginary(node.exponent):
            return False
        return "e" not in self.scalars and "e" not in self.scope.dims and not self.scope.lookup("e")

    def _power(self, node: ast.Power) -> sympy.Basic:
        if self._euler(node):
            exp = self.term(node.exponent)
            if not isinstance(exp, MatExpr):
                huge = huge_power(sympy.E, exp)
                if huge:
                    raise not_understood(huge, node)
                return sympy.exp(exp)  # `e^{x_i}`: e is no name of the text's
        base = self.term(node.base)
        exp = node.exponent
        if isinstance(base, MatExpr) and isinstance(exp, ast.Symbol) and exp.sub is None:
            # `s_t^n`, `\\mathbf h^t`: a letter above a vector labels a new one (a step, a
            # layer), never a power; undeclared, it is read as a name of unknown shape
            label = f"{plain(base)}^{exp.name}"
            raise UnknownName(f"unknown symbol {label} (declare its shape)", node, label, [])
        if isinstance(base, MatExpr):
            raise not_understood(
                "powers of matrices are not checked: write ^T for a transpose and "
                "(K^{(h)})^T for the transpose of a head",
                node,
            )
        exp = self.term(node.exponent)
        if isinstance(exp, MatExpr):
            raise not_understood("a matrix as an exponent is not checked", node)
        too_large = huge_power(base, exp)
        if too_large:
            raise not_understood(too_large, node)
        return base**exp

    def _number(self, node: ast.Number) -> sympy.Basic:
        return sympy.Rational(node.text)

    def _group(self, node: ast.Group) -> sympy.Basic:
        if len(node.items) != 1:
            raise not_understood("a list in parentheses is not a value", node)
        return self.term(node.items[0])

    def _indexed_group(self, node: ast.IndexedGroup) -> sympy.Basic:
        m = self.term(node.group)
        if not isinstance(m, MatExpr):
            raise not_understood("only a matrix can be indexed", node)
        sub = node.index
        if isinstance(sub, ast.Seq) and len(sub.items) == 2 and _is_colon(sub.items[1]):
            return Row(m, self.index_term(sub.items[0]))  # `(AV)_{i,:}`: row i, every column
        idx = self.entry_indices(sub)
        if len(idx) == 1 and _vector_shaped(m):
            # `\mathrm{softmax}(x)_i`: entry i of a vector
            return Entry(m, 1, idx[0]) if dims_equal(m.rows, 1) else Entry(m, idx[0], 1)
        if len(idx) != 2:
            raise not_understood("an entry needs two indices, as in (QK^T)_{ij}", node.index)
        return Entry(m, *idx)

    def _transpose(self, node: ast.Transpose) -> sympy.Basic:
        v = self.term(node.operand)
        if not isinstance(v, MatExpr):
            raise Problem("shape_error", f"cannot transpose the scalar {plain(v)}", node)
        return v.T

    def _sum(self, node: ast.Sum) -> sympy.Basic:
        if node.var is None or node.var.sub is not None or not _index_letter(node.var.name):
            raise not_understood("a sum needs one index letter, as in \\sum_{j=1}^{n}", node)
        var = index(node.var.name)
        length = component_length(self.scope, node.body, node.var.name)
        if length is None and node.lower is None:
            length = self._indexed_length(node.body, node.var.name)
        if node.lower is None and length is not None:
            lo, hi = sympy.Integer(1), length  # `\\sum_i v_i w_i`: over the vectors' length
        elif node.lower is None:
            lo, hi = sympy.Integer(1), self._indexed_range(node, var)
        else:
            lo = self.index_term(node.lower)
            if node.upper is None and length is None:
                raise not_understood("a sum with a lower bound needs an upper bound", node)
            hi = length if node.upper is None else self.index_term(node.upper)
        outer: dict[str, sympy.Expr] = getattr(self, "sum_ranges", {})
        self.sum_ranges = {**outer, node.var.name: hi}  # `q_i` inside: its range is known
        around: dict[sympy.Symbol, tuple[sympy.Expr, sympy.Expr]] = getattr(self, "sum_limits", {})
        self.sum_limits = {**around, var: (lo, hi)}
        try:
            body = self.term(node.body)
        finally:
            self.sum_ranges = outer
            self.sum_limits = around
        if isinstance(body, MatExpr):
            return MatSum(body, var, lo, hi)
        return sympy.Sum(body, (var, lo, hi))

    def _indexed_length(self, body: ast.Node, letter: str) -> sympy.Expr | None:
        """The length of the vectors taken at `letter` in `body` (`\\sum_i softmax(x)_i`):
        None when there are none, one is not read, or their lengths differ."""
        lengths: set[sympy.Expr] = set()
        stack = [body]
        while stack:
            x = stack.pop()
            stack.extend(ast.children(x))
            if not isinstance(x, ast.IndexedGroup):
                continue
            sub = x.index
            if not isinstance(sub, ast.Symbol) or sub.name != letter or sub.sub is not None:
                continue
            observer, self.observer = self.observer, None
            try:
                m = self.term(x.group)
            except (SymattnError, RecursionError):
                return None
            finally:
                self.observer = observer
            if not isinstance(m, MatExpr) or not _vector_shaped(m):
                return None
            lengths.add(m.cols if dims_equal(m.rows, 1) else m.rows)
        return lengths.pop() if len(lengths) == 1 else None

    def _indexed_range(self, node: ast.Sum, var: sympy.Symbol) -> sympy.Expr:
        """`\\sum_t a_{st}`: t runs over what it indexes (A's columns), when every entry and
        row it indexes in the body agree on that size; else over its letter's conventional
        size (`\\sum_j`: the n positions)."""
        letter = str(var)
        over = SUM_LETTERS.get(letter.rstrip("'"))
        guess = self.scope.bind(over) if over is not None else None
        outer: dict[str, sympy.Expr] = getattr(self, "sum_ranges", {})
        if guess is not None:
            self.sum_ranges = {**outer, letter: guess}
        used, trial = list(self.defs.used), self.trial
        self.trial = True  # a trial reading: it confirms nothing and uses no definition
        try:
            body = self.term(node.body)
        except (SymattnError, RecursionError):
            body = None
        finally:
            self.sum_ranges = outer
            self.defs.used[:] = used
            self.trial = trial
        sizes = _sizes_indexed(body, var) if body is not None else []
        if sizes and all(dims_equal(x, sizes[0]) for x in sizes[1:]):
            return sizes[0]
        if guess is None:
            raise not_understood(
                f"cannot tell what \\sum_{letter} ranges over: write its bounds", node
            )
        return guess

    # ---- names with labels, inner products, norms ---------------------------------------------

    def _labeled(self, node: ast.Labeled) -> sympy.Basic:
        """`W^Q`, `W_i^q`, `W_i^{(q)}`: a matrix named with its superscript, declared as such."""
        name = plain_name(node)
        entry = self.scope.lookup(name) if name is not None else None
        op = node.operand
        if entry is None and op.sub is not None:
            bare = ast.Labeled(
                ast.Symbol(op.name, op.font, start=op.start, end=op.start + 1),
                node.label,
                start=node.start,
                end=node.end,
            )
            whole = plain_name(bare)
            matrix = self.scope.lookup(whole) if whole is not None else None
            idx = self.entry_indices(op.sub) if matrix is not None else []
            if whole is not None and matrix is not None and len(idx) == 2:
                return Entry(self.named(whole, None, matrix), *idx)  # `W^Q_{rj}`
        if name is None or entry is None:
            label = name or _label(node.operand) + "^" + node.label
            known = self.scope.known_names()
            near = difflib.get_close_matches(label, known, n=3, cutoff=0.5)
            hint = f"; did you mean {', '.join(near)}?" if near else ""
            msg = f"unknown symbol {label} (declare its shape){hint}"
            raise UnknownName(msg, node, label, near)
        return self.named(name, None, entry)

    def _inner(self, node: ast.Inner) -> sympy.Basic:
        r"""`\langle u, v\rangle` is `u \cdot v`: two rows or two columns (of scalars: ab)."""
        a, b = self.term(node.left), self.term(node.right)
        if isinstance(a, MatExpr) and isinstance(b, MatExpr):
            return _dot(a, b, node, None)
        if isinstance(a, MatExpr) or isinstance(b, MatExpr):
            raise not_understood("an inner product of a vector and a scalar is not read", node)
        return a * b

    def _norm(self, node: ast.Norm) -> sympy.Basic:
        r"""`\|x\|` is the Euclidean length of a row or column, sqrt(x·x); of a scalar, |x|."""
        v = self.term(node.operand)
        if not isinstance(v, MatExpr):
            return sympy.Abs(v)
        if not (dims_equal(v.rows, 1) or dims_equal(v.cols, 1)):
            raise not_understood("the norm of a matrix is not read (only of a vector)", node)
        return sympy.sqrt(_dot(v, v, node, None))

    def _abs(self, node: ast.Abs) -> sympy.Basic:
        """`|x|` of a number; of a vector or a set it is ambiguous (length, size), not read."""
        v = self.term(node.operand)
        if isinstance(v, MatExpr):
            raise not_understood("|x| of a vector or matrix is not read: write \\|x\\|", node)
        return sympy.Abs(v)

    def _matrix(self, node: ast.Matrix) -> sympy.Basic:
        """A matrix written out as a value: its cells are read (an undeclared name among them
        makes the claim undecided), but the matrix itself is checked only as the right side
        of `M = [rows]`."""
        for row in node.rows:
            for cell in row:
                if not isinstance(cell, ast.Dots):
                    self.term(cell)
        msg = "a matrix written out is checked only as the right side of M = [rows]"
        if node.env == "cases":
            msg = "a definition by cases is read, not checked as a value"
        raise not_understood(msg, node)

    # ---- operators --------------------------------------------------------------------------

    def _call(self, node: ast.Call) -> sympy.Basic:
        name = node.name.lower()
        if not node.parens:
            raise not_understood(f"{node.name} needs its argument in parentheses", node)
        if name == "concat":
            return self._concat(node)
        defined = self.defs.table.get(node.name)
        if defined is not None and defined.params is not None and name not in _OPERATORS:
            return self._apply(defined, node)
        if node.name in ("repeat", "tile") and node.sub is not None and len(node.args) == 1:
            return self._repeat(node)
        if node.name == "online" and node.sub is not None and len(node.args) == 2:
            return self._online(node)
        if node.name in FEATURE_MAPS and node.sub is None and len(node.args) == 1:
            x = self.term(node.args[0])
            if isinstance(x, MatExpr):
                self.maps.append(node.name)
                return FeatureMap(node.name, x, FEATURE_WIDTH)
        args = [self.term(a) for a in node.args]
        if name in ("softmax", "mask") and len(args) == 1:
            x = args[0]
            if not isinstance(x, MatExpr):
                msg = f"{name} needs a matrix, got the scalar {plain(x)}"
                raise Problem("shape_error", msg, node)
            try:
                if (
                    name == "softmax"
                    and isinstance(x, MatSym | FromColumn)
                    and _lower_case(x.name)
                    and _vector_shaped(x)
                    and dims_equal(x.cols, 1)
                ):
                    # of a named column vector: over its entries (a capital's n × 1 matrix, a
                    # column cut from a matrix, keeps the row-wise softmax of matrices)
                    return Softmax(x.T).T
                return Softmax(x) if name == "softmax" else CausalMask(x)
            except ShapeError as e:
                raise shape_problem(e, node) from None
        if name == "attention" and len(args) == 3 and all(isinstance(a, MatExpr) for a in args):
            q, k, v = args
            assert isinstance(q, MatExpr) and isinstance(k, MatExpr) and isinstance(v, MatExpr)
            try:
                scores = Scale(1 / sympy.sqrt(k.cols), MatMul(q, k.T))
                product = MatMul(Softmax(scores), v)
            except ShapeError as e:
                raise shape_problem(e, node) from None
            self._confirm(q, k, v)
            return product
        if name == "sqrt" and len(args) == 1:
            return _sqrt_of(args[0], node)
        if name == "exp" and len(args) == 1:
            x = as_comparable(args[0], sympy.Integer(0))[0]  # a 1 × 1 matrix is its entry
            if not isinstance(x, MatExpr):
                return sympy.exp(x)
        if name in SCALAR_FUNCTIONS:
            value = apply_scalar(name, [as_comparable(a, sympy.Integer(0))[0] for a in args])
            if value is not None:
                return value  # `\sin(\omega p)` of real numbers
        known = (
            "softmax(M), mask(S), Attention(Q,K,V), Concat(Z^{(1)},...,Z^{(H)}), exp(x), sqrt(x)"
        )
        if name in ("softmax", "mask", "attention", "exp", "sqrt"):
            msg = f"{node.name} with these {len(args)} argument(s) is not known (known: {known})"
        else:
            msg = f"unknown operator {node.name!r} (known: {known})"
            raise UnknownOperator(msg, node, f"\\operatorname{{{node.name}}}")
        raise not_understood(msg, node)

    def _repeat(self, node: ast.Call) -> sympy.Basic:
        r"""`\operatorname{repeat}_R(K)` (and `tile`), the printer's grouped-query K/V: its
        heads each repeated R times. Its shape is K's rows by R times K's columns however the
        columns split into heads; that split is not written, so the value is opaque (a claim
        about it is at most undecided, `Defs.used`), only the shape is read."""
        assert node.sub is not None
        x = self.term(node.args[0])
        if not isinstance(x, MatExpr):
            raise not_understood(f"{node.name} needs a matrix, got the scalar {plain(x)}", node)
        r = self.dim_term(node.sub)
        text = f"\\operatorname{{{node.name}}}_{{{ast.dump(node.sub)}}}({ast.dump(node.args[0])})"
        self.defs.used.append(text)
        self.defs.notations.add(text)
        return MatSym(text, x.rows, x.cols * r)

    def _online(self, node: ast.Call) -> sympy.Basic:
        r"""`\operatorname{online}_{b_1,\ldots,b_B}(S, V)`: softmax(S)V computed over key
        blocks of the sizes written, as the printer writes the kernel's `OnlineSoftmax` (a
        running maximum, normaliser and rescaled output); the kernel decides claims about it."""
        assert node.sub is not None
        items = node.sub.items if isinstance(node.sub, ast.Seq) else (node.sub,)
        blocks = [self.dim_term(b) for b in items]
        s, v = (self.term(a) for a in node.args)
        if not (isinstance(s, MatExpr) and isinstance(v, MatExpr)):
            raise not_understood("online needs two matrices, the scores and the values", node)
        try:
            return OnlineSoftmax(s, v, blocks)
        except ShapeError as e:
            raise shape_problem(e, node) from None

    def _concat(self, node: ast.Call) -> sympy.Basic:
        a = node.args
        if len(a) >= 1 and not any(isinstance(x, ast.Dots) for x in a):
            return self._concat_listed(node)
        if len(a) != 3 or not isinstance(a[1], ast.Dots):
            raise not_understood("write Concat(Z^{(1)},\\ldots,Z^{(H)})", node)
        first, last = a[0], a[2]
        if not (isinstance(first, ast.HeadSup) and isinstance(last, ast.HeadSup)):
            raise not_understood("Concat takes the members of a head family Z^{(h)}", node)
        if plain_name(first.operand) != plain_name(last.operand):
            raise not_understood("Concat's first and last members are of different families", node)
        if self.index_term(first.head) != 1:
            raise not_understood("Concat must start at head 1", first)
        self.term(first)  # each member is a step of its own, and must be known
        self.term(last)
        count = self.index_term(last.head)
        h = index("h")
        member = ast.HeadSup(
            first.operand, ast.Symbol("h", start=0, end=0), start=first.start, end=first.end
        )
        body = self._head_sup(member)
        assert isinstance(body, MatExpr)
        return Concat(body, h, count)

    def _concat_listed(self, node: ast.Call) -> sympy.Basic:
        """`Concat(Z^{(1)},Z^{(2)},Z^{(3)})`: every member of one family from head 1 to head
        k, in order, is the family's Concat up to k (and nothing else is)."""
        fams = set()
        for k, x in enumerate(node.args, start=1):
            ok = isinstance(x, ast.HeadSup) and isinstance(x.head, ast.Number)
            if not ok or self.index_term(x.head) != k:  # type: ignore[union-attr]
                raise not_understood("Concat lists the heads of one family, 1, 2, ... in order", x)
            fams.add(plain_name(x.operand))  # type: ignore[union-attr]
            self.term(x)
        if len(fams) != 1 or None in fams:
            raise not_understood("Concat's members are of different families", node)
        first = node.args[0]
        assert isinstance(first, ast.HeadSup)
        member = ast.HeadSup(
            first.operand, ast.Symbol("h", start=0, end=0), start=first.start, end=first.end
        )
        body = self._head_sup(member)
        assert isinstance(body, MatExpr)
        return Concat(body, index("h"), sympy.Integer(len(node.args)))


_OPERATORS = frozenset(("softmax", "mask", "attention", "concat", "exp", "sqrt"))


def _same_value(a: object, b: object) -> bool:
    if isinstance(a, tuple) and isinstance(b, tuple):
        return bool(dims_equal(a[0], b[0]) and dims_equal(a[1], b[1]))
    return a == b


def _labels_a_name(sub: ast.Node, dims: dict[str, sympy.Symbol]) -> bool:
    """A capital letter that is not a size, among a subscript's indices (`v_{A,i}`, `v_B`):
    it labels a new name, it is not a row or column number."""
    items = (
        sub.factors
        if isinstance(sub, ast.Product)
        else sub.items
        if isinstance(sub, ast.Seq)
        else (sub,)
    )
    return any(
        isinstance(x, ast.Symbol)
        and x.sub is None
        and x.font is None
        and len(x.name) == 1
        and x.name.isupper()
        and x.name not in dims
        for x in items
    )


def _imaginary(node: ast.Node) -> bool:
    """An `i`, `j`, `\\imath` or `\\mathrm i` written as a factor, not below a letter."""
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, ast.Symbol):
            if x.name in ("i", "j", "imath", "jmath") and x.sub is None:
                return True
            continue  # a subscript (`x_i`) is an index, not a factor
        stack.extend(ast.children(x))
    return False


def _vector_shaped(m: MatExpr) -> bool:
    """One row or one column, and not 1 × 1."""
    return dims_equal(m.rows, 1) != dims_equal(m.cols, 1)


def _beyond_rows(i: sympy.Expr, m: MatExpr) -> bool:
    """`a_{21}` when A has fewer than 21 rows: not a row, so the entry (2, 1)."""
    return bool(i.is_Integer and m.rows.is_Integer and i > m.rows)


def _row_block_of(block: Any, whole: Any, bind: Callable[[Any], Any]) -> bool:
    """`W_O^{(h)}` is row block h of W_O (the chapter's reading, "a slice of W_O"): when the
    document declares no family W_O^{(h)}, or declares one (without defining it) with the
    shape of a block, d_v × d beside W_O's H·d_v × d."""
    if block is None:
        return True
    if getattr(block, "definition", None) is not None:
        return False
    (r, c), (wr, wc) = (bind(x) for x in block.shape), (bind(x) for x in whole.shape)
    h, v = bind(H), bind(d_v)
    return all(sympy.expand(a - b) == 0 for a, b in ((r, v), (wr, h * v), (c, wc)))


def _square(node: ast.Symbol, m: MatExpr) -> bool:
    """`a_{11}` of a square A (n × n): the entry (1, 1), as `a_{ij}` is A's entry, not row 11."""
    sub = node.sub
    two = isinstance(sub, ast.Number) and len(sub.text) == 2 and "0" not in sub.text
    return two and sympy.expand(m.rows - m.cols) == 0


def _is_colon(node: ast.Node) -> bool:
    return isinstance(node, ast.Symbol) and node.name == "colon" and node.sub is None


# ---- products and quotients of a matrix or a scalar --------------------------------------


def _times(a: sympy.Basic, b: sympy.Basic, node: ast.Node, span: Any) -> sympy.Basic:
    am, bm = isinstance(a, MatExpr), isinstance(b, MatExpr)
    if am and bm:
        assert isinstance(a, MatExpr) and isinstance(b, MatExpr)
        # orientation is part of the shape: q_i^T k_j is (d_k × 1)(1 × d_k), a d_k × d_k
        # matrix, and k_j q_i^T is 1 × 1; neither is turned into a dot product here
        try:
            return MatMul(a, b)
        except ShapeError as e:
            raise shape_problem(e, node, span) from None
    if am:
        return Scale(b, a)
    if bm:
        return Scale(a, b)
    return a * b


def _dot(a: MatExpr, b: MatExpr, node: ast.Node, span: Any) -> sympy.Basic:
    r"""`u \cdot v` of two rows (`q_i\cdot k_j`) or of two columns (`x\cdot y` with
    `x\in\mathbb R^d`); a row and a column, or a matrix, is a shape error."""
    if _is_column(a) and _is_column(b):
        a, b = a.T, b.T
    elif _is_column(a) != _is_column(b) and (_is_row(a) or _is_row(b)):
        which = [f"{plain(x)} is {orientation(x)} ({shape_str(x.shape)})" for x in (a, b)]
        raise Problem(
            "shape_error",
            f"cannot take the dot product of a row and a column: {which[0]}, {which[1]}",
            node,
            span=span,
        )
    try:
        return Dot(a, b)
    except ShapeError as e:
        raise shape_problem(e, node, span) from None


def _divide(a: sympy.Basic, b: sympy.Basic, node: ast.Node, span: Any) -> sympy.Basic:
    if isinstance(b, MatExpr) and not isinstance(a, MatExpr):
        msg = f"cannot divide the scalar {plain(a)} by the matrix {plain(b)}"
        raise Problem("shape_error", msg, node, span=span)
    if isinstance(b, MatExpr):
        raise Problem("shape_error", f"cannot divide by the matrix {plain(b)}", node, span=span)
    if isinstance(a, MatExpr):
        return Scale(1 / b, a)
    return a / b


def _sqrt_of(v: sympy.Basic, node: ast.Node) -> sympy.Basic:
    if isinstance(v, MatExpr):
        raise Problem("shape_error", f"cannot take the square root of the matrix {plain(v)}", node)
    return sympy.sqrt(v)


def chain_scalar(node: ast.Mul, parts: list[sympy.Expr]) -> sympy.Expr:
    """Scalars joined by `\\cdot`, `\\times` and `/`, left to right."""
    acc = parts[0]
    for op, p in zip(node.ops, parts[1:], strict=True):
        if op == "mod":
            acc = sympy.Mod(acc, p)
        else:
            acc = acc / p if op == "/" else acc * p
    return acc


def add_scalars(node: ast.Add, parts: list[sympy.Expr]) -> sympy.Expr:
    """Scalars joined by `+` and `-`, left to right."""
    acc = parts[0]
    for op, p in zip(node.ops, parts[1:], strict=True):
        acc = acc - p if op == "-" else acc + p
    return acc


# ---- vectors ------------------------------------------------------------------------------


def _is_row(x: MatExpr) -> bool:
    return bool(dims_equal(x.rows, 1)) and not dims_equal(x.cols, 1)


def _is_column(x: MatExpr) -> bool:
    return bool(dims_equal(x.cols, 1)) and not dims_equal(x.rows, 1)


def orientation(x: MatExpr) -> str:
    """`a row vector`, `a column vector`, `a 1 × 1 matrix` or `a matrix`."""
    if _is_row(x):
        return "a row vector"
    if _is_column(x):
        return "a column vector"
    return "a 1 × 1 matrix" if dims_equal(x.rows, 1) else "a matrix"


def as_comparable(lhs: sympy.Basic, rhs: sympy.Basic) -> tuple[sympy.Basic, sympy.Basic]:
    """A 1 × 1 matrix compared with a scalar is its only entry."""
    one = sympy.Integer(1)
    for _ in range(2):
        if isinstance(lhs, MatExpr) and not isinstance(rhs, MatExpr):
            if dims_equal(lhs.rows, 1) and dims_equal(lhs.cols, 1):
                lhs = Entry(lhs, one, one)
        lhs, rhs = rhs, lhs
    return lhs, rhs


# ---- names as written ---------------------------------------------------------------------


def plain_name(node: ast.Node) -> str | None:
    """`W_Q`, `d_k`, `Q`, `\\mathbf Q` -> their names; None for anything else.

    Also the names of third-party texts: `d_{\\text{model}}` -> `d_{model}`, `W^Q`, `W_i^{(q)}` ->
    `W^{(q)}_i`, `\\hat y` -> `\\hat{y}`, `\\text{head}_i` -> `\\text{head}_i`, `t'`.

    >>> from symattn.reader.syntax.parse import parse_formula
    >>> [plain_name(parse_formula(t).items[0].subjects[0]) for t in ("W_i^Q", r"\\hat y")]
    ['W^Q_i', '\\\\hat{y}']
    """
    if isinstance(node, ast.Labeled):
        return _labeled_name(node)
    if not isinstance(node, ast.Symbol):
        return None
    if node.font not in KEEP_FONTS:
        return _decorated_name(node)
    if node.sub is None:
        bold = node.font in ("mathbf", "boldsymbol", "bm") and node.name.islower()
        return f"\\{node.font}{{{node.name}}}" if bold else node.name
    sub = node.sub
    if _is_word(sub):
        assert isinstance(sub, ast.Symbol)
        return f"{node.name}_{{{sub.name}}}"
    if not (isinstance(sub, ast.Symbol) and sub.sub is None and sub.font is None):
        return None
    if len(sub.name) == 1 and (sub.name.isupper() or node.name == "W" or node.name.islower()):
        return f"{node.name}_{sub.name}"
    return None


def _is_word(node: ast.Node | None) -> bool:
    """`\\text{model}`, `\\mathrm{out}` written as (part of) a name."""
    return isinstance(node, ast.Symbol) and node.font == "text" and node.sub is None


def _named_sub(sub: ast.Node) -> bool:
    return _is_word(sub)


def _index_letter(name: str) -> bool:
    """`i`, `t'`: one letter, perhaps primed."""
    letter = name.rstrip("'")
    return len(letter) == 1 and letter.isascii() and letter.isalpha()


def word_name(node: ast.Node) -> str | None:
    """`d_{ff}`, `d_{\\text{ff}}`: a letter with a word below it, the name `d_{ff}`; the
    plain-letter form is a name only where a size is read (a shape, or a size already made)."""
    if not (isinstance(node, ast.Symbol) and node.font is None and len(node.name) == 1):
        return None
    sub = node.sub
    if _is_word(sub):
        assert isinstance(sub, ast.Symbol)
        return f"{node.name}_{{{sub.name}}}"
    if (
        isinstance(sub, ast.Product)
        and len(sub.factors) > 1
        and all(
            isinstance(f, ast.Symbol) and f.font is None and f.sub is None and len(f.name) == 1
            for f in sub.factors
        )
    ):
        return f"{node.name}_{{{''.join(f.name for f in sub.factors)}}}"  # type: ignore[union-attr]
    return None


def _decorated_name(node: ast.Symbol) -> str | None:
    """`\\hat y`, `\\text{head}`, `\\bar h_t`: accents and words name their own symbols."""
    if node.font != "text" and node.font not in _ACCENT_FONTS:
        return None
    base = f"\\{node.font}{{{node.name}}}"
    if node.sub is None:
        return base
    sub = node.sub
    if isinstance(sub, ast.Symbol) and sub.sub is None and sub.font is None and len(sub.name) == 1:
        return f"{base}_{sub.name}"
    return None


def _labeled_name(node: ast.Labeled) -> str | None:
    op = node.operand
    if op.font not in KEEP_FONTS:
        return None
    label = node.label if len(node.label) == 1 else "{" + node.label + "}"
    base = f"{op.name}^{label}"
    if op.sub is None:
        return base
    sub = op.sub
    if isinstance(sub, ast.Symbol) and sub.sub is None and sub.font is None and len(sub.name) == 1:
        return f"{base}_{sub.name}"
    return None


_ACCENT_FONTS = frozenset("hat tilde bar vec dot ddot check breve overleftarrow".split())


def _label(node: ast.Symbol) -> str:
    decorated = _decorated_name(node) or word_name(node)
    if decorated is not None:
        return decorated
    base = node.name if len(node.name) == 1 or not node.name.isalpha() else "\\" + node.name
    if node.font == "text":
        base = f"\\text{{{node.name}}}"
    elif node.font not in KEEP_FONTS:
        base = f"\\{node.font}{{{base}}}"
    if node.sub is None:
        return base
    sub = plain_name(node.sub) if isinstance(node.sub, ast.Symbol) else None
    return f"{base}_{sub}" if sub else f"{base}_{{{ast.dump(node.sub)}}}"


def _lower_case(name: str) -> bool:
    """`x`, `\\mathbf q`, `\\alpha`: a vector's letter; `S`, `W_Q`: a matrix's."""
    letters = [c for c in name.replace("mathbf", "").replace("boldsymbol", "") if c.isalpha()]
    return bool(letters) and letters[0].islower()


def label_of(node: ast.Symbol | ast.HeadSup) -> str:
    """How a symbol is named in messages and in the table of defined names: `\\alpha`,
    `e_{ij}`, `d_{model}`, `\\hat{y}`, `x_m^{(1)}`."""
    if isinstance(node, ast.HeadSup) and isinstance(node.operand, ast.Symbol):
        return f"{_label(node.operand)}^{{({ast.dump(node.head)})}}"
    assert isinstance(node, ast.Symbol)
    return _label(node)


def _first_line(text: str) -> str:
    return text.splitlines()[0] if text else text


def _unsupported(node: ast.Node) -> str:
    what = {
        ast.Dots: "an ellipsis stands for terms the checker cannot see",
        ast.Reals: "\\mathbb R is a set, not a value",
        ast.Seq: "a list is not a value",
        ast.Set: "a set is not a value",
    }
    return what.get(type(node), f"{type(node).__name__} is not supported here")


_TERMS = {
    ast.Gradient: Terms._gradient,
    ast.Symbol: Terms._symbol,
    ast.Number: Terms._number,
    ast.Group: Terms._group,
    ast.IndexedGroup: Terms._indexed_group,
    ast.Transpose: Terms._transpose,
    ast.HeadSup: Terms._head_sup,
    ast.Power: Terms._power,
    ast.Product: Terms._product,
    ast.Mul: Terms._mul,
    ast.Add: Terms._add,
    ast.Neg: Terms._neg,
    ast.Frac: Terms._frac,
    ast.Sqrt: Terms._sqrt,
    ast.Call: Terms._call,
    ast.Sum: Terms._sum,
    ast.Labeled: Terms._labeled,
    ast.Inner: Terms._inner,
    ast.Norm: Terms._norm,
    ast.Abs: Terms._abs,
    ast.Matrix: Terms._matrix,
}


def _sizes_indexed(term: sympy.Basic, var: sympy.Symbol) -> list[sympy.Expr]:
    """The sizes `var` runs over where it is a bare index of an entry or a row in `term`."""
    out: list[sympy.Expr] = []
    stack = [term]
    while stack:
        x = stack.pop()
        if isinstance(x, Entry):
            for ix, size in ((x.args[1], x.matrix.rows), (x.args[2], x.matrix.cols)):
                if ix == var:
                    out.append(size)
        elif isinstance(x, Row) and x.index == var:
            out.append(x.args[0].rows)
        stack.extend(getattr(x, "args", ()))
    return out
