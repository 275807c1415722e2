"""Deciding a claim about the gradient of the loss (`dL/dW = X^T dL/dY`) by the kernel's
vector–Jacobian identity, with how W enters Y taken from the text.

Imports the kernel and the reader's gradient names; must not import the rest of check or cli.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sympy

from symattn.kernel.backward import prove_gradient, reads
from symattn.kernel.errors import SymattnError
from symattn.kernel.expr import Entry, MatExpr, MatSym, Row, walk
from symattn.kernel.proof import Verdict, prove_equal, unfold
from symattn.kernel.text import plain
from symattn.reader.syntax.gradients import gradient_of

__all__ = [
    "NOT_INDEPENDENT",
    "THROUGH",
    "gradient_verdict",
    "mentions_gradient",
    "read_as_gradient",
    "readers_of",
]


def _gradients(*terms: sympy.Basic) -> list[MatSym]:
    out: list[MatSym] = []
    for t in terms:
        for x in walk(t):
            if isinstance(x, MatSym) and gradient_of(x.name) is not None and x not in out:
                out.append(x)
    return out


def mentions_gradient(lhs: sympy.Basic, rhs: sympy.Basic) -> bool:
    """Whether a side of the claim names the gradient of the loss."""
    return bool(_gradients(lhs, rhs))


def read_as_gradient(pairs: Any, letter: str) -> bool:
    """Whether a claim's sides name the gradient of `letter` (`dV` read as the gradient of V,
    not as d times V)."""
    terms = [t for pair in pairs for t in pair if isinstance(t, sympy.Basic)]
    return any(gradient_of(g.name) == ("∇", letter) for g in _gradients(*terms))


#: Why a gradient claim whose value names the gradients of an output and of what it reads is
#: undecided (`dS = P ∘ (dP - rowsum(dO ∘ O) 1^T)`: dP and dO are tied by the text's dP).
NOT_INDEPENDENT = "the upstream gradients are not of independent outputs"
#: Why a gradient claim whose value reads other gradients through definitions is undecided.
THROUGH = "through the text's definitions, which the vector–Jacobian identity takes free"


def _unknown(reason: str) -> tuple[Verdict, str]:
    return Verdict("unknown", (), reason), ""


def gradient_verdict(
    lhs: sympy.Basic, rhs: sympy.Basic, defs: Mapping[Any, Any]
) -> tuple[Verdict, str]:
    """The kernel's verdict on a claim `dL/dM = value` (either way round), and a note saying
    what the verdict rests on. The value must name the gradients of matrices Y the text
    defines (the upstream gradients, free matrices); M must enter the loss only through those
    Y by the text's definitions. Anything else is undecided, with the reason."""
    grads = _gradients(lhs, rhs)
    losses = {gradient_of(g.name)[0] for g in grads}  # type: ignore[index]
    if len(losses) > 1:
        return _unknown("the claim names the gradients of two losses")
    entry: tuple[sympy.Symbol, sympy.Symbol] | None = None
    for side, other in ((lhs, rhs), (rhs, lhs)):
        if _entry_of(side, grads) and side.args[0] not in _gradients(other):
            entry = (side.args[1], side.args[2])
            lhs, rhs = side, other
            break
    for x in walk(sympy.Tuple(lhs, rhs)):
        if isinstance(x, Row) and x.args[0] in grads:
            return _unknown("a row of a gradient: gradients are read as matrices and entries")
    if entry is not None:
        target, value = lhs.args[0], rhs
    elif isinstance(lhs, MatSym) and lhs in grads and lhs not in _gradients(rhs):
        target, value = lhs, rhs
    elif isinstance(rhs, MatSym) and rhs in grads and rhs not in _gradients(lhs):
        target, value = rhs, lhs
    else:
        return _as_matrices(lhs, rhs, defs)
    loss, wrt_name = gradient_of(target.name)  # type: ignore[misc]
    ups = _gradients(value)
    shown = _shown(loss)
    if not ups:
        return _unknown(
            f"the text does not say how {shown} depends on {wrt_name}, and the value names "
            "no gradient it is computed from"
        )
    names = [gradient_of(u.name)[1] for u in ups]  # type: ignore[index]
    by_name = {k.name: k for k in defs if isinstance(k, MatSym)}
    missing = [x for x in names if x not in by_name]
    if missing:
        return _unknown(f"the text does not say how {', '.join(missing)} is computed")
    try:
        return _decide(
            target, value, ups, [by_name[x] for x in names], defs, wrt_name, shown, entry
        )
    except SymattnError as e:
        return _unknown(f"the gradient is not decided: {e}")


def _as_matrices(
    lhs: sympy.Basic, rhs: sympy.Basic, defs: Mapping[Any, Any] = {}
) -> tuple[Verdict, str]:
    """`{X^\\nabla}^T = X^{\\nabla T}`: proved with every gradient a free matrix, it holds
    whatever the gradients are; anything short of a proof says nothing about them. With
    gradients the text has shown (in `defs`, `dA = dO V^T`), proved given them."""
    v = prove_equal(lhs, rhs)
    if v.status == "proved":
        return v, "for every value of the gradients"
    shown = [k for k in defs if isinstance(k, MatSym) and gradient_of(k.name) is not None]
    if shown:
        v = prove_equal(lhs, rhs, defs=dict(defs))
        if v.status in ("proved", "false"):
            # the shown gradients are proved; any other is a free upstream gradient, for
            # which a claim about every loss must hold
            given = ", ".join(f"{k.name} = {plain(defs[k])}" for k in shown)
            return v, f"given the gradients the text showed before ({given})"
    return _unknown("neither side is one gradient given by the other side")


def _entry_of(side: sympy.Basic, grads: list[MatSym]) -> bool:
    """`(\\partial L/\\partial W)_{ij}` with two distinct index letters."""
    if not (isinstance(side, Entry) and side.args[0] in grads):
        return False
    i, j = side.args[1], side.args[2]
    return isinstance(i, sympy.Symbol) and isinstance(j, sympy.Symbol) and i != j


def _shown(loss: str) -> str:
    return "the loss" if loss == "∇" else loss


def _decide(
    target: MatSym,
    value: sympy.Basic,
    ups: list[MatSym],
    outs: list[MatSym],
    defs: Mapping[Any, Any],
    wrt_name: str,
    loss: str,
    entry: tuple[sympy.Symbol, sympy.Symbol] | None = None,
) -> tuple[Verdict, str]:
    """The verdict with the loss reading `wrt` only through the outputs `outs`, whose upstream
    gradients `ups` are free matrices."""
    others = {k: v for k, v in defs.items() if not (isinstance(k, MatSym) and k.name == wrt_name)}
    for y in outs:
        later = sorted(x.name for x in _reached(defs[y], others) if x in outs)
        if later:
            return _unknown(f"{y.name} is computed from {', '.join(later)}: {NOT_INDEPENDENT}")
    through = _reading(wrt_name, {k: v for k, v in others.items() if k not in outs})
    on_way: set[Any] = set()
    for y in outs:
        on_way |= _reached(defs[y], {k: v for k, v in others.items() if k in through})
    shown = ", ".join(y.name for y in outs)
    bypass = sorted(k.name for k in through if k not in on_way)
    if bypass:
        return _unknown(
            f"{wrt_name} also enters {', '.join(bypass)} apart from {shown}: the gradient "
            f"through {shown} alone is not the whole gradient"
        )
    way = {k: v for k, v in others.items() if k in on_way}
    pairs = [(unfold(defs[y], way), u) for y, u in zip(outs, ups, strict=True)]
    wrt = next(
        (x for o, _ in pairs for x in walk(o) if isinstance(x, MatSym) and x.name == wrt_name),
        None,
    )
    if wrt is None or not all(isinstance(o, MatExpr) for o, _ in pairs):
        return _unknown(f"by the text's definitions {shown} does not depend on {wrt_name}")
    how = ", ".join(f"{y.name} = {plain(defs[y])}" for y in outs)
    given = ", ".join(plain(u) for u in ups)
    note = (
        f"by the vector–Jacobian identity with {given} free, "
        f"{loss} depending on {wrt_name} only through {how}"
    )
    if loss == _shown("∇"):
        note += f" (a loss the text does not define: {given}, the upstream gradient, is given)"

    seen = {**way, **{y: defs[y] for y in outs}}
    g = _prove(pairs, wrt, unfold(value, seen), entry)
    if g.status != "proved":
        # a verdict short of a proof is taken with every definition the claim reaches: a
        # name left free could make a true claim look false
        full = [(unfold(o, others), u) for o, u in pairs]
        whole = unfold(value, others)
        g = _prove(full, wrt, whole, entry)
        more = sorted(x.name for x in _gradients(whole) if x not in ups and x != target)
        if g.status != "proved" and more:
            # the value reads other gradients through the text's definitions (`D` of dO):
            # free here, they may be bound to the upstream ones by the text's other claims
            return _unknown(f"the value reads {', '.join(more)} {THROUGH} beside {given}")
    return _as_verdict(g), note


def _prove(pairs: list[tuple[Any, MatSym]], wrt: MatSym, value: Any, entry: Any) -> Any:
    (o, u), *more = pairs
    return prove_gradient(o, wrt, u, value, entry=entry, more=tuple(more))


def _reached(term: sympy.Basic, defs: Mapping[Any, Any]) -> set[Any]:
    """The defined names a term reaches through the definitions given."""
    seen: set[Any] = set()
    frontier = [term]
    while frontier:
        t = frontier.pop()
        for k, v in defs.items():
            if k not in seen and k.name in reads(t):
                seen.add(k)
                frontier.append(v)
    return seen


def readers_of(name: str, defs: Mapping[Any, Any]) -> set[Any]:
    """The defined names whose value reads `name`, directly or through other definitions."""
    return _reading(name, defs)


def _reading(name: str, defs: Mapping[Any, Any]) -> set[Any]:
    """The defined names whose value reads `name`, directly or through other definitions."""
    found: set[Any] = set()
    names = {name}
    grew = True
    while grew:
        grew = False
        for k, v in defs.items():
            if k not in found and reads(v) & names:
                found.add(k)
                names.add(k.name)
                grew = True
    return found


def _as_verdict(g: Any) -> Verdict:
    ident = g.identity
    if ident is None:
        claimed = g.status == "shape_error" and g.reason.startswith("the claimed gradient")
        return Verdict("shape_error" if claimed else "unknown", (), g.reason)
    if g.status == "checked" and not ident.sizes:
        return Verdict("agreed", ident.witnesses, g.reason, evidence=ident.evidence)
    reason = g.reason or ident.reason
    if g.status == "false":
        reason = (
            "not the gradient: for a direction E the vector–Jacobian identity "
            "<upstream, D_E output> = <claimed, E> fails"
        )
    return Verdict(
        g.status,
        ident.witnesses,
        reason,
        ident.counterexample,
        sizes=ident.sizes,
        evidence=ident.evidence,
    )
