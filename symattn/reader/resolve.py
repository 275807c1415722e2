"""The resolver: the scope of a document (conventions, declarations, definitions, worked
examples, size relations) and the claims of each formula; terms are built by `reader.terms`.

Imports the kernel and the reader's other modules; never the checker, the CLI or the printers.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import sympy

from symattn.kernel.dims import STANDARD_DIMS, assume, dim, dims_equal, shape_str
from symattn.kernel.errors import DimError, ParseError, ShapeError, SymattnError
from symattn.kernel.expr import Dot, Entry, HeadSym, MatExpr, MatSym, Row, index, walk
from symattn.kernel.text import plain
from symattn.reader import ast
from symattn.reader.claims import ResolvedClaim, Shape, new_claim
from symattn.reader.conditions import ORDER, REL_TEXT, attach_conditions, attach_within, rel_text
from symattn.reader.conventions import CONVENTIONS, FAMILIES
from symattn.reader.literals import LiteralProblem, entry_pairs
from symattn.reader.notes import blank_notes
from symattn.reader.parse import parse_formula
from symattn.reader.scanner import MathSpan, scan
from symattn.reader.size_relations import (
    SizeContext,
    close_sizes,
    size_value,
    solve_for,
    substitute,
)
from symattn.reader.terms import (
    KEEP_FONTS,
    Problem,
    Terms,
    add_scalars,
    as_comparable,
    chain_scalar,
    not_understood,
    orientation,
    plain_name,
)

__all__ = ["ResolvedClaim", "Resolver", "attach_conditions", "resolve_document", "section_lines"]

_MAX_NODES = 3000
_HEADING = re.compile(
    r"^(#{1,6}\s|\d+(\.\d+)+\s+\S|\\(part|chapter|section|subsection|subsubsection)\*?\{)"
)


@dataclass
class _Name:
    """A symbol-table entry: a matrix or a head family, with its shape and definition."""

    shape: Shape
    origin: Literal["convention", "declared", "defined"]
    section: int = -1
    line: int = 0
    family: bool = False
    head: sympy.Symbol | None = None
    definition: MatExpr | None = None
    label: str = ""
    mask: bool = False


@dataclass
class _Layer:
    kind: Literal["conventions", "document", "example"]
    names: dict[str, _Name] = field(default_factory=dict)
    families: dict[str, _Name] = field(default_factory=dict)
    bindings: dict[sympy.Symbol, sympy.Integer] = field(default_factory=dict)
    relations: dict[sympy.Symbol, sympy.Expr] = field(default_factory=dict)
    orient: dict[str, str] = field(default_factory=dict)
    literals: dict[str, sympy.Matrix] = field(default_factory=dict)
    line: int = 0


def section_lines(text: str) -> list[int]:
    """Line numbers (1-based) of headings: Markdown `#`, LaTeX `\\section{`, numbered `6.2 Title`.

    >>> section_lines("# A\\ntext\\n6.2 Heads\\n\\\\section{B}")
    [1, 3, 4]
    """
    return [k for k, line in enumerate(text.splitlines(), start=1) if _HEADING.match(line)]


class Resolver:
    """Reads formulas in file order, keeping the symbol table: conventions, document, examples.

    >>> from symattn.reader import scan
    >>> spans = scan("$Q=XW_Q$ and $(QK^T)_{ij}=q_i\\\\cdot k_j$", kind="md")
    >>> r = Resolver()
    >>> [c.status for s in spans for c in r.resolve_span(s)]
    ['proved', 'pending']
    """

    def __init__(
        self, sections: Sequence[int] = (), assume: dict[str, sympy.Expr] | None = None
    ) -> None:
        conv = _Layer("conventions")
        conv.names = {k: _Name(v, "convention") for k, v in CONVENTIONS.items()}
        conv.families = {k: _Name(v, "convention", family=True) for k, v in FAMILIES.items()}
        self.layers: list[_Layer] = [conv, _Layer("document")]
        self.dims: dict[str, sympy.Symbol] = dict(STANDARD_DIMS)
        self.sections = sorted(sections)
        self.section = 0
        self.line = 0
        self._memo: tuple[Any, SizeContext] | None = None
        self._relation_section: dict[sympy.Symbol, int] = {}
        self._cases: dict[str, dict[str, sympy.Basic]] = {}
        self.sequences: dict[str, sympy.Expr] = {}
        self._open_case: tuple[str, str, tuple[sympy.Symbol, sympy.Symbol]] | None = None
        self.terms = Terms(self)
        for name, value in (assume or {}).items():
            self.assume_size(name, value)

    def assume_size(self, name: str, value: sympy.Expr | int) -> None:
        """A size relation given before any formula (`--assume d_k=d/H`, `--assume n=5`).

        >>> from symattn.kernel.dims import d_v
        >>> r = Resolver(assume={"d_k": d_v}); r.assumptions
        {'d_k': d_v}
        >>> Resolver(assume={"n": 5}).bindings
        {n: 5}
        """
        sym = self.dims.setdefault(name, STANDARD_DIMS.get(name, dim(name)))
        val = sympy.sympify(value, strict=True)
        for x in val.free_symbols:
            if isinstance(x, sympy.Symbol):
                self.dims.setdefault(x.name, x)
        doc = self.layers[1]
        if val.free_symbols:
            doc.relations[sym] = val
        else:
            doc.bindings[sym] = size_value(val, f"{name} = {val}", None)
        problems = self._context().problems
        if problems:
            raise DimError(problems[0])

    def declare(self, name: str, shape: Shape) -> None:
        """Declare a matrix `Q` (or a head family `Z^(h)`) and its shape before any formula.

        >>> from symattn.kernel.dims import d, n
        >>> r = Resolver(); r.declare("B", (n, d)); r.lookup("B").shape
        (n, d)
        """
        family = "^" in name
        base = name.split("^")[0].replace("{", "").replace("}", "")
        for x in shape:
            for s in x.free_symbols:
                if isinstance(s, sympy.Symbol):
                    self.dims.setdefault(s.name, s)
        table = self.layers[1].families if family else self.layers[1].names
        table[base] = _Name(shape, "declared", -1, 0, family, _H if family else None)

    # ---- scopes ----------------------------------------------------------------------------

    def _enter(self, line: int) -> None:
        self.line = line
        section = sum(1 for s in self.sections if s <= line)
        if section != self.section:
            self.section = section
            self._close_example()

    def _close_example(self) -> None:
        while self.layers[-1].kind == "example":
            self.layers.pop()

    @property
    def bindings(self) -> dict[sympy.Symbol, sympy.Integer]:
        """Every size with a value here: the worked example's (`n = 5`) and those that follow
        from them and the relations in force (`d_v = d/H` with `d = 512`, `H = 8`)."""
        return dict(self._context().bindings)

    @property
    def assumptions(self) -> dict[str, sympy.Expr]:
        """The relations between sizes in force (`d_v = d/H`), bindings substituted, by name:
        keyword arguments for `dims.assume`. Their values are sympy expressions, never ints."""
        return {k.name: v for k, v in self._context().relations.items()}

    def _context(self, upto: int | None = None) -> SizeContext:
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

    def _top(self) -> _Layer:
        return self.layers[-1]

    def lookup(self, name: str, family: bool = False) -> _Name | None:
        for layer in reversed(self.layers):
            table = layer.families if family else layer.names
            if name in table:
                return table[name]
        return None

    def bind(self, e: sympy.Basic) -> sympy.Basic:
        b = self.bindings
        return e.xreplace(b) if b else e

    def known_names(self) -> list[str]:
        names = set(self.dims)
        for layer in self.layers:
            names |= set(layer.names) | {f"{k}^(h)" for k in layer.families}
        return sorted(names)

    def literals(self) -> dict[str, sympy.Matrix]:
        """The matrices written out in the worked example in force, by name."""
        out: dict[str, sympy.Matrix] = {}
        for layer in self.layers:
            out.update(layer.literals)
        return out

    def _pending(
        self,
        span: MathSpan,
        start: int,
        end: int,
        pairs: tuple[tuple[sympy.Basic, sympy.Basic], ...],
    ) -> ResolvedClaim:
        """A claim for the kernel; one that reaches a matrix written out in the worked example
        goes entry by entry, with the written values (`reader.literals`)."""
        defs = self.defs()
        literals = self.literals()
        if literals:
            out: list[tuple[sympy.Basic, sympy.Basic]] = []
            for lhs, rhs in pairs:
                try:
                    got = entry_pairs(lhs, rhs, defs, literals)
                except LiteralProblem as e:
                    raise not_understood(f"{e} (a matrix written out is in force)", None) from None
                out.extend(got if got is not None else [(lhs, rhs)])
            pairs = tuple(out)
        return new_claim(span, start, end, "pending", pairs=pairs, defs=defs)

    def defs(self) -> dict[sympy.Basic, MatExpr]:
        """Every definition in force, keyed by the defined symbol, with the example's sizes."""
        out: dict[sympy.Basic, MatExpr] = {}
        for layer in self.layers:
            for key, entry in layer.names.items():
                if entry.definition is not None:
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
                swap[x] = HeadSym(x.name, _H, *member.shape)
            if ok and swap:
                sym = self.bind(HeadSym(key, _H, *fam.shape))
                if sym not in defs:
                    out[sym] = self.bind(single.definition.xreplace(swap))
        return out

    # ---- spans and claims ------------------------------------------------------------------

    def resolve_span(self, span: MathSpan) -> list[ResolvedClaim]:
        """Every claim of one span, in order; never raises for what the span says."""

        self._enter(span.start.line)
        span = dataclasses.replace(span, body=blank_notes(span.body))
        try:
            formula = parse_formula(span.body)
        except ParseError as err:
            off = err.position.offset if err.position is not None else 0
            if _malformed(err.message):
                msg = f"malformed LaTeX: {err.message}"
                return [new_claim(span, 0, len(span.body), "malformed", msg, where=(off, off + 1))]
            if _TABLE.fullmatch(span.body):
                return [new_claim(span, 0, len(span.body), "prose", "a table, not a claim")]
            rows = self._rows(span)
            if rows is not None:
                return rows
            msg = f"cannot read the formula: {err.message}"
            return [new_claim(span, 0, len(span.body), "not_understood", msg, where=(off, off + 1))]
        if _count_nodes(formula) > _MAX_NODES:
            msg = f"formula too large to check (more than {_MAX_NODES} nodes)"
            return [new_claim(span, 0, len(span.body), "not_understood", msg)]
        out: list[ResolvedClaim] = []
        for item in _claims_of(formula.items):
            with assume(**self.assumptions):
                claims = self._resolve_claim(span, item, display=span.display)
            out.extend(self._decorate(claims))
        return attach_within(out)

    def _decorate(self, claims: list[ResolvedClaim]) -> list[ResolvedClaim]:
        out = []
        if True:
            for claim in claims:
                if self.assumptions:
                    claim = dataclasses.replace(claim, assumptions=dict(self.assumptions))
                b = self.bindings
                if b and claim.status != "prose":
                    text = ", ".join(f"{k} = {v}" for k, v in b.items())
                    claim = dataclasses.replace(claim, context=f"worked example: {text}")
                out.append(claim)
        return out

    def _rows(self, span: MathSpan) -> list[ResolvedClaim] | None:
        """An alignment the checker cannot read as a whole, read row by row: a row it cannot
        read is `not understood` and so is the one link that starts from it; every other link
        of the chain is still checked (a wrong step after an unreadable row is still caught).
        Each link is a claim about its own two sides, so reading rows apart adds none."""

        body = span.body
        rows = _split_rows(body)
        if len(rows) < 2:
            return None
        out: list[ResolvedClaim] = []
        prev: ast.Node | None = None
        for a, b in rows:
            text = _only(body, a, b)
            cont = _CONTINUES.match(body, a)
            if cont is not None and cont.end() > a and cont.group(1):
                at = cont.start(1)  # `&\\quad =` becomes `x      =`: a placeholder left side
                text = text[:at] + "x" + " " * (cont.end() - at - 1) + text[cont.end() :]
            try:
                formula = parse_formula(text)
            except ParseError as err:
                msg = f"cannot read this row: {err.message}"
                out.append(new_claim(span, a, max(a + 1, b), "not_understood", msg))
                prev = None
                continue
            items = list(_claims_of(formula.items))
            for k, item in enumerate(items):
                with assume(**self.assumptions):
                    if k == 0 and cont is not None and cont.group(1) and item.steps:
                        claims = self._continue(span, prev, item)
                    else:
                        claims = self._resolve_claim(span, item, display=span.display)
                out.extend(self._decorate(claims))
            last = items[-1] if items else None
            prev = last.steps[-1].rhs if last is not None and last.steps else None
        return attach_within(out)

    def _continue(
        self, span: MathSpan, prev: ast.Node | None, item: ast.Claim
    ) -> list[ResolvedClaim]:
        out = []
        left = prev
        for step in item.steps:
            if left is None:
                msg = "this link starts from a row the checker cannot read"
                out.append(new_claim(span, step.start, step.end, "not_understood", msg))
            else:
                out.append(self._link(span, left, step, first=False))
            left = step.rhs
        return out

    def _resolve_claim(
        self, span: MathSpan, c: ast.Claim, display: bool = False
    ) -> list[ResolvedClaim]:
        open_case, self._open_case = self._open_case, None
        if not c.steps:
            if display:
                bad = self._ill_typed(span, c)
                if bad is not None:
                    return [bad]
            return [new_claim(span, c.start, c.end, "prose", "a mention, not a claim")]
        if len(c.subjects) > 1 and (len(c.steps) > 1 or c.steps[0].rel != "in"):
            msg = "several subjects are allowed only in a shape declaration (Q,K \\in ...)"
            return [new_claim(span, c.start, c.end, "not_understood", msg)]
        if c.steps[0].rel == "in":
            return [self._declaration(span, s, c.steps[0]) for s in c.subjects]
        if all(step.rel in ORDER for step in c.steps):
            if open_case is not None:
                case = self._case_condition(span, c, open_case)
                if case is not None:
                    return [case]
            return [self._condition(span, c)]
        if all(step.rel == "=" for step in c.steps):
            chain = self._size_chain(span, c)
            if chain is not None:
                return chain
            about = self._index_equation(span, c)
            if about is not None:
                return [about]
            seq = self._sequence_definition(span, c)
            if seq is not None:
                return [seq]
        out = []
        left: ast.Node = c.subjects[0]
        for k, step in enumerate(c.steps):
            out.append(self._link(span, left, step, first=k == 0))
            left = step.rhs
        return out

    def _ill_typed(self, span: MathSpan, c: ast.Claim) -> ResolvedClaim | None:
        """A display formula that is only an expression (`$$QK$$`) claims that it means
        something: one that does not typecheck is a shape error. One the checker cannot read
        stays a mention (it says nothing the checker could hold against it)."""
        for subject in c.subjects:
            if isinstance(subject, ast.Dots):
                continue
            try:
                self.terms.term(subject)
            except Problem as p:
                if p.status == "shape_error":
                    return new_claim(span, c.start, c.end, "shape_error", p.message, where=p.where)
            except ShapeError as e:
                return new_claim(span, c.start, c.end, "shape_error", _first_line(str(e)))
            except (SymattnError, RecursionError):
                continue
        return None

    def _index_equation(self, span: MathSpan, c: ast.Claim) -> ResolvedClaim | None:
        """`j=i` (the sum stops at j=i), `h=1` (of `h=1,\\ldots,H`), `i \bmod 2 = 0`: an
        equation between indices names a position or a condition; it claims nothing."""
        members = [*c.subjects, *(step.rhs for step in c.steps)]
        for m in members:
            for x in _nodes(m):
                if (
                    isinstance(x, ast.Symbol)
                    and plain_name(x) not in self.dims
                    and not (
                        len(x.name) == 1 and x.name.islower() and x.sub is None and x.font is None
                    )
                ):
                    return None  # a matrix, a vector or a name: not only indices
        values = []
        for m in members:
            try:
                values.append(self.terms.index_term(m))
            except (Problem, SymattnError):
                return None
        dims = set(self.dims.values()) | set(self.bindings)
        free = set().union(*(v.free_symbols for v in values)) - dims
        if not free:
            return None
        msg = "an equation between indices (a position or a condition), not a claim"
        return new_claim(span, c.start, c.end, "prose", msg)

    def _sequence_definition(self, span: MathSpan, c: ast.Claim) -> ResolvedClaim | None:
        r"""`c_i = -\max_j S_{ij}`: a letter with one index that names nothing in scope is
        defined here, a sequence of numbers (one per position); a premise, never checked."""
        left = c.subjects[0]
        if not (
            len(c.steps) == 1
            and isinstance(left, ast.Symbol)
            and left.font is None
            and len(left.name) == 1
            and left.name.islower()
            and isinstance(left.sub, ast.Symbol)
            and left.sub.sub is None
            and left.name not in self.dims
            and self.lookup(left.name.upper()) is None
            and left.name not in self.sequences
        ):
            return None
        self.sequences[left.name] = self.dims["n"]
        msg = f"defines the numbers {left.name}_{left.sub.name}, one per position (a premise)"
        return new_claim(span, c.start, c.end, "declared", msg)

    def _guard(self, span: MathSpan, start: int, end: int, run) -> ResolvedClaim:
        try:
            return run()
        except Problem as p:
            where = p.where
            return new_claim(span, start, end, p.status, p.message, where=where)
        except ShapeError as e:
            return new_claim(span, start, end, "shape_error", _first_line(str(e)))
        except RecursionError:
            return new_claim(
                span, start, end, "not_understood", "formula nested too deeply to check"
            )
        except SymattnError as e:
            return new_claim(span, start, end, "not_understood", _first_line(str(e)))
        except Exception as e:  # noqa: BLE001 - a bug is an error (exit 2), never a traceback
            msg = (
                f"internal error while reading '{span.body[start:end]}' (please report): "
                f"{type(e).__name__}: {e}"
            )
            return new_claim(span, start, end, "internal_error", " ".join(msg.split()))

    # ---- relations --------------------------------------------------------------------------

    def _link(self, span: MathSpan, left: ast.Node, step: ast.Step, first: bool) -> ResolvedClaim:
        start, end = left.start, step.rhs.end
        if step.rel == "in":
            return self._declaration(span, left, step)
        if step.rel == "neq":
            return self._not_equal(span, left, step, start, end)
        if step.rel != "=":
            msg = f"relation '{REL_TEXT.get(step.rel, step.rel)}' is not checked (only = and \\in)"
            return new_claim(span, start, end, "not_understood", msg, where=(start, end))

        if _moment(left) or _moment(step.rhs):
            msg = (
                "a moment of random variables (\\mathbb E, Var): the kernel has no "
                "probability, so this is not decided"
            )
            return new_claim(span, start, end, "unknown", msg)

        def run() -> ResolvedClaim:
            if isinstance(step.rhs, ast.Matrix):
                return self._stack_claim(span, left, step.rhs, start, end)
            if first:
                special = self._special_equation(span, left, step.rhs, start, end)
                if special is not None:
                    return special
            lhs, rhs = self.terms.term(left), self.terms.term(step.rhs)
            if self._sizes_only(lhs) and self._sizes_only(rhs):
                return self._assume(span, lhs, rhs, start, end)
            lhs, rhs = as_comparable(lhs, rhs)
            if isinstance(lhs, MatExpr) != isinstance(rhs, MatExpr):
                m, x = (lhs, rhs) if isinstance(lhs, MatExpr) else (rhs, lhs)
                assert isinstance(m, MatExpr)
                kinds = ("a matrix", "a scalar") if m is lhs else ("a scalar", "a matrix")
                raise Problem(
                    "shape_error",
                    f"cannot compare {kinds[0]} with {kinds[1]}: {plain(m)} is "
                    f"{orientation(m)} ({shape_str(m.shape)}) and {plain(x)} is a scalar; "
                    "a scalar stands only for a 1 × 1 matrix",
                    None,
                )
            return self._pending(span, start, end, ((lhs, rhs),))

        return self._guard(span, start, end, run)

    def _not_equal(
        self, span: MathSpan, left: ast.Node, step: ast.Step, start: int, end: int
    ) -> ResolvedClaim:
        """`a \ne b`: the kernel decides `a = b`; a counterexample verifies the claim, a proof
        that they are equal makes it false, anything else leaves it undecided."""

        def run() -> ResolvedClaim:
            lhs, rhs = as_comparable(self.terms.term(left), self.terms.term(step.rhs))
            if isinstance(lhs, MatExpr) != isinstance(rhs, MatExpr):
                raise not_understood("\\ne between a matrix and a scalar", step)
            claim = self._pending(span, start, end, ((lhs, rhs),))
            return dataclasses.replace(claim, negated=True)

        return self._guard(span, start, end, run)

    def _special_equation(
        self, span: MathSpan, left: ast.Node, right: ast.Node, start: int, end: int
    ) -> ResolvedClaim | None:
        """`n = 5` binds a size in a worked example; `Q = XW_Q`, `Z^{(h)} = ...` define names."""
        name = plain_name(left)
        if name is not None and name in self.dims:
            if isinstance(right, ast.Number) and right.text.isdigit() and int(right.text) > 0:
                return self._bind_dims(
                    {self.dims[name]: sympy.Integer(int(right.text))}, span, left
                )
        case = self._case(span, left, right, start, end)
        if case is not None:
            return case
        if name is not None and _looks_like_matrix(name):
            return self._define(span, name, None, right, start, end)
        row_of = self._row_definition(left, right)
        if row_of is not None:
            assert isinstance(right, ast.IndexedGroup)
            return self._define(span, row_of, None, right.group, start, end)
        if isinstance(left, ast.HeadSup):
            fam = plain_name(left.operand)
            head = _head_symbol(left.head)
            if fam is not None and head is not None and _looks_like_matrix(fam):
                return self._define(span, fam, head, right, start, end)
        return None

    # ---- a matrix defined by cases: the additive causal mask ----------------------------------

    def _case(
        self, span: MathSpan, left: ast.Node, right: ast.Node, start: int, end: int
    ) -> ResolvedClaim | None:
        r"""`M_{ij}=0` or `M_{ij}=-\infty` for a capital not in scope: one case of a definition
        whose condition follows (`for $j\le i$`); see `_case_condition`."""
        if not (
            isinstance(left, ast.Symbol)
            and left.font in KEEP_FONTS
            and len(left.name) == 1
            and left.name.isupper()
            and self.lookup(left.name) is None
            and isinstance(left.sub, ast.Product)
            and len(left.sub.factors) == 2
            and all(isinstance(f, ast.Symbol) and f.sub is None for f in left.sub.factors)
        ):
            return None
        if isinstance(right, ast.Number) and right.text == "0":
            value = "0"
        elif (
            isinstance(right, ast.Neg)
            and isinstance(right.operand, ast.Symbol)
            and right.operand.name == "infty"
        ):
            value = "-inf"
        else:
            return None
        names = [f.name for f in left.sub.factors if isinstance(f, ast.Symbol)]
        i, j = index(names[0]), index(names[1])
        self._open_case = (left.name, value, (i, j))
        msg = f"a case of the definition of {left.name} (its condition follows)"
        return new_claim(span, start, end, "declared", msg)

    def _case_condition(
        self, span: MathSpan, c: ast.Claim, case: tuple[str, str, tuple[sympy.Symbol, sympy.Symbol]]
    ) -> ResolvedClaim | None:
        r"""The condition of a case just written. `M_{ij}=0` for `j\le i` and `M_{ij}=-\infty`
        for `j>i` make M the additive causal mask: `S + M` is then the kernel's
        `CausalMask(S)` (S where j ≤ i, -∞ above the diagonal), exactly the same matrix."""
        name, value, (i, j) = case
        claim = self._condition(span, c)
        if claim.status != "declared" or len(claim.conditions) != 1:
            return None
        (rel,) = claim.conditions
        cases = self._cases.setdefault(name, {})
        cases[value] = rel
        if set(cases) == {"0", "-inf"}:
            below = cases["0"].canonical == sympy.Le(j, i).canonical
            above = cases["-inf"].canonical == sympy.Gt(j, i).canonical
            if below and above:
                n = self.dims["n"]
                entry = _Name((n, n), "defined", self.section, self.line, mask=True)
                self._top().names[name] = entry
                msg = f"{name} is the causal mask: 0 on and below the diagonal, -∞ above"
                return new_claim(span, c.start, c.end, "declared", msg)
        msg = f"the condition of a case of {name}: {claim.message}"
        return new_claim(span, c.start, c.end, "declared", msg)

    def _row_definition(self, left: ast.Node, right: ast.Node) -> str | None:
        """`z_i = (AV)_{i,:}` defines Z = AV row by row, unless Z is defined in this section
        (then it is an identity to prove): the same index on both sides, every row at once."""
        if not (
            isinstance(left, ast.Symbol)
            and left.font in KEEP_FONTS
            and len(left.name) == 1
            and left.name.islower()
            and isinstance(left.sub, ast.Symbol)
            and isinstance(right, ast.IndexedGroup)
            and isinstance(right.index, ast.Seq)
            and len(right.index.items) == 2
            and right.index.items[1] == ast.Symbol("colon", start=0, end=0)
            and right.index.items[0] == left.sub
        ):
            return None
        name = left.name.upper()
        current = self.lookup(name)
        if current is not None and current.definition is not None and self._local(current):
            return None
        return name

    def _define(
        self,
        span: MathSpan,
        name: str,
        head: sympy.Symbol | None,
        right: ast.Node,
        start: int,
        end: int,
    ) -> ResolvedClaim:
        family = head is not None
        rhs = self.terms.term(right)
        if not isinstance(rhs, MatExpr):
            raise not_understood(f"{name} is a matrix but the right side is a scalar", right)
        current = self.lookup(name, family)
        here = current is not None and current.definition is not None and self._local(current)
        if current is not None and here:
            lhs = self.terms.named(name, head, current)
            return self._pending(span, start, end, ((lhs, rhs),))
        label = f"{name}^({head})" if family else name
        shape = rhs.shape
        new = _Name(shape, "defined", self.section, self.line, family, _H if family else None)
        if current is not None and current.origin == "declared":
            declared = self._bind_shape(current.shape)
            if not _same_shape(declared, shape):
                where = f"line {current.line}" if current.line else "the conventions"
                raise Problem(
                    "shape_error",
                    f"{label} is declared {shape_str(declared)} ({where}) but "
                    f"{plain(rhs)} is {shape_str(shape)}",
                    right,
                )
        new.definition = _rename_head(rhs, head) if family else rhs
        table = self._top().families if family else self._top().names
        table[name] = new
        if current is not None and _same_shape(self._bind_shape(current.shape), shape):
            msg = f"definition of {label}: both sides are {shape_str(shape)}"
            return new_claim(span, start, end, "proved", msg)
        before = ""
        if current is not None:
            before = f" (was {shape_str(self._bind_shape(current.shape))})"
        msg = f"defines {label} = {plain(rhs)}, a {shape_str(shape)} matrix{before}"
        return new_claim(span, start, end, "declared", msg)

    def _local(self, entry: _Name) -> bool:
        """True when a definition was made in this section (or this worked example)."""
        return entry.section == self.section and entry.origin == "defined"

    def _assume(
        self, span: MathSpan, lhs: sympy.Basic, rhs: sympy.Basic, start: int, end: int
    ) -> ResolvedClaim:
        """`d_k = d/H` written with more than a product of sizes (`\\sqrt{d_k} = 8`): a relation
        between sizes kept only when its left side is one size not yet related."""
        text = f"relation between sizes {plain(lhs)} = {plain(rhs)}"
        doc = self.layers[1]
        usable = isinstance(lhs, sympy.Symbol) and lhs not in rhs.free_symbols
        if usable and lhs not in doc.relations and lhs not in self.bindings:
            assert isinstance(lhs, sympy.Symbol) and isinstance(rhs, sympy.Expr)
            doc.relations[lhs] = rhs
            self._relation_section[lhs] = self.section
            problems = self._context().problems
            if problems:
                del doc.relations[lhs]
                raise Problem(
                    "shape_error", f"{text} contradicts the sizes in force: {problems[0]}", None
                )
            return new_claim(span, start, end, "declared", f"{text}: assumed from here on")
        return new_claim(span, start, end, "declared", f"{text}: taken as an assumption, not used")

    # ---- relations between sizes: d_v = d/H, d_k = d_v = 64, H = 8 ---------------------------

    def _size_expr(self, node: ast.Node) -> sympy.Expr | None:
        """A size as written, with no worked-example values substituted: known dims and numbers
        under `+ - * /` and juxtaposition; None for anything else (an index, a matrix)."""
        if isinstance(node, ast.Number):
            try:
                return sympy.Rational(node.text)
            except (TypeError, ValueError):
                return None
        name = plain_name(node)
        if name is not None:
            return self.dims.get(name)
        parts: list[sympy.Expr] = []
        kids: Sequence[ast.Node] = ()
        if isinstance(node, ast.Product):
            kids = node.factors
        elif isinstance(node, ast.Mul):
            kids = node.factors
        elif isinstance(node, ast.Add):
            kids = node.terms
        elif isinstance(node, ast.Group) and len(node.items) == 1:
            kids = node.items
        elif isinstance(node, ast.Frac):
            kids = (node.num, node.den)
        elif isinstance(node, ast.Neg):
            kids = (node.operand,)
        else:
            return None
        for k in kids:
            x = self._size_expr(k)
            if x is None:
                return None
            parts.append(x)
        if isinstance(node, ast.Product):
            return sympy.Mul(*parts)
        if isinstance(node, ast.Mul):
            return chain_scalar(node, parts)
        if isinstance(node, ast.Add):
            return add_scalars(node, parts)
        if isinstance(node, ast.Frac):
            return parts[0] / parts[1]
        if isinstance(node, ast.Neg):
            return -parts[0]
        return parts[0]

    def _size_chain(self, span: MathSpan, c: ast.Claim) -> list[ResolvedClaim] | None:
        """`d_v = d/H`, `d_k = d_v = 64`, `H = 8`: a chain whose members are all sizes.

        A chain means each link (`a = b = c` is `a = b` and `b = c`). With a number in it, it is
        a worked example: every size written alone gets that value in the example's scope, and
        any other member is a relation solved for one size (`d/H = 64` gives `d = 64*H`) or,
        when its value is already known, a claim checked by the kernel (`d/H = 64` after `d =
        512`, `H = 8`). Without a number, each link is a relation assumed from here on.
        """
        if len(c.subjects) != 1:
            return None
        members = [c.subjects[0], *(step.rhs for step in c.steps)]
        raw = [self._size_expr(m) for m in members]
        if any(r is None for r in raw):
            return None
        sizes: list[sympy.Expr] = raw
        if not any(r.free_symbols for r in sizes):
            return None  # numbers only: arithmetic, an ordinary claim
        saved = [(dict(x.bindings), dict(x.relations)) for x in self.layers]
        opened = False
        try:
            with assume(**self.assumptions):
                if any(not r.free_symbols for r in sizes):
                    opened = self._top().kind != "example"
                    return self._example_chain(span, members, sizes)
                return self._relation_chain(span, members, sizes)
        except Problem as p:
            for layer, (b, r) in zip(self.layers, saved, strict=False):
                layer.bindings, layer.relations = b, r
            if opened and self._top().kind == "example" and len(self.layers) > len(saved):
                self.layers.pop()
            where = p.where
            return [new_claim(span, c.start, c.end, p.status, p.message, where=where)]

    def _example_chain(
        self, span: MathSpan, members: Sequence[ast.Node], sizes: list[sympy.Expr]
    ) -> list[ResolvedClaim]:
        value = next(r for r in sizes if not r.free_symbols)
        plain_sizes = [
            r for r, m in zip(sizes, members, strict=True) if isinstance(r, sympy.Symbol)
        ]
        top = self._rebound(dict.fromkeys(plain_sizes, value))
        if top.kind != "example":
            top = _Layer("example", line=self.line)
            self.layers.append(top)
        notes: list[str] = []
        checks: dict[int, sympy.Expr] = {}
        for k, (node, r) in enumerate(zip(members, sizes, strict=True)):
            if not r.free_symbols:
                continue
            if isinstance(r, sympy.Symbol) and plain_name(node) is not None:
                top.bindings[r] = size_value(value, f"{r} = {value}", node)
                notes.append(f"{r} = {value}")
                continue
            known = substitute(r, self.bindings, self._context().relations)
            if not known.free_symbols:
                checks[k] = known  # its value follows already: a claim to check
                continue
            solved = solve_for(known, value, [], set(self.bindings) | set(self.assumptions_sym))
            if solved is None:
                raise not_understood(
                    f"cannot tell which size {plain(r)} = {value} determines", node
                )
            sym, sol = solved
            if sol.free_symbols:
                top.relations[sym] = sol
            else:
                top.bindings[sym] = size_value(sol, f"{plain(r)} = {value}", node)
            notes.append(f"{sym} = {plain(sol)}")
        problems = self._context().problems
        if problems and self._drop_earlier_relations():
            problems = self._context().problems
        if problems:
            raise Problem(
                "shape_error", f"these sizes contradict the worked example: {problems[0]}", None
            )
        out: list[ResolvedClaim] = []
        said = False
        for k in range(len(members) - 1):
            left, right = members[k], members[k + 1]
            start, end = left.start, right.end
            a = checks.get(k, sizes[k] if not sizes[k].free_symbols else None)
            b = checks.get(k + 1, sizes[k + 1] if not sizes[k + 1].free_symbols else None)
            if (a is None or b is None) and (k in checks or k + 1 in checks):
                # a member whose value is known (d/H after d = 512, H = 8) next to a size that
                # gets the chain's value: the known value is checked against the chain's
                a, b = checks.get(k, value), checks.get(k + 1, value)
            if a is not None and b is not None:
                pair = ((sympy.sympify(a, strict=True), sympy.sympify(b, strict=True)),)
                out.append(new_claim(span, start, end, "pending", pairs=pair, defs=self.defs()))
                continue
            text = ", ".join(notes) if notes and not said else "the same sizes"
            said = True
            msg = f"worked example: {text}"
            out.append(new_claim(span, start, end, "declared", msg))
        return out

    def _relation_chain(
        self, span: MathSpan, members: Sequence[ast.Node], sizes: list[sympy.Expr]
    ) -> list[ResolvedClaim]:
        doc = self.layers[1]
        out: list[ResolvedClaim] = []
        for k in range(len(members) - 1):
            left, right = members[k], members[k + 1]
            lhs, rhs = sizes[k], sizes[k + 1]
            start, end = left.start, right.end
            text = f"relation between sizes {plain(lhs)} = {plain(rhs)}"
            ctx = self._context()
            a = substitute(lhs, ctx.bindings, ctx.relations)
            b = substitute(rhs, ctx.bindings, ctx.relations)
            diff = sympy.cancel(sympy.together(a - b))
            if not diff.free_symbols and diff != 0:
                pair = ((a, b),)  # both known here and different: the kernel says false
                out.append(new_claim(span, start, end, "pending", pairs=pair, defs=self.defs()))
                continue
            general = self._context(upto=2)
            ga = substitute(lhs, general.bindings, general.relations)
            gb = substitute(rhs, general.bindings, general.relations)
            if sympy.cancel(sympy.together(ga - gb)) == 0:
                msg = f"{text}: follows from the sizes in force"
                out.append(new_claim(span, start, end, "declared", msg))
                continue
            prefer = [x for x in (lhs, rhs) if isinstance(x, sympy.Symbol)]
            taken = set(general.relations) | set(general.bindings)
            solved = solve_for(ga, gb, [x for x in prefer if x not in taken], taken)
            if solved is None:
                msg = f"{text}: taken as an assumption, not used"
                out.append(new_claim(span, start, end, "declared", msg))
                continue
            sym, sol = solved
            if not sol.free_symbols:
                raise Problem(
                    "shape_error",
                    f"{text} gives {sym} = {sol} for every example: write it as {sym} = {sol}",
                    right,
                )
            doc.relations[sym] = sol
            self._relation_section[sym] = self.section
            problems = self._context().problems
            if problems:
                raise Problem(
                    "shape_error", f"{text} contradicts the sizes in force: {problems[0]}", right
                )
            out.append(new_claim(span, start, end, "declared", f"{text}: assumed from here on"))
        return out

    def _drop_earlier_relations(self) -> bool:
        """A worked example in a later section sets its own sizes: relations between sizes
        stated inside an earlier section (`Hd_v = d` in 6.5) give way to it from here on, where
        in their own section, or stated before the first heading (for the whole document), a
        contradiction stays a shape error. Dropping a relation only makes
        fewer shapes equal, so it can turn a verdict into a shape error, never into verified."""
        doc = self.layers[1]
        old = [x for x, sec in self._relation_section.items() if 0 < sec < self.section]
        for x in old:
            doc.relations.pop(x, None)
            del self._relation_section[x]
        return bool(old)

    @property
    def assumptions_sym(self) -> set[sympy.Symbol]:
        return set(self._context().relations)

    # ---- conditions on indices: a_{ij} = 0 for j > i ----------------------------------------

    def _condition(self, span: MathSpan, c: ast.Claim) -> ResolvedClaim:
        """`j > i`, `i < j`, `j \\ge i+1`, `i \\le j`: a premise on indices for the claim before
        it (chains such as `i < j \\le n` give one relation per link)."""
        if len(c.subjects) != 1:
            msg = "a condition relates two indices, as in j > i"
            return new_claim(span, c.start, c.end, "not_understood", msg)
        members = [c.subjects[0], *(step.rhs for step in c.steps)]
        values: list[sympy.Expr] = []
        for m in members:
            try:
                values.append(self.terms.index_term(m))
            except Problem:
                sign = self._sign_claim(span, c)
                if sign is not None:
                    return sign
                msg = (
                    f"relation '{REL_TEXT.get(c.steps[0].rel, c.steps[0].rel)}' is read only "
                    "between indices (j > i, i < j, j \\ge i+1), not checked as a claim"
                )
                return new_claim(
                    span, c.start, c.end, "not_understood", msg, where=(m.start, m.end)
                )
        dims = set(self.dims.values()) | set(self.bindings)
        relations: list[sympy.Basic] = []
        for k, step in enumerate(c.steps):
            a, b = values[k], values[k + 1]
            free = (a.free_symbols | b.free_symbols) - dims
            if not free:
                msg = "a condition on sizes alone (n > 5) is not read; conditions relate indices"
                return new_claim(span, c.start, c.end, "not_understood", msg)
            rel = ORDER[step.rel](a, b)
            if rel is sympy.true:
                continue
            if rel is sympy.false:
                shown = f"{plain(a)} {REL_TEXT.get(step.rel, step.rel)} {plain(b)}"
                msg = f"the condition {shown} never holds"
                return new_claim(span, c.start, c.end, "not_understood", msg)
            relations.append(rel)
        text = ", ".join(rel_text(r) for r in relations) or "true for every index"
        return dataclasses.replace(
            new_claim(span, c.start, c.end, "declared", f"condition {text}"),
            conditions=tuple(relations) or (sympy.true,),
        )

    def _sign_claim(self, span: MathSpan, c: ast.Claim) -> ResolvedClaim | None:
        r"""`a_{ij} > 0` (also `\ge`, `0 < a_{ij}`): the sign of an entry, for the kernel's
        sign facts on every entry of the matrix (which implies it for any i, j)."""
        if len(c.steps) != 1 or len(c.subjects) != 1:
            return None
        left, rel, right = c.subjects[0], c.steps[0].rel, c.steps[0].rhs
        if isinstance(left, ast.Number) and left.text == "0" and rel in ("<", "le"):
            left, right, rel = right, left, {"<": ">", "le": "ge"}[rel]
        if rel not in (">", "ge") or not (isinstance(right, ast.Number) and right.text == "0"):
            return None
        try:
            entry = self.terms.term(left)
        except (Problem, SymattnError):
            return None
        if not isinstance(entry, Entry):
            return None
        claim = new_claim(span, c.start, c.end, "pending", defs=self.defs())
        return dataclasses.replace(claim, sign=(entry.matrix, rel == ">"))

    def _sizes_only(self, e: sympy.Basic) -> bool:
        """A scalar made of dims and numbers only, with at least one dim (`p_o/h`)."""
        if isinstance(e, MatExpr) or not isinstance(e, sympy.Expr) or e.has(Entry, Dot):
            return False
        names = {s.name for s in e.free_symbols if isinstance(s, sympy.Symbol)}
        return bool(names) and names <= set(self.dims)

    def _rebound(self, new: dict[sympy.Symbol, Any]) -> _Layer:
        """The layer for new values: `n = 7` after `n = 5` opens a new example with the other
        sizes; what the old one declared or defined at n = 5 (Q at 5 rows, a 5 × 5 table for
        A) is not carried, since it depends on the old value."""
        top = self._top()
        if top.kind == "example" and any(top.bindings.get(k, v) != v for k, v in new.items()):
            carried: dict[sympy.Symbol, sympy.Integer] = {}
            for layer in self.layers:
                if layer.kind == "example":
                    carried.update({k: v for k, v in layer.bindings.items() if k not in new})
            self._close_example()
            top = _Layer("example", line=self.line)
            top.bindings = carried
            self.layers.append(top)
        return top

    def _bind_dims(
        self, new: dict[sympy.Symbol, sympy.Integer], span: MathSpan, node: ast.Node
    ) -> ResolvedClaim:
        top = self._rebound(new)
        if top.kind != "example":
            top = _Layer("example", line=self.line)
            self.layers.append(top)
        top.bindings.update(new)
        text = ", ".join(f"{k} = {v}" for k, v in new.items())
        return new_claim(span, node.start, node.end, "declared", f"worked example: {text}")

    # ---- shape declarations -----------------------------------------------------------------

    def _declaration(self, span: MathSpan, subject: ast.Node, step: ast.Step) -> ResolvedClaim:
        start, end = subject.start, step.rhs.end

        def run() -> ResolvedClaim:
            shape = self._reals_shape(step.rhs)
            name = plain_name(subject)
            fam, head = None, None
            if isinstance(subject, ast.HeadSup):
                fam, head = plain_name(subject.operand), _head_symbol(subject.head)
            vector = self._vector_of(subject)
            if vector is not None and (
                self._document_matrix(vector[0].upper()) or _fits_row(vector[1], shape)
            ):
                return self._vector_declaration(span, subject, vector, shape, start, end)
            if name is not None and (name in self.lookup_all() or _looks_like_matrix(name)):
                return self._declare(span, name, False, shape, subject, start, end)
            if fam is not None and head is not None:
                return self._declare(span, fam, True, shape, subject, start, end)
            if name is not None and name not in self.dims and len(shape) == 2:
                return self._declare(span, name, False, shape, subject, start, end)
            value = self.terms.term(subject)
            return self._shape_claim(span, value, shape, subject, start, end)

        return self._guard(span, start, end, run)

    def _vector_of(self, node: ast.Node) -> tuple[str, MatExpr] | None:
        """`q_i` (also bold) when Q is a matrix in force: its letter and row i of Q."""
        if not (
            isinstance(node, ast.Symbol)
            and node.sub is not None
            and node.font in KEEP_FONTS
            and len(node.name) == 1
            and node.name.islower()
        ):
            return None
        entry = self.lookup(node.name.upper())
        if entry is None or self.lookup(plain_name(node) or "") is not None:
            return None
        try:
            idx = self.terms.indices(node.sub)
        except Problem:
            return None
        if len(idx) != 1:
            return None
        m = self.terms.named(node.name.upper(), None, entry)
        return node.name, Row(m, idx[0])

    def _vector_declaration(
        self,
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
        want = self._bind_shape(shape)
        as_row = self._bind_shape(row.shape)
        as_col = (as_row[1], as_row[0])
        layer = self.layers[1] if self._top().kind != "example" else self._top()
        if _same_shape(want, as_row) and not _same_shape(want, as_col):
            layer.orient[letter] = "row"
            msg = f"{label} is a row vector, {shape_str(as_row)}"
            return new_claim(span, start, end, "proved", msg)
        if _same_shape(want, as_col) and not _same_shape(want, as_row):
            layer.orient[letter] = "column"
            msg = (
                f"{label} is written as a column, {shape_str(as_col)}: "
                f"the document's convention for {letter} from here on"
            )
            return new_claim(span, start, end, "declared", msg)
        if _same_shape(want, as_row):
            return new_claim(span, start, end, "proved", f"{label} is {shape_str(as_row)}")
        raise Problem(
            "shape_error",
            f"{plain(row)} is row {plain(row.args[1])} of {plain(row.args[0])} "
            f"({shape_str(row.args[0].shape)}), with {as_row[1]} entries: not {shape_str(want)}",
            subject,
        )

    def _document_matrix(self, name: str) -> bool:
        """Declared or defined by the document, not only one of the chapter's conventions (a
        document that says `\\mathbf k_i\\in\\mathbb R^d` without a K of its own means a vector
        of its own, not a row of the conventional n × d_k K)."""
        entry = self.lookup(name)
        return entry is not None and entry.origin != "convention"

    def orientation(self, letter: str) -> str:
        """`row` (the chapter's convention) or `column` (declared `k_j\\in\\mathbb R^{d_k}`)."""
        for layer in reversed(self.layers):
            if letter in layer.orient:
                return layer.orient[letter]
        return "row"

    def lookup_all(self) -> set[str]:
        out: set[str] = set()
        for layer in self.layers:
            out |= set(layer.names)
        return out

    def _reals_shape(self, node: ast.Node) -> Shape:
        if not isinstance(node, ast.Reals):
            raise not_understood(
                "the right side of \\in must be \\mathbb R^{rows \\times cols}", node
            )
        if len(node.shape) == 1:
            return (self.terms.dim_term(node.shape[0]), sympy.Integer(1))
        if not node.shape:
            raise not_understood("\\mathbb R alone (a scalar) is not checked", node)
        if len(node.shape) != 2:
            raise not_understood(
                f"only matrices and vectors are checked, not order-{len(node.shape)} arrays", node
            )
        return (self.terms.dim_term(node.shape[0]), self.terms.dim_term(node.shape[1]))

    def _declare(
        self,
        span: MathSpan,
        name: str,
        family: bool,
        shape: Shape,
        subject: ast.Node,
        start: int,
        end: int,
    ) -> ResolvedClaim:
        label = f"{name}^(h)" if family else name
        current = self.lookup(name, family)
        numeric = [x for x in shape if x.is_number and x != 1]
        if current is not None and numeric:
            self._example_bindings(current.shape, shape, label, subject)
        elif not numeric and any(x in self.bindings for x in _free_dims(shape)):
            self._close_example()
            current = self.lookup(name, family)
        if current is not None and current.definition is not None:
            value = self.bind(current.definition)
            assert isinstance(value, MatExpr)
            got = self._bind_shape(value.shape)
            if _same_shape(got, self._bind_shape(shape)):
                msg = f"{label} = {plain(value)} is {shape_str(got)}"
                return new_claim(span, start, end, "proved", msg)
            raise Problem(
                "shape_error",
                f"{label} = {plain(value)} (line {current.line}) is {shape_str(got)}, "
                f"not {shape_str(self._bind_shape(shape))}",
                subject,
            )
        label_here = _head_label(subject)
        if current is not None and current.origin == "declared" and not numeric:
            relabelled = family and current.label != label_here
            if (
                current.section == self.section
                and not relabelled
                and not _same_shape(current.shape, shape)
            ):
                raise Problem(
                    "shape_error",
                    f"{label} was declared {shape_str(current.shape)} at line {current.line}, "
                    f"here {shape_str(shape)}",
                    subject,
                )
        if current is not None and numeric:
            got = self._bind_shape(current.shape)
            if not _same_shape(got, shape):
                raise Problem(
                    "shape_error",
                    f"{label} is {shape_str(got)} in this worked example, not {shape_str(shape)}",
                    subject,
                )
            return new_claim(
                span, start, end, "declared", f"worked example: {label} is {shape_str(got)}"
            )
        entry = _Name(shape, "declared", self.section, self.line, family, _H if family else None)
        entry.label = label_here
        table = self._top().families if family else self._top().names
        table[name] = entry
        return new_claim(span, start, end, "declared", f"declares {label} as {shape_str(shape)}")

    def _example_bindings(self, have: Shape, want: Shape, label: str, node: ast.Node) -> None:
        """A declaration with explicit sizes binds the general dims it replaces (`n = 5`)."""
        new: dict[sympy.Symbol, sympy.Integer] = {}
        bound = self.bindings
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
            top = self._top()
            if top.kind != "example":
                top = _Layer("example", line=self.line)
                self.layers.append(top)
            top.bindings.update(new)

    def _shape_claim(
        self, span: MathSpan, value: sympy.Basic, shape: Shape, node: ast.Node, start: int, end: int
    ) -> ResolvedClaim:
        if not isinstance(value, MatExpr):
            if shape == (sympy.Integer(1), sympy.Integer(1)) or not shape:
                return new_claim(span, start, end, "proved", f"{plain(value)} is a scalar")
            raise Problem(
                "shape_error", f"{plain(value)} is a scalar, not {shape_str(shape)}", node
            )
        got = self._bind_shape(value.shape)
        want = self._bind_shape(shape)
        if _same_shape(got, want):
            return new_claim(span, start, end, "proved", f"{plain(value)} is {shape_str(got)}")
        clash = [
            f"{what} {a} vs {b}"
            for what, a, b in zip(("rows", "cols"), got, want, strict=True)
            if not dims_equal(a, b)
        ]
        raise Problem(
            "shape_error",
            f"{plain(value)} is {shape_str(got)}, not {shape_str(want)} "
            f"({'; '.join(clash)}: not provably equal)",
            node,
        )

    def _bind_shape(self, shape: Shape) -> Shape:
        return (self.bind(shape[0]), self.bind(shape[1]))

    # ---- stacked rows: Z = [z_1; ...; z_5] -------------------------------------------------

    def _stack_claim(
        self, span: MathSpan, left: ast.Node, m: ast.Matrix, start: int, end: int
    ) -> ResolvedClaim:
        if any(len(row) != 1 for row in m.rows):
            return self._entries_claim(span, left, m, start, end)
        lhs = self.terms.term(left)
        if not isinstance(lhs, MatExpr):
            raise not_understood("a matrix written out is compared only with a matrix", left)
        rows = []
        for row in m.rows:
            if len(row) != 1:
                raise not_understood("matrices written entry by entry are not checked", m)
            cell = self.terms.term(row[0])
            if not isinstance(cell, MatExpr) or not dims_equal(cell.rows, 1):
                raise not_understood("each row of the matrix must be a row vector", row[0])
            rows.append(cell)
        if not dims_equal(lhs.rows, len(rows)):
            raise Problem(
                "shape_error",
                f"{plain(lhs)} has {lhs.rows} rows but the matrix shows {len(rows)}",
                m,
            )
        pairs = []
        for k, cell in enumerate(rows, start=1):
            if not dims_equal(cell.cols, lhs.cols):
                raise Problem(
                    "shape_error",
                    f"row {k} has {cell.cols} columns but {plain(lhs)} has {lhs.cols}",
                    m.rows[k - 1][0],
                )
            pairs.append((lhs.row(k), cell))
        return self._pending(span, start, end, tuple(pairs))

    def _entries_claim(
        self, span: MathSpan, left: ast.Node, m: ast.Matrix, start: int, end: int
    ) -> ResolvedClaim:
        r"""`M = [cells]` written entry by entry (a `bmatrix`, or an `array` table whose labels
        are prose): each cell is a claim about an entry, `(QK^T)_{11} = q_1\cdot k_1`; a name
        not defined in this section with only numbers in its cells is a definition by its
        entries, kept for the claims of the worked example (`A` = the table of weights)."""
        width = len(m.rows[0])
        if any(len(row) != width for row in m.rows):
            raise not_understood("the rows of the matrix have different lengths", m)
        cells = [[self.terms.term(c) for c in row] for row in m.rows]
        if any(isinstance(c, MatExpr) for row in cells for c in row):
            raise not_understood("a matrix of blocks is not checked", m)
        name = plain_name(left)
        current = self.lookup(name) if name is not None else None
        numeric = all(not c.free_symbols for row in cells for c in row)
        if name is not None and _looks_like_matrix(name) and numeric:
            if current is None or not (current.definition is not None and self._local(current)):
                return self._define_literal(span, name, current, cells, left, start, end)
        lhs = self.terms.term(left)
        if not isinstance(lhs, MatExpr):
            raise not_understood("a matrix written out is compared only with a matrix", left)
        got = (len(cells), width)
        if not (dims_equal(lhs.rows, got[0]) and dims_equal(lhs.cols, got[1])):
            raise Problem(
                "shape_error",
                f"{plain(lhs)} is {shape_str(lhs.shape)} but the matrix shows {shape_str(got)}",
                m,
            )
        pairs = tuple(
            (Entry(lhs, r, c), cells[r - 1][c - 1])
            for r in range(1, got[0] + 1)
            for c in range(1, got[1] + 1)
        )
        return self._pending(span, start, end, pairs)

    def _define_literal(
        self,
        span: MathSpan,
        name: str,
        current: _Name | None,
        cells: list[list[sympy.Basic]],
        left: ast.Node,
        start: int,
        end: int,
    ) -> ResolvedClaim:
        shape = (sympy.Integer(len(cells)), sympy.Integer(len(cells[0])))
        if current is not None and not _same_shape(self._bind_shape(current.shape), shape):
            raise Problem(
                "shape_error",
                f"{name} is {shape_str(self._bind_shape(current.shape))} here, "
                f"but the matrix shows {shape_str(shape)}",
                left,
            )
        top = self._top()
        if top.kind != "example":
            top = _Layer("example", line=self.line)
            self.layers.append(top)
        top.literals[name] = sympy.Matrix(cells)
        if current is None:
            top.names[name] = _Name(shape, "declared", self.section, self.line)
        msg = f"worked example: {name} is the {shape_str(shape)} matrix written out"
        return new_claim(span, start, end, "declared", msg)


_TABLE = re.compile(r"\s*\\begin\{array\}.*\\end\{array\}\s*", re.DOTALL)
_CONTINUES = re.compile(
    r"\s*(&)?[ \t]*(?:\\q?quad[ \t]*)*(?==|\\(?:le|ge|leq|geq|neq|ne|in)\b|<|>)"
)


def _nodes(node: ast.Node) -> Iterator[ast.Node]:
    stack = [node]
    while stack:
        x = stack.pop()
        yield x
        stack.extend(ast.children(x))


def _moment(node: ast.Node) -> bool:
    r"""`\mathbb E[...]`, `\operatorname{Var}(...)`, `\operatorname{Cov}(...)` anywhere inside."""
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, ast.Symbol) and x.name == "E" and x.font == "mathbb":
            return True
        if isinstance(x, ast.Call) and x.name.lower() in ("var", "cov", "e"):
            return True
        stack.extend(ast.children(x))
    return False


def _malformed(message: str) -> bool:
    """Unbalanced braces or environments: TeX itself would stop there (parentheses, which TeX
    does not pair, are only unreadable)."""
    return message.startswith(("unbalanced '{'", "unbalanced '}'", "unbalanced \\"))


def _split_rows(body: str) -> list[tuple[int, int]]:
    """Offsets of the rows of an alignment: split at `\\\\` outside braces and environments."""
    rows, start, depth, k = [], 0, 0, 0
    while k < len(body):
        c = body[k]
        if c == "\\":
            if body.startswith("\\\\", k) and depth == 0:
                rows.append((start, k))
                start = k + 2
                k += 2
                continue
            if body.startswith("\\begin", k):
                depth += 1
            elif body.startswith("\\end", k):
                depth -= 1
            k += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        k += 1
    rows.append((start, len(body)))
    return [(a, b) for a, b in rows if body[a:b].strip()]


def _only(body: str, a: int, b: int) -> str:
    """The body with everything outside [a, b) blanked (newlines kept, so offsets hold)."""
    return "".join(c if a <= k < b or c == "\n" else " " for k, c in enumerate(body))


def _fits_row(row: MatExpr, shape: Shape) -> bool:
    """The shape of the row, or of the row written as a column."""
    r, c = row.shape
    return _same_shape(shape, (r, c)) or _same_shape(shape, (c, r))


def _rename_head(e: MatExpr, head: sympy.Symbol | None) -> MatExpr:
    """A family's definition is kept with the head letter `h`, the letter Concat uses."""
    if head is None or head == _H:
        return e
    return e.xreplace({head: _H})


_H = index("h")


def _looks_like_matrix(name: str) -> bool:
    return name[:1].isupper() and name not in ("H",) and (len(name) == 1 or name[1] == "_")


def _head_symbol(node: ast.Node) -> sympy.Symbol | None:
    if isinstance(node, ast.Symbol) and node.sub is None and len(node.name) == 1:
        return index(node.name)
    return None


def _head_label(node: ast.Node) -> str:
    return ast.dump(node.head) if isinstance(node, ast.HeadSup) else ""


def _same_shape(a: Shape, b: Shape) -> bool:
    return dims_equal(a[0], b[0]) and dims_equal(a[1], b[1])


def _free_dims(shape: Shape) -> set[sympy.Symbol]:
    out: set[sympy.Symbol] = set()
    for x in shape:
        out |= {s for s in x.free_symbols if isinstance(s, sympy.Symbol)}
    return out


def _first_line(text: str) -> str:
    return text.splitlines()[0] if text else text


def _claims_of(items: Iterable[ast.Item]) -> Iterator[ast.Claim]:
    for item in items:
        if isinstance(item, ast.Claim):
            yield item
        elif isinstance(item, ast.Boxed):
            yield from _claims_of(item.items)


def _count_nodes(node: ast.Node) -> int:
    count, stack = 0, [node]
    while stack:
        x = stack.pop()
        count += 1
        stack.extend(ast.children(x))
    return count


def resolve_document(text: str, filename: str = "<string>") -> list[ResolvedClaim | object]:
    """Scan, parse and resolve a whole document; scan problems come back as they are.

    >>> out = resolve_document("$Q=XW_Q$, $A$", "x.md")
    >>> [c.status for c in out]
    ['proved', 'prose']
    """

    resolver = Resolver(section_lines(text))
    out: list[ResolvedClaim | object] = []
    for item in scan(text, filename):
        if isinstance(item, MathSpan):
            out.extend(resolver.resolve_span(item))
        else:
            out.append(item)
    return attach_conditions(out, text)
