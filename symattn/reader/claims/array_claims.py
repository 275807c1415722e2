"""Arrays of order 3 or more the text declares (`X \\in \\mathbb R^{B\\times L\\times d}`): read as
one matrix of the last two sizes per element of the leading ones (a batch, the heads), as the
texts compute with them (`X W_Q` multiplies each L × d slice). Imports sympy, the kernel's
text and the reader's AST, claims and names; never the resolver, the checker or the CLI
(`shape_claims.declaration` calls this).

The reading is a guess (a transpose or a sum of such an array may mean other axes): a claim
that uses the name says so, and a false verdict or a shape error that rests on it is
undecided (`terms.names` notes the guess, `check.guessed` reads it).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import sympy

from symattn.kernel.text import plain
from symattn.reader.claims.resolved import ResolvedClaim
from symattn.reader.syntax import ast
from symattn.reader.terms.names import plain_name

__all__ = ["batch_shape", "forget_array", "with_batch"]

Shape = tuple[sympy.Expr, sympy.Expr]


def batch_shape(scope: Any, terms: Any, subject: ast.Node, reals: ast.Reals) -> Shape | None:
    """The matrix shape (the last two sizes) that `X \\in \\mathbb R^{B\\times L\\times d}`
    gives a name the text has not declared (or only the chapter's conventions give a shape),
    noting the array; None for anything else (an expression, a name the text declared: the
    claim stays unread)."""
    name = plain_name(subject) if isinstance(subject, ast.Symbol) else None
    if name is None or name in scope.dims or len(reals.shape) < 3:
        return None
    entry = scope.lookup(name)
    known = entry is not None and getattr(entry, "origin", "") != "convention"
    if known and name not in scope.arrays:
        return None  # a matrix of the text's: the claim stays unread
    sizes = [terms.dim_term(x) for x in reals.shape]
    shown = [plain(x) for x in sizes]
    scope.arrays[name] = (" × ".join(shown), " × ".join(shown[:-2]))
    return sizes[-2], sizes[-1]


def with_batch(claim: ResolvedClaim, name: str, scope: Any) -> ResolvedClaim:
    """The declaration, saying how the array is read."""
    whole, lead = scope.arrays[name]
    msg = f"{claim.message}, one per element of {lead} of its {whole} array (read per element)"
    return dataclasses.replace(claim, message=msg)


def forget_array(scope: Any, name: str | None) -> None:
    """A matrix's shape declared for `name` after the text declared it an array: the array is
    forgotten with the slice it was read as (a view of another shape is no conflict)."""
    arrays: dict[str, tuple[str, str]] | None = getattr(scope, "arrays", None)
    if arrays is None or name is None or arrays.pop(name, None) is None:
        return
    for layer in scope.layers[1:]:
        layer.names.pop(name, None)
