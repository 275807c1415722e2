"""Families defined by a recurrence and a base case: `S_0 = 0`, `S_t = S_{t-1} + k_t^\\top v_t`.

Imports sympy, the kernel (expr, text, unfold) and the reader's AST, spans, claims, scope,
members and translator; never the resolver, the checker or the CLI (`member_claims` calls this).

Once a family has both, its members are read as the kernel's terms (`kernel.unfold`): `S_3` is
the recurrence written out, and a claim `S_t = ...` at a letter t is decided by induction on t.
"""

from __future__ import annotations

import sympy

from symattn.kernel.dims import dims_equal
from symattn.kernel.errors import ShapeError, SymattnError
from symattn.kernel.expr import HeadSym, MatExpr, walk
from symattn.kernel.text import plain
from symattn.kernel.unfold import named_after, zeros
from symattn.reader.claims.resolved import ResolvedClaim, new_claim
from symattn.reader.syntax import ast
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.members import (
    Member,
    family_letter,
    lookup_member,
    member_label,
    unfixed_sizes,
)
from symattn.reader.terms.scope import Scope, same_shape
from symattn.reader.terms.translator import UNREAD, Problem, Terms

__all__ = ["base_case", "record_recurrence"]

_BASES = ("0", "1")  # the indices a base case may have


def base_case(
    scope: Scope,
    terms: Terms,
    span: MathSpan,
    left: ast.Node,
    right: ast.Node,
    start: int,
    end: int,
) -> ResolvedClaim | None:
    """`S_0 = 0` (or `S_1 = ...`): the base case of the family S_•, before or after its
    recurrence; None when `left` is no member at 0 or 1, or the family has its base already
    or is defined otherwise (then the equation is a claim)."""
    letter = family_letter(left)
    if letter is None or not isinstance(left, ast.Symbol) or left.sub is None:
        return None
    if not isinstance(left.sub, ast.Number) or left.sub.text not in _BASES:
        return None
    index = int(left.sub.text)
    label = member_label(span.body, left)
    current = lookup_member(scope, letter)
    if current is None or not current.defined:  # not yet defined (maybe declared): pending
        if current is None and scope.document_matrix(letter):
            return None
        if letter in scope.top().bases:
            return None
        if index != 0 and _names_a_member(right):
            return None  # `Y_1 = X_1 + F(X_2)`: an equation between members, not a base case
        scope.top().bases[letter] = (index, right, label)
        msg = (
            f"{label}: the base case of the family {letter}_• (read with its recurrence, "
            "where the text gives one)"
        )
        return new_claim(span, start, end, "declared", msg)
    if current.recurrence is None or current.base is not None:
        return None
    _fix_from_base(terms, current, right)
    value = _base_value(terms, current, label, right)
    current.base = (index, value)
    msg = f"{label} = {plain(value)}: the base case of the recurrence {current.label}"
    return new_claim(span, start, end, "declared", msg)


def record_recurrence(
    scope: Scope, terms: Terms, family: Member, left: ast.Node, right: ast.Node
) -> bool:
    """After `S_t = f(S_{t-1}, t)` defined the family: keep the step when it names the family
    at t - 1 only (t a letter), with a base case read earlier; True when it is kept."""
    if not isinstance(left, ast.Symbol) or left.sub is None or not family.settled:
        return False
    index = terms.indices(left.sub)
    if len(index) != 1 or not isinstance(index[0], sympy.Symbol):
        return False
    t = index[0]
    try:
        step = terms.term(right)
    except (Problem, ShapeError, *UNREAD):  # read once already: if not again, keep nothing
        return False
    heads = {x for x in walk(step) if isinstance(x, HeadSym) and x.name == family.letter + "_"}
    if not isinstance(step, MatExpr) or len(heads) != 1:
        return False
    previous = heads.pop()
    if sympy.simplify(previous.head - (t - 1)) != 0 or named_after(t, step):
        return False  # `v_t` named after t is one matrix to the kernel: the value is not read
    family.recurrence = (step, previous, t)
    for layer in reversed(scope.layers):
        pending = layer.bases.pop(family.letter, None)
        if pending is not None:
            at, node, label = pending
            family.base = (at, _base_value(terms, family, label, node))
            break
    return True


def _names_a_member(node: ast.Node) -> bool:
    todo = [node]
    while todo:
        x = todo.pop()
        if family_letter(x) is not None:
            return True
        todo.extend(ast.children(x))
    return False


def _fix_from_base(terms: Terms, family: Member, node: ast.Node) -> None:
    """`H_0 = X` after `H_t = H_{t-1} W` left the rows of H_• open: the base case gives them,
    in the family's shape and its step, when it agrees with the sizes the step fixed."""
    if not unfixed_sizes(family.shape):
        return
    try:
        value = terms.term(node)
    except (SymattnError, RecursionError):
        return
    if not isinstance(value, MatExpr):
        return
    given: dict[sympy.Basic, sympy.Basic] = {}
    for have, got in zip(family.shape, value.shape, strict=True):
        if have.is_Symbol and unfixed_sizes((have,)):
            given[have] = got
        elif not dims_equal(have, got):
            return
    family.shape = (family.shape[0].xreplace(given), family.shape[1].xreplace(given))
    step, previous, t = family.recurrence
    family.recurrence = (step.xreplace(given), previous.xreplace(given), t)


def _base_value(terms: Terms, family: Member, label: str, node: ast.Node) -> MatExpr:
    """The base case's value: 0 is the zero matrix of the family's shape."""
    try:
        value = terms.term(node)
    except ShapeError as e:
        raise Problem("shape_error", str(e).splitlines()[0], node) from None
    if isinstance(value, sympy.Basic) and not isinstance(value, MatExpr) and value == 0:
        return zeros(*family.shape)
    if not isinstance(value, MatExpr) or not same_shape(value.shape, family.shape):
        what = "a scalar" if not isinstance(value, MatExpr) else "of another shape"
        shape = f"is {family.shape[0]} × {family.shape[1]}"
        kept = [
            f"{x} {side}"
            for x, side in zip(family.shape, ("rows", "columns"), strict=True)
            if not unfixed_sizes((x,))
        ]
        if len(kept) == 1:  # `H_t = H_{t-1} W` fixes the columns only
            shape = f"has {kept[0]}"
            if isinstance(value, MatExpr):
                what = f"{value.rows} × {value.cols}"
        raise Problem(
            "shape_error",
            f"the base case {label} = {plain(value)} is {what}: the family {family.label} {shape}",
            node,
        )
    return value
