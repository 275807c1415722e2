"""Claim dispatch: a formula's claims, an aligned display's rows, a claim read again, each kind.
Imports the kernel and the reader's terms; must not import the resolver or the checker.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import re
from collections.abc import Callable, Iterable, Iterator
from typing import cast

import sympy

from symattn.kernel.dims import assume, dims_equal
from symattn.kernel.errors import ParseError, SymattnError
from symattn.reader.claims.case_functions import define_case
from symattn.reader.claims.conditions import ORDER, attach_within
from symattn.reader.claims.context import mentions_letter
from symattn.reader.claims.conventional import arguments, rebound, unconfirmed
from symattn.reader.claims.definitions import sequence_definition
from symattn.reader.claims.entry_guesses import with_entry_guesses
from symattn.reader.claims.index_claims import condition, index_equation
from symattn.reader.claims.number_names import name_the_unknown
from symattn.reader.claims.number_rows import numbered_rows, row_products
from symattn.reader.claims.online_claims import online_equation
from symattn.reader.claims.precedence import both_readings, other_reading, prefers_second
from symattn.reader.claims.premises import with_premises
from symattn.reader.claims.relations import _convention_message
from symattn.reader.claims.resolved import ResolvedClaim, Shape, new_claim
from symattn.reader.claims.resolver_base import ResolverBase
from symattn.reader.claims.section_numbers import enter_section_numbers
from symattn.reader.claims.size_claims import relations_only, size_chain
from symattn.reader.claims.starred import conjugate_refusal
from symattn.reader.claims.stated_values import with_stated_values
from symattn.reader.claims.trailing_units import with_unit
from symattn.reader.claims.units import with_units
from symattn.reader.claims.unread_rows import equal_row, over_unread
from symattn.reader.claims.value_orders import order_links
from symattn.reader.claims.zero_counts import mixed_counts
from symattn.reader.syntax import ast
from symattn.reader.syntax.brackets import bracket_indices, ranges_from_zero
from symattn.reader.syntax.notes import blank_notes
from symattn.reader.syntax.parse import parse_formula
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.arrays import ARRAY_GUESS
from symattn.reader.terms.components import defined_component
from symattn.reader.terms.inference import parsed
from symattn.reader.terms.translator import plain_name

_MAX_NODES = 3000


#: The translator's message for a number divided by a matrix, and the matrix's name.
_SCALAR_BY_MATRIX = re.compile(r"cannot divide the scalar .+ by the matrix (\S+)\Z")


_TABLE = re.compile(r"\s*\\begin\{array\}.*\\end\{array\}\s*", re.DOTALL)


_CONTINUES = re.compile(
    r"\s*(&)?[ \t]*(?:\\q?quad[ \t]*)*(?==|\\(?:le|ge|leq|geq|neq|ne|in)\b|<|>)"
)


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


def _claims_of(items: Iterable[ast.Item]) -> Iterator[ast.Claim]:
    for item in items:
        if isinstance(item, ast.Claim):
            yield item
        elif isinstance(item, ast.Boxed):
            yield from _claims_of(item.items)


def _lists(item: ast.Claim, after: ast.Claim | None) -> bool:
    """`S = \\mathbf s_1, \\ldots, \\mathbf s_n`: the right side is the first member of a
    list that goes on after the comma, not a value of its own (`i = 1, \\ldots, n` is a range
    of an index, read elsewhere)."""
    if after is None or not item.steps or not after.subjects:
        return False
    last = item.steps[-1]
    return (
        last.rel == "="
        and isinstance(last.rhs, ast.Symbol)
        and last.rhs.sub is not None
        and isinstance(after.subjects[0], ast.Dots)
    )


def _list_claim(span: MathSpan, item: ast.Claim) -> ResolvedClaim:
    last = item.steps[-1].rhs
    msg = f"a list ({span.body[last.start : last.end]}, …): a sequence, not a claim"
    return new_claim(span, item.start, item.end, "prose", msg)


def _count_nodes(node: ast.Node) -> int:
    count, stack = 0, [node]
    while stack:
        x = stack.pop()
        count += 1
        stack.extend(ast.children(x))
    return count


def _array_kind(shape: tuple[sympy.Expr, sympy.Expr]) -> str:
    return "vector" if any(dims_equal(x, 1) for x in shape) else "matrix"


class DispatchMixin(ResolverBase):
    """A formula's claims: rows, a claim read again, the reader for each kind of claim."""

    def resolve_span(self, span: MathSpan) -> list[ResolvedClaim]:
        """Every claim of one span, in order; never raises for what the span says."""

        self.scope.enter(span.start.line)
        self.inference.enter(self.scope, span)
        enter_section_numbers(self.scope, self.inference, span)
        unit = self.units_after.get(span.start.offset, "")
        span = dataclasses.replace(span, body=blank_notes(span.body))
        try:
            formula = self._bracketed(parsed(span.body, span.env), span.body)
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
        items = list(_claims_of(formula.items))
        for k, item in enumerate(items):
            if _lists(item, items[k + 1] if k + 1 < len(items) else None):
                out.append(_list_claim(span, item))
                continue
            with assume(**self.scope.assumptions):
                claims = self._resolve_claim(span, item, display=span.display)
            claims = [name_the_unknown(self.scope, x, item) for x in claims]
            claims = [with_stated_values(x, self.stated) for x in claims]
            out.extend(self._decorate(with_units(claims, with_unit(span.body, unit))))
        return attach_within(out)

    def _bracketed(self, formula: ast.Formula, body: str) -> ast.Formula:
        """`M[i,j]`, `x[t]` as entries where M and x are matrices or vectors the text declared,
        defined or showed by their use; a bracket after any other name stays a bracket."""
        self.bracket_guesses = {}
        if "[" not in body or self.scope.zero_brackets or ranges_from_zero(body):
            return formula
        read: list[str] = []
        out = cast(ast.Formula, bracket_indices(formula, self._known_array, read))
        for name in dict.fromkeys(read):
            # code writes `h[t]` for the t-th state of a recurrence too: an alarm that rests
            # on reading it as a component is undecided, naming the reading
            how = f"{name}[·] as a component of the vector {name}, not the ·-th of a family"
            self.bracket_guesses[ARRAY_GUESS + name] = (how, True)
        return out

    def _known_array(self, node: ast.Expr) -> str | None:
        """ "matrix" or "vector" for a name the text declared, defined or showed by its use
        (not the chapter's conventions alone), None for any other."""
        name = plain_name(node)
        if name is None:
            return None
        for layer in reversed(self.scope.layers):
            entry = layer.names.get(name)
            if entry is not None:
                if entry.origin == "convention":
                    return None
                return _array_kind(entry.shape)
        made = self.terms.defs.table.get(name)
        if made is not None and made.indices == 0 and made.params is None:
            if isinstance(made.value, tuple):
                return _array_kind(made.value)  # `v = Sx`: a vector the text defined
        return None

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
        skipped = False  # rows of equalities not read since `prev`
        for a, b in rows:
            text = _only(body, a, b)
            cont = _CONTINUES.match(body, a)
            if cont is not None and cont.end() > a and cont.group(1):
                at = cont.start(1)  # `&\\quad =` becomes `x      =`: a placeholder left side
                text = text[:at] + "x" + " " * (cont.end() - at - 1) + text[cont.end() :]
            try:
                formula = self._bracketed(parse_formula(text, span.env), text)
            except ParseError as err:
                msg = f"cannot read this row: {err.message}"
                out.append(new_claim(span, a, max(a + 1, b), "not_understood", msg))
                if not equal_row(body[a:b]):
                    prev = None
                skipped = prev is not None
                continue
            items = list(_claims_of(formula.items))
            for k, item in enumerate(items):
                if _lists(item, items[k + 1] if k + 1 < len(items) else None):
                    out.append(_list_claim(span, item))
                    continue
                with assume(**self.scope.assumptions):
                    if k == 0 and cont is not None and cont.group(1) and item.steps:
                        claims = self._continue(span, prev, item)
                        if skipped:  # `A &= B \\ &= (not read) \\ &= D`: B = D, by the rows
                            claims = [over_unread(c) for c in claims[:1]] + claims[1:]
                    else:
                        claims = self._resolve_claim(span, item, display=span.display)
                claims = [name_the_unknown(self.scope, x, item) for x in claims]
                claims = [with_stated_values(x, self.stated) for x in claims]
                out.extend(self._decorate(claims))
            last = items[-1] if items else None
            prev = last.steps[-1].rhs if last is not None and last.steps else None
            skipped = False
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
                side = cast(ast.Expr, left)
                link = ast.Claim((side,), (step,), start=left.start, end=step.end)
                out.extend(self._both_ways(link, span.body, self._linked(span)))
            left = step.rhs
        return out

    def _linked(self, span: MathSpan) -> Callable[[ast.Claim], list[ResolvedClaim]]:
        return lambda c: [self._link(span, c.subjects[0], c.steps[0], first=False)]

    def _resolve_claim(
        self, span: MathSpan, c: ast.Claim, display: bool = False
    ) -> list[ResolvedClaim]:
        """The claims of one formula (`_resolve_once`); a shape error that rests on the
        chapter's conventions where the text departs from them is read again (`unconfirmed`)."""
        return self._both_ways(c, span.body, lambda x: self._read_with_rules(span, x, display))

    def _both_ways(
        self, c: ast.Claim, body: str, read: Callable[[ast.Claim], list[ResolvedClaim]]
    ) -> list[ResolvedClaim]:
        """The claims `read` makes of a formula, read both ways where a slash's reach is open
        (`claims.precedence`): both readings first without a trace, then with its trace the
        one the formula means (the grammar's, unless only the other typechecks)."""
        reach = other_reading(c, body)
        if reach is None:
            return read(c)
        first = self._traceless(lambda: read(c))
        second = self._traceless(lambda: read(reach.claim)) if reach.sites == 1 else None
        if second is not None and prefers_second(first, second):
            return both_readings(first, read(reach.claim), reach)
        return both_readings(read(c), second, reach)

    def _read_with_rules(self, span: MathSpan, c: ast.Claim, display: bool) -> list[ResolvedClaim]:
        self.scope.conventional_reads.clear()
        self.scope.sum_readings.clear()
        self.scope.reads.clear()
        self.scope.read_both.clear()
        out = self._resolve_once(span, c, display)
        own = functools.partial(arguments, unread=frozenset(self.unread.lines))
        for rule in (unconfirmed, rebound, own, numbered_rows, row_products):
            if not any(x.status == "shape_error" for x in out):
                break
            out = rule(self.scope, out, lambda: self._again(span, c, display))
        return [with_premises(self.scope, x) for x in out]

    def _again(self, span: MathSpan, c: ast.Claim, display: bool) -> list[ResolvedClaim]:
        """The formula read again, leaving no trace: what it defines or opens is undone."""
        return self._traceless(lambda: self._resolve_once(span, c, display), marks=False)

    def _traceless(
        self, read: Callable[[], list[ResolvedClaim]], marks: bool = True
    ) -> list[ResolvedClaim]:
        """What `read` returns, with what it defines or opens undone (and, with `marks`, the
        names it read and the sizes it related or valued: a reading set aside)."""
        scope = self.scope
        reads = (set(scope.conventional_reads), set(scope.reads), set(scope.read_both))
        relations, values = set(scope.size_relations), dict(scope.number_values)
        history = {k: list(v) for k, v in scope.number_history.items()}
        layers = [
            dataclasses.replace(
                x,
                names=dict(x.names),
                families=dict(x.families),
                bindings=dict(x.bindings),
                relations=dict(x.relations),
                orient=dict(x.orient),
                literals=dict(x.literals),
                members=dict(x.members),
            )
            for x in scope.layers[1:]
        ]
        sequences, sections = dict(scope.sequences), dict(scope.relation_section)
        dims, pinnable, parameters = dict(scope.dims), set(scope.pinnable), dict(scope.parameters)
        table, cases = dict(self.terms.defs.table), copy.copy(self.cases)
        cases._seen = dict(cases._seen)
        try:
            return read()
        finally:
            if marks:
                scope.conventional_reads, scope.reads, scope.read_both = reads
                scope.size_relations.clear()
                scope.size_relations.update(relations)
                scope.number_values.clear()
                scope.number_values.update(values)
                scope.number_history = history
            scope.layers[1:] = layers
            for shared, old in ((scope.sequences, sequences), (scope.dims, dims)):
                shared.clear()  # tables others hold: restored in place
                shared.update(old)
            scope.relation_section = sections
            scope.pinnable, scope.parameters = pinnable, parameters
            self.terms.defs.table = table
            self.cases = cases

    def _resolve_once(
        self, span: MathSpan, c: ast.Claim, display: bool = False
    ) -> list[ResolvedClaim]:
        """The claims of one formula; a shape error that rests on a vector whose row or column
        the document never settled is `undecided (convention)`, not an error."""
        self.scope.consulted.clear()
        self.scope.reading = None
        letters = self.scope.conventions.unsettled_matrices
        if (
            letters
            and mentions_letter(c, letters)
            and not relations_only(self.scope.dims, [c], numbers=True)
            and not (c.steps and c.steps[0].rel == "in")
        ):
            # neither read nor kept: a definition made with `H` as a size could mislead later
            msg = (
                f"undecided (convention): {self.scope.conventions.matrices.source}, and this "
                "formula reads it; say which it is (--conventions matrices=H, or front matter)"
            )
            return [new_claim(span, c.start, c.end, "unknown", msg)]
        refused = conjugate_refusal(c, self.scope.complex_cue, self.scope.lookup)
        if refused is not None:
            return [new_claim(span, c.start, c.end, "not_understood", refused)]
        keys = self._online_keys(c)
        taken = self.scope.with_shapes(keys)
        self.terms.entry_guesses = dict(self.bracket_guesses)
        self.terms.zero_rows = set()
        try:
            out = self._claims(span, c, display)
        finally:
            self.scope.restore_shapes(taken)
        out = with_entry_guesses(out, self.terms.entry_guesses)
        out = mixed_counts(out, self.terms.zero_rows)
        out = [self._conventional_divisor(x) if x.status == "shape_error" else x for x in out]
        return [self._unsettled_error(x) if x.status == "shape_error" else x for x in out]

    def _conventional_divisor(self, claim: ResolvedClaim) -> ResolvedClaim:
        """`M = N/K` in a text that never declares K: no one divides a number by the chapter's
        key matrix, so the text means a K of its own (a number); undecided, not a shape error.
        A matrix over a matrix (`Q/V`) stays a shape error."""
        m = _SCALAR_BY_MATRIX.match(claim.message)
        entry = self.scope.lookup(m.group(1)) if m is not None else None
        if m is None or entry is None or entry.origin != "convention":
            return claim
        msg = (
            f"not decided: {claim.message} of the chapter's convention; the text never "
            f"declares {m.group(1)}, and a divisor is a number (declare it)"
        )
        return dataclasses.replace(claim, status="unknown", message=msg, pairs=())

    def _online_keys(self, c: ast.Claim) -> dict[str, Shape]:
        r"""`\operatorname{online}_{2,3}(S, V)` with S and V only the chapter's conventions
        (n × n scores, n × d_v values): the blocks say how many keys there are, so in this
        formula S is n × 5 and V is 5 × d_v (the only reading in which it means anything). A
        matrix the text declared or defined keeps its shape (and a mismatch is an error)."""
        out: dict[str, Shape] = {}
        stack: list[ast.Node] = [*c.subjects, *(step.rhs for step in c.steps)]
        while stack:
            node = stack.pop()
            stack.extend(ast.children(node))
            if not (
                isinstance(node, ast.Call)
                and node.name == "online"
                and node.sub is not None
                and len(node.args) == 2
            ):
                continue
            items = node.sub.items if isinstance(node.sub, ast.Seq) else (node.sub,)
            try:
                keys = sympy.Add(*(self.terms.dim_term(b) for b in items))
            except SymattnError:
                continue
            for arg, scores in zip(node.args, (True, False), strict=True):
                name = plain_name(arg) if isinstance(arg, ast.Symbol) else None
                entry = self.scope.lookup(name) if name else None
                if name is None or entry is None or entry.origin != "convention":
                    continue
                rows, cols = entry.shape
                want = (rows, keys) if scores else (keys, cols)
                if out.setdefault(name, want) != want:
                    out.pop(name)  # two block counts in one formula: read as written
        return out

    def _unsettled_error(self, claim: ResolvedClaim) -> ResolvedClaim:
        if not self.scope.consulted:
            return claim
        return dataclasses.replace(
            claim,
            status="unknown",
            message=_convention_message(self.scope, f"read with them as columns: {claim.message}"),
        )

    def _claims(self, span: MathSpan, c: ast.Claim, display: bool) -> list[ResolvedClaim]:
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
            # `V_1, \ldots, V_N \in \mathbb R^d`: the ellipsis stands for the members between
            last = len(c.subjects) - 1
            listed = [s for k, s in enumerate(c.subjects) if not _between_dots(s, k, last)]
            return [self._declaration(span, s, c.steps[0]) for s in listed]
        if all(step.rel in ORDER for step in c.steps):
            if open_case is not None:
                case = self.cases.condition(scope, terms, span, c, open_case)
                if case is not None:
                    return [case]
            cond = condition(scope, terms, span, c)
            if cond.status == "not_understood" and "read only between indices" in cond.message:
                return order_links(self, span, c, self._order_between_values(span, c, cond))
            return [cond]
        if all(step.rel == "=" for step in c.steps):
            online = online_equation(self, span, c)
            if online is not None:
                return online
            one, rhs = c.subjects[0], c.steps[0].rhs
            case = None
            if len(c.steps) == 1:
                case = define_case(terms, span, one, rhs, one.start, rhs.end)
            if case is not None:
                return [case]  # `PE_{(pos,2i)} = \sin(...)`: a case of the text's function
            self._letter_as_size(c)
            chain = size_chain(scope, span, c)
            if chain is not None:
                return chain
            about = index_equation(scope, terms, span, c)
            if about is not None:
                return [about]
            # `h_i = ...` after `h = Wx`: a claim about h's components, not new numbers
            made = defined_component(scope, terms.defs.table, c.subjects[0]) is not None
            seq = None if made else sequence_definition(scope, span, c)
            if seq is not None:
                return [seq]
        out = []
        left: ast.Node = c.subjects[0]
        for k, step in enumerate(c.steps):
            out.append(self._link(span, left, step, first=k == 0))
            left = step.rhs
        return out


def _between_dots(node: ast.Node, k: int, last: int) -> bool:
    """An ellipsis between two subjects of a declaration (`x_1, \\ldots, x_n \\in ...`)."""
    return isinstance(node, ast.Dots) and 0 < k < last
