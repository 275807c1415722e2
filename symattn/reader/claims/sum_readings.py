"""Claims with a sum whose range the text does not write: what it was read to range over.
Imports the reader's claims and scope; never the resolver, check or CLI."""

from __future__ import annotations

import dataclasses
import re

from symattn.reader.claims.resolved import ResolvedClaim
from symattn.reader.terms.scope import Scope

__all__ = ["with_sum_readings"]

#: the subscript of a `\sum`: one letter or the contents of its braces
_SUM_SUB = re.compile(r"\\sum\s*_\s*(?:\{([^{}]*)\}|([A-Za-z]))")


def summed_letters(source: str) -> set[str]:
    r"""The letters the sums written in `source` run over.

    >>> sorted(summed_letters(r"\sum_i a_i = \sum_{kl} G_{kl}"))
    ['i', 'k', 'l']
    """
    out: set[str] = set()
    for m in _SUM_SUB.finditer(source):
        out |= set(re.findall(r"[A-Za-z]", re.sub(r"\\[A-Za-z]+", " ", m.group(1) or m.group(2))))
    return out


def with_sum_readings(claim: ResolvedClaim, scope: Scope) -> ResolvedClaim:
    """`claim`, naming the ranges read for the sums it writes without bounds (`\\sum_i u_i w_i`
    as i = 1..m): the verdict says them, and one that rests on a convention is never an alarm
    (`check.sum_ranges`)."""
    readings = getattr(scope, "sum_readings", {})
    if claim.status != "pending" or not readings:
        return claim
    written = summed_letters(claim.source)
    got = tuple(v for k, v in sorted(readings.items()) if k in written)
    return dataclasses.replace(claim, sum_ranges=got) if got else claim
