"""Deciding a claim about a derivative of entries (`∂s_i/∂z_j = s_i(δ_ij - s_j)`) by the kernel's
`prove_partial`, with what the derivative's entry is taken from the text's definitions.

Imports the kernel only; must not import the rest of check, the reader or cli.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import sympy

from symattn.kernel.backward import reads
from symattn.kernel.errors import SymattnError
from symattn.kernel.expr import MatSym
from symattn.kernel.jacobian import prove_partial
from symattn.kernel.partial import NOT_EVALUATED, Partial, has_partial
from symattn.kernel.proof import Verdict, unfold
from symattn.kernel.text import plain

__all__ = ["has_partial", "partial_verdict"]


def _alone(lhs: sympy.Basic, rhs: sympy.Basic) -> tuple[Partial, sympy.Basic] | None:
    for side, other in ((lhs, rhs), (rhs, lhs)):
        if isinstance(side, Partial) and not has_partial(side.of, side.wrt, other):
            return side, other
    return None


def partial_verdict(lhs: sympy.Basic, rhs: sympy.Basic, defs: Mapping[Any, Any]) -> Verdict:
    """The kernel's verdict on `∂y/∂x = value` (either way round): y and the value unfolded by
    the text's definitions, except the one of x's matrix, the variable held free (a derivative
    by an intermediate value of the text is taken with that value as the variable)."""
    found = _alone(lhs, rhs)
    if found is None:
        return Verdict("unknown", (), NOT_EVALUATED)
    d, value = found
    x = d.wrt.args[0]
    kept = {k: v for k, v in defs.items() if not (isinstance(k, MatSym) and k == x)}
    try:
        of, value = unfold(d.of, kept), unfold(value, kept)
        if x.name not in reads(of):
            return Verdict("unknown", (), _no_dependence(d, x))
        v = prove_partial(of, d.wrt, value)
    except SymattnError as e:
        return Verdict("unknown", (), f"the derivative is not decided: {e}")
    identity = v.identity
    if identity is not None and identity.status == v.status:
        return dataclasses.replace(identity, reason=_with_rules(identity.reason, v.rules))
    status = "unknown" if v.status in ("checked", "proved") else v.status
    return Verdict(status, (), _with_rules(v.reason, v.rules))  # type: ignore[arg-type]


def _no_dependence(d: Partial, x: MatSym) -> str:
    return (
        f"the text gives {plain(d.of)} no value the checker read in terms of {plain(x)}: "
        "the derivative is not decided (it would be 0 only if they were independent)"
    )


def _with_rules(reason: str, rules: tuple[tuple[str, Verdict], ...]) -> str:
    text = "by the directional derivative (D_E y)_a = Σ_b ∂y_a/∂x_b E_b"
    if rules:
        text += "; rules: " + ", ".join(f"{k} ({r.status})" for k, r in rules)
    return f"{reason} ({text})" if reason else text
