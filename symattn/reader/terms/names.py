"""Names and scope lookups: how a written name reads, and the matrix, entry, row or head it is.
Imports the kernel and the reader's AST; must not import the resolver, the checker or the CLI.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Any

import sympy

from symattn.kernel.dims import H, d_k, d_v, dim, dims_equal
from symattn.kernel.errors import ShapeError, SymattnError
from symattn.kernel.expr import (
    Entry,
    FromColumn,
    HeadSym,
    MatExpr,
    MatSym,
    Ones,
    Row,
    RowBlock,
    index,
)
from symattn.kernel.text import plain
from symattn.reader.syntax import ast
from symattn.reader.syntax.gradients import UNREAD_DERIVATIVE
from symattn.reader.syntax.scripts import capital_letter
from symattn.reader.terms.arrays import ARRAY_GUESS, array_guess
from symattn.reader.terms.base import NameEntry, TermsBase
from symattn.reader.terms.components import (
    ambiguous,
    component_of,
    defined_component,
    guessed_entry,
    row_run,
    run_bound,
    vector_key,
)
from symattn.reader.terms.members import (
    family_letter,
    lookup_member,
    member_of,
    member_value,
    recurrence_member,
)
from symattn.reader.terms.own_vectors import own_vector_clash
from symattn.reader.terms.problems import Problem, UnknownName, not_understood
from symattn.reader.terms.products import causal_ones
from symattn.reader.terms.row_operators import ones_sides
from symattn.reader.terms.size_names import lettered_size
from symattn.reader.terms.steps import step_letter, step_vector

#: Fonts that leave a letter's meaning alone (`\mathbf Q` is Q); others make a new symbol.
KEEP_FONTS = (None, "mathbf", "boldsymbol", "bm", "mathit", "mathrm")


#: vowels of a worded subscript (`X_{norm}`, `K_{cache}`); `i` is left out, an index letter
_VOWELS = frozenset("aeou")


def _labels_a_name(sub: ast.Node, dims: dict[str, sympy.Symbol]) -> bool:
    """A capital letter that is not a size, among a subscript's indices (`v_{A,i}`, `v_B`), or
    a word of three letters or more (`X_{norm}`, `K_{cache}`, `q_{total}`; not `S_{ijh}`): it
    labels a new name, it is not a row or column number."""
    if worded(sub):
        return True
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


def labelled_name(node: ast.Node, dims: dict[str, sympy.Symbol]) -> str | None:
    """`X_{pre}`, `W_{KV}`, `W_1`: a capital whose subscript labels a name of its own (a word,
    capitals that are not sizes, a number below W, which is never a family), as the text may
    declare it (`W_1 \\in \\mathbb R^{h\\times 4h}`); None for a row, an entry or a member.

    >>> from symattn.reader.syntax.parse import parse_formula
    >>> first = [parse_formula(t).items[0].subjects[0] for t in ("W_1", "X_{pre}", "Q_i")]
    >>> [labelled_name(x, {}) for x in first]
    ['W_{1}', 'X_{pre}', None]
    """
    if not isinstance(node, ast.Symbol) or node.sub is None or node.font not in KEEP_FONTS:
        return None
    if len(node.name) != 1 or not node.name.isupper() or plain_name(node) is not None:
        return None
    sub = node.sub
    numbered = node.name == "W" and isinstance(sub, ast.Number) and sub.text.isdigit()
    if not numbered and not _labels_a_name(sub, dims):
        return None
    return _label(node)


def worded(sub: ast.Node) -> bool:
    """Three plain lower-case letters or more, written together, one of them a vowel other
    than i: a word (`norm`, `rope`, `out`), not indices (`ijk`, `bth`, `ndh`)."""
    if not isinstance(sub, ast.Product) or len(sub.factors) < 3:
        return False
    letters = []
    for x in sub.factors:
        if not (isinstance(x, ast.Symbol) and x.sub is None and x.font is None):
            return False
        if len(x.name) != 1 or not (x.name.isascii() and x.name.islower()):
            return False
        letters.append(x.name)
    return bool(_VOWELS & set(letters))


def _beyond_rows(i: sympy.Expr, m: MatExpr) -> bool:
    """`a_{21}` when A has fewer than 21 rows: not a row, so the entry (2, 1)."""
    return bool(i.is_Integer and m.rows.is_Integer and i > m.rows)


def _block_rows(block: Any, whole: Any, bind: Callable[[Any], Any]) -> sympy.Expr | None:
    """The rows of each block when `W_O^{(h)}` is row block h of W_O (the chapter's reading,
    "a slice of W_O"), None when it is a matrix of its own. It is a block when the document
    declares no family W_O^{(h)}, or declares one (without defining it) with the shape of a
    block: r × d beside W_O's H·r × d. The H blocks of W_O are equal, so a block has W_O's rows
    over H (d_k rows where the heads are d_k wide), and d_v where H does not divide them: no
    such block exists, and cutting W_O says so."""
    heads, (wr, wc) = bind(H), (bind(x) for x in whole.shape)
    if block is None:
        rows = sympy.cancel(wr / heads)
        if rows.is_polynomial() and sympy.denom(sympy.together(rows)) == 1:
            return sympy.expand(rows)
        return next((m for m in map(bind, (d_v, d_k)) if dims_equal(wr, heads * m)), bind(d_v))
    if getattr(block, "definition", None) is not None:
        return None
    r, c = (bind(x) for x in block.shape)
    same = sympy.expand(c - wc) == 0 and sympy.expand(wr - heads * r) == 0
    return r if same else None


#: the letters texts give the number of positions (tokens, time steps) by
_POSITIONS = frozenset(dim(x) for x in "nNLT")


def _positions_across(m: MatExpr) -> bool:
    """`X \\in R^{d×n}`: the positions along the columns, not the rows, so that in a text of
    column vectors the x_i may be its columns rather than its rows written as columns."""
    return m.cols in _POSITIONS and m.rows not in _POSITIONS


def _square(node: ast.Symbol, m: MatExpr) -> bool:
    """`a_{11}` of a square A (n × n): the entry (1, 1), as `a_{ij}` is A's entry, not row 11."""
    sub = node.sub
    two = isinstance(sub, ast.Number) and len(sub.text) == 2 and "0" not in sub.text
    return two and sympy.expand(m.rows - m.cols) == 0


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
    span = _slice(sub) if node.name.isupper() else None  # `x_{1:t}`: rows of X (`_row_run`)
    if span is not None:
        return f"{node.name}_{{{span}}}"
    labels = _capitals(sub) if node.name.isupper() and len(node.name) == 1 else ""
    if labels:
        return f"{node.name}_{labels}"  # `W_{KV}`, `W_{\\mathbf Q}`: capitals naming the matrix
    if not (isinstance(sub, ast.Symbol) and sub.sub is None and sub.font is None):
        return None
    if len(sub.name) == 1 and (sub.name.isupper() or node.name == "W" or node.name.islower()):
        return f"{node.name}_{sub.name}"
    return None


def _capitals(sub: ast.Node) -> str:
    """`Q` in bold, `KV`: the capitals of a subscript that labels a name, as the name writes
    them (`{KV}` for several); "" for anything else."""
    one = capital_letter(sub)
    if one:
        return one
    letters = [capital_letter(x) for x in sub.factors] if isinstance(sub, ast.Product) else []
    return "{" + "".join(letters) + "}" if 2 <= len(letters) <= 4 and all(letters) else ""


def _slice(sub: ast.Node) -> str | None:
    """`1:t`, `i:j` below a capital (`K_{1:t}`, `V_{1:t}`): the rows a cache holds, a label of
    the name, not an index."""
    if not (isinstance(sub, ast.Product) and len(sub.factors) == 3):
        return None
    lo, colon, hi = sub.factors
    if not (isinstance(colon, ast.Symbol) and colon.name == "colon"):
        return None
    ends = []
    for end in (lo, hi):
        if isinstance(end, ast.Number) and end.text.isdigit():
            ends.append(end.text)
        elif isinstance(end, ast.Symbol) and end.sub is None and end.font is None:
            ends.append(end.name)
        else:
            return None
    return ":".join(ends)


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
    labels = _capitals(sub)
    return f"{base}_{labels}" if labels else None  # `W_{KV}^D`: capitals labelling the name


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


_BOLD = frozenset({"mathbf", "boldsymbol", "bm", "vec"})  # a lower-case letter in them: a vector


def bold_letter(node: ast.Node) -> bool:
    """`\\mathbf q`, `\\vec a_i`: a bold or arrowed lower-case letter, a vector by its look."""
    return (
        isinstance(node, ast.Symbol)
        and node.font in _BOLD
        and len(node.name) == 1
        and node.name.islower()
    )


class NamesMixin(TermsBase):
    """Names in scope: symbols, entries, rows, members and heads of families, labels."""

    _reading_vectors: frozenset[str] = frozenset()  # the defined vectors being read (`s_i`)

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
            given = getattr(self, "ones_length", None)
            if node.sub is None and given is not None:
                return Ones(given, 1)  # the length its sum gives it (`ones_lengths`)
            if node.sub is None:
                raise not_understood("write the length of the all-ones vector: \\mathbf 1_n", node)
            sides = ones_sides(node.sub)
            if sides is not None:  # `\mathbf 1_{n\times m}`, the n × m matrix of ones
                return Ones(self.dim_term(sides[0]), self.dim_term(sides[1]))
            return Ones(self.dim_term(node.sub), 1)  # `\mathbf 1_n`, the column of n ones
        seqs: dict[str, sympy.Expr] = getattr(self.scope, "sequences", {})
        if node.sub is None and node.font is None and node.name in seqs:
            return FromColumn(node.name, seqs[node.name], 1)
        step = self._step_member(node)
        if step is not None:  # `h_{t-1}` of the vector h the text declares: a member
            return step
        name = plain_name(node)
        if name is not None:
            if name in self.scope.dims:
                return self.scope.bind(self.scope.dims[name])
            entry = self.scope.lookup(name)
            if entry is not None and getattr(entry, "causal_ones", False):
                rows, cols = (self.scope.bind(x) for x in entry.shape)
                return causal_ones((rows, cols))  # the matrix the prose calls the causal mask
            if entry is not None:
                self._batched(name, entry)
                return self.named(name, None, entry)
        word = word_name(node) or lettered_size(node)  # `B_r` once a shape made it a size
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
            made = self._component(node) if defined is not None else None
            if made is not None:  # `\\hat y_i` of the vector `\\hat y = ...`
                return made
        raise self._unknown(node)

    def _step_member(self, node: ast.Symbol) -> MatExpr | None:
        """`h_t`, `h_{t-1}` of a vector the text declares (`terms.steps`): one member of a
        sequence of vectors of its shape for each step, never an entry of h."""
        if node.sub is None or step_letter(node.sub) is None:
            return None  # (no lookup: a lookup marks the name read)
        named = plain_name(node)
        if named is not None and self.scope.lookup(named) is not None:
            return None  # `h_t` as the text declares it: that name, as ever
        ranges: dict[str, sympy.Expr] = getattr(self, "sum_ranges", {})
        found = step_vector(self.scope, node, ranges)
        if found is None:
            return None
        idx = self.indices(node.sub)
        if len(idx) != 1:
            return None
        return self.named(vector_key(node) + "_", idx[0], found[1])

    def _batched(self, name: str, entry: NameEntry | None) -> None:
        """`X` of an array, or `Q` defined from one: the guess noted (`terms.arrays`)."""
        how = array_guess(self.scope, name, entry)
        if how:
            self.entry_guesses.setdefault(ARRAY_GUESS + name, (how, True))

    def _indexed(self, node: ast.Symbol) -> sympy.Basic:
        """`q_i` is row i of Q, `a_{ij}` is A[i, j], `Q_{ir}` is Q[i, r] (also in bold)."""
        base = node.name
        assert node.sub is not None
        labelled = labelled_name(node, self.scope.dims)
        own = self.scope.lookup(labelled) if labelled is not None else None
        if labelled is not None and own is not None:
            return self.named(labelled, None, own)  # `W_1`, `X_{pre}` as the text declares it
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
        made = self._component(node) if len(idx) == 1 else None
        if made is not None:  # `s_i` of the vector `s = \operatorname{softmax}(z)`
            return made
        component = component_of(self.scope, node, ranges) if len(idx) == 1 else None
        if component is not None:  # `q_i`, component i of the vector q the text declares
            how = guessed_entry(component[0], component[1], node)
            if how:
                self.entry_guesses[node.name] = (how, True)
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
        clash = (
            own_vector_clash(self.scope, base, matrix_name, entry.shape) if base.islower() else ""
        )
        if clash and len(idx) == 1:
            raise not_understood(clash, node)
        m = self.named(matrix_name, None, entry)
        if len(idx) == 1 and (base.isupper() or _beyond_rows(idx[0], m) or _square(node, m)):
            idx = self.entry_indices(node.sub)
        if len(idx) == 2 and base.islower() and node.font in _BOLD:  # `\mathbf q_{t,i}`
            why = f"a bold {base} with two indices: a vector of a family, not an entry of"
            raise not_understood(f"{why} {matrix_name} (position and head?); not read", node)
        if len(idx) == 2:
            return Entry(m, *idx)
        if len(idx) == 1 and base.islower():
            # a family the text counts from 0: its member i is row i + 1 of the matrix
            first = 1 if base in getattr(self.scope, "zero_based", ()) else 0
            if first:
                self.zero_rows.add(base)
                _past_the_end(self.scope, node, idx[0], m)
            row = Row(m, idx[0] + first)
            if self.scope.orientation(base) != "column":
                return row
            if getattr(entry, "origin", "") != "convention" and _positions_across(m):
                # `X \in R^{d×n}` in a text of column vectors: its columns may be the x_i
                how = f"{base}_i as row i of {matrix_name} ({plain(m.rows)} × {plain(m.cols)})"
                self.entry_guesses.setdefault(base, (how + ", written as a column", True))
            return row.T
        if len(idx) == 1 and m.cols == 1:
            return Entry(m, idx[0], 1)  # `D_i` of a column `D = \operatorname{rowsum}(...)`
        if len(idx) == 1 and getattr(entry, "origin", "") == "convention":
            # `O_m`, `Q_i` in a text that never declares O or Q: a name of the text's own (a
            # block, a member of a family), not a row of the chapter's matrix
            raise self._unknown(node)
        raise not_understood(
            f"{base}_{{...}} with {len(idx)} index: write {base.lower()}_i for a row, "
            f"{base.upper()}_{{ij}} for an entry",
            node,
        )

    def _component(self, node: ast.Symbol) -> sympy.Basic | None:
        """`s_i`, entry i of the vector s the text defined (`_defined_vector`), noting the
        reading for the verdict; None when s is no such vector."""
        idx: tuple[sympy.Expr, ...] = tuple(self.indices(node.sub)) if node.sub is not None else ()
        made = self._defined_vector(node) if len(idx) == 1 else None
        if made is None:
            return None
        ranges: dict[str, sympy.Expr] = getattr(self, "sum_ranges", {})
        upper = ranges.get(node.sub.name) if isinstance(node.sub, ast.Symbol) else None
        length = made.rows if made.cols == 1 else made.cols
        if upper is not None and sympy.expand(self.scope.bind(upper) - length) != 0:
            return None  # `\sum_{j=1}^n a_{ij} v_j` after `v = W_V x`: the j-th of n vectors
        i = idx[0]
        name = _label(ast.Symbol(node.name, node.font, start=node.start, end=node.end))
        line, sub = self.defs.table[name].line, node.sub
        shown = f"{name}_{sub.name}" if isinstance(sub, ast.Symbol) else name
        how = f"{shown} as an entry of the vector {name} defined on line {line}"
        # defined in an earlier section, its names may mean other things by now: no refutation
        sections: list[int] = getattr(self.scope, "sections", [])
        here: int = getattr(self.scope, "section", 0)
        earlier = sum(1 for s in sections if s <= line) != here
        if earlier:
            how += ", in an earlier section"
        self.entry_guesses.setdefault(node.name, (how, earlier))
        return Entry(made, i, 1) if made.cols == 1 else Entry(made, 1, i)

    def _defined_vector(self, node: ast.Symbol) -> MatExpr | None:
        """The vector `s` of `s_i` read from its definition's right side here (where the text's
        vectors may be read as rows or as columns); None when it is no such vector, or its
        right side does not read here without opaque terms."""
        right = defined_component(self.scope, self.defs.table, node)
        if right is None or node.name in self._reading_vectors:
            return None
        used, reading = len(self.defs.used), self._reading_vectors
        self._reading_vectors = reading | {node.name}
        try:
            value = self.term(right)
        except (SymattnError, Problem):
            value = None
        finally:
            self._reading_vectors = reading
        if not isinstance(value, MatExpr) or len(self.defs.used) != used or 1 not in value.shape:
            del self.defs.used[used:]
            return None
        return value

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
        if isinstance(op, ast.Number):  # `10000^{(2i/d)}`: a number has no heads, a power
            return self.term(ast.Power(op, node.head, start=node.start, end=node.end))
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
            msg = f"there is no head {head}: the heads are {count}"  # (a family of the text's:
            own = self.scope.lookup(fam or "", True) is None  # `R_m^{(0)}`, a block, unread)
            raise Problem("not_understood" if own else "shape_error", msg, node)
        lookup = self.scope.lookup
        whole = lookup("W_O") if fam == "W_O" else None
        rows = None if whole is None else _block_rows(lookup("W_O", True), whole, self.scope.bind)
        if whole is not None and rows is not None:
            w_o = self.named("W_O", None, whole)
            return RowBlock(w_o, head, rows, self.scope.bind(H))
        entry = lookup(fam, True) if fam is not None else None
        if fam is None and isinstance(op, ast.Gradient | ast.Call):
            what = "the gradient of each member of a head family (dO^(h))"
            if isinstance(op, ast.Call):
                what = f"a head (^(h)) of the value of {op.name}(...)"
            raise not_understood(f"{what} is not read", node)
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


def _past_the_end(scope: Any, node: ast.Symbol, at: sympy.Expr, m: MatExpr) -> None:
    """`x_n` in a text that counts x from 0 (`x_0, \\ldots`): row n + 1, past the n rows, unless
    n is only a position there (`f(\\ldots, x_m, \\ldots, x_n, \\ldots)`): not read, never a
    shape error on a size's account."""
    if not (at + 1 - m.rows).is_positive or not at.free_symbols & set(scope.dims.values()):
        return
    why = f"the text counts {node.name} from 0, so {node.name}_{{{at}}} is past the {m.rows} rows"
    raise not_understood(f"{why} of {plain(m)}, unless {at} is a position here; not read", node)
