"""Names declared anew with another shape (`X \\in \\mathbb R^{L\\times d}` after `X \\in
\\mathbb R^{n\\times d}`): the definitions made from the old one, read again under the new one.

Imports sympy, the kernel's errors and expressions and the reader's claims, scope and members;
never the resolver, the checker or the CLI.
"""

from __future__ import annotations

import dataclasses

import sympy

from symattn.kernel.errors import SymattnError
from symattn.kernel.expr import HeadSym, MatExpr, MatSym, walk
from symattn.reader.claims.resolved import ResolvedClaim
from symattn.reader.terms.scope import Name, Scope, Shape, same_shape

__all__ = ["rederive", "with_redeclared"]


def rederive(scope: Scope, name: str, family: bool, old: Shape, new: Shape) -> None:
    """`name` is declared here with shape `new`, where the definitions in force were made with
    `old`: each definition that reaches it is read again with the new shape (`Q = XW_Q` is
    L × d_k once X is L × d), and so are those made from them in turn. A definition that no
    longer typechecks is dropped, so the text's next formula for it defines it anew; a family
    of members defined by a form of the old name is dropped too. Every name so read again is
    noted in `scope.redeclared` with the declaration it rests on, for the claims that read it.

    >>> from symattn.kernel.dims import d, d_k, n
    >>> from symattn.kernel.expr import MatMul
    >>> L = sympy.Symbol("L", integer=True, positive=True)
    >>> s = Scope(); s.line = 9
    >>> s.document.names["Q"] = Name((n, d_k), "defined", 1, 4)
    >>> s.document.names["Q"].definition = MatMul(MatSym("X", n, d), MatSym("W_Q", d, d_k))
    >>> rederive(s, "X", False, (n, d), (L, d)); s.lookup("Q").shape, s.redeclared["Q"]
    ((L, d_k), 'X as redeclared at line 9')
    """
    if same_shape(old, new):
        return
    note = f"{name} as redeclared at line {scope.line}"
    queue: list[tuple[str, bool, Shape, Shape]] = [(name, family, old, new)]
    seen: set[tuple[str, bool]] = {(name, family)}
    while queue:
        key, fam, was, now = queue.pop()
        for layer in scope.layers[1:]:
            for table_family, table in ((False, layer.names), (True, layer.families)):
                for other, entry in list(table.items()):
                    if entry.definition is None or (other, table_family) in seen:
                        continue
                    if not _mentions(entry.definition, key, fam, was):
                        continue
                    seen.add((other, table_family))
                    shape = _again(table, other, entry, key, fam, now)
                    if shape is None:
                        scope.stale[other] = (
                            f"{note}, which its definition at line {entry.line} no longer fits"
                        )
                        continue
                    scope.redeclared[other] = note
                    if not same_shape(shape, entry.shape):
                        queue.append((other, table_family, entry.shape, shape))
            for letter, member in list(layer.members.items()):
                if key in member.uses and member.closed is not None:
                    del layer.members[letter]
                    scope.stale[f"{letter}_•"] = f"{note}, from which line {member.line} made it"


def _mentions(value: MatExpr, key: str, family: bool, shape: Shape) -> bool:
    kind = HeadSym if family else MatSym
    return any(
        isinstance(x, kind) and x.name == key and same_shape(x.shape, shape) for x in walk(value)
    )


def _again(
    table: dict[str, Name], other: str, entry: Name, key: str, family: bool, now: Shape
) -> Shape | None:
    """The entry's definition with `key` of shape `now` in place (its new shape), or None, the
    entry dropped, when it no longer typechecks."""
    assert entry.definition is not None
    swap: dict[sympy.Basic, sympy.Basic] = {}
    for x in walk(entry.definition):
        if family and isinstance(x, HeadSym) and x.name == key:
            swap[x] = HeadSym(key, x.head, *now)
        elif not family and isinstance(x, MatSym) and x.name == key:
            swap[x] = MatSym(key, *now)
    try:
        value = entry.definition.xreplace(swap)
    except (SymattnError, ValueError, TypeError):
        value = None
    if not isinstance(value, MatExpr):
        del table[other]
        return None
    table[other] = dataclasses.replace(entry, shape=value.shape, definition=value)
    return value.shape


def with_redeclared(claim: ResolvedClaim, scope: Scope) -> ResolvedClaim:
    """`claim`, noting the redeclarations behind the definitions it reads (`reading X as
    redeclared at line 8`); a shape error or a `false` that reads a definition the
    redeclaration left stale, or read again with it, is undecided (`ResolvedClaim.redeclared`)."""
    if not scope.redeclared and not scope.stale:
        return claim
    used = set(scope.reads) | {x.name for x in walk_names(claim)}
    stale = sorted(k for k in scope.stale if k in used or (k.endswith("•") and k[:-1] in used))
    again = sorted({scope.redeclared[k] for k in used if k in scope.redeclared})
    if stale:
        said = "; ".join(f"{k} read without its definition: {scope.stale[k]}" for k in stale)
        if claim.status == "shape_error":
            msg = f"not decided: {claim.message}; but {said}"
            return dataclasses.replace(claim, status="unknown", message=msg, pairs=())
        return dataclasses.replace(claim, redeclared=said)
    if not again:
        return claim
    note = "reading " + ", ".join(again)
    # the names read again are the checker's own derivation: the text never restated them with
    # the new shape, and may still mean the ones it defined before; a verdict against the
    # claim that rests on them is undecided
    why = f"{note}, which the text did not restate: it may still mean the earlier shapes"
    if claim.status in ("pending", "shape"):
        context = f"{claim.context}; {note}" if claim.context else note
        return dataclasses.replace(claim, context=context, redeclared=why)
    if claim.status == "shape_error":
        msg = f"not decided: {claim.message} ({why})"
        return dataclasses.replace(claim, status="unknown", message=msg, pairs=())
    return claim


def walk_names(claim: ResolvedClaim) -> set[MatSym | HeadSym]:
    return {
        x
        for pair in claim.pairs
        for side in pair
        for x in walk(side)
        if isinstance(x, (MatSym, HeadSym))
    }
