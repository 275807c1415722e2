"""Whether two sizes the reader infers are provably different expressions, remembered.

Imports only sympy; never the scope, the resolver or anything above the reader's terms.
"""

from __future__ import annotations

import functools

import sympy

__all__ = ["sizes_differ"]


def sizes_differ(a: sympy.Expr, b: sympy.Expr) -> bool:
    """True when `a - b` does not simplify to 0 (`d` and `H*d_v` differ; `2*d` and `d + d` do
    not). A function of the two sizes alone, so it is remembered: every front end and context
    of a claim unifies the same sizes again.

    >>> from symattn.kernel.dims import d, d_v, H
    >>> sizes_differ(d, H * d_v), sizes_differ(2 * d, d + d)
    (True, False)
    """
    return _differ(a - b)


@functools.lru_cache(maxsize=8192)
def _differ(difference: sympy.Expr) -> bool:
    return bool(sympy.simplify(difference) != 0)
