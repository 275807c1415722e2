"""Conditions that hold for their sentence only: `if $n = m$, ...` and `when $d_k = d_v$, ...`
put a relation between sizes in force up to the end of their sentence; after it, the relation
is a condition the text named, so a claim that fails only without it is undecided, never false,
and no later claim is verified by it.

Imports sympy and the reader's scope; must not import the resolver, the checker or the CLI.
"""

from __future__ import annotations

import re
from typing import Any

import sympy

from symattn.reader.terms.scope import Scope

__all__ = ["SENTENCE_ONLY", "expire", "hold_for_sentence"]

#: Words whose condition qualifies the sentence they open, not what follows it (`suppose` and
#: `assume` reach forward over the section).
SENTENCE_ONLY = re.compile(r"(?:\bif|\bwhen|\bwhenever|\bfor|若|如果|当)\s*$", re.IGNORECASE)

#: What ends a sentence or a list item.
_END = re.compile(r"[.!?。！？；;]\s|[。！？；]|\n\s*\n|\n\s*(?:[-*+]|\d+[.)])\s")


def hold_for_sentence(
    resolver: Any, scope: Scope, text: str, end: int, new: dict[sympy.Symbol, sympy.Expr], src: str
) -> None:
    """Relations put in force by a condition at offset `end`: they end with its sentence."""
    found = _END.search(text or "", end)
    stop = found.start() if found is not None else len(text or "")
    ends = getattr(resolver, "sentence_conditions", [])
    ends.append((dict(new), scope.section, stop, src))
    resolver.sentence_conditions = ends


def expire(resolver: Any, scope: Scope, offset: int) -> None:
    """Take the relations of conditions whose sentence ended before `offset` out of force;
    they become conditions the text names in their section (`named_relations`)."""
    pending = getattr(resolver, "sentence_conditions", [])
    if not pending:
        return
    keep = []
    for relations, section, stop, src in pending:
        if section == scope.section and offset <= stop:
            keep.append((relations, section, stop, src))
            continue
        for sym, value in relations.items():
            if scope.document.relations.get(sym) == value:
                del scope.document.relations[sym]
            scope.hypothesis_relations.pop(sym, None)
            scope.relation_section.pop(sym, None)
        if section == scope.section:
            named = getattr(resolver, "named_relations", [])
            resolver.named_relations = [*named, (relations, section, src)]
    resolver.sentence_conditions = keep
