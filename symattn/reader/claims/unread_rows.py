r"""Rows of an alignment the checker cannot read, in a chain of equalities: the next link starts
from the last side it read (`A &= B \\ &= \ldots \\ &= D` gives `B = D`). Imports the resolved
claims only.
"""

from __future__ import annotations

import dataclasses
import re

from symattn.reader.claims.resolved import ResolvedClaim

__all__ = ["equal_row", "over_unread"]


#: Any relation but `=` (and what defines or stacks one): a row with one is not an equality.
_OTHER = re.compile(
    r"\\(?:approx(?:eq)?|le(?:q|qslant)?|ge(?:q|qslant)?|neq?|n?sim(?:eq)?|propto|equiv|cong"
    r"|to|[Rr]ightarrow|[Ll]eftarrow|[Ll]eftrightarrow|implies|iff|mapsto|in|ni|ll|gg"
    r"|lesssim|gtrsim|prec|succ|subset(?:eq)?|supset(?:eq)?|coloneqq|eqqcolon|triangleq"
    r"|stackrel|overset|underset|doteq|asymp|parallel|perp)(?![A-Za-z])|[<>]|:=|=:"
)
_STARTS = re.compile(r"\A\s*&?\s*(?:\\q?quad\s*)*=(?!=)")


def equal_row(row: str) -> bool:
    """A row that continues a chain with `=` and has no other relation in it (`&= \\sum_d
    \\ldots`): the chain from the side before it to the side after it is an equality.

    >>> equal_row(r"&= \\sum_j \\frac{e^{x_j}}{Z} V_{jd}"), equal_row(r"&\\approx C")
    (True, False)
    >>> equal_row(r"&= C \\le D"), equal_row(r"C = D")
    (False, False)
    """
    return _STARTS.match(row) is not None and _OTHER.search(row) is None


def over_unread(claim: ResolvedClaim) -> ResolvedClaim:
    """The first link after rows not read: it starts from the last side read before them."""
    note = "from the last side read before the rows not read, all equalities"
    context = f"{claim.context}; {note}" if claim.context else note
    return dataclasses.replace(claim, context=context)
