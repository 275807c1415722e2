"""Claims about scalars the text names without a value the checker reads (`\\beta_t \\in
\\mathbb R`, `\\eta_t = 1`): decided when they hold for every value, never false on that ground.
Imports the reader's AST, spans, scope, translator, inference's parser and the introductions
of names; never the resolver or the checker."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import sympy

from symattn.kernel.dims import dims_equal
from symattn.kernel.errors import ParseError
from symattn.kernel.expr import MatExpr
from symattn.reader.claims.introductions import _new_name
from symattn.reader.syntax import ast
from symattn.reader.syntax.notes import blank_notes
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.defined import Defined, Defs
from symattn.reader.terms.inference import parsed
from symattn.reader.terms.scope import Scope
from symattn.reader.terms.translator import Terms, as_comparable

__all__ = ["enter_scalars", "free_scalars", "leave_scalars", "scalars_ahead"]


def free_scalars(
    defs: Defs,
    scope: Scope,
    nodes: tuple[ast.Node, ...],
    sides: tuple[sympy.Basic, sympy.Basic] | None = None,
) -> str:
    """When every opaque term a claim used is a member of a family the text defined or a scalar
    of the text (a name or a term of a sequence, never a function) whose index no sum of the
    claim runs over: why a `false` is undecided (the claim may rest on their values), while a
    claim true for every value of them holds. "" otherwise.

    A term of a sequence is one opaque number per written index (`\\beta_t`, `\\beta_{t-1}`):
    under `\\sum_j \\beta_j` it would be one number for every j, so such a claim is left alone."""
    used = list(dict.fromkeys(defs.used))
    if not used or (sides is not None and not _comparable(*sides)):
        return ""  # a scalar against a matrix: the shape a definition gave is not relied on
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


def _comparable(a: sympy.Basic, b: sympy.Basic) -> bool:
    """Both scalars (or 1 × 1), or both matrices of provably one shape."""
    a, b = as_comparable(a, b)
    if isinstance(a, MatExpr) != isinstance(b, MatExpr):
        return False
    if isinstance(a, MatExpr) and isinstance(b, MatExpr):
        return dims_equal(a.rows, b.rows) and dims_equal(a.cols, b.cols)
    return True


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


@dataclass
class _Ahead:
    """A scalar the text declares at `line` (`\\beta_t \\in \\mathbb R` in a list after the
    formulas that use it): `subject` as written, and whether it is put in force now."""

    line: int
    subject: ast.Node
    key: str = ""
    entered: bool = False


def scalars_ahead(items: Sequence[object]) -> list[_Ahead]:
    """The declarations of scalar sequences (`\\beta_t \\in \\mathbb R`, a Greek letter with an
    index, alone in its formula) of a document, in order."""
    out: list[_Ahead] = []
    for item in items:
        if not isinstance(item, MathSpan):
            continue
        try:
            formula = parsed(blank_notes(item.body), item.env)
        except ParseError:
            continue
        claims = [x for x in formula.items if isinstance(x, ast.Claim)]
        if len(claims) != 1 or len(claims[0].subjects) != 1 or len(claims[0].steps) != 1:
            continue
        subject, step = claims[0].subjects[0], claims[0].steps[0]
        if step.rel != "in" or not _reals(step.rhs):
            continue
        if isinstance(subject, ast.Symbol) and subject.sub is not None and len(subject.name) > 1:
            out.append(_Ahead(item.start.line, subject))
    return out


def enter_scalars(ahead: list[_Ahead], terms: Terms, scope: Scope, line: int) -> None:
    """Before the formula at `line`: the scalar sequences the text declares later in the same
    section are scalars here (the text uses `\\beta_t` in the delta rule and says what it is
    in the list below it). Only a name that means nothing yet; `leave_scalars` takes them out."""
    section = _section(scope, line)
    for a in ahead:
        if a.line <= line or _section(scope, a.line) != section:
            continue
        found = _new_name(terms, a.subject)
        if found is None or found[1] == 0 or found[2] is not None:
            continue
        key, indices, _ = found
        terms.defs.table[key] = Defined(key, indices, None, "scalar", a.line)
        a.key, a.entered = key, True


def leave_scalars(ahead: list[_Ahead], terms: Terms) -> None:
    for a in ahead:
        if a.entered:
            terms.defs.table.pop(a.key, None)
            a.entered = False


def _section(scope: Scope, line: int) -> int:
    return sum(1 for s in scope.sections if s <= line)


def _reals(node: ast.Node) -> bool:
    """`\\mathbb R` with no exponent: the reals themselves."""
    return isinstance(node, ast.Reals) and not node.shape
