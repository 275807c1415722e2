"""The resolver: reads a document's formulas in order and turns each into claims (`Resolver`).
Imports the kernel and the reader's parts; never the checker, the CLI or the printers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import sympy

from symattn.kernel.errors import ParseError
from symattn.reader.claims.conditions import attach_conditions
from symattn.reader.claims.context import ONLY, WHEN, words_before, words_between
from symattn.reader.claims.dispatch import DispatchMixin, _claims_of
from symattn.reader.claims.free_scalars import enter_scalars, leave_scalars, scalars_ahead
from symattn.reader.claims.gradient_output import defined_after
from symattn.reader.claims.hypotheses import _SENTENCE_END, HypothesesMixin
from symattn.reader.claims.imaginary import complex_cue
from symattn.reader.claims.infer import distinct_widths, free_value_width
from symattn.reader.claims.named_products import defined_products
from symattn.reader.claims.online_claims import system_of
from symattn.reader.claims.relations import RelationsMixin
from symattn.reader.claims.resolved import ResolvedClaim, Shape
from symattn.reader.claims.sizes import note_numbers, size_letters, stated_relations
from symattn.reader.claims.stated_values import stated_values
from symattn.reader.claims.trailing_units import units_after
from symattn.reader.syntax.brackets import counts_from_zero
from symattn.reader.syntax.notes import blank_notes
from symattn.reader.syntax.scanner import MathSpan, scan
from symattn.reader.terms.inference import infer_spans, install, parsed
from symattn.reader.terms.scope import Name
from symattn.reader.terms.translator import plain_name
from symattn.reader.terms.zero_based import zero_based_families

__all__ = ["ResolvedClaim", "Resolver", "attach_conditions", "resolve_document", "section_lines"]

_HEADING = re.compile(
    r"^(#{1,6}\s|\d+(\.\d+)+\s+\S|\\(part|chapter|section|subsection|subsubsection)\*?\{)"
)


def section_lines(text: str) -> list[int]:
    """Line numbers (1-based) of headings: Markdown `#`, LaTeX `\\section{`, numbered `6.2 Title`.

    >>> section_lines("# A\\ntext\\n6.2 Heads\\n\\\\section{B}")
    [1, 3, 4]
    """
    return [k for k, line in enumerate(text.splitlines(), start=1) if _HEADING.match(line)]


class Resolver(HypothesesMixin, DispatchMixin, RelationsMixin):
    """Reads formulas in file order, keeping the symbol table: conventions, document, examples.

    The table is `scope` (a `reader.scope.Scope`); the resolver answers what a `Terms` asks of
    a scope (`dims`, `lookup`, `bind`, ...), so `symattn shapes` can hand it the resolver.

    >>> from symattn.reader import scan
    >>> spans = scan("$Q=XW_Q$ and $(QK^T)_{ij}=q_i\\\\cdot k_j$", kind="md")
    >>> r = Resolver()
    >>> [c.status for s in spans for c in r.resolve_span(s)]
    ['shape', 'pending']
    """

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
        system_of(self).text = text
        self.scope.size_relations |= stated_relations(items, text)
        self.scope.complex_cue = complex_cue(text)
        self.scope.named_products = defined_products(items)
        self.scope.distinct_widths = distinct_widths(items)
        self.scope.free_value_width = free_value_width(items)
        self.letters_as_sizes = size_letters(items)
        bodies = [x.body for x in items if isinstance(x, MathSpan)]
        self.scope.zero_based = zero_based_families(bodies)
        self.scope.zero_brackets = counts_from_zero(bodies, text)
        note_numbers(self.scope, items, text)
        self.stated = stated_values(text)
        self.units_after = units_after(items, text)
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
            self.unread.note_definitions(claims, self.scope, item.start.line)
            out.extend(self._case_in_words(item, claims, text, prev, out, nxt))
            prev = item
        return out


#: The words that open a declaration of what the formula before uses: `$claim$ where $W \in
#: \mathbb R^{d\times d}$`, `for any $B \in ...$`, `with`, 其中, 对任意.
_WHERE = re.compile(
    r"^[\s,，;；:]*(?:(?:where|with|for\s+(?:any|all|every|some|each)|given|here)\b|其中|这里"
    r"|对(?:于)?(?:任意|任何|所有))",
    re.IGNORECASE,
)
_AND = re.compile(r"^[\s,，、]*(?:and|as\s+well\s+as|和|与|及|以及)?[\s,，、]*$", re.IGNORECASE)


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


def resolve_document(text: str, filename: str = "<string>") -> list[ResolvedClaim | object]:
    """Scan, parse and resolve a whole document; scan problems come back as they are.

    >>> out = resolve_document("$Q=XW_Q$, $A$", "x.md")
    >>> [c.status for c in out]
    ['shape', 'prose']
    """

    resolver = Resolver(section_lines(text))
    out: list[ResolvedClaim | object] = list(resolver.resolve_items(scan(text, filename), text))
    return attach_conditions(out, text)
