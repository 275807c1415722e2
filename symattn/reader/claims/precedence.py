"""A slash whose reach the formula leaves open: `1/2x` is `(1/2)x` or `1/(2x)`, `6/2\\cdot 3` is
`(6/2)\\cdot 3` or `6/(2\\cdot 3)`; the second reading, and one claim made of both.
Imports the reader's AST and resolved claims only; never the translator, the kernel or check.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from symattn.reader.claims.resolved import ResolvedClaim
from symattn.reader.syntax import ast

__all__ = ["Reach", "both_readings", "other_reading", "prefers_second"]

#: Letters that open a differential (`dy/dx`, `\partial L/\partial W`): a quotient of
#: differentials, whose slash reaches exactly the differential after it.
_DIFFERENTIALS = frozenset({"d", "partial", "nabla", "delta", "Delta"})


#: A reading that means something: a claim for the kernel, about shapes, or a definition.
_READ = ("pending", "shape", "declared")


@dataclass(frozen=True)
class Reach:
    """The formula read with its one open slash reaching the other way (`claim`), and the two
    readings in the text's notation, the grammar's first (`readings`); `sites` > 1: several
    open slashes, whose readings are not all formed (a claim resting on them is undecided)."""

    claim: ast.Claim
    readings: str
    sites: int = 1


def other_reading(c: ast.Claim, body: str) -> Reach | None:
    """The formula with its open slash read the other way; None when every slash is closed.

    The grammar binds juxtaposition tighter than `/` and reads `/`, `\\cdot`, `\\times` left to
    right: `1/2x` as `1/(2x)`, `6/2\\cdot 3` as `(6/2)\\cdot 3`. Texts write both meanings, so
    the other reading is `(1/2)x`, `6/(2\\cdot 3)`. A slash followed by one factor (`a/b`,
    `a/b/c`, `QK^T/\\sqrt{d_k}`) is closed, and so is a product of fractions (`a/b \\cdot c/d`,
    the same left to right as fraction by fraction); so is a claim about a set (`\\in`).

    >>> from symattn.reader.syntax.parse import parse_formula
    >>> body = "1/2x = y"
    >>> reach = other_reading(parse_formula(body).items[0], body)
    >>> reach.readings
    '1/2x as 1/(2x), or as (1/2)x'
    >>> ast.dump(reach.claim.subjects[0])
    '(1 / 2 \\\\cdot x)'
    >>> other_reading(parse_formula("a/b = c").items[0], "a/b = c") is None
    True
    """
    if any(step.rel == "in" for step in c.steps):
        return None
    found: list[str] = []

    def go(x: ast.Node) -> ast.Node:
        updates: dict[str, object] = {}
        for f in dataclasses.fields(x):
            if f.name in ("start", "end"):
                continue
            v = getattr(x, f.name)
            if isinstance(v, ast.Node):
                nv: object = go(v)
            elif isinstance(v, tuple):
                nv = tuple(go(i) if isinstance(i, ast.Node) else i for i in v)
            else:
                continue
            if nv is not v and nv != v:
                updates[f.name] = nv
        if updates:
            x = dataclasses.replace(x, **updates)  # type: ignore[arg-type]
        if isinstance(x, ast.Mul):
            return _flip(x, body, found)
        return x

    sides = tuple(cast(ast.Expr, go(s)) for s in c.subjects)
    steps = tuple(dataclasses.replace(s, rhs=cast(ast.Expr, go(s.rhs))) for s in c.steps)
    if not found:
        return None
    alt = dataclasses.replace(c, subjects=sides, steps=steps)
    return Reach(alt, "; ".join(dict.fromkeys(found)), len(found))


def _flip(node: ast.Mul, body: str, found: list[str]) -> ast.Node:
    """The chain with its first open slash read the other way (recorded in `found`)."""
    fs, ops = node.factors, node.ops
    for k, op in enumerate(ops):
        if op != "/":
            continue
        after = fs[k + 1]
        num = _text(body, fs[k])
        if (
            isinstance(after, ast.Product)
            and len(after.factors) >= 2
            and not _differential(after.factors[0])
        ):
            first, rest = after.factors[0], after.factors[1:]
            tail: ast.Expr = (
                rest[0] if len(rest) == 1 else ast.Product(rest, start=rest[0].start, end=after.end)
            )
            den, more = _text(body, first), _text(body, tail)
            found.append(
                f"{num}/{_text(body, after)} as {num}/({_text(body, after)}), "
                f"or as ({num}/{den}){more}"
            )
            new_fs = (*fs[: k + 1], first, tail, *fs[k + 2 :])
            new_ops = (*ops[: k + 1], "cdot", *ops[k + 1 :])
            return dataclasses.replace(node, factors=new_fs, ops=new_ops)
        if k + 1 < len(ops) and ops[k + 1] in ("cdot", "times") and not _differential(after):
            j = k + 1
            while j < len(ops) and ops[j] in ("cdot", "times"):
                j += 1
            if j < len(ops):
                continue  # `2/3 \cdot 2/3`: a product of fractions, left to right
            group = ast.Mul(fs[k + 1 : j + 1], ops[k + 1 : j], start=after.start, end=fs[j].end)
            den, one = _text(body, group), _text(body, after)
            found.append(f"{num}/{den} as ({num}/{one}){den[len(one) :]}, or as {num}/({den})")
            return dataclasses.replace(
                node, factors=(*fs[: k + 1], group, *fs[j + 1 :]), ops=(*ops[:k], "/", *ops[j:])
            )
    return node


def _differential(x: ast.Node) -> bool:
    while isinstance(x, ast.Product) and x.factors:
        x = x.factors[0]
    return isinstance(x, ast.Symbol) and x.name in _DIFFERENTIALS and x.font in (None, "mathrm")


def _text(body: str, x: ast.Node) -> str:
    return body[x.start : x.end].strip()


def both_readings(
    first: Sequence[ResolvedClaim], second: Sequence[ResolvedClaim] | None, reach: Reach
) -> list[ResolvedClaim]:
    """The claims of a formula with an open slash, from its two readings claim by claim.

    Where both are for the kernel, one claim read two ways (`split`): a verdict only when the
    readings agree. Where one reading is ill-typed and the other is read, the other is the
    formula's meaning (no text divides by a matrix). Any other mix, or a formula with several
    open slashes (`second` None), leaves a claim for the kernel undecided, naming the readings."""
    why = f"the formula reads two ways ({reach.readings})"
    if second is None or len(second) != len(first):
        return [_open(a, why) for a in first]
    out = []
    for a, b in zip(first, second, strict=True):
        out.append(_pair(a, b, why, reach.readings))
    return out


def prefers_second(first: Sequence[ResolvedClaim], second: Sequence[ResolvedClaim]) -> bool:
    """Whether the other reading is the formula's meaning: the grammar's does not typecheck
    where the other does (`1/\\sqrt{d_k} QK^T` divides by a matrix)."""
    return len(first) == len(second) and any(
        _ill_typed(a) and b.status in _READ for a, b in zip(first, second, strict=True)
    )


def _pair(a: ResolvedClaim, b: ResolvedClaim, why: str, readings: str) -> ResolvedClaim:
    if (a.start, a.end) != (b.start, b.end):
        return _open(a, why)
    if a.status == "pending" and b.status == "pending":
        if a.pairs == b.pairs:
            return a
        if a.split or b.split or a.sign is not None or b.sign is not None:
            return _open(a, why)
        if a.tolerance != b.tolerance or a.negated != b.negated:
            return _open(a, why)
        return dataclasses.replace(
            a, pairs=(*a.pairs, *b.pairs), split=len(a.pairs), readings=readings, pinnable=False
        )
    for bad, good in ((a, b), (b, a)):
        if _ill_typed(bad) and good.status in _READ:
            note = f"read the only way that typechecks: {readings}"
            context = f"{good.context}; {note}" if good.context else note
            return dataclasses.replace(good, context=context)
    if a.status == b.status == "shape_error":
        return a  # ill-typed either way
    if a.status == b.status and a.pairs == b.pairs and a.shapes == b.shapes:
        return a
    return _open(a, why)


def _ill_typed(c: ResolvedClaim) -> bool:
    """A reading the translator could not type (`cannot divide the scalar 1 by the matrix
    QK^T`), not one the reader refuted (a relation between sizes that fails)."""
    return c.status == "shape_error" and c.message.startswith("cannot ")


def _open(a: ResolvedClaim, why: str) -> ResolvedClaim:
    """A claim for the kernel (or a verdict of the reader's) that rests on one reading:
    undecided, naming both."""
    if a.status not in ("pending", "shape", "shape_error"):
        return a
    msg = f"{why}, and not both of them are decided"
    return dataclasses.replace(a, status="unknown", message=msg, pairs=(), split=0)
