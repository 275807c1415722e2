"""The one meaning of a sum's range, shared by every evaluator (exact, mod p, float64, 30 digits).

Imports nothing from symattn but kernel.errors; must not import any other module.

Decision (docs/kernel.md, "Sums"):

- `sum_{j=lo}^{hi}` runs over lo, lo+1, ..., hi;
- an empty range, `hi = lo - 1` (as in `sum_{j=1}^{i-1}` at `i = 1`), gives 0;
- a reversed range, `hi < lo - 1` (`sum_{j=3}^{1}`), is ill-formed and refused.

sympy's `Sum.doit` follows Karr's convention instead (sum_{j=3}^{1} x_j = -x_2), so no path of
the kernel writes out a sum with `doit`.
"""

from __future__ import annotations

from symattn.kernel.errors import SymattnError


class ReversedRange(SymattnError, ValueError):
    """A sum whose upper limit is below its lower limit minus one: ill-formed, never 0."""


def summation_range(lo: int, hi: int, var: object = "the index") -> range:
    """The values a bound index takes: empty when hi = lo - 1; refused when hi < lo - 1.

    >>> list(summation_range(1, 3)), list(summation_range(1, 0))
    ([1, 2, 3], [])
    >>> summation_range(3, 1, "j")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    symattn.kernel.semantics.ReversedRange: the sum over j runs from 3 down to 1: ...
    """
    if hi < lo - 1:
        raise ReversedRange(
            f"the sum over {var} runs from {lo} down to {hi}: a reversed range is ill-formed "
            "(only hi = lo - 1, the empty sum, is allowed)"
        )
    return range(lo, hi + 1)
