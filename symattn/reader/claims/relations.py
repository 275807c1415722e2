"""Definitions and relations: declarations, names defined, equations both ways, orders, `\\neq`.
Imports the kernel and the reader's terms; must not import the resolver or the checker.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import sympy

from symattn.kernel.dims import dim, shape_str
from symattn.kernel.errors import ShapeError, SymattnError
from symattn.kernel.expr import MatExpr
from symattn.kernel.text import plain
from symattn.reader.claims.approximate import approx_claim, written_number
from symattn.reader.claims.assignments import assignment
from symattn.reader.claims.big_o import big_o_claim, has_big_o, names_new
from symattn.reader.claims.block_entries import block_entry
from symattn.reader.claims.case_functions import define_case
from symattn.reader.claims.coefficients import rounded_coefficient
from symattn.reader.claims.conditions import REL_TEXT
from symattn.reader.claims.definitions import define, head_symbol, row_alias, row_definition
from symattn.reader.claims.entry_rules import define_entries, with_rules
from symattn.reader.claims.free_scalars import free_scalars
from symattn.reader.claims.infer import conventional_attention, defines_left
from symattn.reader.claims.introductions import index_letters, introduce, listed
from symattn.reader.claims.local_values import local_value
from symattn.reader.claims.member_claims import define_member, members_only, redefines_family
from symattn.reader.claims.number_lists import has_list, list_claim, written_unit
from symattn.reader.claims.number_orders import number_order
from symattn.reader.claims.opaque_claims import (
    about_parameters,
    any_matrices,
    has_undeclared,
    opaque_claim,
    opaque_shape,
    parameters_claim,
    undeclared_claim,
)
from symattn.reader.claims.own_attention import own_attention
from symattn.reader.claims.resolved import ResolvedClaim, new_claim
from symattn.reader.claims.resolver_base import ResolverBase
from symattn.reader.claims.row_widths import define_rows
from symattn.reader.claims.shape_claims import declaration
from symattn.reader.claims.size_claims import assume_relation, bind_dims, sizes_only
from symattn.reader.claims.sizes import counted_capitals, number_claim, size_claim
from symattn.reader.claims.step_claims import define_step
from symattn.reader.claims.tilde import tilde_claim
from symattn.reader.claims.updates import is_update
from symattn.reader.claims.value_orders import value_order
from symattn.reader.claims.vector_reading import matrix_reading
from symattn.reader.claims.written_families import define_written, written_family_claim
from symattn.reader.claims.written_matrices import pending, stack_claim
from symattn.reader.syntax import ast
from symattn.reader.syntax.component_softmax import written_as_component
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.components import defined_component
from symattn.reader.terms.conventions import looks_like_matrix
from symattn.reader.terms.problems import UnknownName, not_understood
from symattn.reader.terms.scope import Scope
from symattn.reader.terms.translator import (
    UNREAD,
    Problem,
    Terms,
    as_comparable,
    orientation,
    plain_name,
    word_name,
)
from symattn.reader.terms.undeclared import read_around, undeclared


def _comparable(lhs: sympy.Basic, rhs: sympy.Basic) -> tuple[sympy.Basic, sympy.Basic]:
    """Both sides as one kind (a 1 × 1 matrix is a scalar); a matrix and a scalar clash."""
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
    return lhs, rhs


def _convention_message(scope: Scope, detail: str) -> str:
    names = ", ".join(sorted(scope.consulted))
    return (
        f"undecided (convention): {names} {_are_what(scope)} and the document does not "
        f"settle whether its vectors are rows or columns (vectors: "
        f"{scope.conventions.vectors.source}); {detail}; set it in front matter "
        "(symattn: vectors: row) or with --conventions vectors=row|column"
    )


def _are_what(scope: Scope) -> str:
    """How the consulted vectors got their width: declared in R^{d}, or only as rows of a
    matrix the text never declares (the chapter's convention)."""
    if all(n.endswith("_•") for n in scope.consulted):  # `S_•` of `S_t = S_{t-1} + k_t v_t^T`
        return "has the shape its definition gave with vectors read as columns"
    conventional = [n for n in scope.consulted if scope._conventional(n.upper())]
    if conventional and len(conventional) == len(scope.consulted):
        return "are rows of matrices the text never declares (the chapter's convention)"
    return "are declared in R^{d}"


def _map_shape_claim(
    terms: Terms, span: MathSpan, p: Exception, start: int, end: int
) -> ResolvedClaim:
    """Ill-typed with `\\phi(X)` read as a feature map of a width of its own: the text's map
    may have another width (or keep X's), so this is undecided, never a shape error."""
    name = terms.maps[0]
    detail = p.message if isinstance(p, Problem) else _first_line(str(p))
    msg = (
        f"{detail}, with \\{name}(·) read as a feature map of a width of its own "
        f"(D_phi); the text's \\{name} may have another"
    )
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


def _first_line(text: str) -> str:
    return text.splitlines()[0] if text else text


class RelationsMixin(ResolverBase):
    """Relations: declarations, definitions, equations both ways, orders, inequalities."""

    def _ill_typed(self, span: MathSpan, c: ast.Claim) -> ResolvedClaim | None:
        """A display formula that is only an expression (`$$QK$$`) claims that it means
        something: one that does not typecheck is a shape error. One the checker cannot read
        stays a mention (it says nothing the checker could hold against it)."""
        for subject in c.subjects:
            if isinstance(subject, ast.Dots):
                continue
            self.terms.maps.clear()
            try:
                self.terms.term(subject)
            except Problem as p:
                if self.terms.maps:
                    continue  # ill-typed with `\phi` of a width of its own: it may not be
                if p.status == "shape_error":
                    bad = new_claim(span, c.start, c.end, "shape_error", p.message, where=p.where)
                    return self._earlier_declarations(span, subject, None, bad, c.start, c.end)
            except ShapeError as e:
                if self.terms.maps:
                    continue
                bad = new_claim(span, c.start, c.end, "shape_error", _first_line(str(e)))
                return self._earlier_declarations(span, subject, None, bad, c.start, c.end)
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

    def _declaration(self, span: MathSpan, subject: ast.Node, step: ast.Step) -> ResolvedClaim:
        start, end = subject.start, step.rhs.end
        return self._guard(
            span,
            start,
            end,
            lambda: declaration(self.scope, self.terms, span, subject, step),
        )

    def _link(self, span: MathSpan, left: ast.Node, step: ast.Step, first: bool) -> ResolvedClaim:
        self.terms.identities.clear()
        claim = self._read_link(span, left, step, first)
        if self.terms.identities:
            eyes = ", ".join(sorted(self.terms.identities))
            claim = _noted(
                claim, f"{eyes} read as the identity matrix, of the size of the side it multiplies"
            )
        if first and isinstance(left, ast.IndexedGroup) and written_as_component(left, span.body):
            # `softmax(z_i) = e^{z_i} / \sum_j e^{z_j}`, read as component i of softmax(z)
            call = left.group.items[0]
            z = ast.dump(call.args[0]) if isinstance(call, ast.Call) and call.args else "z"
            i = ast.dump(left.index)
            note = f"{span.body[left.start : left.end]} read as softmax({z})_{i}, component {i}"
            claim = _noted(claim, note + f" of the softmax of the vector {z}")
        return claim

    def _read_link(
        self, span: MathSpan, left: ast.Node, step: ast.Step, first: bool
    ) -> ResolvedClaim:
        start, end = left.start, step.rhs.end
        if step.rel == "in":
            return self._declaration(span, left, step)
        if step.rel == "neq":
            return self._not_equal(span, left, step, start, end)
        if step.rel == "gets" or (step.rel == "=" and first and is_update(left, step.rhs)):
            terms = self.terms
            return self._guard(
                span, start, end, lambda: assignment(terms, span, left, step.rhs, start, end)
            )
        if step.rel != "=":
            return self._guard(span, start, end, lambda: self._other_relation(span, left, step))

        if (has_big_o(left) or has_big_o(step.rhs)) and not names_new(self.scope, left, step.rhs):
            o = (left, step.rhs)
            return self._guard(span, start, end, lambda: big_o_claim(self, span, *o, start, end))
        if _moment(left) or _moment(step.rhs):
            msg = (
                "a moment of random variables (\\mathbb E, Var): the kernel has no "
                "probability, so this is not decided"
            )
            return new_claim(span, start, end, "unknown", msg)

        scope, terms = self.scope, self.terms
        if first and scope.local_cue:
            local = local_value(terms, span, left, step.rhs, start, end)
            if local is not None:
                return local  # `(\theta_0 = 10000^{-1})`: a value of the text's own here

        generic = []

        def run() -> ResolvedClaim:
            case = define_case(terms, span, left, step.rhs, start, end) if first else None
            if case is not None:
                return case  # `PE(pos, 2i+1) = \cos(...)`: a case of the text's function
            written = define_written(terms, span, left, step.rhs, start, end) if first else None
            written = written or written_family_claim(terms, span, left, step.rhs, start, end)
            if written is not None:
                return written  # `R_m^\top R_n = R_{n-m}`: members of a family written out
            counted = number_claim(terms, span, left, step.rhs, start, end)
            if counted is not None:
                return counted  # `T = 4BDF/(NC)`: names the text shows to be numbers
            if has_list(left) or has_list(step.rhs):
                listed = list_claim(terms, span, left, step.rhs, start, end)
                if listed is not None:
                    return listed  # `0.4 \times [0, 2] + [1, 1] = [1, 1.8]`: lists of numbers
            member = None
            if first:
                member = define_member(scope, terms, span, left, step.rhs, start, end)
                member = member or define_rows(scope, terms, span, left, step.rhs, start, end)
                member = member or define_step(scope, terms, span, left, step.rhs, start, end)
            if member is not None:
                return member
            if isinstance(step.rhs, ast.Matrix) and step.rhs.env != "cases":
                try:
                    stacked = stack_claim(scope, terms, span, left, step.rhs, start, end)
                    if stacked.status != "not_understood" or not has_undeclared(
                        terms, left, step.rhs
                    ):
                        return stacked
                    return undeclared_claim(terms, span, left, step.rhs, start, end)
                except UNREAD as u:
                    if not undeclared(u):
                        raise
                    return undeclared_claim(terms, span, left, step.rhs, start, end)
                except Problem as p:
                    # `[\\cos\\theta\\ \\ldots][p_i; \\ldots] = [\\ldots]`: not `M = [rows]`; read
                    # around the names the text does not declare, if it has any
                    if p.status != "not_understood":
                        raise
                    names = read_around(terms, left) + read_around(terms, step.rhs)
                    if not names:
                        raise
                    return undeclared_claim(terms, span, left, step.rhs, start, end)
            if first:
                special = define_entries(terms, span, left, step.rhs, start, end)
                special = special or self._special_equation(span, left, step.rhs, start, end)
                if special is not None:
                    return special
            scope.consulted.clear()
            generic.append(True)
            terms.defs.used.clear()
            terms.maps.clear()
            # `p_{i,2j} = \sin(i/10000^{2j/d})`: the left side's index letters are integers
            terms.bound = index_letters(left) - set(scope.dims)
            scope.both_ways = True
            try:
                lhs, rhs = terms.term(left), terms.term(step.rhs)
            except UNREAD as u:
                sized = size_claim(terms, span, left, step.rhs, start, end)
                if sized is not None:
                    return sized  # `2BTD + 2BTD = 4BTD`: capitals used as sizes
                if not undeclared(u):
                    if isinstance(u, UnknownName):
                        contested = self.inference.contested
                        got = matrix_reading(terms, span, left, step.rhs, u, start, end, contested)
                        if got is not None:
                            return got  # `(W_q x)^\top (W_k y)`: capitals of any shape
                    raise
                return undeclared_claim(terms, span, left, step.rhs, start, end)
            except (Problem, ShapeError) as p:
                if isinstance(p, ShapeError) or p.status == "shape_error":
                    if terms.maps:
                        return _map_shape_claim(terms, span, p, start, end)
                if isinstance(p, ShapeError):
                    raise
                if p.status == "shape_error" and terms.defs.used and not members_only(terms.defs):
                    if about_parameters(left, step.rhs):
                        return parameters_claim(span, left, p.message, start, end)
                    raise not_understood(opaque_shape(terms, p.message), p.node) from None
                raise
            finally:
                terms.bound = frozenset()
                scope.both_ways = False
            block = block_entry(lhs, rhs)
            if block:
                return new_claim(span, start, end, "unknown", block)
            members = members_only(terms.defs)
            free = "" if members else free_scalars(terms.defs, scope, (left, step.rhs), (lhs, rhs))
            if terms.defs.used and not (members or free):
                whole = any_matrices(terms, lhs, rhs)
                if not whole:
                    return opaque_claim(terms, span, lhs, rhs, start, end)
                claim = pending(scope, span, start, end, (_comparable(lhs, rhs),))
                return dataclasses.replace(claim, defines=whole, context=f"for every {whole}")
            if sizes_only(scope.dims, lhs) and sizes_only(scope.dims, rhs):
                return assume_relation(scope, span, lhs, rhs, start, end)
            claim = pending(scope, span, start, end, (_comparable(lhs, rhs),))
            # `s_i = ...` after `s = \operatorname{softmax}(z)`: a claim about s's components
            made = defined_component(scope, terms.defs.table, left) is not None
            reason = members or free or (defines_left(scope, left, step.rhs) if first else "")
            reason = "" if made else reason
            reason = reason or redefines_family(scope, left, step.rhs)
            claim = dataclasses.replace(claim, defines=reason) if reason else claim
            if first and not reason and not claim.context:
                # `\mathrm{Attention}(Q, K, V) = ...` decided with the chapter's shapes
                claim = dataclasses.replace(claim, context=conventional_attention(scope, left))
            return dataclasses.replace(claim, free=free) if free else claim

        def both_ways() -> ResolvedClaim:
            claim = self._guard(span, start, end, run)
            if claim.status == "shape_error":
                # `P = Vd + 2d`: the chapter's V used as a count
                args = (terms, span, left, step.rhs, start, end, claim.message)
                claim = counted_capitals(*args) or claim
            if claim.status == "shape_error" and generic:
                claim = self._earlier_declarations(span, left, step.rhs, claim, start, end)
            if not (generic and scope.consulted) or claim.status not in ("pending", "shape_error"):
                return claim
            return self._read_both_ways(span, left, step.rhs, claim, start, end)

        terms.defs.applied.clear()
        terms.defs.brought.clear()
        own = own_attention(terms, left, step.rhs, span.start.line) if first else None
        claim = with_rules(terms, both_ways())
        if own is not None:
            own()
        return claim

    def _earlier_declarations(
        self,
        span: MathSpan,
        left: ast.Node,
        right: ast.Node | None,
        claim: ResolvedClaim,
        start: int,
        end: int,
    ) -> ResolvedClaim:
        """A shape error that rests on a conventional name the text declared with another shape
        in an earlier section (chapter 7's `K \\in \\mathbb R^{n\\times d_k G}` for GQA, then
        `QK^T` in the KV cache section): if the claim typechecks with the chapter's convention
        instead, which one the text means here is not said, so it is undecided, never a shape
        error and never verified; ill-typed either way, the shape error stands."""
        scope, terms = self.scope, self.terms
        earlier = scope.earlier_overrides()
        if not earlier:
            return claim

        def reread() -> ResolvedClaim:
            lhs = terms.term(left)
            if right is None:  # a display expression: it only has to typecheck
                return new_claim(span, start, end, "pending", str(lhs))
            return pending(scope, span, start, end, (_comparable(lhs, terms.term(right)),))

        taken = scope.without(list(earlier))
        scope.read_both.update(earlier)
        try:
            again = self._guard(span, start, end, reread)
        finally:
            scope.restore(taken)
        if again.status in ("shape_error", "internal_error"):
            return claim  # ill-typed either way: the shape error stands
        names = ", ".join(
            f"{k} ({shape_str(e.shape)}, line {e.line})" for k, e in sorted(earlier.items())
        )
        said = (
            f"{claim.message}; but {names} was declared so in an earlier section, and the text "
            "does not say whether that still holds here (declare it again in this section)"
        )
        if again.status == "pending":
            msg = f"{said}; with the chapter's convention the formula typechecks"
            return dataclasses.replace(claim, status="unknown", message=msg, pairs=())
        msg = f"{said}; with the chapter's convention: {again.message}"
        return dataclasses.replace(claim, status=again.status, message=msg, pairs=())

    def _read_both_ways(
        self,
        span: MathSpan,
        left: ast.Node,
        right: ast.Node,
        as_columns: ResolvedClaim,
        start: int,
        end: int,
    ) -> ResolvedClaim:
        """A claim about vectors in R^{d} when the document never says whether they are rows
        or columns: read it both ways. Typing in only one reading, it depends on the
        convention (undecided); typing in both, the kernel decides both readings and a verdict
        stands only when they agree (`ResolvedClaim.split`); typing in neither, it is a shape
        error whatever the convention."""
        scope, terms = self.scope, self.terms
        scope.reading = "row"
        scope.both_ways = True
        try:
            as_rows = self._guard(
                span,
                start,
                end,
                lambda: pending(
                    scope, span, start, end, (_comparable(terms.term(left), terms.term(right)),)
                ),
            )
        finally:
            scope.reading = None
            scope.both_ways = False
        ok = [c.status == "pending" for c in (as_columns, as_rows)]
        if ok == [False, True] and scope.consulted <= scope.pinnable:
            # rows of matrices the text never declares: the chapter's rows, the only reading
            # in which the formula typechecks (one typing only as columns stays undecided: a
            # formula is never its own cue)
            reason = as_columns.defines or defines_left(scope, left, right)
            return dataclasses.replace(as_rows, defines=reason, typed="row")
        if ok == [False, False] and as_rows.status == "shape_error":
            scope.consulted.clear()  # ill-typed either way: the shape error stands
            return as_columns
        if ok == [False, False]:
            msg = _convention_message(scope, f"as columns: {as_columns.message}")
            return dataclasses.replace(as_columns, status="unknown", message=msg, pairs=())
        if ok == [True, True]:
            pairs = as_columns.pairs + as_rows.pairs
            pin = scope.consulted <= scope.pinnable
            return dataclasses.replace(
                as_columns, pairs=pairs, split=len(as_columns.pairs), pinnable=pin
            )
        good, bad = ("columns", as_rows) if ok[0] else ("rows", as_columns)
        msg = _convention_message(scope, f"it typechecks only with them as {good} ({bad.message})")
        typed = "column" if ok[0] else "row"
        if bad.status != "shape_error":
            typed = ""  # not read the other way, rather than ill-typed: no evidence
        return dataclasses.replace(as_columns, status="unknown", message=msg, pairs=(), typed=typed)

    def _other_relation(self, span: MathSpan, left: ast.Node, step: ast.Step) -> ResolvedClaim:
        """`x \\mapsto h(x)`, `\\ell \\sim \\sqrt n`, `a \\approx b`: both sides are read (a shape
        error or an unreadable part is reported as usual); the relation itself is not decided."""
        start, end = left.start, step.rhs.end
        if step.rel == "approx":
            close = approx_claim(self.terms, span, left, step.rhs, start, end)
            if close is None and (has_list(left) or has_list(step.rhs)):
                close = list_claim(self.terms, span, left, step.rhs, start, end, approximate=True)
            close = close or self._exactly(span, left, step)
            if close is not None:
                return close
        if step.rel in ("<", ">", "le", "ge"):  # a link of a chain `a = b < c`
            one = ast.Claim(start=start, end=end, subjects=(left,), steps=(step,))  # type: ignore[arg-type]
            text = getattr(self, "text", "")
            ordered = number_order(self.terms, span, one, text) or value_order(self, span, one)
            if ordered is not None:
                return ordered
        drawn = tilde_claim(span, left, step)
        if drawn is not None:
            return drawn
        names = read_around(self.terms, left) + read_around(self.terms, step.rhs)
        rel = REL_TEXT.get(step.rel, step.rel)
        msg = f"relation '{rel}' is not decided (only =, \\ne and \\in are)"
        if names:
            msg += f"; {', '.join(dict.fromkeys(names))} not declared by the text"
        return new_claim(span, start, end, "unknown", msg)

    def _exactly(self, span: MathSpan, left: ast.Node, step: ast.Step) -> ResolvedClaim | None:
        """`2d^2 \approx 2d^2`: the sides read as for `=` (leaving no trace: an approximation
        defines nothing), for the checker to verify where they are exactly equal; None when
        they are not read so."""
        equal = dataclasses.replace(step, rel="=")
        (got,) = self._traceless(lambda: [self._link(span, left, equal, first=False)])
        if got.status != "pending" or got.split or got.sign is not None or got.negated:
            return None
        if got.tolerance is not None:
            return None
        got = dataclasses.replace(got, approximate=True)
        written = written_number(step.rhs) or written_number(left)
        if written is not None and _numbers(got):
            # `12 L d^2 \approx 6.4 \times 10^9` at the sizes the text gave: between numbers
            context = f"\\approx read as within one unit of the last digit written, {written[1]}"
            context = f"{got.context}; {context}" if got.context else context
            return dataclasses.replace(
                got, approximate=False, tolerance=written[1], context=context
            )
        unit = written_unit(step.rhs) or written_unit(left)
        if unit is not None and got.pairs and all(_numbers_pair(p) for p in got.pairs):
            # `QK^T/\sqrt 2 \approx [0.71 & 0 \\ ...]` of a worked example: entry by entry
            context = (
                f"\\approx read entry by entry, within one unit of the last digit written, {unit}"
            )
            context = f"{got.context}; {context}" if got.context else context
            return dataclasses.replace(got, approximate=False, tolerance=unit, context=context)
        return rounded_coefficient(got, span.body) or got

    def _order_between_values(
        self, span: MathSpan, c: ast.Claim, refused: ResolvedClaim
    ) -> ResolvedClaim:
        """`\\alpha(\\mathbf q,\\mathbf k_i)\\ge 0`, `\\gamma_t \\ge 1`: an order between values,
        which the kernel does not decide: every side is read (errors reported as usual) and the
        claim is undecided. A side that cannot be read keeps the refusal. Between numbers
        (`2^{10} > 1000`) it is a claim for the kernel (`claims.number_orders`)."""
        ordered = number_order(self.terms, span, c, getattr(self, "text", ""))
        ordered = ordered or value_order(self, span, c)
        if ordered is not None:
            return ordered

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
            self.scope.consulted.clear()
            lhs, rhs = as_comparable(self.terms.term(left), self.terms.term(step.rhs))
            if isinstance(lhs, MatExpr) != isinstance(rhs, MatExpr):
                raise not_understood("\\ne between a matrix and a scalar", step)
            if self.scope.consulted:  # read one way only: the other might say otherwise
                msg = _convention_message(self.scope, "\\ne is not read both ways")
                return new_claim(span, start, end, "unknown", msg)
            claim = pending(self.scope, span, start, end, ((lhs, rhs),))
            return dataclasses.replace(claim, negated=True)

        return self._guard(span, start, end, run)

    def _letter_as_size(self, c: ast.Claim) -> None:
        """`h = 8` where the text divides a size by h (`d/h`) or sizes a shape with it: h is
        a size (the number of heads of a worked example), not an index."""
        first = c.subjects[0] if len(c.subjects) == 1 else None
        name = plain_name(first) if first is not None else None
        letters: set[str] = getattr(self, "letters_as_sizes", set())
        value = c.steps[-1].rhs
        if (
            name is not None
            and name in letters
            and name not in self.scope.dims
            and isinstance(value, ast.Number)
            and value.text.isdigit()
            and int(value.text) > 0
        ):
            self.scope.dims[name] = dim(name)

    def _special_equation(
        self, span: MathSpan, left: ast.Node, right: ast.Node, start: int, end: int
    ) -> ResolvedClaim | None:
        """`n = 5` binds a size in a worked example; `M_{ij} = 0` is a case of a definition;
        `Q = XW_Q`, `Z^{(h)} = ...`, `z_i = (AV)_{i,:}` define names."""
        scope, terms = self.scope, self.terms
        name = plain_name(left)
        positive = isinstance(right, ast.Number) and right.text.isdigit() and int(right.text) > 0
        word = word_name(left)
        # `L_{ij} = 1` of a declared matrix L: an entry (a case of its definition), no size
        entry = (
            isinstance(left, ast.Symbol)
            and isinstance(left.sub, ast.Product)
            and len(left.sub.factors) == 2
            and scope.lookup(left.name) is not None
        )
        if positive and (name is None or name not in scope.dims) and word is not None:
            if scope.lookup(word) is None and word not in terms.defs.table and not entry:
                name = word  # `d_{model} = 512`: a size named by a letter and a word
                scope.dims.setdefault(word, dim(word))
        if name is not None and name in scope.dims and positive:
            assert isinstance(right, ast.Number)
            return bind_dims(scope, {scope.dims[name]: sympy.Integer(int(right.text))}, span, left)
        case = self.cases.begin(scope, span, left, right, start, end)
        if case is not None:
            return case
        if isinstance(right, ast.Set) or listed(right):
            named = introduce(terms, span, left, right, start, end)  # `S_i = \\{j : j\\le i\\}`
            if named is not None:
                return named
        if name is not None and (
            looks_like_matrix(name) or name in scope.conventions.matrix_letters()
        ):
            return define(scope, terms, span, name, None, right, start, end)
        alias = None if scope.supposing else row_alias(scope, left, right)
        if alias is not None:
            assert isinstance(left, ast.Symbol)
            return define(scope, terms, span, left.name.upper(), None, alias, start, end)
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


def _noted(claim: ResolvedClaim, note: str) -> ResolvedClaim:
    """`claim` with `note` (how the reader read a part of it) first in its context, where the
    claim was read at all."""
    if claim.status in ("not_understood", "malformed", "prose"):
        return claim
    context = f"{note}; {claim.context}" if claim.context else note
    return dataclasses.replace(claim, context=context)


def _numbers(claim: ResolvedClaim) -> bool:
    """One pair of numbers, no size or name left in either."""
    return len(claim.pairs) == 1 and _numbers_pair(claim.pairs[0])


def _numbers_pair(pair: tuple[sympy.Basic, sympy.Basic]) -> bool:
    return all(
        isinstance(x, sympy.Expr) and not isinstance(x, MatExpr) and not x.free_symbols
        for x in pair
    )
