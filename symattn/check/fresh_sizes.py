"""A false claim read with shapes inferred for names the text never declares: the sizes the
inference had to leave open (`cols(Q_R)`) may be sizes the text names. Imports the kernel only.

`\\mathrm{Attention}(Q_R, K_R, V) = \\mathrm{softmax}(Q_RK_R^T/\\sqrt{d_k})V` holds when Q_R is
d_k wide and fails otherwise: read with a width of its own for Q_R, it is false, yet the text
means it for the width it has in mind. Such a verdict is only the inference's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import sympy

from symattn.kernel.dims import assume, dim_str
from symattn.kernel.expr import MatSym, walk

__all__ = ["coincidence", "open_sizes"]

#: the sizes the shape inference makes for a name it cannot tie to a size of the text
#: (`symattn.reader.terms.unify._fresh`)
_FRESH = re.compile(r"^(?:rows|cols|len)\(")
#: at most this many identifications are tried (each is one more kernel decision)
_TRIES = 12


def _dims(exprs: list[Any]) -> set[sympy.Symbol]:
    """The sizes `exprs` speak of: those of their matrices' shapes, and the positive integer
    symbols of their scalars (`\\sqrt{d_k}`)."""
    out: set[sympy.Symbol] = set()
    for e in exprs:
        if not isinstance(e, sympy.Basic):
            continue
        for m in walk(e):
            if isinstance(m, MatSym):
                for x in m.shape:
                    out |= {s for s in x.free_symbols if isinstance(s, sympy.Symbol)}
        out |= {
            s
            for s in e.free_symbols
            if isinstance(s, sympy.Symbol) and s.is_integer and s.is_positive
        }
    return out


def coincidence(
    pairs: list[tuple[Any, Any]],
    defs: Mapping[Any, Any],
    prove: Callable[[Any, Any, Mapping[Any, Any]], Any],
) -> str:
    """'' if no size left open by the inference can matter, else why the `false` is the
    inference's: `cols(Q_R) = d_k` makes the claim hold (the kernel proves or checks it
    with that size identified), or the open sizes were not all tried.

    >>> from symattn.kernel.dims import dim
    >>> from symattn.kernel.expr import MatSym
    >>> w, d_k = dim("cols(M)"), dim("d_k")
    >>> M, N = MatSym("M", 2, w), MatSym("N", 2, d_k)
    >>> class V:  # a stand-in for the kernel's verdict
    ...     def __init__(self, ok): self.status = "proved" if ok else "false"
    >>> coincidence([(M, N)], {}, lambda a, b, defs: V(a.shape == b.shape))
    'it holds with cols(M) = d_k'
    >>> coincidence([(N, N.T)], {}, lambda a, b, defs: V(False))
    ''
    """
    exprs = [x for p in pairs for x in p] + [x for kv in defs.items() for x in kv]
    sizes = _dims(exprs)
    fresh = sorted((s for s in sizes if _FRESH.match(s.name)), key=str)
    if not fresh:
        return ""
    known = sorted((s for s in sizes if not _FRESH.match(s.name)), key=str)
    candidates = [(f, t) for f in fresh for t in [*known, *fresh] if t != f]
    for f, t in candidates[:_TRIES]:
        swap = {f: t}
        try:
            got = [
                prove(
                    sympy.sympify(a, strict=True).xreplace(swap),
                    sympy.sympify(b, strict=True).xreplace(swap),
                    {k.xreplace(swap): v.xreplace(swap) for k, v in defs.items()},
                )
                for a, b in pairs
            ]
        except Exception:  # noqa: BLE001 - a reading that does not go through is no evidence
            continue
        if got and all(v.status in ("proved", "checked") for v in got):
            return f"it holds with {dim_str(f)} = {dim_str(t)}"
    if len(candidates) > _TRIES:
        return f"the sizes it leaves open ({', '.join(map(dim_str, fresh))}) were not all tried"
    return ""


def open_sizes(
    claim: Any,
    prove: Callable[..., Any],
    status: str,
    message: str,
    witnesses: tuple[str, ...],
    cex: str | None,
) -> tuple[str, str, tuple[str, ...], str | None]:
    """The kernel's verdict on `claim`; a `false` that rests on sizes the shape inference
    left open (the claim was read with inferred shapes, `with Q_R: ... inferred from line 3`)
    is undecided when identifying such a size with another makes it hold."""
    if status != "false" or "inferred from" not in (getattr(claim, "context", "") or ""):
        return status, message, witnesses, cex
    hypotheses = tuple(getattr(claim, "hypotheses", ()))
    with assume(**claim.assumptions):
        why = coincidence(
            list(claim.pairs), claim.defs, lambda a, b, defs: prove(a, b, defs, hypotheses)
        )
    if not why:
        return status, message, witnesses, cex
    msg = (
        f"undecided: {message}; but that rests on sizes the text leaves open for names it "
        f"never declares, and {why} (declare their shapes)"
    )
    return "unknown", msg, (), None
