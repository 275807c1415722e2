"""Conditions the text states on the matrices it declares (`with $P^\\top P = I$`) and the
claims read under them. Imports the kernel and the reader; never the checker or the CLI.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import sympy

from symattn.kernel.dims import dims_equal
from symattn.kernel.expr import MatExpr, MatSym, substitute_definitions, walk
from symattn.reader.claims.constraints import (
    CONSTRAINT,
    identity_pattern,
    rewrite_products,
    squares,
    witnessed,
)
from symattn.reader.claims.context import reached
from symattn.reader.claims.resolved import ResolvedClaim
from symattn.reader.claims.resolver_base import ResolverBase
from symattn.reader.syntax.scanner import MathSpan

__all__ = ["CONSTRAINT", "EVERYWHERE", "ConstrainedMixin"]

#: `P \\in ...$ be orthogonal`, `..., where $P$ is orthogonal` (not "orthogonal to" another)
_ORTHOGONAL_AFTER = re.compile(
    r"^\$*\s*,?\s*(?:(?:where|with|and)\s+)?(?:\$\s*(?:\\mathbf\s*\{?)?(?P<name>[A-Za-z])\}?\s*\$\s+"
    r"|(?P<bare>[A-Za-z])\s+)?(?:is|be|being)\s+(?:an?\s+)?orthogonal\b(?!\s+to\b)",
    re.IGNORECASE,
)
#: `an orthogonal matrix $P \\in ...$`
_ORTHOGONAL_BEFORE = re.compile(r"\borthogonal(?:\s+matri(?:x|ces))?\s*$", re.IGNORECASE)

#: the whole document, for a condition stated with a declaration (as long as it stands)
EVERYWHERE = -1


class ConstrainedMixin(ResolverBase):
    """A condition on declared names: a hypothesis that a claim's products are rewritten by."""

    #: the matrices the formula read last declared (a condition may follow: `with $P^TP = I$`)
    declared_last: frozenset[str] = frozenset()

    def _constraint(self, claim: ResolvedClaim, word: str) -> ResolvedClaim:
        """`P \\in \\mathbb R^{n\\times n}$ with $P^\\top P = I`: an identity between matrices after
        *with*, *such that*, *satisfying*, *where*, right after the formula that declares one of
        its matrices (after *where*, no side that matrix alone: `where $S = QK^T$` says what S
        is), is a condition on it: not checked, and in force while the declaration stands
        (`P^T P = I` dropped from the products of claims; any other condition keeps a claim
        about its names from `false`)."""
        if claim.status != "pending" or claim.conditions or len(claim.pairs) != 1:
            return claim
        lhs, rhs = claim.pairs[0]
        if not (isinstance(lhs, MatExpr) and isinstance(rhs, MatExpr)):
            return claim
        if not all(dims_equal(a, b) for a, b in zip(lhs.shape, rhs.shape, strict=True)):
            return claim  # a condition that does not typecheck is reported as it stands
        names = frozenset(x for t in (lhs, rhs) for x in walk(t) if isinstance(x, MatSym))
        declared = sorted(m.name for m in names if self._declared(m))
        alone = any(isinstance(t, MatSym) and t.name in self.declared_last for t in (lhs, rhs))
        if not set(declared) & self.declared_last or (alone and word.lower() == "where"):
            return claim
        pattern = self._identity(lhs, rhs)
        if pattern is not None:
            self._rewrite(pattern, claim.source, EVERYWHERE)
        else:
            self.scope.unused.append((names, EVERYWHERE, claim.source))
        msg = f"a condition on {', '.join(declared)} (after '{word}'): assumed, not checked"
        return dataclasses.replace(claim, status="declared", message=msg, pairs=())

    def _orthogonal(self, span: MathSpan, before: str, text: str, known: dict[str, Any]) -> None:
        """`Let $P \\in \\mathbb R^{n\\times n}$ be orthogonal`: the square matrix the formula
        declares has `P^T P = P P^T = I` while the declaration stands."""
        new = [k for k, v in self.scope.top().names.items() if known.get(k) is not v]
        self.declared_last = frozenset(k for k in new if self._declared_name(k))
        entry = self.scope.lookup(new[0]) if len(new) == 1 else None
        if entry is None or entry.origin != "declared":
            return
        name = new[0]
        after = _ORTHOGONAL_AFTER.match(text[span.end : span.end + 80])
        named = after is not None and (after.group("name") or after.group("bare")) in (None, name)
        if not (named or _ORTHOGONAL_BEFORE.search(before)):
            return
        p = MatSym(name, *entry.shape)
        if not dims_equal(p.rows, p.cols):
            return
        said = f"{name} orthogonal ({name}^T{name} = {name}{name}^T = I)"
        for pattern in ((p.T, p), (p, p.T)):
            self._rewrite(pattern, said, EVERYWHERE)

    def _declared(self, m: MatSym) -> bool:
        return self._declared_name(m.name)

    def _declared_name(self, name: str) -> bool:
        return getattr(self.scope.lookup(name), "origin", "") == "declared"

    def _identity(self, lhs: sympy.Basic, rhs: sympy.Basic) -> tuple[MatExpr, ...] | None:
        """`P^T P = I` with I no matrix of the text's own: the product that is the identity."""
        eye = [x for t in (lhs, rhs) for x in walk(t) if isinstance(x, MatSym) and x.name == "I"]
        if any(self._declared(x) for x in eye):
            return None
        return identity_pattern(lhs, rhs)

    def _owners(self, names: frozenset[MatSym]) -> tuple[tuple[str, int], ...]:
        return tuple(sorted((m.name, getattr(self.scope.lookup(m.name), "line", 0)) for m in names))

    def _rewrite(self, pattern: tuple[MatExpr, ...], source: str, section: int) -> None:
        own = squares(pattern)
        self.scope.rewrites.append((pattern, own, section, source, self._owners(own)))

    def _rewritten(self, claim: ResolvedClaim) -> ResolvedClaim:
        """The claim with each condition `P^T P = I` in force used: the product dropped from
        its sides. A claim that still names P, or reaches it through a definition, is never
        false (the condition says more than the rewrite uses), nor one whose condition no
        identity matrices satisfy (a counterexample must honour it). A condition stated with a
        declaration lapses when the name is declared again."""
        here = self.scope.section
        used: list[tuple[tuple[MatExpr, ...], frozenset[MatSym], str]] = []
        for pattern, names, sec, src, owners in self.scope.rewrites:
            if sec not in (here, EVERYWHERE) or not names & reached(claim):
                continue
            if sec == EVERYWHERE and self._owners(names) != owners:
                continue
            claim = _written_out(claim, names)
            sides = [
                (rewrite_products(a, pattern), rewrite_products(b, pattern)) for a, b in claim.pairs
            ]
            if any(a is None or b is None for a, b in sides):
                return dataclasses.replace(claim, premise=src)
            used.append((pattern, names, src))
            if sides != list(claim.pairs):
                claim = dataclasses.replace(claim, pairs=tuple(sides))
                if src not in claim.context:
                    given = f"given {src}" + (f"; {claim.context}" if claim.context else "")
                    claim = dataclasses.replace(claim, context=given)
        if not used:
            return claim
        sources = "; ".join(dict.fromkeys(src for _, _, src in used))
        names = frozenset().union(*(n for _, n, _ in used))
        if names & reached(claim) or not all(witnessed(p) for p, _, _ in used):
            return dataclasses.replace(claim, premise=sources)
        return claim


def _written_out(claim: ResolvedClaim, names: frozenset[MatSym]) -> ResolvedClaim:
    """The claim with the definitions that reach the names written out in its sides
    (`Y = PX`: `Y^T Y` is `(PX)^T(PX)`), so that a condition on them meets their products."""
    defs = {
        k: v
        for k, v in claim.defs.items()
        if names & reached(dataclasses.replace(claim, pairs=((v, v),)))
    }
    if not defs:
        return claim
    sides = [tuple(substitute_definitions(t, defs, 8) for t in pair) for pair in claim.pairs]
    if not all(done for pair in sides for _, done in pair):
        return claim  # a cycle among the definitions: left as written
    pairs = tuple((a, b) for (a, _), (b, _) in sides)
    return dataclasses.replace(claim, pairs=pairs)
