"""A worked example's declaration of a conventional name that the chapter's shape does not fit
(`W_Q \\in \\mathbb R^{4096\\times 4096}` after `W_K \\in \\mathbb R^{4096\\times 1024}`).

Imports sympy, the kernel's dims and the reader's scope; never the parser, the checker or the CLI.
"""

from __future__ import annotations

import sympy

from symattn.kernel.dims import dims_equal, shape_str
from symattn.kernel.leaves import MatSym
from symattn.reader.terms.scope import Name, Scope, Shape

__all__ = ["departure", "guessed_operands", "note_guessed"]


def _guessed(scope: Scope) -> dict[sympy.Symbol, str]:
    out: dict[sympy.Symbol, str] = {}
    for layer in scope.layers:
        if layer.kind == "example":
            out.update(layer.guessed)
    return out


def departure(scope: Scope, current: Name, shape: Shape) -> str | None:
    """Why the chapter's shape of a conventional name does not fit the text's `shape`, when
    that rests on the conventions alone; `None` when it fits, or when the misfit is with a size
    the text itself gave (`n = 5`, then a 7-row Q: a shape error of the text).

    A size of the text's own in place of the chapter's (`X \\in \\mathbb R^{T\\times 4096}`
    for the chapter's n × d), or a number against a value that only another conventional
    name's shape gave (the chapter's W_Q and W_K share d_k; a text with grouped keys does not).
    """
    if current.origin != "convention":
        return None
    bound, guessed = scope.bindings, _guessed(scope)
    reasons: list[str] = []
    for have, want in zip(current.shape, shape, strict=True):
        got = have.xreplace(bound) if bound else have
        if dims_equal(got, want):
            continue
        if not want.is_number:
            if want.free_symbols & set(bound) or not got.free_symbols:
                return None  # a size of the text's own against one with a value: not settled
            reasons.append(f"{want} for the chapter's {have}")
            continue
        if not got.is_number:
            return None  # the usual worked example: the number gives the size its value
        givers = {guessed[x] for x in have.free_symbols if x in guessed}
        if not givers or any(x not in guessed for x in have.free_symbols):
            return None
        reasons.append(f"{have} = {got} was read from {', '.join(sorted(givers))}")
    if not reasons:
        return None
    return f"not the chapter's {shape_str(current.shape)}: {'; '.join(reasons)}"


def note_guessed(scope: Scope, label: str, new: dict[sympy.Symbol, sympy.Integer]) -> None:
    """Sizes a conventional name's shape gave their values (`d_k = 1024` from W_K)."""
    top = scope.example()
    for x in new:
        top.guessed[x] = label


def guessed_operands(scope: Scope, entry: Name | None, got: Shape, want: Shape) -> list[str]:
    """The names in the value of `entry`'s definition whose conventional shapes give it the
    size it has where the text's declaration says another (`Q = XW_Q`, then
    `Q \\in \\mathbb R^{n\\times d}`: the chapter's W_Q is d × d_k, the text's may be d × d):
    each such name with its shape (`W_Q (d × d_k)`). Empty without a definition, and when the
    misfit rests on shapes the text gave, so it is the text's own."""
    if entry is None or entry.definition is None:
        return []
    value = scope.bind(entry.definition)
    differ: set[sympy.Basic] = set()
    for have, need in zip(got, want, strict=True):
        if not dims_equal(have, need):
            differ |= have.free_symbols
    if not differ:
        return []
    out = []
    for leaf in sorted(value.atoms(MatSym), key=lambda m: m.name):
        entry = next(
            (x.names[leaf.name] for x in reversed(scope.layers) if leaf.name in x.names), None
        )
        if (
            entry is not None
            and entry.origin in ("convention", "inferred")
            and any(differ & x.free_symbols for x in leaf.shape)
        ):
            out.append(f"{leaf.name} ({shape_str(leaf.shape)})")
    return out
