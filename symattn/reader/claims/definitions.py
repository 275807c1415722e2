"""Definitions written in a document: a matrix (`Q = XW_Q`), a head family (`Z^{(h)} = ...`), a
matrix row by row (`z_i = (AV)_{i,:}`), and a sequence of numbers (`c_i = -\\max_j S_{ij}`).

Imports sympy, the kernel and the reader's AST, spans, claims, scope, translator and
`written_matrices`; never the resolver, the checker or the CLI.
"""

from __future__ import annotations

import dataclasses
import re

import sympy

from symattn.kernel.dims import shape_str
from symattn.kernel.expr import MatExpr, MatSym, index
from symattn.kernel.text import plain
from symattn.reader.claims.redeclared import rederive
from symattn.reader.claims.resolved import ResolvedClaim, new_claim, shape_claim
from symattn.reader.claims.written_matrices import pending
from symattn.reader.syntax import ast
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.names import plain_name
from symattn.reader.terms.problems import not_understood
from symattn.reader.terms.scope import HEAD, Name, Scope, same_shape
from symattn.reader.terms.steps import step_vector
from symattn.reader.terms.translator import KEEP_FONTS, Problem, Terms

__all__ = ["define", "head_symbol", "row_definition", "sequence_definition"]


def define(
    scope: Scope,
    terms: Terms,
    span: MathSpan,
    name: str,
    head: sympy.Symbol | None,
    right: ast.Node,
    start: int,
    end: int,
) -> ResolvedClaim:
    """`name = right` (`name^{(head)}` for a family): a definition, or, when `name` is already
    defined in this section, an identity to prove."""
    family = head is not None
    rhs = terms.term(right)
    if not isinstance(rhs, MatExpr):
        raise not_understood(f"{name} is a matrix but the right side is a scalar", right)
    current = scope.lookup(name, family)
    here = current is not None and current.definition is not None and scope.local(current)
    # `X = 2X`, `Q = QW` after X is declared: an equation about X, not a value for it
    about = current is not None and current.origin == "declared" and not family
    about = about and _writes(right, name)
    if current is not None and (about or (here and not scope.redefining)):
        lhs = terms.named(name, head, current)
        claim = pending(scope, span, start, end, ((lhs, rhs),))
        if not about and current.definition is not None:
            # `O = (QK^T \odot M)V`, then "without the mask" `O = (QK^T)V`: a text that
            # presents variants gives O each one in turn; false, it is undecided
            was = plain(scope.bind(current.definition))
            why = (
                f"{name} is defined at line {current.line} as {was}, and the text may give "
                f"{name} another value here (a variant), not state an identity"
            )
            return dataclasses.replace(claim, defines=why)
        if not about:
            return claim
        why = (
            f"it may give {name} a new value made from its old one "
            f"(an update, {name} ← {plain(rhs)}), not state an identity"
        )
        return dataclasses.replace(claim, defines=why)
    label = f"{name}^({head})" if family else name
    shape = rhs.shape
    capital = re.match(r"\s*(?:\\[A-Za-z]+\{)?[A-Z]", span.body[start:end]) is not None
    alias = _supposed_alias(scope, name, current, rhs) if capital and not family else ""
    if alias:
        return new_claim(span, start, end, "unknown", alias)
    new = Name(shape, "defined", scope.section, scope.line, HEAD if family else None)
    earlier = ""
    if current is not None and current.origin == "declared" and 0 < current.section < scope.section:
        declared = scope.bind_shape(current.shape)
        if not same_shape(declared, shape):
            # `W \in \mathbb R^{n\times m}` in one section, `W = QK^T` in a later one: each
            # section may name its own matrices; what was made from the old W is read again
            earlier = f" (was declared {shape_str(declared)} at line {current.line}, in an "
            earlier += "earlier section)"
            rederive(scope, name, family, current.shape, shape)
    if current is not None and current.origin == "declared" and not earlier:
        declared = scope.bind_shape(current.shape)
        if not same_shape(declared, shape):
            where = f"line {current.line}" if current.line else "the conventions"
            raise Problem(
                "shape_error",
                f"{label} is declared {shape_str(declared)} ({where}) but "
                f"{plain(rhs)} is {shape_str(shape)}",
                right,
            )
    new.definition = _rename_head(rhs, head) if family else rhs
    table = scope.top().families if family else scope.top().names
    table[name] = new
    scope.stale.pop(name, None)
    if current is not None and here:  # `let Q = XW_Q'` after `Q = XW_Q` in this section
        assert current.definition is not None
        was = f"was {plain(scope.bind(current.definition))}, line {current.line}"
        msg = f"redefines {label} = {plain(rhs)} ({was}); later claims use the new one"
        return new_claim(span, start, end, "declared", msg)
    if current is not None and same_shape(scope.bind_shape(current.shape), shape):
        msg = f"definition of {label}: both sides are {shape_str(shape)}"
        return shape_claim(span, start, end, shape, scope.bind_shape(current.shape), msg)
    before = earlier
    if current is not None and not earlier:
        before = f" (was {shape_str(scope.bind_shape(current.shape))})"
    msg = f"defines {label} = {plain(rhs)}, a {shape_str(shape)} matrix{before}"
    return new_claim(span, start, end, "declared", msg)


def _supposed_alias(scope: Scope, name: str, current: Name | None, rhs: MatExpr) -> str:
    """`K = V` written with the capitals, between the chapter's K, which the text never
    declared, and a matrix with no value of another shape (`K` n × d_k, `V` n × d_v): "when
    K = V" supposes it, or chooses it; as a definition it would give K another shape for the
    rest of the text. Neither is checked: '' when it is a plain definition (`k_i = x_i`)."""
    if current is None or current.origin != "convention" or not isinstance(rhs, MatSym):
        return ""  # (a name the text declared, set equal to another: an identity it states)
    other = scope.lookup(rhs.name)
    if rhs.name == name or other is None or other.definition is not None:
        return ""
    if same_shape(scope.bind_shape(current.shape), scope.bind_shape(rhs.shape)):
        return ""
    return (
        f"not decided: {name} = {rhs.name} equates two matrices the text gives no value, of "
        f"shapes {shape_str(scope.bind_shape(current.shape))} and {shape_str(rhs.shape)}: a "
        f"supposition or a choice of the text, which the checker does not take as a new "
        f"shape for {name}"
    )


def _writes(node: ast.Node, name: str) -> bool:
    """Whether the name itself (not a row or an entry of it: `S = s_1, \\ldots` lists rows)
    is written in `node`."""
    if isinstance(node, ast.Symbol | ast.Labeled):  # `W_K` does not write K
        return plain_name(node) == name
    return any(_writes(k, name) for k in ast.children(node))


def row_definition(scope: Scope, left: ast.Node, right: ast.Node) -> str | None:
    """`z_i = (AV)_{i,:}` defines Z = AV row by row, unless Z is defined in this section
    (then it is an identity to prove): the same index on both sides, every row at once."""
    if not (
        isinstance(left, ast.Symbol)
        and left.font in KEEP_FONTS
        and len(left.name) == 1
        and left.name.islower()
        and isinstance(left.sub, ast.Symbol)
        and isinstance(right, ast.IndexedGroup)
        and isinstance(right.index, ast.Seq)
        and len(right.index.items) == 2
        and right.index.items[1] == ast.Symbol("colon", start=0, end=0)
        and right.index.items[0] == left.sub
    ):
        return None
    name = left.name.upper()
    current = scope.lookup(name)
    if current is not None and current.definition is not None and scope.local(current):
        return None
    return name


def row_alias(scope: Scope, left: ast.Node, right: ast.Node) -> ast.Symbol | None:
    """`\\mathbf k_i = \\mathbf x_i` (`q`, `k`, `v` and the inputs `x`) where the document has
    no K of its own (only the chapter's convention): the text names its keys after its inputs,
    so K is defined as X (the matrix node to define it by is returned). With a K of the
    document's own, or between two of q, k, v (`\\mathbf k_i=\\mathbf v_i` asserts, it does
    not name), it is an identity to prove, as before."""
    if not (
        isinstance(left, ast.Symbol)
        and isinstance(right, ast.Symbol)
        and left.font in KEEP_FONTS
        and right.font in KEEP_FONTS
        and len(left.name) == 1
        and len(right.name) == 1
        and left.name.islower()
        and right.name == "x"
        and left.name in "qkv"
        and isinstance(left.sub, ast.Symbol)
        and left.sub == right.sub
        and left.sub.sub is None
    ):
        return None
    own = scope.lookup(left.name.upper())
    if own is not None and own.origin != "convention":
        return None
    if scope.lookup(right.name.upper()) is None:
        return None
    return ast.Symbol(right.name.upper(), right.font, None, start=right.start, end=right.end)


def sequence_definition(scope: Scope, span: MathSpan, c: ast.Claim) -> ResolvedClaim | None:
    r"""`c_i = -\max_j S_{ij}`: a letter with one index that names nothing in scope is
    defined here, a sequence of numbers (one per position); a premise, never checked."""
    left = c.subjects[0]
    if not (
        len(c.steps) == 1
        and isinstance(left, ast.Symbol)
        and left.font is None
        and len(left.name) == 1
        and left.name.islower()
        and isinstance(left.sub, ast.Symbol)
        and left.sub.sub is None
        and left.name not in scope.dims
        and scope.lookup(left.name.upper()) is None
        and left.name not in scope.sequences
    ):
        return None
    if step_vector(scope, left) is not None:
        return None  # `h_t = W h_{t-1}` of a declared vector h: vectors, one per step
    if constant_right(span.body[c.start : c.end], left.sub.name):
        return None  # `p_o = 100`: the text names a number after its role (o), not a sequence
    scope.sequences[left.name] = scope.dims["n"]
    scope.defined_sequences.setdefault(left.name, span.start.line)
    msg = f"defines the numbers {left.name}_{left.sub.name}, one per position (a premise)"
    return new_claim(span, c.start, c.end, "declared", msg)


def constant_right(source: str, sub: str) -> bool:
    r"""The right side of `x_i = ...` is a number that does not mention the index i.

    >>> constant_right("p_o = 100", "o"), constant_right("c_i = -\\max_j S_{ij}", "i")
    (True, False)
    """
    _, eq, right = source.partition("=")
    return bool(eq) and re.fullmatch(r"\s*-?\s*[\d.,{}\s]+\s*", right) is not None


def head_symbol(node: ast.Node) -> sympy.Symbol | None:
    """The head letter of a family's superscript, `h` of `Z^{(h)}` (None for `Z^{(1)}`)."""
    if isinstance(node, ast.Symbol) and node.sub is None and len(node.name) == 1:
        return index(node.name)
    return None


def _rename_head(e: MatExpr, head: sympy.Symbol | None) -> MatExpr:
    """A family's definition is kept with the head letter `h`, the letter Concat uses."""
    if head is None or head == HEAD:
        return e
    return e.xreplace({head: HEAD})
