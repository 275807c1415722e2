"""The resolver's shared state (scope, cases, translator, inference), the typed base of its parts.
Imports the kernel and the reader's terms; must not import the resolver or the checker.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import sympy

from symattn.reader.claims.cases import Cases
from symattn.reader.claims.resolved import ResolvedClaim, Shape
from symattn.reader.claims.stated_values import Stated
from symattn.reader.claims.unread_declarations import UnreadDeclarations
from symattn.reader.syntax import ast
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.conventions import DocumentConventions
from symattn.reader.terms.inference import Inference
from symattn.reader.terms.scope import Scope
from symattn.reader.terms.translator import Terms


@dataclasses.dataclass(frozen=True)
class _Saved:
    """What `Resolver._saved` keeps: each layer's sizes, the relations' sections, the number of
    layers, and (or None) each layer's names, families and written matrices."""

    sizes: list[tuple[dict[sympy.Symbol, sympy.Integer], dict[sympy.Symbol, sympy.Expr]]]
    sections: dict[sympy.Symbol, int]
    depth: int
    tables: list[tuple[dict, dict, dict]] | None


class ResolverBase:
    """What every part of the resolver shares: the scope, the translator, the inference."""

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
        # values the text gives names outside its formulas (`reader.claims.stated_values`)
        self.stated: dict[str, tuple[Stated, ...]] = {}
        # the unit written after an inline formula, by its body's file offset
        # (`reader.claims.trailing_units`)
        self.units_after: dict[int, str] = {}
        # `x[t]` read as a component in the formula at hand (`DispatchMixin._bracketed`)
        self.bracket_guesses: dict[str, tuple[str, bool]] = {}

    if TYPE_CHECKING:
        # what the other parts define
        def _again(self, span: MathSpan, c: ast.Claim, display: bool) -> list[ResolvedClaim]: ...

        def _claims(self, span: MathSpan, c: ast.Claim, display: bool) -> list[ResolvedClaim]: ...

        def _traceless(
            self, read: Callable[[], list[ResolvedClaim]], marks: bool = True
        ) -> list[ResolvedClaim]: ...

        def _continue(
            self, span: MathSpan, prev: ast.Node | None, item: ast.Claim
        ) -> list[ResolvedClaim]: ...

        def _conventional_divisor(self, claim: ResolvedClaim) -> ResolvedClaim: ...

        def _declaration(
            self, span: MathSpan, subject: ast.Node, step: ast.Step
        ) -> ResolvedClaim: ...

        def _decorate(self, claims: list[ResolvedClaim]) -> list[ResolvedClaim]: ...

        def _earlier_declarations(
            self,
            span: MathSpan,
            left: ast.Node,
            right: ast.Node | None,
            claim: ResolvedClaim,
            start: int,
            end: int,
        ) -> ResolvedClaim: ...

        def _guard(
            self, span: MathSpan, start: int, end: int, run: Callable[[], ResolvedClaim]
        ) -> ResolvedClaim: ...

        def _hypothesis(self, claim: ResolvedClaim, word: str) -> ResolvedClaim: ...

        def _ill_typed(self, span: MathSpan, c: ast.Claim) -> ResolvedClaim | None: ...

        def _letter_as_size(self, c: ast.Claim) -> None: ...

        def _link(
            self, span: MathSpan, left: ast.Node, step: ast.Step, first: bool
        ) -> ResolvedClaim: ...

        def _named_condition(self, span: MathSpan, word: str) -> list[ResolvedClaim]: ...

        def _not_equal(
            self, span: MathSpan, left: ast.Node, step: ast.Step, start: int, end: int
        ) -> ResolvedClaim: ...

        def _online_keys(self, c: ast.Claim) -> dict[str, Shape]: ...

        def _order_between_values(
            self, span: MathSpan, c: ast.Claim, refused: ResolvedClaim
        ) -> ResolvedClaim: ...

        def _other_relation(
            self, span: MathSpan, left: ast.Node, step: ast.Step
        ) -> ResolvedClaim: ...

        def _read_both_ways(
            self,
            span: MathSpan,
            left: ast.Node,
            right: ast.Node,
            as_columns: ResolvedClaim,
            start: int,
            end: int,
        ) -> ResolvedClaim: ...

        def _resolve_claim(
            self, span: MathSpan, c: ast.Claim, display: bool = False
        ) -> list[ResolvedClaim]: ...

        def _resolve_once(
            self, span: MathSpan, c: ast.Claim, display: bool = False
        ) -> list[ResolvedClaim]: ...

        def _restore(self, saved: _Saved) -> None: ...

        def _rows(self, span: MathSpan) -> list[ResolvedClaim] | None: ...

        def _saved(self, tables: bool = False) -> _Saved: ...

        def _special_equation(
            self, span: MathSpan, left: ast.Node, right: ast.Node, start: int, end: int
        ) -> ResolvedClaim | None: ...

        def _suppose_sizes(self, sizes: dict[sympy.Symbol, sympy.Expr]) -> None: ...

        def _under_hypotheses(self, claim: ResolvedClaim) -> ResolvedClaim: ...

        def _unsettled_error(self, claim: ResolvedClaim) -> ResolvedClaim: ...

        def _with_cues(
            self, span: MathSpan, before: str, supposing: bool = False
        ) -> list[ResolvedClaim]: ...

        def resolve_span(self, span: MathSpan) -> list[ResolvedClaim]: ...
