"""A shape declared for a name the text defined earlier (`\\mathrm{head_i} = \\ldots`, then
`\\operatorname{head}_i \\in \\mathbb R^{n\\times d_v}`): a claim about the definition's shape.

Imports sympy, the kernel and the reader's AST, spans, claims, scope and translator; never the
resolver, the checker or the CLI (`shape_claims.declaration` calls this).
"""

from __future__ import annotations

from symattn.kernel.dims import shape_str
from symattn.reader.claims.resolved import ResolvedClaim, shape_claim
from symattn.reader.syntax import ast
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.scope import Scope, Shape, same_shape
from symattn.reader.terms.translator import Problem, Terms, label_of

__all__ = ["declare_defined"]


def declare_defined(
    scope: Scope,
    terms: Terms,
    span: MathSpan,
    subject: ast.Node,
    shape: Shape,
    start: int,
    end: int,
) -> ResolvedClaim | None:
    """`subject \\in \\mathbb R^{a\\times b}` where `subject` is a name or a sequence term the
    text defined by an equation whose value's shape was read: the shapes agree (a shape claim
    for the checker) or the declaration contradicts the definition (a shape error). None when
    `subject` is no such name, its definition's shape is not known, or either is a vector."""
    if not isinstance(subject, ast.Symbol):
        return None
    bare = ast.Symbol(subject.name, subject.font, None, start=subject.start, end=subject.end)
    key = label_of(bare if subject.sub is not None else subject)
    defined = terms.defs.table.get(key)
    if defined is None or defined.params is not None or not isinstance(defined.value, tuple):
        return None
    if defined.indices != (0 if subject.sub is None else len(terms.indices(subject.sub))):
        return None
    got = scope.bind_shape(defined.value)
    want = scope.bind_shape(shape)
    if 1 in got or 1 in want:
        return None  # a vector: its row or column may be the text's choice, not a contradiction
    label = label_of(subject)
    if same_shape(got, want):
        msg = f"{label} is {shape_str(got)}, as its definition at line {defined.line} gives"
        return shape_claim(span, start, end, got, want, msg)
    raise Problem(
        "shape_error",
        f"{label} is {shape_str(got)} by its definition at line {defined.line}, "
        f"declared here {shape_str(want)}",
        subject,
    )
