"""Partial derivatives of one entry by another (`∂s_i/∂z_j` for `s = softmax(z)`), as a kernel
term, decided by the directional derivative: `∂y_a/∂x_b = J(a, b)` for every a, b exactly when
`(D_E y)_a = Σ_b J(a, b) E_b` for every direction E.

Imports only sympy and the kernel below it (backward, dims, errors, expr, proof); must not
import anything above the kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy

from symattn.kernel.backward import RULES, NoDerivative, _directional, reads, rule_truth
from symattn.kernel.errors import ShapeError
from symattn.kernel.expr import Entry, MatExpr, MatSym
from symattn.kernel.partial import Partial
from symattn.kernel.proof import Verdict, prove_equal
from symattn.kernel.text import plain

__all__ = ["Partial", "PartialVerdict", "prove_partial"]


@dataclass(frozen=True)
class PartialVerdict:
    """The verdict on `∂y_a/∂x_b = J`: the kernel's verdict on `(D_E y)_a = Σ_b J E_b`
    (`identity`) and on every derivative rule that computed `D_E y` (`rules`)."""

    status: str
    identity: Verdict | None
    rules: tuple[tuple[str, Verdict], ...] = ()
    reason: str = ""


def _unknown(reason: str) -> PartialVerdict:
    return PartialVerdict("unknown", None, (), reason)


def _fresh(name: str, taken: set[str]) -> str:
    while name in taken:
        name += "'"
    return name


def prove_partial(of: sympy.Basic, wrt: sympy.Basic, claimed: sympy.Basic) -> PartialVerdict:
    """Decide `∂of/∂wrt = claimed` for every value of the free indices: `of` an entry of a
    matrix expression, `wrt` an entry of a named matrix X whose index letters appear neither in
    `of` nor free elsewhere but in `claimed`. The claim holds exactly when, for a direction E of
    independent entries, `(D_E M)_a = Σ_b claimed E_b`, the sum over X's index letters.

    >>> from symattn.kernel.dims import n
    >>> from symattn.kernel.expr import Softmax, index
    >>> z = MatSym("z", n, 1)
    >>> s, i, j = Softmax(z.T).T, index("i"), index("j")
    >>> d = sympy.KroneckerDelta(i, j)
    >>> prove_partial(s[i, 1], z[j, 1], s[i, 1] * (d - s[j, 1])).status
    'checked'
    >>> prove_partial(s[i, 1], z[j, 1], s[i, 1] * (1 - s[j, 1])).status
    'false'
    """
    if not (isinstance(of, Entry) and isinstance(wrt, Entry)):
        return _unknown("only the derivative of one entry by another is decided")
    if isinstance(claimed, MatExpr):
        return PartialVerdict(
            "shape_error", None, reason=f"a derivative of entries is a scalar, not {plain(claimed)}"
        )
    m, a = of.args[0], of.args[1:]
    x, b = wrt.args[0], wrt.args[1:]
    if not isinstance(x, MatSym):
        return _unknown(f"a derivative by an entry of {plain(x)}, which is not a named matrix")
    letters = [k for k in b if isinstance(k, sympy.Symbol)]
    if not all(isinstance(k, sympy.Symbol) or k.is_Integer for k in b) or len(set(letters)) < len(
        letters
    ):
        return _unknown(f"the entry {plain(wrt)} is not at distinct index letters")
    for k in letters:
        if k in of.free_symbols:
            return _unknown(
                f"the derivative by {plain(wrt)} at an index of {plain(of)}: only a derivative "
                "at independent indices is decided"
            )
    taken = reads(sympy.Tuple(of, wrt, claimed)) | {str(s) for s in claimed.free_symbols}
    e = MatSym(_fresh("E", taken), *x.shape)
    try:
        moved, used = _directional(m, x, e)
    except NoDerivative as exc:
        return _unknown(f"undecided: {exc}")
    except ShapeError as exc:
        return PartialVerdict("shape_error", None, reason=str(exc))
    rules = tuple((r, rule_truth(r)) for r in RULES if r in used)
    weak = [(r, v) for r, v in rules if v.status not in ("proved", "checked", "agreed")]
    if weak:
        names = ", ".join(f"{r} ({v.status})" for r, v in weak)
        return PartialVerdict("unknown", None, rules, f"undecided: rule {names} not shown")
    rhs = claimed * e[b[0], b[1]]
    for k, size in zip(b, x.shape, strict=True):
        if isinstance(k, sympy.Symbol):
            rhs = sympy.Sum(rhs, (k, 1, size))
    identity = prove_equal(moved[a[0], a[1]], rhs)
    if identity.status == "false":
        return PartialVerdict("false", identity, rules, "a direction E tells the sides apart")
    if identity.status not in _RANK:
        return PartialVerdict(identity.status, identity, rules, identity.reason)
    worst = max([identity.status] + [v.status for _, v in rules], key=_RANK.__getitem__)
    return PartialVerdict(worst, identity, rules, identity.reason)


_RANK = {"proved": 0, "checked": 1, "agreed": 2, "unknown": 3}
