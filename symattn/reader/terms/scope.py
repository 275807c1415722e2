"""The scope of a document: its names and head families, their shapes and definitions, and the
sizes in force, in layers (the chapter's conventions, the document, a worked example).

Imports sympy, the kernel (dims, errors, nodes) and the reader's conventions and size relations;
never the parser, the claim readers, the checker or the CLI.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import sympy

from symattn.kernel.dims import STANDARD_DIMS, dim, dims_equal
from symattn.kernel.errors import DimError
from symattn.kernel.expr import HeadSym, MatExpr, MatSym, index, walk
from symattn.reader.terms.conventions import CONVENTIONS, FAMILIES, DocumentConventions
from symattn.reader.terms.size_relations import SizeContext, close_sizes, size_value

__all__ = ["HEAD", "Layer", "Name", "Scope", "Shape", "same_shape"]

#: The head letter a family's definition is kept with: the letter Concat uses.
HEAD = index("h")

#: A matrix's shape: (rows, columns).
Shape = tuple[sympy.Expr, sympy.Expr]


@dataclass
class Name:
    """A symbol-table entry: a matrix or a head family, with its shape and definition."""

    shape: Shape
    origin: Literal["convention", "declared", "defined", "inferred"]
    section: int = -1
    line: int = 0
    head: sympy.Symbol | None = None  # a declared or defined family's head letter, `HEAD`
    definition: MatExpr | None = None
    label: str = ""
    mask: bool = False
    causal_ones: bool = False  # the prose calls it the causal mask: ones on and below the diagonal
    unsettled: bool = False  # a vector in R^{d} whose row or column the text never settled
    components: bool = False  # a vector one formula knows by its components (`terms.vectors`)
    #: why a claim using this matrix whole is not decided by its entries: the text defines them
    #: (by cases, or by a formula of the indices) and the checker reads them only where written
    entries: str = ""
    infinite: bool = False  # some of those entries are -inf (a mask the checker did not read)


@dataclass
class Layer:
    """One level of the scope: the conventions, the document, or a worked example in it."""

    kind: Literal["conventions", "document", "example"]
    names: dict[str, Name] = field(default_factory=dict)
    families: dict[str, Name] = field(default_factory=dict)
    bindings: dict[sympy.Symbol, sympy.Integer] = field(default_factory=dict)
    relations: dict[sympy.Symbol, sympy.Expr] = field(default_factory=dict)
    orient: dict[str, str] = field(default_factory=dict)
    literals: dict[str, sympy.Matrix] = field(default_factory=dict)
    members: dict[str, Any] = field(default_factory=dict)  # `S_t`'s family (`terms.members`)
    bases: dict[str, Any] = field(default_factory=dict)  # `S_0 = 0` read before S_t's recurrence
    # sizes this example bound only through a conventional name's shape (`W_K \in \mathbb
    # R^{4096\times 1024}` binds d_k = 1024 as the chapter's W_K), with that name
    guessed: dict[sympy.Symbol, str] = field(default_factory=dict)


def same_shape(a: Shape, b: Shape) -> bool:
    """Both dims provably equal (`d_k` and `d_v` under `d_k = d_v`)."""
    return dims_equal(a[0], b[0]) and dims_equal(a[1], b[1])


class Scope:
    """The symbol table, innermost layer last: conventions, document, worked examples.

    >>> from symattn.kernel.dims import d, n
    >>> s = Scope(); s.declare("B", (n, d)); s.lookup("B").shape
    (n, d)
    """

    def __init__(
        self,
        sections: Sequence[int] = (),
        assume: dict[str, sympy.Expr] | None = None,
        conventions: DocumentConventions | None = None,
    ) -> None:
        conv = Layer("conventions")
        conv.names = {k: Name(v, "convention") for k, v in CONVENTIONS.items()}
        conv.families = {k: Name(v, "convention") for k, v in FAMILIES.items()}
        self.layers: list[Layer] = [conv, Layer("document")]
        self.dims: dict[str, sympy.Symbol] = dict(STANDARD_DIMS)
        self.sections = sorted(sections)
        self.section = 0
        self.line = 0
        self._memo: tuple[Any, SizeContext] | None = None
        self.relation_section: dict[sympy.Symbol, int] = {}
        self.sequences: dict[str, sympy.Expr] = {}
        #: lowercase families the text counts from 0 (`x_0, \\ldots, x_{n-1}`): x_i is row i + 1
        self.zero_based: set[str] = set()
        self.zero_brackets = False  # the text may count `x[0]` from 0: brackets left unread
        #: sequences defined by a formula the checker keeps as a premise (`c_i = -\\max_j S_{ij}`):
        #: the line of their definition
        self.defined_sequences: dict[str, int] = {}
        self.arrays: dict[str, tuple[int, int]] = {}  # names declared of order 3+: (order, line)
        self.conventions = conventions or DocumentConventions()
        for letter in self.conventions.matrix_letters():
            self.dims.pop(letter, None)  # `H` is a matrix in this document, not the head count
        # how vectors whose orientation the document never settled are read for one claim
        # (`None`: as columns, the literal reading of R^d), and which ones a claim consulted
        self.reading: str | None = None
        # whether the claim being read is read both ways when it consults an orientation the
        # document does not settle (equations and shape claims; definitions are read once)
        self.both_ways = False
        # capitals read as sizes that a claim of the text relates to others (`F = 4D`)
        self.size_relations: set[str] = set()
        # undeclared names the document shows to be numbers, with the evidence (`a denominator
        # at line 12`), and those it shows to be both (`note_numbers`)
        self.numbers: dict[str, str] = {}
        self.contested_numbers: dict[str, str] = {}
        # names the document gives a value once (`F = 4D`), and the values read so far
        self.defined_once: set[str] = set()
        #: names every definition of which writes out a number: each value holds to the next
        self.valued: set[str] = set()
        self.number_values: dict[str, tuple[sympy.Expr, int]] = {}
        #: every value each name was given so far, in order (`T = 1024`, then `T = 2048`)
        self.number_history: dict[str, list[tuple[sympy.Expr, int]]] = {}
        # contested names that a section's own uses show to be numbers, by section, and the
        # document's numbers and contested names they are added to (`claims.section_numbers`)
        self.section_numbers: dict[int, dict[str, tuple[str, bool]]] = {}
        self.section_base: tuple[dict[str, str], dict[str, str]] = ({}, {})
        self.section_hidden: dict[str, Name] = {}  # their shapes inferred from other sections
        # consulted letters that are rows of matrices the text never declares, in a text with
        # no cue: a formula that typechecks only with the chapter's rows is read that way
        self.pinnable: set[str] = set()
        self.complex_cue = ""  # where the text says it works with complex numbers (`imaginary`)
        # the text writes the key width d_k and the value width d_v and never relates them
        # (`claims.infer.distinct_widths`): a scale by one is not the other
        self.distinct_widths = False
        # the document writes d_v and never says what it is (`claims.infer.free_value_width`)
        self.free_value_width = False
        self.consulted: set[str] = set()
        # the text's hypotheses, each for the section it was made in (`Resolver.resolve_items`)
        self.redefining = False
        self.anew = False  # the clause opens another case of named matrices (`claims.context`)
        self.supposing = False  # a formula the text supposes: `k_i = v_i` is not a definition
        self.typical = False  # after "typically", "usually": `d_k = 64` is no worked example
        self.local_cue = False  # after "(", "where", "with": `\theta_0 = 1` may be a value
        self.hypothesis_relations: dict[sympy.Symbol, int] = {}
        self.substitutions: list[tuple[MatSym, MatSym, int, str]] = []
        self.unused: list[tuple[frozenset[MatSym], int, str]] = []
        # conditions `P^T P = I`: the product dropped in claims of the section (-1: while the
        # declarations of its names, by name and line, stand)
        self.rewrites: list[
            tuple[tuple[MatExpr, ...], frozenset[MatSym], int, str, tuple[tuple[str, int], ...]]
        ] = []
        # the values sizes had in worked examples that have closed, with the line of the
        # formula that closed them: what a later count (`d^2 = 65536`) may refer to
        self.earlier: dict[sympy.Symbol, sympy.Integer] = {}
        # the names a worked example declared or defined, forgotten when it closed, with the
        # line where it did so: a later formula that uses one means something the text
        # defined at the example's sizes (`reader.claims.forgotten`)
        self.forgotten: dict[str, int] = {}
        # names whose definitions were read again under a later declaration of a name they are
        # made from (`Q = XW_Q`, then `X \in \mathbb R^{L\times d}`), with that declaration;
        # and those it left without a definition that fits (`reader.claims.redeclared`)
        self.redeclared: dict[str, str] = {}
        # names the text spells with capitals side by side and defines (`QK \equiv ...`), with
        # the line (`reader.claims.named_products`)
        self.named_products: dict[str, int] = {}
        self.stale: dict[str, str] = {}
        # the chapter's conventional names the formula being read took from the conventions,
        # and those some formula of the text used in a product, a sum or a dot product that
        # typechecks with them (`confirming` off while a formula is read again)
        self.conventional_reads: set[str] = set()
        self.reads: set[str] = set()  # every name the formula being read looked up
        # what each sum without bounds in the formula being read was read to range over:
        # letter -> (note, whether the summand forces it) (`check.sum_ranges`)
        self.sum_readings: dict[str, tuple[str, bool]] = {}
        # names declared in an earlier section that the formula was also read without
        self.read_both: set[str] = set()
        # a function's parameters (`\mathrm{MultiHead}(Q, K, V) = ...`): name -> (line, function)
        self.parameters: dict[str, tuple[int, str]] = {}
        self.confirmed: set[str] = set()
        self.confirming = True
        # letters given a number by an equation between indices (`m = 3`), with the line and
        # section, so a second number for one letter (`m = 4`) is said (`claims.index_claims`)
        self.index_values: dict[str, tuple[sympy.Expr, int, int]] = {}
        for name, value in (assume or {}).items():
            self.assume_size(name, value)

    # ---- what is given before any formula ---------------------------------------------------

    def assume_size(self, name: str, value: sympy.Expr | int) -> None:
        """A size relation given before any formula (`--assume d_k=d/H`, `--assume n=5`).

        >>> from symattn.kernel.dims import d_v
        >>> s = Scope(assume={"d_k": d_v}); s.assumptions
        {'d_k': d_v}
        >>> Scope(assume={"n": 5}).bindings
        {n: 5}
        """
        sym = self.dims.setdefault(name, STANDARD_DIMS.get(name, dim(name)))
        val = sympy.sympify(value, strict=True)
        for x in val.free_symbols:
            if isinstance(x, sympy.Symbol):
                self.dims.setdefault(x.name, x)
        doc = self.document
        if val.free_symbols:
            doc.relations[sym] = val
        else:
            doc.bindings[sym] = size_value(val, f"{name} = {val}", None)
        problems = self.context().problems
        if problems:
            raise DimError(problems[0])

    def declare(self, name: str, shape: Shape) -> None:
        """Declare a matrix `Q` (or a head family `Z^(h)`) and its shape before any formula."""
        family = "^" in name
        base = name.split("^")[0].replace("{", "").replace("}", "")
        for x in shape:
            for s in x.free_symbols:
                if isinstance(s, sympy.Symbol):
                    self.dims.setdefault(s.name, s)
        table = self.document.families if family else self.document.names
        table[base] = Name(shape, "declared", -1, 0, head=HEAD if family else None)

    # ---- layers -----------------------------------------------------------------------------

    @property
    def document(self) -> Layer:
        """The document's own layer: its declarations, definitions and relations between sizes."""
        return self.layers[1]

    def top(self) -> Layer:
        return self.layers[-1]

    def enter(self, line: int) -> None:
        """Move to a formula at `line`; a new section closes the worked example."""
        self.line = line
        section = sum(1 for s in self.sections if s <= line)
        if section != self.section:
            self.section = section
            self.close_example()
            for sym in [x for x, sec in self.hypothesis_relations.items() if sec != section]:
                self.document.relations.pop(sym, None)  # a hypothesis ends with its section
                del self.hypothesis_relations[sym]

    def close_example(self) -> None:
        if self.layers[-1].kind == "example":
            values = dict(self.bindings)
            for layer in self.layers:
                for sym, rel in layer.relations.items():
                    got = rel.xreplace(values) if isinstance(rel, sympy.Basic) else None
                    if isinstance(got, sympy.Integer) and got > 0:
                        values.setdefault(sym, got)  # `d_k = d_{model}/h` at the example's values
            self.earlier.update(values)
        while self.layers[-1].kind == "example":
            for key, entry in self.layers[-1].names.items():
                if entry.origin in ("declared", "defined"):
                    self.forgotten[key] = entry.line
            self.layers.pop()

    def example(self) -> Layer:
        """The worked example in force, opened here when there is none."""
        top = self.top()
        if top.kind != "example":
            top = Layer("example")
            self.layers.append(top)
        return top

    def rebound(self, new: dict[sympy.Symbol, Any]) -> None:
        """Make way for new values: `n = 7` after `n = 5` opens a new example with the other
        sizes; what the old one declared or defined at n = 5 (Q at 5 rows, a 5 × 5 table for
        A) is not carried, since it depends on the old value."""
        top = self.top()
        if top.kind == "example" and any(top.bindings.get(k, v) != v for k, v in new.items()):
            # a size tied to a new one by a relation in force (`d_v = d/h`, then `d = 8192`)
            # may change with it: which one does, the text says next (`h = 64`), not the old
            # example
            changed = {k for k, v in new.items() if top.bindings.get(k, v) != v}
            tied: set[sympy.Basic] = set()
            for layer in self.layers:
                for x, rhs in layer.relations.items():
                    linked = {x} | rhs.free_symbols
                    if linked & changed:
                        tied |= linked
            carried: dict[sympy.Symbol, sympy.Integer] = {}
            guessed: dict[sympy.Symbol, str] = {}
            for layer in self.layers:
                if layer.kind == "example":
                    carried.update(
                        {k: v for k, v in layer.bindings.items() if k not in new and k not in tied}
                    )
                    guessed.update({k: v for k, v in layer.guessed.items() if k in carried})
            self.close_example()
            top = Layer("example")
            top.bindings = carried
            top.guessed = guessed
            self.layers.append(top)

    # ---- sizes ------------------------------------------------------------------------------

    @property
    def bindings(self) -> dict[sympy.Symbol, sympy.Integer]:
        """Every size with a value here: the worked example's (`n = 5`) and those that follow
        from them and the relations in force (`d_v = d/H` with `d = 512`, `H = 8`)."""
        return dict(self.context().bindings)

    @property
    def assumptions(self) -> dict[str, sympy.Expr]:
        """The relations between sizes in force (`d_v = d/H`), bindings substituted, by name:
        keyword arguments for `dims.assume`. Their values are sympy expressions, never ints."""
        return {k.name: v for k, v in self.context().relations.items()}

    @property
    def assumptions_sym(self) -> set[sympy.Symbol]:
        return set(self.context().relations)

    def context(self, upto: int | None = None) -> SizeContext:
        """The sizes in force in the first `upto` layers (all of them by default)."""
        layers = self.layers if upto is None else self.layers[:upto]
        key = tuple((tuple(x.bindings.items()), tuple(x.relations.items())) for x in layers)
        if upto is None and self._memo is not None and self._memo[0] == key:
            return self._memo[1]
        bindings: dict[sympy.Symbol, sympy.Integer] = {}
        relations: dict[sympy.Symbol, sympy.Expr] = {}
        for layer in layers:  # inner layers override outer ones
            bindings.update(layer.bindings)
            relations.update(layer.relations)
        ctx = close_sizes(bindings, relations)
        if upto is None:
            self._memo = (key, ctx)
        return ctx

    def drop_earlier_relations(self) -> bool:
        """A worked example in a later section sets its own sizes: relations between sizes
        stated inside an earlier section (`Hd_v = d` in 6.5) give way to it from here on, where
        in their own section, or stated before the first heading (for the whole document), a
        contradiction stays a shape error. Dropping a relation only makes
        fewer shapes equal, so it can turn a verdict into a shape error, never into verified."""
        doc = self.document
        old = [x for x, sec in self.relation_section.items() if 0 < sec < self.section]
        for x in old:
            doc.relations.pop(x, None)
            del self.relation_section[x]
        return bool(old)

    def bind(self, e: sympy.Basic) -> sympy.Basic:
        b = self.bindings
        return e.xreplace(b) if b else e

    def bind_shape(self, shape: Shape) -> Shape:
        return (self.bind(shape[0]), self.bind(shape[1]))

    # ---- names ------------------------------------------------------------------------------

    def lookup(self, name: str, family: bool = False) -> Name | None:
        for layer in reversed(self.layers):
            table = layer.families if family else layer.names
            if name in table:
                entry = table[name]
                if not family:
                    self.reads.add(name)
                if layer.kind == "conventions":
                    self.conventional_reads.add(f"{name}^(h)" if family else name)
                if entry.unsettled:
                    self.consulted.add(name)
                    if self.reading == "row":
                        return dataclasses.replace(entry, shape=(entry.shape[1], entry.shape[0]))
                return entry
        return None

    def earlier_overrides(self) -> dict[str, Name]:
        """The chapter's conventional names the document declared with another shape inside an
        earlier section (`K \\in \\mathbb R^{n\\times d_k G}` in 7.2, K used again in 7.4):
        whether that declaration still holds here, the text does not say. One made before the
        first heading holds for the whole document and is not listed."""
        out: dict[str, Name] = {}
        doc, conv = self.document, self.layers[0]
        for key, entry in doc.names.items():
            base = conv.names.get(key)
            if (
                base is not None
                and entry.origin == "declared"
                and 0 < entry.section < self.section
                and entry.definition is None
                and not same_shape(entry.shape, base.shape)
            ):
                out[key] = entry
        return out

    def departures(self) -> dict[str, Name]:
        """The chapter's conventional names the text declared with a shape of its own
        (`V \\in \\mathbb R^{m\\times d_v}`, `W_Q \\in \\mathbb R^{d\\times d}`), and other names it
        declared with sizes the chapter's conventions do not use (`\\mathbf a \\in \\mathbb R^t`):
        a text that departs so from the chapter's conventions may depart from them where it is
        silent too.
        Declarations given before any formula (`--dims`) are the user's, not the text's."""
        conv = self.layers[0].names
        chapter = set(STANDARD_DIMS.values())
        out: dict[str, Name] = {}
        for layer in self.layers[1:]:
            for key, entry in layer.names.items():
                if entry.origin != "declared" or entry.line <= 0:
                    continue
                base = conv.get(key)
                shape = self.bind_shape(entry.shape)
                if base is not None and not same_shape(shape, self.bind_shape(base.shape)):
                    out[key] = entry
                elif base is None and any(x.free_symbols - chapter for x in shape):
                    out[key] = entry  # `\mathbf a \in \mathbb R^t`: sizes of the text's own
        return out

    #: the chapter's names whose shapes texts vary on: W_O is H d_v × d for several heads and
    #: d_v × d for one; Z and O are the weighted values for some texts and the output for others
    VARIES = frozenset({"W_O", "Z", "O"})

    def conforms(self) -> bool:
        """The text speaks the chapter's dialect: it declares one of the chapter's names with its
        conventional shape (`Q \\in \\mathbb R^{n\\times d_k}`) or another name with the chapter's
        sizes only (`\\mathbf b \\in \\mathbb R^n`), or the user gave shapes before
        any formula (`--dims`). A text that declares none of them only happens to use the same
        letters: the chapter's shapes for them are a guess."""
        conv = self.layers[0].names
        chapter = set(STANDARD_DIMS.values())
        for layer in self.layers[1:]:
            for key, entry in layer.names.items():
                if entry.origin != "declared":
                    continue
                if entry.line <= 0:
                    return True
                shape = self.bind_shape(entry.shape)
                base = conv.get(key)
                if base is not None and same_shape(shape, self.bind_shape(base.shape)):
                    return True
                sizes = set().union(*(x.free_symbols for x in shape))
                if base is None and sizes and sizes <= chapter:
                    return True  # `\\mathbf b \\in \\mathbb R^n`: the chapter's sizes
        return False

    def without(self, names: Sequence[str]) -> dict[str, Name]:
        """Take `names` out of the document's layer (so the conventions show through) and
        return them, for `restore`."""
        doc = self.document
        return {k: doc.names.pop(k) for k in names if k in doc.names}

    def restore(self, taken: dict[str, Name]) -> None:
        self.document.names.update(taken)

    def with_shapes(self, shapes: dict[str, Shape]) -> dict[str, Name | None]:
        """Give names these shapes for one formula (`Resolver._online_keys`); what they were
        is returned, for `restore_shapes`."""
        doc = self.document
        old: dict[str, Name | None] = {k: doc.names.get(k) for k in shapes}
        for k, shape in shapes.items():
            doc.names[k] = Name(shape, "declared", self.section, self.line)
        return old

    def restore_shapes(self, old: dict[str, Name | None]) -> None:
        doc = self.document
        for k, entry in old.items():
            if entry is None:
                doc.names.pop(k, None)
            else:
                doc.names[k] = entry

    def lookup_all(self) -> set[str]:
        out: set[str] = set()
        for layer in self.layers:
            out |= set(layer.names)
        return out

    def known_names(self) -> list[str]:
        names = set(self.dims)
        for layer in self.layers:
            names |= set(layer.names) | {f"{k}^(h)" for k in layer.families}
        return sorted(names)

    def local(self, entry: Name) -> bool:
        """True when a definition was made in this section (or this worked example)."""
        return entry.section == self.section and entry.origin == "defined"

    def note_numbers(
        self, numbers: dict[str, str], contested: dict[str, str], once: set[str] | None = None
    ) -> None:
        """Names the document shows to be numbers (and no matrices): read as numbers, so a
        conventional matrix of that letter (`S`, `K`) is not assumed; `contested` names have
        evidence of both kinds, each with the two places."""
        self.numbers = dict(numbers)
        self.contested_numbers = dict(contested)
        self.defined_once = set(once or ())
        self.number_values = {}
        self.number_history = {}
        for name in numbers:
            self.layers[0].names.pop(name, None)

    def document_matrix(self, name: str) -> bool:
        """Declared or defined by the document, not only one of the chapter's conventions (a
        document that says `\\mathbf k_i\\in\\mathbb R^d` without a K of its own means a vector
        of its own, not a row of the conventional n × d_k K)."""
        entry = self.lookup(name)
        return entry is not None and entry.origin != "convention"

    def orientation(self, letter: str) -> str:
        """`row` (the chapter's convention) or `column` (declared `k_j\\in\\mathbb R^{d_k}`, or
        set by the user: front matter, `--conventions`, or said in the prose: "every vector is a
        column vector"; never inferred from the formulas under test). A letter declared in
        R^{d} in a document that never settles rows or columns is read as `reading` says
        (columns unless told), and noted in `consulted`, so the resolver can read the claim
        both ways."""
        for layer in reversed(self.layers):
            if letter in layer.orient:
                got = layer.orient[letter]
                if got == "unsettled":
                    self.pinnable.discard(letter)
                    self.consulted.add(letter)
                    return self.reading or "column"
                return got
        vectors = self.conventions.vectors
        if vectors.applies():  # the user's setting, or said in the prose
            return vectors.value
        torn = vectors.source != "not stated" and not vectors.value  # cues that disagree
        # the formulas write column vectors (`\\phi(k_j) v_j^T \\in \\mathbb R^{d\\times d_v}`):
        # not applied, but the rows of a declared K may be the text's columns k_j
        cues = {int(x) for x in re.findall(r"line (\d+)", vectors.source)}
        columns = vectors.value == "column" and bool(cues - {self.line})  # never its own cue
        conventional = self._conventional(letter.upper())
        lens = torn or conventional or columns
        if self.both_ways and lens and not self.literals() and not self.supposing:
            # (in a worked example with matrices written out, entries are compared one by one
            # and the chapter's rows stay the reading)
            # `k_j` of a K the text never declares, or in a text whose formulas or prose speak
            # of columns (or of both): row j of K, or the text's own column vector; the
            # document does not settle it, so the claim is read both ways
            self.consulted.add(letter)
            if conventional and not torn:
                self.pinnable.add(letter)
            else:
                self.pinnable.discard(letter)
            return self.reading or "column"
        return "row"

    def _conventional(self, name: str) -> bool:
        """Only the chapter's convention gives `name` its shape (the document never declares,
        defines or orients it)."""
        for layer in reversed(self.layers):
            if name in layer.names:
                entry = layer.names[name]
                if entry.origin != "convention":
                    return False
                # `X \in \mathbb R^{5\times 7}` in a worked example sizes the chapter's X:
                # the text speaks of it, and the chapter's rows are its vectors
                sized = set(self.bindings)
                return not any(x in sized for d in entry.shape for x in d.free_symbols)
        return False

    def literals(self) -> dict[str, sympy.Matrix]:
        """The matrices written out in the worked example in force, by name."""
        out: dict[str, sympy.Matrix] = {}
        for layer in self.layers:
            out.update(layer.literals)
        return out

    def defs(self) -> dict[sympy.Basic, MatExpr]:
        """Every definition in force, keyed by the defined symbol, with the example's sizes; a
        matrix the worked example writes out (`Q = [1 \\ 2]` after `Q = XW_Q`) is its written
        values there, not its definition."""
        out: dict[sympy.Basic, MatExpr] = {}
        written = self.literals()
        for layer in self.layers:
            for key, entry in layer.names.items():
                if entry.definition is not None and key not in written:
                    out[self.bind(MatSym(key, *entry.shape))] = self.bind(entry.definition)
            for key, entry in layer.families.items():
                if entry.definition is not None and entry.head is not None:
                    sym = HeadSym(key, entry.head, *entry.shape)
                    out[self.bind(sym)] = self.bind(entry.definition)
        out.update(self._head_defs(out))
        return out

    def _head_defs(self, defs: dict[sympy.Basic, MatExpr]) -> dict[sympy.Basic, MatExpr]:
        r"""`A^{(h)}` with no definition of its own, after `A = \operatorname{softmax}(QK^T/
        \sqrt{d_k})` and the document's `Q^{(h)}`, `K^{(h)}`: head h's A is A's definition with
        head h's Q and K (what the superscript means: "everything carrying the head's
        number"). Only when every matrix of that definition has a head family the document
        declared or defined, so no head is made up from a convention alone."""
        out: dict[sympy.Basic, MatExpr] = {}
        for key in FAMILIES:
            fam = self.lookup(key, True)
            single = self.lookup(key)
            if fam is None or fam.definition is not None or single is None:
                continue
            if single.definition is None:
                continue
            swap: dict[sympy.Basic, sympy.Basic] = {}
            ok = True
            for x in walk(single.definition):
                if not isinstance(x, MatSym):
                    continue
                member = self.lookup(x.name, True)
                if member is None or member.origin == "convention":
                    ok = False
                    break
                swap[x] = HeadSym(x.name, HEAD, *member.shape)
            if ok and swap:
                sym = self.bind(HeadSym(key, HEAD, *fam.shape))
                if sym not in defs:
                    out[sym] = self.bind(single.definition.xreplace(swap))
        return out
