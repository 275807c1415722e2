"""The resolver: reads a document's formulas in order and turns each into claims, dispatching on
what a claim is (a definition, a declaration, sizes, indices, a matrix written out, a relation).

Imports the kernel and the reader's other modules; never the checker, the CLI or the printers.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Iterator, Sequence

import sympy

from symattn.kernel.dims import assume, dims_equal, shape_str
from symattn.kernel.errors import ParseError, ShapeError, SymattnError
from symattn.kernel.expr import MatExpr
from symattn.kernel.text import plain
from symattn.reader import ast
from symattn.reader.cases import Cases
from symattn.reader.claims import ResolvedClaim, Shape, new_claim
from symattn.reader.conditions import ORDER, REL_TEXT, attach_conditions, attach_within
from symattn.reader.conventions import looks_like_matrix
from symattn.reader.definitions import define, head_symbol, row_definition, sequence_definition
from symattn.reader.index_claims import condition, index_equation
from symattn.reader.introductions import (
    definition_form,
    index_letters,
    introduce,
    listed,
    mentions,
    parameters,
)
from symattn.reader.notes import blank_notes
from symattn.reader.parse import parse_formula
from symattn.reader.scanner import MathSpan, scan
from symattn.reader.scope import Name, Scope
from symattn.reader.shape_claims import declaration
from symattn.reader.size_claims import assume_relation, bind_dims, size_chain, sizes_only
from symattn.reader.terms import (
    UNREAD,
    Problem,
    Terms,
    as_comparable,
    not_understood,
    orientation,
    plain_name,
)
from symattn.reader.undeclared import read_around, undeclared
from symattn.reader.written_matrices import pending, stack_claim

__all__ = ["ResolvedClaim", "Resolver", "attach_conditions", "resolve_document", "section_lines"]

_MAX_NODES = 3000
_HEADING = re.compile(
    r"^(#{1,6}\s|\d+(\.\d+)+\s+\S|\\(part|chapter|section|subsection|subsubsection)\*?\{)"
)


def section_lines(text: str) -> list[int]:
    """Line numbers (1-based) of headings: Markdown `#`, LaTeX `\\section{`, numbered `6.2 Title`.

    >>> section_lines("# A\\ntext\\n6.2 Heads\\n\\\\section{B}")
    [1, 3, 4]
    """
    return [k for k, line in enumerate(text.splitlines(), start=1) if _HEADING.match(line)]


class Resolver:
    """Reads formulas in file order, keeping the symbol table: conventions, document, examples.

    The table is `scope` (a `reader.scope.Scope`); the resolver answers what a `Terms` asks of
    a scope (`dims`, `lookup`, `bind`, ...), so `symattn shapes` can hand it the resolver.

    >>> from symattn.reader import scan
    >>> spans = scan("$Q=XW_Q$ and $(QK^T)_{ij}=q_i\\\\cdot k_j$", kind="md")
    >>> r = Resolver()
    >>> [c.status for s in spans for c in r.resolve_span(s)]
    ['proved', 'pending']
    """

    def __init__(
        self, sections: Sequence[int] = (), assume: dict[str, sympy.Expr] | None = None
    ) -> None:
        self.scope = Scope(sections, assume)
        self.cases = Cases()
        self.terms = Terms(self.scope)
        # the scope's own tables (never rebound): what a `Terms` given the resolver reads
        self.dims: dict[str, sympy.Symbol] = self.scope.dims
        self.sequences: dict[str, sympy.Expr] = self.scope.sequences

    # ---- the scope, for callers that hold only the resolver ---------------------------------

    def declare(self, name: str, shape: Shape) -> None:
        """Declare a matrix `Q` (or a head family `Z^(h)`) and its shape before any formula.

        >>> from symattn.kernel.dims import d, n
        >>> r = Resolver(); r.declare("B", (n, d)); r.lookup("B").shape
        (n, d)
        """
        self.scope.declare(name, shape)

    def lookup(self, name: str, family: bool = False) -> Name | None:
        return self.scope.lookup(name, family)

    def bind(self, e: sympy.Basic) -> sympy.Basic:
        return self.scope.bind(e)

    def orientation(self, letter: str) -> str:
        return self.scope.orientation(letter)

    def known_names(self) -> list[str]:
        return self.scope.known_names()

    # ---- spans and claims ------------------------------------------------------------------

    def resolve_span(self, span: MathSpan) -> list[ResolvedClaim]:
        """Every claim of one span, in order; never raises for what the span says."""

        self.scope.enter(span.start.line)
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
            with assume(**self.scope.assumptions):
                claims = self._resolve_claim(span, item, display=span.display)
            out.extend(self._decorate(claims))
        return attach_within(out)

    def _decorate(self, claims: list[ResolvedClaim]) -> list[ResolvedClaim]:
        """The sizes in force, on each claim: relations as assumptions, a worked example's values
        as its context."""
        out = []
        for claim in claims:
            if self.scope.assumptions:
                claim = dataclasses.replace(claim, assumptions=dict(self.scope.assumptions))
            b = self.scope.bindings
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
                with assume(**self.scope.assumptions):
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
        scope, terms = self.scope, self.terms
        open_case = self.cases.take_open()
        if not c.steps:
            if display:
                bad = self._ill_typed(span, c)
                if bad is not None:
                    return [bad]
            return [new_claim(span, c.start, c.end, "prose", "a mention, not a claim")]
        if len(c.subjects) > 1 and _index_ranges(c):
            msg = "index ranges (i = 1, \\ldots, m, j = 1, \\ldots, n), not a claim"
            return [new_claim(span, c.start, c.end, "prose", msg)]
        if len(c.subjects) > 1 and (len(c.steps) > 1 or c.steps[0].rel != "in"):
            msg = "several subjects are allowed only in a shape declaration (Q,K \\in ...)"
            return [new_claim(span, c.start, c.end, "not_understood", msg)]
        if c.steps[0].rel == "in":
            return [self._declaration(span, s, c.steps[0]) for s in c.subjects]
        if all(step.rel in ORDER for step in c.steps):
            if open_case is not None:
                case = self.cases.condition(scope, terms, span, c, open_case)
                if case is not None:
                    return [case]
            cond = condition(scope, terms, span, c)
            if cond.status == "not_understood" and "read only between indices" in cond.message:
                return [self._order_between_values(span, c, cond)]
            return [cond]
        if all(step.rel == "=" for step in c.steps):
            chain = size_chain(scope, span, c)
            if chain is not None:
                return chain
            about = index_equation(scope, terms, span, c)
            if about is not None:
                return [about]
            seq = sequence_definition(scope, span, c)
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

    def _guard(
        self, span: MathSpan, start: int, end: int, run: Callable[[], ResolvedClaim]
    ) -> ResolvedClaim:
        """`run()`, with what it raises turned into the claim's status and message."""
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

    def _declaration(self, span: MathSpan, subject: ast.Node, step: ast.Step) -> ResolvedClaim:
        start, end = subject.start, step.rhs.end
        return self._guard(
            span,
            start,
            end,
            lambda: declaration(self.scope, self.terms, span, subject, step),
        )

    def _link(self, span: MathSpan, left: ast.Node, step: ast.Step, first: bool) -> ResolvedClaim:
        start, end = left.start, step.rhs.end
        if step.rel == "in":
            return self._declaration(span, left, step)
        if step.rel == "neq":
            return self._not_equal(span, left, step, start, end)
        if step.rel != "=":
            return self._guard(span, start, end, lambda: self._other_relation(span, left, step))

        if _moment(left) or _moment(step.rhs):
            msg = (
                "a moment of random variables (\\mathbb E, Var): the kernel has no "
                "probability, so this is not decided"
            )
            return new_claim(span, start, end, "unknown", msg)

        scope, terms = self.scope, self.terms

        def run() -> ResolvedClaim:
            if isinstance(step.rhs, ast.Matrix) and step.rhs.env != "cases":
                try:
                    stacked = stack_claim(scope, terms, span, left, step.rhs, start, end)
                    if stacked.status != "not_understood" or not _has_undeclared(
                        terms, left, step.rhs
                    ):
                        return stacked
                    return _undeclared_claim(terms, span, left, step.rhs, start, end)
                except UNREAD as u:
                    if not undeclared(u):
                        raise
                    return _undeclared_claim(terms, span, left, step.rhs, start, end)
                except Problem as p:
                    # `[\\cos\\theta\\ \\ldots][p_i; \\ldots] = [\\ldots]`: not `M = [rows]`; read
                    # around the names the text does not declare, if it has any
                    if p.status != "not_understood":
                        raise
                    names = read_around(terms, left) + read_around(terms, step.rhs)
                    if not names:
                        raise
                    return _undeclared_claim(terms, span, left, step.rhs, start, end)
            if first:
                special = self._special_equation(span, left, step.rhs, start, end)
                if special is not None:
                    return special
            terms.defs.used.clear()
            # `p_{i,2j} = \sin(i/10000^{2j/d})`: the left side's index letters are integers
            terms.bound = index_letters(left) - set(scope.dims)
            try:
                lhs, rhs = terms.term(left), terms.term(step.rhs)
            except UNREAD as u:
                if not undeclared(u):
                    raise
                return _undeclared_claim(terms, span, left, step.rhs, start, end)
            except Problem as p:
                if p.status == "shape_error" and terms.defs.used:
                    if _about_parameters(left, step.rhs):
                        return _parameters_claim(span, left, p.message, start, end)
                    raise not_understood(_opaque_shape(terms, p.message), p.node) from None
                raise
            finally:
                terms.bound = frozenset()
            if terms.defs.used:
                return _opaque_claim(terms, span, lhs, rhs, start, end)
            if sizes_only(scope.dims, lhs) and sizes_only(scope.dims, rhs):
                return assume_relation(scope, span, lhs, rhs, start, end)
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
            return pending(scope, span, start, end, ((lhs, rhs),))

        return self._guard(span, start, end, run)

    def _other_relation(self, span: MathSpan, left: ast.Node, step: ast.Step) -> ResolvedClaim:
        """`x \\mapsto h(x)`, `\\ell \\sim \\sqrt n`, `a \\approx b`: both sides are read (a shape
        error or an unreadable part is reported as usual); the relation itself is not decided."""
        start, end = left.start, step.rhs.end
        names = read_around(self.terms, left) + read_around(self.terms, step.rhs)
        rel = REL_TEXT.get(step.rel, step.rel)
        msg = f"relation '{rel}' is not decided (only =, \\ne and \\in are)"
        if names:
            msg += f"; {', '.join(dict.fromkeys(names))} not declared by the text"
        return new_claim(span, start, end, "unknown", msg)

    def _order_between_values(
        self, span: MathSpan, c: ast.Claim, refused: ResolvedClaim
    ) -> ResolvedClaim:
        """`\\alpha(\\mathbf q,\\mathbf k_i)\\ge 0`, `\\gamma_t \\ge 1`: an order between values,
        which the kernel does not decide: every side is read (errors reported as usual) and the
        claim is undecided. A side that cannot be read keeps the refusal."""

        def run() -> ResolvedClaim:
            names = read_around(self.terms, c.subjects[0])
            for step in c.steps:
                names += read_around(self.terms, step.rhs)
            msg = f"an order between values is not decided ({refused.message.split(' is ')[0]})"
            if names:
                msg += f"; {', '.join(dict.fromkeys(names))} not declared by the text"
            return new_claim(span, c.start, c.end, "unknown", msg)

        out = self._guard(span, c.start, c.end, run)
        return refused if out.status == "not_understood" else out

    def _not_equal(
        self, span: MathSpan, left: ast.Node, step: ast.Step, start: int, end: int
    ) -> ResolvedClaim:
        """`a \\ne b`: the kernel decides `a = b`; a counterexample verifies the claim, a proof
        that they are equal makes it false, anything else leaves it undecided."""

        def run() -> ResolvedClaim:
            lhs, rhs = as_comparable(self.terms.term(left), self.terms.term(step.rhs))
            if isinstance(lhs, MatExpr) != isinstance(rhs, MatExpr):
                raise not_understood("\\ne between a matrix and a scalar", step)
            claim = pending(self.scope, span, start, end, ((lhs, rhs),))
            return dataclasses.replace(claim, negated=True)

        return self._guard(span, start, end, run)

    def _special_equation(
        self, span: MathSpan, left: ast.Node, right: ast.Node, start: int, end: int
    ) -> ResolvedClaim | None:
        """`n = 5` binds a size in a worked example; `M_{ij} = 0` is a case of a definition;
        `Q = XW_Q`, `Z^{(h)} = ...`, `z_i = (AV)_{i,:}` define names."""
        scope, terms = self.scope, self.terms
        name = plain_name(left)
        if name is not None and name in scope.dims:
            if isinstance(right, ast.Number) and right.text.isdigit() and int(right.text) > 0:
                return bind_dims(
                    scope, {scope.dims[name]: sympy.Integer(int(right.text))}, span, left
                )
        case = self.cases.begin(scope, span, left, right, start, end)
        if case is not None:
            return case
        if isinstance(right, ast.Set) or listed(right):
            named = introduce(terms, span, left, right, start, end)  # `S_i = \\{j : j\\le i\\}`
            if named is not None:
                return named
        if name is not None and looks_like_matrix(name):
            return define(scope, terms, span, name, None, right, start, end)
        row_of = row_definition(scope, left, right)
        if row_of is not None:
            assert isinstance(right, ast.IndexedGroup)
            return define(scope, terms, span, row_of, None, right.group, start, end)
        if isinstance(left, ast.HeadSup):
            fam = plain_name(left.operand)
            head = head_symbol(left.head)
            if fam is not None and head is not None and looks_like_matrix(fam):
                return define(scope, terms, span, fam, head, right, start, end)
        return introduce(terms, span, left, right, start, end)


_TABLE = re.compile(r"\s*\\begin\{array\}.*\\end\{array\}\s*", re.DOTALL)
_CONTINUES = re.compile(
    r"\s*(&)?[ \t]*(?:\\q?quad[ \t]*)*(?==|\\(?:le|ge|leq|geq|neq|ne|in)\b|<|>)"
)


def _has_undeclared(terms: Terms, left: ast.Node, right: ast.Node) -> bool:
    """Whether reading around undeclared names finds any (False when a part is unreadable)."""
    try:
        return bool(read_around(terms, left) + read_around(terms, right))
    except (SymattnError, RecursionError):
        return False


def _index_ranges(c: ast.Claim) -> bool:
    """`\\ldots, m, j = 1` of `i = 1, \\ldots, m, j = 1, \\ldots, n`: letters, numbers and
    dots set equal to a number: the ranges of indices, which claim nothing."""
    atoms = ast.Dots | ast.Number
    return (
        any(isinstance(x, ast.Dots) for x in c.subjects)
        and all(
            isinstance(x, atoms) or (isinstance(x, ast.Symbol) and x.sub is None)
            for x in c.subjects
        )
        and all(step.rel == "=" and isinstance(step.rhs, ast.Number) for step in c.steps)
    )


def _undeclared_claim(
    terms: Terms, span: MathSpan, left: ast.Node, right: ast.Node, start: int, end: int
) -> ResolvedClaim:
    """A claim about names the text never declares: every other part is read (its errors are
    reported as usual), and the claim is undecided, never verified or false."""
    names = read_around(terms, left)
    try:
        names += read_around(terms, right)
    except Problem as p:
        if p.status != "shape_error" or not _about_parameters(left, right):
            raise
        return _parameters_claim(span, left, p.message, start, end)
    shown = ", ".join(dict.fromkeys(names))
    msg = f"not decided: {shown} {'is' if len(set(names)) == 1 else 'are'} not declared by the text"
    return new_claim(span, start, end, "unknown", msg + " (names of unknown shape and value)")


def _about_parameters(left: ast.Node, right: ast.Node) -> bool:
    return definition_form(left) and mentions(right, parameters(left))


def _parameters_claim(
    span: MathSpan, left: ast.Node, problem: str, start: int, end: int
) -> ResolvedClaim:
    """`a(\\mathbf q,\\mathbf k) = \\mathbf q^\\top\\mathbf k/\\sqrt d` restated: q and k are the
    function's parameters here, not the vectors the text declared elsewhere, so a shape
    conflict that involves them is no error of the text; the claim is undecided."""
    msg = f"not decided: {problem}, but the parameters of {span.body[left.start : left.end]}"
    return new_claim(span, start, end, "unknown", msg + " need not have those shapes")


def _opaque_shape(terms: Terms, message: str) -> str:
    used = ", ".join(dict.fromkeys(terms.defs.used))
    return f"{message} (with {used}, whose shape comes from its definition: not decided)"


def _opaque_claim(
    terms: Terms, span: MathSpan, lhs: sympy.Basic, rhs: sympy.Basic, start: int, end: int
) -> ResolvedClaim:
    """A claim about names the document defined (`e_{ij}`, `a(q, k)`): their values are never
    used, so the claim is undecided once both sides have the same shape; a scalar against a
    matrix is not read (the shape a definition gave may depend on its arguments)."""
    used = ", ".join(dict.fromkeys(terms.defs.used))
    lhs, rhs = as_comparable(lhs, rhs)
    if isinstance(lhs, MatExpr) != isinstance(rhs, MatExpr):
        raise not_understood(f"a scalar against a matrix, with {used} defined by the text", None)
    if isinstance(lhs, MatExpr) and isinstance(rhs, MatExpr):
        if not (dims_equal(lhs.rows, rhs.rows) and dims_equal(lhs.cols, rhs.cols)):
            msg = f"shapes {shape_str(lhs.shape)} and {shape_str(rhs.shape)} differ, with {used}"
            raise not_understood(msg + " defined by the text", None)
    msg = f"shapes agree; not decided: {used} defined by the text (its value is not used)"
    return new_claim(span, start, end, "unknown", msg)


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
