"""The resolver: reads a document's formulas in order and turns each into claims, dispatching on
what a claim is (a definition, a declaration, sizes, indices, a matrix written out, a relation).

Imports the kernel and the reader's other modules; never the checker, the CLI or the printers.
"""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Callable, Iterable, Iterator, Sequence

import sympy

from symattn.kernel.dims import assume, dim, shape_str
from symattn.kernel.errors import ParseError, ShapeError, SymattnError
from symattn.kernel.expr import MatExpr, MatSym, walk
from symattn.kernel.text import plain
from symattn.reader.claims.approximate import approx_claim
from symattn.reader.claims.assignments import assignment
from symattn.reader.claims.cases import Cases
from symattn.reader.claims.conditions import ORDER, REL_TEXT, attach_conditions, attach_within
from symattn.reader.claims.context import (
    FORWARD,
    ONLY,
    REDEFINE,
    SUPPOSE,
    SUPPOSING,
    WHEN,
    equated_sizes,
    mentions_letter,
    reached,
    sentence_hypothesis,
    substituted_pair,
    under_words,
    words_before,
    words_between,
)
from symattn.reader.claims.conventional import rebound, unconfirmed
from symattn.reader.claims.definitions import (
    define,
    head_symbol,
    row_alias,
    row_definition,
    sequence_definition,
)
from symattn.reader.claims.forgotten import with_forgotten
from symattn.reader.claims.free_scalars import (
    enter_scalars,
    free_scalars,
    leave_scalars,
    scalars_ahead,
)
from symattn.reader.claims.gradient_output import defined_after
from symattn.reader.claims.guessed_shapes import with_guesses
from symattn.reader.claims.index_claims import condition, index_equation
from symattn.reader.claims.infer import defines_left
from symattn.reader.claims.inferred import with_inference
from symattn.reader.claims.introductions import index_letters, introduce, listed
from symattn.reader.claims.mask_roles import mark_masks
from symattn.reader.claims.member_claims import (
    define_member,
    members_only,
    redefines_family,
    with_family_values,
)
from symattn.reader.claims.opaque_claims import (
    about_parameters,
    has_undeclared,
    opaque_claim,
    opaque_shape,
    parameters_claim,
    undeclared_claim,
)
from symattn.reader.claims.resolved import ResolvedClaim, Shape, new_claim
from symattn.reader.claims.row_widths import define_rows
from symattn.reader.claims.shape_claims import declaration
from symattn.reader.claims.size_claims import (
    assume_relation,
    bind_dims,
    relations_only,
    size_chain,
    sizes_only,
)
from symattn.reader.claims.sizes import (
    note_numbers,
    number_claim,
    size_claim,
    size_letters,
    stated_relations,
)
from symattn.reader.claims.units import with_units
from symattn.reader.claims.unread_declarations import UnreadDeclarations
from symattn.reader.claims.written_matrices import pending, stack_claim
from symattn.reader.syntax import ast
from symattn.reader.syntax.notes import blank_notes
from symattn.reader.syntax.parse import parse_formula
from symattn.reader.syntax.scanner import MathSpan, scan
from symattn.reader.terms.conventions import DocumentConventions, looks_like_matrix
from symattn.reader.terms.inference import Inference, infer_spans, install, parsed
from symattn.reader.terms.problems import not_understood
from symattn.reader.terms.scope import Name, Scope
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


#: The words that give a case of a matrix defined by cases the other case's complement.
_OTHERWISE_AFTER = re.compile(
    r"^[\s,，]*(?:otherwise|else(?:where)?|in\s+all\s+other\s+cases|否则|其余|其他情况)", re.I
)
_OTHERWISE_BEFORE = re.compile(r"(?:otherwise|else|否则|其余(?:情况)?|其他情况)[\s,，:：]*$", re.I)
#: Between a condition and the case it opens: `当 $j>i$ 时 $M_{ij}$`, `if $j>i$, $M_{ij}$`.
_THEN = re.compile(r"^[\s,，]*(?:时|的时候|then)?[\s,，:：]*$", re.I)
#: The translator's message for a number divided by a matrix, and the matrix's name.
_SCALAR_BY_MATRIX = re.compile(r"cannot divide the scalar .+ by the matrix (\S+)\Z")


@dataclasses.dataclass(frozen=True)
class _Saved:
    """What `Resolver._saved` keeps: each layer's sizes, the relations' sections, the number of
    layers, and (or None) each layer's names, families and written matrices."""

    sizes: list[tuple[dict[sympy.Symbol, sympy.Integer], dict[sympy.Symbol, sympy.Expr]]]
    sections: dict[sympy.Symbol, int]
    depth: int
    tables: list[tuple[dict, dict, dict]] | None


class Resolver:
    """Reads formulas in file order, keeping the symbol table: conventions, document, examples.

    The table is `scope` (a `reader.scope.Scope`); the resolver answers what a `Terms` asks of
    a scope (`dims`, `lookup`, `bind`, ...), so `symattn shapes` can hand it the resolver.

    >>> from symattn.reader import scan
    >>> spans = scan("$Q=XW_Q$ and $(QK^T)_{ij}=q_i\\\\cdot k_j$", kind="md")
    >>> r = Resolver()
    >>> [c.status for s in spans for c in r.resolve_span(s)]
    ['shape', 'pending']
    """

    def __init__(
        self,
        sections: Sequence[int] = (),
        assume: dict[str, sympy.Expr] | None = None,
        conventions: DocumentConventions | None = None,
    ) -> None:
        self.scope = Scope(sections, assume, conventions)
        self.cases = Cases()
        self.terms = Terms(self.scope)
        # the scope's own tables (never rebound): what a `Terms` given the resolver reads
        self.dims: dict[str, sympy.Symbol] = self.scope.dims
        self.sequences: dict[str, sympy.Expr] = self.scope.sequences
        self.inference = Inference()
        self.unread = UnreadDeclarations()

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

    # ---- a document: spans in order, with the prose around them ----------------------------

    def resolve_items(self, items: Sequence[object], text: str) -> list[object]:
        """Every span of a document (other items pass through), reading the words around each:
        a size relation after *when* / *if* (`... $$ when $Hd_v=d$`) is a premise of the
        formula before it only; one after *suppose* / *assume* (假设, 若) holds to the end of
        the section; an identity there is a hypothesis used as a substitution (`\\mathbf k_i =
        \\mathbf v_i`: K becomes V) in the claims of its section; `let` / *now let* /
        *redefine* before a name defined in this section redefines it."""
        items = list(items)
        self.scope.size_relations |= stated_relations(items, text)
        self.letters_as_sizes = size_letters(items)
        note_numbers(self.scope, items, text)
        self.inference = infer_spans(items, self.scope)
        install(self.scope, self.inference)
        ahead = scalars_ahead(items)
        out: list[object] = []
        prev: MathSpan | None = None
        early: dict[int, list[ResolvedClaim]] = {}  # declarations read before their place
        k = 0
        while k < len(items):
            item = items[k]
            k += 1
            if not isinstance(item, MathSpan):
                out.append(item)
                continue
            if id(item) in early:
                out.extend(early.pop(id(item)))
                prev = item
                continue
            for later in _declared_after(items, k - 1, text):
                early[id(later)] = self.resolve_span(later)
            before = words_before(text, prev, item)
            nxt = items[k] if k < len(items) else None
            if isinstance(nxt, MathSpan) and defined_after(item, nxt, text):
                # `$\\partial L/\\partial V = A^T \\partial L/\\partial O$ where $O = AV$`
                after = self._read_span(nxt, words_before(text, item, nxt), text)
                out.extend(self._read_span(item, before, text))
                out.extend(after)
                prev = nxt
                k += 1
                continue
            if (
                isinstance(nxt, MathSpan)
                and WHEN.match(words_between(text, item, nxt))
                and not ONLY.search(words_between(text, item, nxt))  # named, never put in force
            ):
                premise = self._premise_after(item, nxt)
                if premise is not None:
                    out.extend(premise[0])
                    out.extend(premise[1])
                    prev = nxt
                    k += 1
                    continue
            enter_scalars(ahead, self.terms, self.scope, item.start.line)
            claims = self._read_span(item, before, text)
            leave_scalars(ahead, self.terms)
            claims = self.unread.soften(claims, self.scope)
            if any(c.status == "not_understood" for c in claims):
                lead = len(item.body) - len(item.body.lstrip())
                self.unread.note(item.body, item.position_at(lead).line)
            out.extend(self._case_in_words(item, claims, text, prev, out, nxt))
            prev = item
        return out

    def _read_span(self, item: MathSpan, before: str, text: str) -> list[ResolvedClaim]:
        words = sentence_hypothesis(text, item)
        self.text = text
        claims = self._with_cues(item, before, bool(SUPPOSING.match(words)))
        only = getattr(self, "only_premise", None)
        if only is not None and item.start.offset < only[0] and not ONLY.search(before):
            # `只有当 $W_Q=W_K$ 时才有 $S^T=S$`: what follows in the sentence holds under it
            claims = [
                dataclasses.replace(c, premise=only[1])
                if c.status == "pending" and not c.premise
                else c
                for c in claims
            ]
        mark_masks(self.scope, text, item)
        if words:
            claims = [under_words(c, words) for c in claims]
        return claims

    def _with_cues(
        self, span: MathSpan, before: str, supposing: bool = False
    ) -> list[ResolvedClaim]:
        scope = self.scope
        only = ONLY.search(before)
        if only is not None:
            return self._named_condition(span, only.group().strip())
        scope.redefining = bool(REDEFINE.search(before))
        hypothesis = SUPPOSE.search(before)
        scope.supposing = supposing or hypothesis is not None
        known = set(scope.document.relations)
        try:
            claims = self.resolve_span(span)
        finally:
            scope.redefining = scope.supposing = False
        if hypothesis is None:
            return claims
        for sym in set(scope.document.relations) - known:
            scope.hypothesis_relations[sym] = scope.section
        return [self._hypothesis(c, hypothesis.group().strip()) for c in claims]

    def _case_in_words(
        self,
        span: MathSpan,
        claims: list[ResolvedClaim],
        text: str,
        prev: MathSpan | None,
        before: list[object],
        nxt: object,
    ) -> list[ResolvedClaim]:
        r"""A case of a matrix defined by cases whose condition is in the words, not in the next
        formula: `$M_{ij}=-\infty$ otherwise` (否则 before it), or a condition written before
        the case (`当 $j>i$ 时 $M_{ij}=-\infty$`, `if $j > i$, $M_{ij} = -\infty$`)."""
        case = self.cases.open
        if case is None or not text:
            return claims
        after = words_between(text, span, nxt) if isinstance(nxt, MathSpan) else ""
        if not isinstance(nxt, MathSpan):
            after = text[span.end : span.end + 80].lstrip("$")
        gap = words_before(text, prev, span)
        cond = [
            c
            for c in before
            if isinstance(c, ResolvedClaim) and prev is not None and c.span == prev
        ]
        if _THEN.match(gap) and len(cond) == 1 and len(cond[0].conditions) == 1:
            self.cases.open = None
            rel = cond[0].conditions[0]
            done = self.cases.record(self.scope, span, 0, len(span.body), case, rel)
        elif _OTHERWISE_BEFORE.search(gap) or _OTHERWISE_AFTER.match(after):
            done = self.cases.otherwise(self.scope, span, case)
            if done is not None:
                self.cases.open = None
        else:
            return claims
        return [*claims, done] if done is not None else claims

    def _named_condition(self, span: MathSpan, word: str) -> list[ResolvedClaim]:
        """`... only if $d_k = d_v$`: a relation between sizes the text names as a condition;
        it is reported but never put in force, for no formula before or after it."""
        saved = self._saved(tables=True)
        claims = self.resolve_span(span)
        self._restore(saved)
        note = f"a condition the text names (after '{word}'), not assumed"
        out = []
        for c in claims:
            if c.status in ("not_understood", "malformed", "prose"):
                out.append(c)
            elif "assumed from here on" in c.message:
                out.append(
                    dataclasses.replace(c, message=c.message.replace("assumed from here on", note))
                )
            else:  # `只有当 $W_Q=W_K$ 时`: an identity named as a condition, not checked nor used
                msg = f"{note}, not checked"
                out.append(dataclasses.replace(c, status="declared", message=msg, pairs=()))
        self.only_premise = (_sentence_end(getattr(self, "text", ""), span.end), span.body.strip())
        return out

    def _hypothesis(self, claim: ResolvedClaim, word: str) -> ResolvedClaim:
        """What a hypothesis does for the claims after it, in its section: a relation between
        sizes holds until the section ends; `K = V` (also `k_i = v_i`, `K_{ij} = V_{ij}`) is a
        substitution; any other identity is noted so that a claim about its names is never
        called false (it might hold only under it)."""
        scope = self.scope
        if claim.status == "declared" and "assumed from here on" in claim.message:
            msg = claim.message.replace(
                "assumed from here on", f"a hypothesis (after '{word}'), until the section ends"
            )
            return dataclasses.replace(claim, message=msg)
        if claim.status != "pending" or claim.conditions or len(claim.pairs) != 1:
            return claim
        lhs, rhs = claim.pairs[0]
        sub = substituted_pair(lhs, rhs) if FORWARD.match(word) else None
        sizes = equated_sizes(lhs, rhs, scope.context()) if sub is not None else None
        if sub is not None and sizes is not None:
            self._suppose_sizes(sizes)
            scope.substitutions.append((sub[0], sub[1], scope.section, claim.source))
        else:
            names = {x for t in (lhs, rhs) for x in walk(t) if isinstance(x, MatSym)}
            scope.unused.append((frozenset(names), scope.section, claim.source))
        return claim

    def _suppose_sizes(self, sizes: dict[sympy.Symbol, sympy.Expr]) -> None:
        """`suppose k_i = v_i`: `d_v = d_k` holds with it, until its section ends."""
        scope = self.scope
        for sym, value in sizes.items():
            scope.document.relations[sym] = value
            scope.relation_section[sym] = scope.section
            scope.hypothesis_relations[sym] = scope.section

    def _premise_after(
        self, span: MathSpan, nxt: MathSpan
    ) -> tuple[list[ResolvedClaim], list[ResolvedClaim]] | None:
        """`$$claim$$ when $Hd_v = d$`: the relation holds for that claim only. None when the
        second formula is not only relations between sizes (then nothing special)."""
        scope = self.scope
        try:
            formula = parse_formula(blank_notes(nxt.body), nxt.env)
        except ParseError:
            return None
        if not relations_only(scope.dims, list(_claims_of(formula.items))):
            return None
        saved = self._saved()
        premise = self.resolve_span(nxt)
        if not all(
            c.status == "declared" and c.message.startswith("relation between sizes")
            for c in premise
        ):  # a relation that contradicts the sizes in force: reported as it is
            return self.resolve_span(span), premise
        claims = self.resolve_span(span)
        self._restore(saved)
        note = "a premise of the formula before it only"
        premise = [
            dataclasses.replace(c, message=c.message.replace("assumed from here on", note))
            for c in premise
        ]
        return claims, premise

    def _saved(self, tables: bool = False) -> _Saved:
        """The sizes in force (and, with `tables`, the names each layer holds), to read a
        formula and then forget what it put in force (`_restore`)."""
        scope = self.scope
        return _Saved(
            [(dict(x.bindings), dict(x.relations)) for x in scope.layers],
            dict(scope.relation_section),
            len(scope.layers),
            [(dict(x.names), dict(x.families), dict(x.literals)) for x in scope.layers]
            if tables
            else None,
        )

    def _restore(self, saved: _Saved) -> None:
        scope = self.scope
        del scope.layers[saved.depth :]
        for layer, (b, r) in zip(scope.layers, saved.sizes, strict=False):
            layer.bindings, layer.relations = b, r
        scope.relation_section = saved.sections
        for layer, (names, families, literals) in zip(
            scope.layers, saved.tables or (), strict=False
        ):
            layer.names, layer.families, layer.literals = names, families, literals

    # ---- spans and claims ------------------------------------------------------------------

    def resolve_span(self, span: MathSpan) -> list[ResolvedClaim]:
        """Every claim of one span, in order; never raises for what the span says."""

        self.scope.enter(span.start.line)
        self.inference.enter(self.scope, span)
        span = dataclasses.replace(span, body=blank_notes(span.body))
        try:
            formula = parsed(span.body, span.env)
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
            out.extend(self._decorate(with_units(claims, span.body)))
        return attach_within(out)

    def _decorate(self, claims: list[ResolvedClaim]) -> list[ResolvedClaim]:
        """The sizes in force, on each claim: relations as assumptions, a worked example's values
        as its context."""
        out = []
        for claim in claims:
            claim = with_inference(self._under_hypotheses(claim), self.inference)
            claim = with_family_values(claim, self.scope)
            claim = with_guesses(with_forgotten(claim, self.scope), self.scope)
            if self.scope.assumptions:
                claim = dataclasses.replace(claim, assumptions=dict(self.scope.assumptions))
            b = self.scope.bindings
            if not b and self.scope.earlier and claim.status == "pending":
                claim = dataclasses.replace(claim, earlier=dict(self.scope.earlier))
            if b and claim.status != "prose":
                text = ", ".join(f"{k} = {v}" for k, v in b.items())
                given = f"; {claim.context}" if claim.context else ""
                claim = dataclasses.replace(claim, context=f"worked example: {text}{given}")
            out.append(claim)
        return out

    def _under_hypotheses(self, claim: ResolvedClaim) -> ResolvedClaim:
        """A claim in the section of a hypothesis: `K = V` substituted in its sides and in the
        definitions it reaches (proving the claim about V proves it under K = V); the names of
        a hypothesis the checker cannot use make a `false` undecided (`ResolvedClaim.premise`)."""
        scope = self.scope
        if claim.status != "pending":
            return claim
        here = scope.section
        sub = {old: new for old, new, sec, _ in scope.substitutions if sec == here}
        used = "; ".join(src for _, _, sec, src in scope.substitutions if sec == here)
        if sub:
            try:
                with assume(**scope.assumptions):
                    pairs = tuple((a.xreplace(sub), b.xreplace(sub)) for a, b in claim.pairs)
                    defs = {k: v.xreplace(sub) for k, v in claim.defs.items() if k not in sub}
            except SymattnError:  # the substitution does not typecheck here: not used
                return dataclasses.replace(claim, premise=used)
            defined = any(k in claim.defs for k in sub)
            claim = dataclasses.replace(claim, pairs=pairs, defs=defs, context=f"given {used}")
            if defined:  # K = V and K = XW_K together say more than the substitution: a
                return dataclasses.replace(claim, premise=used)  # false is not shown
        mentioned = reached(claim)
        for names, sec, src in scope.unused:
            if sec == here and names & mentioned:
                return dataclasses.replace(claim, premise=src)
        return claim

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
                formula = parse_formula(text, span.env)
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
        """The claims of one formula (`_resolve_once`); a shape error that rests on the
        chapter's conventions where the text departs from them is read again (`unconfirmed`)."""
        self.scope.conventional_reads.clear()
        self.scope.reads.clear()
        self.scope.read_both.clear()
        out = self._resolve_once(span, c, display)
        for rule in (unconfirmed, rebound):
            if not any(x.status == "shape_error" for x in out):
                break
            out = rule(self.scope, out, lambda: self._again(span, c, display))
        return out

    def _again(self, span: MathSpan, c: ast.Claim, display: bool) -> list[ResolvedClaim]:
        """The formula read again, leaving no trace: what it defines or opens is undone."""
        scope = self.scope
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
            return self._resolve_once(span, c, display)
        finally:
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
        keys = self._online_keys(c)
        taken = self.scope.with_shapes(keys)
        try:
            out = self._claims(span, c, display)
        finally:
            self.scope.restore_shapes(taken)
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
            self._letter_as_size(c)
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
        if step.rel == "gets":
            terms = self.terms
            return self._guard(
                span, start, end, lambda: assignment(terms, span, left, step.rhs, start, end)
            )
        if step.rel != "=":
            return self._guard(span, start, end, lambda: self._other_relation(span, left, step))

        if _moment(left) or _moment(step.rhs):
            msg = (
                "a moment of random variables (\\mathbb E, Var): the kernel has no "
                "probability, so this is not decided"
            )
            return new_claim(span, start, end, "unknown", msg)

        scope, terms = self.scope, self.terms

        generic = []

        def run() -> ResolvedClaim:
            counted = number_claim(terms, span, left, step.rhs, start, end)
            if counted is not None:
                return counted  # `T = 4BDF/(NC)`: names the text shows to be numbers
            member = None
            if first:
                member = define_member(scope, terms, span, left, step.rhs, start, end)
                member = member or define_rows(scope, terms, span, left, step.rhs, start, end)
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
                special = self._special_equation(span, left, step.rhs, start, end)
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
            members = members_only(terms.defs)
            free = "" if members else free_scalars(terms.defs, scope, (left, step.rhs), (lhs, rhs))
            if terms.defs.used and not (members or free):
                return opaque_claim(terms, span, lhs, rhs, start, end)
            if sizes_only(scope.dims, lhs) and sizes_only(scope.dims, rhs):
                return assume_relation(scope, span, lhs, rhs, start, end)
            claim = pending(scope, span, start, end, (_comparable(lhs, rhs),))
            reason = members or free or (defines_left(scope, left, step.rhs) if first else "")
            reason = reason or redefines_family(scope, left, step.rhs)
            claim = dataclasses.replace(claim, defines=reason) if reason else claim
            return dataclasses.replace(claim, free=free) if free else claim

        def both_ways() -> ResolvedClaim:
            claim = self._guard(span, start, end, run)
            if claim.status == "shape_error" and generic:
                claim = self._earlier_declarations(span, left, step.rhs, claim, start, end)
            if not (generic and scope.consulted) or claim.status not in ("pending", "shape_error"):
                return claim
            return self._read_both_ways(span, left, step.rhs, claim, start, end)

        return both_ways()

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
            if close is not None:
                return close
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
        if positive and (name is None or name not in scope.dims) and word is not None:
            if scope.lookup(word) is None and word not in terms.defs.table:
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


_TABLE = re.compile(r"\s*\\begin\{array\}.*\\end\{array\}\s*", re.DOTALL)
_CONTINUES = re.compile(
    r"\s*(&)?[ \t]*(?:\\q?quad[ \t]*)*(?==|\\(?:le|ge|leq|geq|neq|ne|in)\b|<|>)"
)


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


#: The words that open a declaration of what the formula before uses: `$claim$ where $W \in
#: \mathbb R^{d\times d}$`, `for any $B \in ...$`, `with`, 其中, 对任意.
_WHERE = re.compile(
    r"^[\s,，;；:]*(?:(?:where|with|for\s+(?:any|all|every|some|each)|given|here)\b|其中|这里"
    r"|对(?:于)?(?:任意|任何|所有))",
    re.IGNORECASE,
)
_AND = re.compile(r"^[\s,，、]*(?:and|as\s+well\s+as|和|与|及|以及)?[\s,，、]*$", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.。;；!?！？]\s|[。；！？]|\n\s*\n")


def _sentence_end(text: str, start: int) -> int:
    """The offset where the sentence that goes on at `start` ends (its stop, or a blank line)."""
    found = _SENTENCE_END.search(text or "", start)
    return found.start() if found is not None else len(text or "")


def _declared_after(items: Sequence[object], at: int, text: str) -> list[MathSpan]:
    r"""The declarations (`W \in \mathbb R^{...}` of plain names) that follow the formula at
    `at` in its sentence, after "where" / "for any" / 其中: they are read before it, so the
    claim is read with the shapes the text gives there."""
    span = items[at]
    if not text or not isinstance(span, MathSpan):
        return []
    out: list[MathSpan] = []
    prev: MathSpan = span
    for nxt in items[at + 1 : at + 5]:
        if not isinstance(nxt, MathSpan):
            break
        gap = text[prev.end : nxt.start.offset]
        words = words_between(text, prev, nxt)
        if _SENTENCE_END.search(gap.lstrip("$").replace("$", " ")):
            break  # (after a blank line the declaration is read where it stands)
        if not (
            _WHERE.match(words) if prev is span else (_AND.match(words) or _WHERE.match(words))
        ):
            break
        names = _declared_names(nxt)
        if not names:
            break
        out.append(nxt)
        prev = nxt
    return out


def _declared_names(span: MathSpan) -> list[str]:
    r"""The plain names a formula only declares (`A, B \in \mathbb R^{t\times t}`), else []."""
    try:
        formula = parsed(blank_notes(span.body), span.env)
    except ParseError:
        return []
    names: list[str] = []
    for c in _claims_of(formula.items):
        if len(c.steps) != 1 or c.steps[0].rel != "in":
            return []
        for subject in c.subjects:
            name = plain_name(subject)
            if name is None:
                return []
            names.append(name)
    return names


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
    ['shape', 'prose']
    """

    resolver = Resolver(section_lines(text))
    out: list[ResolvedClaim | object] = list(resolver.resolve_items(scan(text, filename), text))
    return attach_conditions(out, text)
