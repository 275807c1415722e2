"""Hypotheses and conditions: prose cues, cases in words, named conditions, premises in force.
Imports the kernel and the reader's terms; must not import the resolver or the checker.
"""

from __future__ import annotations

import dataclasses
import re

import sympy

from symattn.kernel.dims import assume
from symattn.kernel.errors import ParseError, SymattnError
from symattn.kernel.expr import MatSym, walk
from symattn.reader.claims.constrained import CONSTRAINT, EVERYWHERE, ConstrainedMixin
from symattn.reader.claims.context import (
    FORWARD,
    GENERIC,
    ONLY,
    REDEFINE,
    SUPPOSE,
    SUPPOSING,
    TYPICAL,
    TYPICAL_CLAUSE,
    clause_before,
    equated_sizes,
    omitted_names,
    reached,
    sentence_hypothesis,
    substituted_pair,
    under_words,
    words_before,
    words_between,
)
from symattn.reader.claims.conventional_equals import with_conventional_equals
from symattn.reader.claims.dispatch import _claims_of
from symattn.reader.claims.earlier_vectors import with_earlier_vectors
from symattn.reader.claims.entry_defined import over_defined_entries
from symattn.reader.claims.forgotten import with_forgotten
from symattn.reader.claims.guessed_shapes import with_guesses
from symattn.reader.claims.head_letters import with_head_letters
from symattn.reader.claims.inferred import with_inference
from symattn.reader.claims.local_values import LOCAL
from symattn.reader.claims.mask_roles import mark_masks
from symattn.reader.claims.mask_words import under_mask_words
from symattn.reader.claims.member_claims import with_family_values
from symattn.reader.claims.named_products import with_named_products
from symattn.reader.claims.redeclared import with_redeclared
from symattn.reader.claims.resolved import ResolvedClaim
from symattn.reader.claims.resolver_base import _Saved
from symattn.reader.claims.sentence_conditions import SENTENCE_ONLY, expire, hold_for_sentence
from symattn.reader.claims.size_claims import relations_only
from symattn.reader.claims.sum_readings import with_sum_readings
from symattn.reader.syntax.notes import blank_notes
from symattn.reader.syntax.parse import parse_formula
from symattn.reader.syntax.scanner import MathSpan

#: The words that give a case of a matrix defined by cases the other case's complement.
_OTHERWISE_AFTER = re.compile(
    r"^[\s,，]*(?:otherwise|else(?:where)?|in\s+all\s+other\s+cases|否则|其余|其他情况)", re.I
)


_OTHERWISE_BEFORE = re.compile(r"(?:otherwise|else|否则|其余(?:情况)?|其他情况)[\s,，:：]*$", re.I)


#: Between a condition and the case it opens: `当 $j>i$ 时 $M_{ij}$`, `if $j>i$, $M_{ij}$`.
_THEN = re.compile(r"^[\s,，]*(?:时|的时候|then)?[\s,，:：]*$", re.I)


_SENTENCE_END = re.compile(r"[.。;；!?！？]\s|[。；！？]|\n\s*\n")


#: A condition the writer imposes (`for the residual we need $d = h d_v$`), as against one that
#: is only contrasted (`unless $m = n$`, `it would need $m = n$`).
_IMPOSED = re.compile(r"^(?:we\s+(?:need|require)|requires?)\b|^我们需要", re.IGNORECASE)


def _sizes_of(claim: ResolvedClaim) -> set[sympy.Basic]:
    """The sizes a claim's sides mention: in their terms and in the shapes of their matrices."""
    terms = [t for pair in claim.pairs for t in pair]
    out: set[sympy.Basic] = set()
    for t in terms:
        out |= getattr(t, "free_symbols", set())
    for m in reached(claim):
        for d in m.shape:
            out |= sympy.sympify(d, strict=True).free_symbols
    return out


def _sentence_end(text: str, start: int) -> int:
    """The offset where the sentence that goes on at `start` ends (its stop, or a blank line)."""
    found = _SENTENCE_END.search(text or "", start)
    return found.start() if found is not None else len(text or "")


class HypothesesMixin(ConstrainedMixin):
    """Conditions: cues, cases in words, named conditions, premises, the hypotheses in force."""

    def _read_span(self, item: MathSpan, before: str, text: str) -> list[ResolvedClaim]:
        words = sentence_hypothesis(text, item)
        self.text = text
        known = dict(self.scope.top().names)
        claims = self._with_cues(item, before, bool(SUPPOSING.match(words)))
        self._orthogonal(item, before, text, known)
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
        claims = [over_defined_entries(self.scope, c) for c in claims]
        if words:
            omitted = omitted_names(text, item)
            claims = [under_words(c, words, omitted) for c in claims]
        return claims

    def _with_cues(
        self, span: MathSpan, before: str, supposing: bool = False
    ) -> list[ResolvedClaim]:
        scope = self.scope
        only = ONLY.search(before)
        if only is not None:
            return self._named_condition(span, only.group().strip())
        expire(self, scope, span.start.offset)
        scope.redefining = bool(REDEFINE.search(before))
        text = getattr(self, "text", "") or ""
        clause = clause_before(text, span.start.offset)
        scope.typical = bool(TYPICAL.search(before) or TYPICAL_CLAUSE.search(before))
        scope.local_cue = bool(LOCAL.search(before))
        scope.anew = bool(GENERIC.search(clause))
        hypothesis = SUPPOSE.search(before) or SENTENCE_ONLY.search(before)
        scope.supposing = supposing or hypothesis is not None
        known = dict(scope.document.relations)
        try:
            claims = self.resolve_span(span)
        finally:
            scope.redefining = scope.supposing = scope.anew = scope.typical = False
            scope.local_cue = False
        if hypothesis is None:
            constraint = CONSTRAINT.search(before)
            if constraint is not None:
                claims = [self._constraint(c, constraint.group("word")) for c in claims]
            return self._under_named(span, claims)
        new = {k: v for k, v in scope.document.relations.items() if known.get(k) != v}
        for sym in new:
            scope.hypothesis_relations[sym] = scope.section
        word = hypothesis.group().strip()
        if new and SENTENCE_ONLY.search(before):
            hold_for_sentence(self, scope, self.text, span.end, new, f"{word} {span.body.strip()}")
        return [self._hypothesis(c, word) for c in claims]

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
        before = dict(self.scope.document.relations)
        claims = self.resolve_span(span)
        named = {k: v for k, v in self.scope.document.relations.items() if before.get(k) != v}
        self._restore(saved)
        if named and _IMPOSED.search(word):
            self.named_relations: list[tuple[dict[sympy.Symbol, sympy.Expr], int, str]]
            self.named_relations = [
                *getattr(self, "named_relations", []),
                (named, self.scope.section, f"{word} {span.body.strip()}"),
            ]
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

    def _under_named(self, span: MathSpan, claims: list[ResolvedClaim]) -> list[ResolvedClaim]:
        """A claim after a relation the text imposes without supposing it (`for the residual we
        need $d = h d_v$`), in its section: the relation is not in force, but a claim that fails
        only without it is undecided, never false (the text may mean it under the relation)."""
        here = self.scope.section
        named = [(r, src) for r, sec, src in getattr(self, "named_relations", []) if sec == here]
        if not named:
            return claims
        source = "; ".join(src for _, src in named)
        sizes = {
            x
            for relations, _ in named
            for k, v in relations.items()
            for x in {k, *sympy.sympify(v, strict=True).free_symbols}
        }
        out = [
            dataclasses.replace(c, premise=source)
            if c.status == "pending" and not c.premise and _sizes_of(c) & sizes
            else c
            for c in claims
        ]
        if not any(c.status == "shape_error" for c in out):
            return out
        saved = self._saved(tables=True)
        for relations, _ in named:
            self.scope.document.relations.update(relations)
        try:
            under = self.resolve_span(span)
        finally:
            self._restore(saved)
        if len(under) != len(out):
            return out
        note = f"; it may hold under the condition the text names ('{source}'), not assumed"
        return [
            dataclasses.replace(c, status="unknown", message=f"{c.message}{note}")
            if c.status == "shape_error" and u.status != "shape_error"
            else c
            for c, u in zip(out, under, strict=True)
        ]

    def _hypothesis(self, claim: ResolvedClaim, word: str) -> ResolvedClaim:
        """What a hypothesis does for the claims after it, in its section: a relation between
        sizes holds until the section ends; `K = V` (also `k_i = v_i`, `K_{ij} = V_{ij}`) is a
        substitution; any other identity is noted so that a claim about its names is never
        called false (it might hold only under it)."""
        scope = self.scope
        if claim.status == "declared" and "assumed from here on" in claim.message:
            msg = claim.message.replace(
                "assumed from here on",
                f"a hypothesis (after '{word}'), "
                + ("for its sentence" if SENTENCE_ONLY.search(word) else "until the section ends"),
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
            pattern = self._identity(lhs, rhs) if FORWARD.match(word) else None
            if pattern is not None:  # `suppose P^T P = I`
                self._rewrite(pattern, claim.source, scope.section)
            else:
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
        known = dict(scope.document.relations)
        premise = self.resolve_span(nxt)
        named = {k: v for k, v in scope.document.relations.items() if known.get(k) != v}
        if not all(
            c.status == "declared" and c.message.startswith("relation between sizes")
            for c in premise
        ):  # a relation that contradicts the sizes in force: reported as it is
            return self.resolve_span(span), premise
        claims = self.resolve_span(span)
        self._restore(saved)
        if named:  # after it, a claim that fails only without it is undecided (`_under_named`)
            self.named_relations = [
                *getattr(self, "named_relations", []),
                (named, scope.section, f"a premise: {nxt.body.strip()}"),
            ]
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

    def _decorate(self, claims: list[ResolvedClaim]) -> list[ResolvedClaim]:
        """The sizes in force, on each claim: relations as assumptions, a worked example's values
        as its context."""
        out = []
        for claim in claims:
            claim = with_head_letters(self._under_hypotheses(claim))
            claim = with_inference(claim, self.inference, self.scope.reads)
            claim = with_family_values(claim, self.scope)
            claim = with_guesses(with_forgotten(claim, self.scope), self.scope)
            claim = with_redeclared(claim, self.scope)
            claim = with_conventional_equals(claim, self.scope)
            claim = with_named_products(claim, self.scope.named_products)
            claim = with_earlier_vectors(claim, self.scope)
            claim = with_sum_readings(claim, self.scope)
            claim = under_mask_words(claim, getattr(self, "text", ""))
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
        claim = self._rewritten(claim)
        if claim.premise:
            return claim
        mentioned = reached(claim)
        for names, sec, src in scope.unused:
            if sec in (here, EVERYWHERE) and names & mentioned:
                return dataclasses.replace(claim, premise=src)
        return claim
