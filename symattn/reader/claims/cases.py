"""A matrix defined by cases, `M_{ij}=0` for `j\\le i` and `M_{ij}=-\\infty` for `j>i`: the
additive causal mask, read one case and its condition at a time.

Imports sympy, the kernel's index symbols and the reader's AST, spans, claims, scope, translator
and `index_claims`; never the resolver, the checker or the CLI.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy

from symattn.kernel.expr import index
from symattn.reader.claims.entry_defined import note_entries
from symattn.reader.claims.index_claims import condition
from symattn.reader.claims.resolved import ResolvedClaim, new_claim
from symattn.reader.syntax import ast
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.scope import Name, Scope
from symattn.reader.terms.translator import KEEP_FONTS, Terms

__all__ = ["Case", "Cases"]


@dataclass(frozen=True)
class Case:
    """One case just written, `M_{ij} = value`, waiting for its condition."""

    name: str
    value: str  # "0", "-inf" or another number
    indices: tuple[sympy.Symbol, sympy.Symbol]


class Cases:
    """The cases read so far, by matrix, and the one whose condition comes next."""

    def __init__(self) -> None:
        self.open: Case | None = None
        self._seen: dict[str, dict[str, sympy.Basic]] = {}

    def take_open(self) -> Case | None:
        """The case written just before this formula (only there can its condition follow)."""
        case, self.open = self.open, None
        return case

    def begin(
        self, scope: Scope, span: MathSpan, left: ast.Node, right: ast.Node, start: int, end: int
    ) -> ResolvedClaim | None:
        r"""`M_{ij}=0` or `M_{ij}=-\infty` for a capital not in scope: one case of a definition
        whose condition follows (`for $j\le i$`); see `condition`."""
        if not (
            isinstance(left, ast.Symbol)
            and left.font in KEEP_FONTS
            and len(left.name) == 1
            and left.name.isupper()
            and _undefined(scope, left.name)
            and isinstance(left.sub, ast.Product)
            and len(left.sub.factors) == 2
            and all(isinstance(f, ast.Symbol) and f.sub is None for f in left.sub.factors)
        ):
            return None
        if isinstance(right, ast.Number) and right.text == "0":
            value = "0"
        elif _constant(right, scope) and scope.lookup(left.name) is not None:
            # a multiplicative mask's `1`, uniform weights' `1/n`: a case, never the causal mask
            value = span.body[right.start : right.end]
        elif (
            isinstance(right, ast.Neg)
            and isinstance(right.operand, ast.Symbol)
            and right.operand.name == "infty"
        ):
            value = "-inf"
        else:
            return None
        names = [f.name for f in left.sub.factors if isinstance(f, ast.Symbol)]
        self.open = Case(left.name, value, (index(names[0]), index(names[1])))
        # until both cases make it the causal mask, its value is the text's, not read
        note_entries(
            scope.lookup(left.name), left.name, span.start.line, "by cases", value == "-inf"
        )
        msg = f"a case of the definition of {left.name} (its condition follows)"
        return new_claim(span, start, end, "declared", msg)

    def condition(
        self, scope: Scope, terms: Terms, span: MathSpan, c: ast.Claim, case: Case
    ) -> ResolvedClaim | None:
        r"""The condition of a case just written. `M_{ij}=0` for `j\le i` and `M_{ij}=-\infty`
        for `j>i` make M the additive causal mask: `S + M` is then the kernel's
        `CausalMask(S)` (S where j ≤ i, -∞ above the diagonal), exactly the same matrix."""
        name = case.name
        claim = condition(scope, terms, span, c)
        if claim.status != "declared" or len(claim.conditions) != 1:
            return None
        (rel,) = claim.conditions
        done = self.record(scope, span, c.start, c.end, case, rel)
        if done is not None:
            return done
        msg = f"the condition of a case of {name}: {claim.message}"
        return new_claim(span, c.start, c.end, "declared", msg)

    def record(
        self, scope: Scope, span: MathSpan, start: int, end: int, case: Case, rel: sympy.Basic
    ) -> ResolvedClaim | None:
        """Note that `case` holds where `rel` does; once both cases are known and they are the
        causal mask's, M becomes the mask (a claim saying so), else None."""
        name, (i, j) = case.name, case.indices
        cases = self._seen.setdefault(name, {})
        cases[case.value] = rel
        if set(cases) != {"0", "-inf"}:
            return None
        below = cases["0"].canonical == sympy.Le(j, i).canonical
        above = cases["-inf"].canonical == sympy.Gt(j, i).canonical
        current = scope.lookup(name)
        n = scope.dims["n"]
        shape = current.shape if current is not None else (n, n)
        if not (below and above) or sympy.expand(shape[0] - shape[1]) != 0:
            return None  # the causal mask is square: other cases stay the text's own entries
        entry = Name(shape, "defined", scope.section, scope.line, mask=True)
        scope.top().names[name] = entry
        msg = f"{name} is the causal mask: 0 on and below the diagonal, -∞ above"
        return new_claim(span, start, end, "declared", msg)

    def otherwise(self, scope: Scope, span: MathSpan, case: Case) -> ResolvedClaim | None:
        r"""`$M_{ij}=-\infty$ otherwise` (否则): the case holds where the other one does not."""
        other = self._seen.get(case.name, {})
        known = [rel for value, rel in other.items() if value != case.value]
        if len(known) != 1:
            return None
        rel = sympy.Not(known[0])
        if not isinstance(rel, sympy.core.relational.Relational):
            return None
        return self.record(scope, span, 0, len(span.body), case, rel)


def _constant(node: ast.Node, scope: Scope) -> bool:
    """A number made of numbers and sizes only (`1`, `-1`, `\\frac{1}{n}`, `1/\\sqrt{d}`): the
    same at every index, so a value a case may give, whatever its condition."""
    if isinstance(node, ast.Number):
        return True
    if isinstance(node, ast.Symbol):
        return node.sub is None and node.name in scope.dims
    if isinstance(node, ast.Neg | ast.Sqrt):
        return _constant(node.operand if isinstance(node, ast.Neg) else node.radicand, scope)
    if isinstance(node, ast.Frac):
        return _constant(node.num, scope) and _constant(node.den, scope)
    if isinstance(node, ast.Mul) and set(node.ops) <= {"/", "cdot"}:
        return all(_constant(x, scope) for x in node.factors)
    return False


def _undefined(scope: Scope, name: str) -> bool:
    """No value for `name` yet: not in scope, or declared (of any shape: `W_{ij} = 1` of an
    n × d matrix W is a case of its definition too) without a definition."""
    entry = scope.lookup(name)
    if entry is None:
        return True
    return entry.origin == "declared" and entry.definition is None and not entry.mask
