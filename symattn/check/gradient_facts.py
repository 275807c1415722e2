"""The gradients a text has shown, used by its later claims: after `dA = dO V^T` is verified,
`rowsum(A ∘ dA) = rowsum(dO ∘ O)` is decided with dA given by it.

Imports the check's gradients and results and the kernel; must not import the rest of check or cli.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

import sympy

from symattn.check.gradients import NOT_INDEPENDENT, THROUGH, mentions_gradient, readers_of
from symattn.check.results import ClaimResult
from symattn.kernel.expr import Entry, MatSym, walk
from symattn.kernel.text import plain
from symattn.reader.syntax.gradients import gradient_of

__all__ = ["decide_in_order"]


def _lone_gradient(term: Any, entry: bool = True) -> bool:
    """A gradient alone (`dA`), or one entry of it (`dS_{ij}`) unless `entry` is False."""
    if entry and isinstance(term, Entry):
        term = term.args[0]
    return isinstance(term, MatSym) and gradient_of(term.name) is not None


def _fact(claim: Any, entry: bool = False) -> tuple[Any, sympy.Basic] | None:
    """`dA = dO V^T` (a gradient, alone on one side, given by other gradients): the pair; with
    `entry`, also `dS_{ij} = ...`."""
    if len(getattr(claim, "pairs", ())) != 1:
        return None
    lhs, rhs = claim.pairs[0]
    for side, other in ((lhs, rhs), (rhs, lhs)):
        gradient = side.args[0] if isinstance(side, Entry) else side
        if (
            _lone_gradient(side, entry)
            and gradient not in walk(other)
            and mentions_gradient(other, other)
        ):
            return side, other
    return None


class _Facts:
    """The verified gradient facts so far, each with the definitions in force when it was shown."""

    def __init__(self) -> None:
        self.known: dict[MatSym, tuple[sympy.Basic, Mapping[Any, Any]]] = {}

    def add(self, claim: Any) -> None:
        found = _fact(claim)
        if found is not None:
            self.known[found[0]] = (found[1], claim.defs)

    def usable(self, claim: Any) -> dict[MatSym, sympy.Basic]:
        """The facts a claim may use: a claim about gradients where no side is one gradient
        (those are decided by their own vector–Jacobian identity), and facts whose matrix
        enters everything it entered then exactly as now."""
        pairs = getattr(claim, "pairs", ())
        if getattr(claim, "status", "") != "pending" or not pairs or not self.known:
            return {}
        if any(_lone_gradient(a) or _lone_gradient(b) for a, b in pairs):
            return {}
        named = {x for a, b in pairs for x in walk(sympy.Tuple(a, b)) if isinstance(x, MatSym)}
        out: dict[MatSym, sympy.Basic] = {}
        for g, (value, then) in self.known.items():
            if g in named and _same_way(g, value, then, claim.defs):
                out[g] = value
        return out


def _same_way(
    g: MatSym, value: sympy.Basic, then: Mapping[Any, Any], now: Mapping[Any, Any]
) -> bool:
    """Whether g's matrix reaches the matrices of the upstream gradients in `value` by the
    same definitions now as when the fact was shown, and those matrices are defined alike (a
    name defined later from them, `D = rowsum(dO ∘ O)`, changes nothing)."""
    found = gradient_of(g.name)
    assert found is not None
    wrt = found[1]
    outs = {u[1] for x in walk(value) if isinstance(x, MatSym) and (u := gradient_of(x.name))}
    relevant = set(outs)
    for defs in (then, now):
        before = {k: v for k, v in defs.items() if isinstance(k, MatSym) and k.name not in outs}
        relevant |= {k.name for k in readers_of(wrt, before)}
    by_then = {k.name: (k, v) for k, v in then.items() if isinstance(k, MatSym)}
    by_now = {k.name: (k, v) for k, v in now.items() if isinstance(k, MatSym)}
    return all(by_then.get(k) == by_now.get(k) for k in relevant)


def decide_in_order(claims: list[Any], decide: Callable[[Any], ClaimResult]) -> list[ClaimResult]:
    """Every claim decided in file order; a claim about gradients is given the gradient facts
    the text verified before it, as definitions (its verdict names them)."""
    facts = _Facts()
    out: list[ClaimResult] = []
    for x in claims:
        if isinstance(x, ClaimResult):
            out.append(x)
            continue
        given = facts.usable(x)
        y = dataclasses.replace(x, defs={**x.defs, **given}) if given else x
        r = decide(y)
        if r.kind == "undecided" and (THROUGH in r.message or NOT_INDEPENDENT in r.message):
            r = _with_shown(x, facts, decide) or r
        out.append(r)
        if r.kind == "verified":
            facts.add(x)
    return out


def _with_shown(claim: Any, facts: _Facts, decide: Callable[[Any], ClaimResult]) -> Any:
    """`dS = A ∘ (dA - D 1^T)` with `D = rowsum(dO ∘ O)`: the value reads dO through D, so
    the gradients it names are not free; with the gradients the text showed before put in
    (`dA = dO V^T`), the claim is about dO alone and is decided. None when that decides
    nothing (or no fact applies)."""
    found = _fact(claim, entry=True) if len(claim.pairs) == 1 else None
    if found is None:
        return None
    target, value = found
    shown = {
        g: v
        for g, (v, then) in facts.known.items()
        if g not in walk(target) and g in walk(value) and _same_way(g, v, then, claim.defs)
    }
    if not shown:
        return None
    pairs = ((target, value.xreplace(shown)),)
    r = decide(dataclasses.replace(claim, pairs=pairs))
    if r.kind not in ("verified", "false"):
        return None
    given = ", ".join(f"{g.name} = {plain(v)}" for g, v in shown.items())
    note = f"; given the gradients the text showed before ({given})"
    return dataclasses.replace(r, message=r.message + note)
