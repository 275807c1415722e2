"""Sign facts about entries: softmax weights are positive, masked weights non-negative.

Imports only the kernel below it (expr, canon, proof); must not import anything above the
kernel. A fact is proved structurally on the normal form.
"""

from __future__ import annotations

from typing import Literal

import sympy

from symattn.kernel.canon import normal_form
from symattn.kernel.expr import Entry, MatExpr, index
from symattn.kernel.orders import prove_order
from symattn.kernel.proof import Verdict
from symattn.kernel.ranges import infer_ranges

Sign = Literal["pos", "nonneg"]


def prove_positive(m: MatExpr | sympy.Expr, *, strict: bool = True) -> Verdict:
    """Every entry of `m` is > 0 (or >= 0 with `strict=False`), for all sizes; a scalar `m`
    is the difference of the sides of an order (`kernel.orders`).

    >>> from symattn.kernel.attention import single_head
    >>> prove_positive(single_head().weights).status
    'proved'
    >>> prove_positive(single_head(causal=True).weights).status
    'unknown'
    >>> prove_positive(single_head(causal=True).weights, strict=False).status
    'proved'
    """
    if not isinstance(m, MatExpr):
        return prove_order(m, strict=strict)
    i, j = index("i"), index("j")
    e = Entry(m, i, j)
    sign = sign_of(normal_form(e, infer_ranges(e)))
    want = "positive" if strict else "non-negative"
    if sign == "pos" or (sign == "nonneg" and not strict):
        return Verdict("proved", witnesses=("symbolic",), reason=f"every entry is {want}")
    return Verdict("unknown", reason=f"could not show every entry is {want}")


def sign_of(e: sympy.Basic) -> Sign | None:
    """'pos' or 'nonneg' when the structure of `e` shows it; None when it does not."""
    if e.is_Number:
        return "pos" if e > 0 else ("nonneg" if e == 0 else None)
    if isinstance(e, sympy.exp):
        return "pos"
    if isinstance(e, sympy.Symbol):
        return "pos" if e.is_positive else ("nonneg" if e.is_nonnegative else None)
    if isinstance(e, (sympy.Add, sympy.Mul)):
        return _weakest([sign_of(a) for a in e.args])
    if isinstance(e, sympy.Pow):
        base = sign_of(e.base)
        return "pos" if base == "pos" else None
    if isinstance(e, sympy.Sum):
        body = sign_of(e.function)
        nonempty = all((hi - lo).is_nonnegative for _, lo, hi in e.limits)
        if body == "pos" and nonempty:
            return "pos"
        return "nonneg" if body in ("pos", "nonneg") else None
    if isinstance(e, sympy.Piecewise):
        return _weakest([sign_of(v) for v, _ in e.args])
    return None


def _weakest(signs: list[Sign | None]) -> Sign | None:
    if any(s is None for s in signs):
        return None
    return "nonneg" if "nonneg" in signs else "pos"
