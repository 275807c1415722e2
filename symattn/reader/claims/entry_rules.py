"""A declared matrix's entries defined by a formula of their indices (`p_{i,2j} = \\sin(...)`).
Imports the reader's AST, claims, spans and terms; never the resolver or the checker."""

from __future__ import annotations

import dataclasses

from symattn.kernel.errors import SymattnError
from symattn.reader.claims.entry_defined import note_entries
from symattn.reader.claims.introductions import index_letters
from symattn.reader.claims.resolved import ResolvedClaim, new_claim
from symattn.reader.syntax import ast
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.defined_values import add_rule, in_example, make_rule, sizes_of
from symattn.reader.terms.translator import Terms

__all__ = ["define_entries", "with_rules"]


def define_entries(
    terms: Terms, span: MathSpan, left: ast.Node, right: ast.Node, start: int, end: int
) -> ResolvedClaim | None:
    """`p_{i,2j} = \\sin(i/10000^{2j/d})` where the text declared P with no value: the
    definition of the entries of P at those indices (a declaration, which claims nothing);
    claims that write `p_{i+\\delta,2j}` read its value there. None when it is not one: the
    left side is no entry of a declared matrix without a value, an index is not a letter of
    its own times an integer plus an integer, the right side is not a scalar of the index
    letters and sizes, or the text already defined entries it covers (then it is a claim)."""
    if not isinstance(left, ast.Symbol) or left.sub is None:
        return None
    if len(left.name) != 1 or not left.name.isalpha():
        return None
    scope = terms.scope
    matrix = left.name.upper()  # `p_{i,2j}` or `P_{i,2j}`: an entry of P
    lookup = getattr(scope, "lookup", None)
    entry = lookup(matrix) if lookup is not None else None
    if entry is None or getattr(entry, "origin", "") != "declared" or in_example(terms):
        return None
    if getattr(entry, "definition", None) is not None:
        return None  # a matrix with a value: an equation about its entries is a claim
    try:
        pattern = list(terms.entry_indices(left.sub))
        if len(pattern) != 2:
            return None
        terms.bound = index_letters(left) - set(scope.dims)
        terms.defs.used.clear()
        body = terms.term(right)
    except (SymattnError, RecursionError):
        return None
    finally:
        terms.bound = frozenset()
    if terms.defs.used:
        terms.defs.used.clear()
        return None  # a value of the text's own the checker does not read
    text = span.body[left.start : left.end]
    rule = make_rule(matrix, pattern, body, sizes_of(terms), span.start.line, text)
    if rule is None or not add_rule(terms.defs, rule):
        return None
    note_entries(entry, matrix, span.start.line, f"{text} by a formula of its indices")
    msg = (
        f"defines the entries {text} of {matrix}, a scalar at every index of that form "
        "(claims that write such an entry read this value)"
    )
    return new_claim(span, start, end, "declared", msg)


def with_rules(terms: Terms, claim: ResolvedClaim) -> ResolvedClaim:
    """The claim with the definitions whose values it read named in its context."""
    applied = list(dict.fromkeys(terms.defs.applied))
    terms.defs.applied.clear()
    terms.defs.brought.clear()
    if not applied or claim.status in ("declared", "not_understood"):
        return claim
    note = f"with {', '.join(applied)}"
    context = f"{claim.context}; {note}" if claim.context else note
    return dataclasses.replace(claim, context=context)
