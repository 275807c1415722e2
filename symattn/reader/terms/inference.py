"""Shapes for the names a text uses but never declares, solved by unification over its formulas.
Imports sympy, the kernel's dims, the reader's syntax and terms; never claims or check.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import sympy

from symattn.kernel.dims import STANDARD_DIMS, dim, shape_str
from symattn.kernel.errors import SymattnError
from symattn.reader.syntax import ast
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.conventions import CONVENTIONS, FAMILIES
from symattn.reader.terms.identity import written_beside
from symattn.reader.terms.letter_evidence import families, head_families, transposed_letters
from symattn.reader.terms.members import Member, lookup_member
from symattn.reader.terms.name_evidence import (
    _candidate,
    _declarations,
    _declared,
    _Formula,
    _formulas,
    _in_claims,
    _indexed_letters,
    _matrix_evidence,
    _names,
    _plain_names,
    _roots,
    _size_names,
    parsed,
)
from symattn.reader.terms.scope import HEAD, Name, Scope
from symattn.reader.terms.shape_walk import _SIZES, _Walker, family_key
from symattn.reader.terms.translator import plain_name
from symattn.reader.terms.unify import (
    Clash,
    Mat,
    Unifier,
    Value,
    Vec,
    _fresh,
    _shape,
    _shown,
    shown,
)
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
    #: families of matrices the text writes with an index and never declares (`R_m`, `R_n`):
    #: one shape for every member, the members unrelated matrices (keyed `R_•`)
    families: dict[str, Inferred] = field(default_factory=dict)
    #: the names installed in the scope now, as `install` and `enter` put them there
    installed: dict[str, Inferred] = field(default_factory=dict)
    #: per formula (line, column), the vectors it knows by their components (`q \\cdot k =
    #: \\sum_i q_i k_i`): in scope for that formula only
    components: dict[tuple[int, int], dict[str, Inferred]] = field(default_factory=dict)
    _entered: list[str] = field(default_factory=list)
    #: the entries `enter` set aside for one formula's components, restored after it
    _replaced: dict[str, tuple[Name, Inferred | None]] = field(default_factory=dict)

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
            if name in self._replaced:
                layer.names[name], before = self._replaced.pop(name)  # its shape elsewhere
                layer.names[name].components = False
                if before is not None:
                    self.installed[name] = before
                else:
                    self.installed.pop(name, None)
            elif entry is not None and entry.origin == "inferred" and name not in self.names:
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
            elif _own_length(current.shape) and not _own_length(got.shape):
                # `\mathbf x` of a length of its own elsewhere, `\sum_{j=1}^{n} \exp(x_j)`
                # here: the sum's bound is its length in this formula
                self._replaced[name] = (current, self.installed.get(name))
                _put(scope, got)
                self.installed[name] = got
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
    transposed = transposed_letters(formulas) - numbers
    eye_beside = any(
        written_beside(node)
        for f in formulas
        for c in f.claims
        for node in (*c.subjects, *(s.rhs for s in c.steps))
    )
    for f in formulas:
        for c in f.claims:
            for node in (*c.subjects, *(s.rhs for s in c.steps)):
                for sym in _names(node):
                    label = plain_name(sym)
                    kind = _candidate(sym) or ("vector" if label in transposed else None)
                    if label is None or kind is None or label in env or label in dims:
                        continue
                    if label == "I" and label not in declared | defined and eye_beside:
                        continue  # the identity, of the size the product needs (`identity`)
                    if label in indexed or (kind == "matrix" and label not in evidence):
                        continue
                    env[label] = _fresh(u, label, kind)
                    kinds[label] = kind
    taken = set(env) | declared | defined | dims | set(CONVENTIONS)
    # `K_t`, `V_j` of the chapter's K and V where the text never declares nor defines them:
    # members of a family of the text's (per-step keys), not rows of the conventional matrix
    conventional = {x for x in CONVENTIONS if len(x) == 1 and x not in declared | defined}
    for letter in families(formulas, indexed, evidence, taken - conventional):
        env[family_key(letter)] = _fresh(u, family_key(letter), "matrix")
        kinds[family_key(letter)] = "matrix"
    # `W_O^{(h)}` is a block of rows of the chapter's W_O, no family of its own
    heads, own_heads = head_families(formulas, set(FAMILIES) | set(CONVENTIONS))
    for name in heads:
        env[f"{name}^(h)"] = _fresh(u, f"{name}^(h)", "matrix")
        kinds[f"{name}^(h)"] = "matrix"
    for name, shape in FAMILIES.items():
        if name not in own_heads:
            env[f"{name}^(h)"] = Mat(*shape)  # the chapter's head families, as its names
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
        out.uses[key] |= {x for x in w.used if x.endswith(("_•", "^(h)"))}
    out.conventions = _other_conventions(against, u, env, dims)
    claimed, stated = _in_claims(formulas), _in_claims(formulas, defined)
    known = {x.lower() for x in (*CONVENTIONS, *decls)}
    for name, kind in kinds.items():
        if name in out.contested or name in declared or name in defined or name not in lines:
            continue
        slip = name.lower() in known and name not in decls and len(set(lines[name])) < 2
        slip = slip and kind == "matrix"  # `W_o` for W_O; a vector `q` is no slip for Q
        # a bare capital used once, to define another name (`B = QM^T`), is more likely a
        # slip than a matrix of the text's own; a weight's name (`W^Q`, `W_c`) is no slip
        once = name not in stated and len(set(lines[name])) < 2 and _bare(name)
        if name not in claimed or slip or once:
            continue  # used only in a shape claim, or once for a known one (`W_o`)
        got_shape = _shape(u, env[name])
        if got_shape is None:
            continue
        out.names[name] = Inferred(
            name, got_shape, kind == "vector", tuple(dict.fromkeys(lines[name]))
        )
    for name in kinds:
        got_shape = _shape(u, env[name]) if name.endswith(("_•", "^(h)")) else None
        if got_shape is not None and name in lines and name not in out.contested:
            out.families[name] = Inferred(name, got_shape, False, tuple(dict.fromkeys(lines[name])))
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


def _bare(name: str) -> bool:
    """`M`, `\\mathbf M`: one capital letter with no label."""
    return len(shown(name)) == 1


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


def _alone(
    f: _Formula,
    env: dict[str, Value],
    kinds: dict[str, str],
    dims: set[str],
    declared: set[str],
    vectors: str = "",
) -> Conflict | None:
    """The formula read by itself, its undeclared names fresh: a clash there is a conflict
    inside the formula (only when every name it involves is the text's own or undeclared).
    A matrix it defines is fresh too (`W = QK^T/\\sqrt{d_k}` in a later section, after `W \\in
    \\mathbb R^{n\\times m}`): the definition gives it its shape here."""
    u = Unifier()
    local: dict[str, Value] = {}
    own = {
        plain_name(c.subjects[0])
        for c in f.claims
        if c.steps and c.steps[0].rel == "=" and len(c.subjects) == 1
    }
    for name, value in env.items():
        if name in kinds:
            local[name] = _fresh(u, name, kinds[name])
        elif name in own and isinstance(value, Mat):
            local[name] = _fresh(u, name, "matrix")
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
    for key, got in inference.families.items():
        if key.endswith("^(h)"):
            name = key.removesuffix("^(h)")
            if scope.lookup(name, True) is None:
                scope.document.families[name] = Name(got.shape, "inferred", -1, got.lines[0], HEAD)
                inference.installed[key] = got
            continue
        letter = key.removesuffix("_•")
        own = scope.lookup(letter)
        if lookup_member(scope, letter) is None and (own is None or own.origin == "convention"):
            shape = got.shape
            member = Member(letter, shape, got.lines[0], 0, key, settled=True)
            scope.document.members[letter] = member
            inference.installed[key] = got
    for name in inference.sizes:
        scope.dims.setdefault(name, dim(name))


def _own_length(shape: tuple[sympy.Basic, sympy.Basic]) -> bool:
    """A vector's shape whose length is a size of its own (`len(x)`), fixed by nothing."""
    return any(isinstance(x, sympy.Symbol) and x.name.startswith("len(") for x in shape)


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
