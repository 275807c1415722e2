"""Claims about scalars the text names without a value the checker reads (`\\beta_t \\in
\\mathbb R`, `\\eta_t = 1`): decided when they hold for every value, never false on that ground.
Imports the reader's AST, scope, members and defined names only; never the resolver or checker."""

from __future__ import annotations

import re

from symattn.reader.syntax import ast
from symattn.reader.terms.defined import Defs
from symattn.reader.terms.scope import Scope

__all__ = ["free_scalars"]


def free_scalars(defs: Defs, scope: Scope, nodes: tuple[ast.Node, ...]) -> str:
    """When every opaque term a claim used is a member of a family the text defined or a scalar
    of the text (a name or a term of a sequence, never a function) whose index no sum of the
    claim runs over: why a `false` is undecided (the claim may rest on their values), while a
    claim true for every value of them holds. "" otherwise.

    A term of a sequence is one opaque number per written index (`\\beta_t`, `\\beta_{t-1}`):
    under `\\sum_j \\beta_j` it would be one number for every j, so such a claim is left alone."""
    used = list(dict.fromkeys(defs.used))
    if not used:
        return ""
    summed = set().union(*(_sum_letters(n) for n in nodes))
    for layer in scope.layers:
        for family in layer.members.values():
            if family.closed is not None:
                summed |= _sum_letters(family.closed)
    scalars = []
    for text in used:
        if text in defs.members:
            continue
        d = defs.meaning.get(text)
        if d is None or d.value != "scalar" or d.params is not None or d.any_args:
            return ""
        if d.indices and (not summed.isdisjoint(_index_letters(text)) or not _index_letters(text)):
            return ""
        scalars.append(text)
    if not scalars:
        return ""
    verb = "is a scalar" if len(scalars) == 1 else "are scalars"
    return (
        f"{', '.join(scalars)} {verb} of the text whose value the checker does not read: the "
        "claim may hold only for that value"
    )


def _sum_letters(node: ast.Node) -> set[str]:
    out: set[str] = set()
    todo = [node]
    while todo:
        x = todo.pop()
        if isinstance(x, ast.Sum) and x.var is not None:
            out.add(x.var.name)
        todo.extend(ast.children(x))
    return out


def _index_letters(text: str) -> set[str]:
    """`\\beta_t` -> {t}, `e_{ij}` -> {i, j}, `\\beta_{t-1}` -> {t}: the letters below the name."""
    _, _, sub = text.partition("_")
    return set(re.findall(r"[a-z]", re.sub(r"\\[A-Za-z]+", "", sub)))
