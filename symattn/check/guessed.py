"""The verdict on a claim that rests on an undefined command read by its use: named, never an alarm.
Imports the reader's syntax (its guesses) only; must not import the kernel or cli.
"""

from __future__ import annotations

import re
from typing import Any

from symattn.check.inferred_shapes import with_inferred_shapes
from symattn.check.negations import with_negation
from symattn.check.sum_ranges import with_sum_ranges
from symattn.reader.syntax.undefined import guesses_of

__all__ = ["with_guesses"]

_ALARMS = ("false", "shape_error")

_ARITHMETIC = re.compile(r"\\(?:frac|dfrac|tfrac|cdot|times|left|right|sqrt|div)(?![A-Za-z])")


def with_guesses(
    claim: Any, status: str, message: str, witnesses: tuple[str, ...], cex: Any
) -> tuple[str, str, tuple[str, ...], Any]:
    """The verdict with the guesses it rests on named; a false claim or a shape error that
    rests on one is undecided, as the text may mean something else by the command.

    >>> from symattn.reader.syntax.scanner import read
    >>> from symattn.reader.claims.resolved import new_claim
    >>> span = read(r"$\\vect{q} = \\vect{k}$", "a.md").items[0]
    >>> claim = new_claim(span, 0, len(span.body), "pending")
    >>> with_guesses(claim, "false", "the sides differ", (), "q=1")[:2]
    ('unknown', 'undecided: the sides differ; but that rests on reading notation the text does \
not define: the undefined \\\\vect{..} as a font or colour')
    """
    status, message, witnesses, cex = with_negation(claim, status, message, witnesses, cex)
    status, message, witnesses, cex = _entries(claim, status, message, witnesses, cex)
    status, message, witnesses, cex = with_sum_ranges(claim, status, message, witnesses, cex)
    status, message, witnesses, cex = with_inferred_shapes(claim, status, message, witnesses, cex)
    span = getattr(claim, "span", None)
    guesses = getattr(span, "guesses", ())
    if span is None or not guesses:
        return status, message, witnesses, cex
    got = guesses_of(guesses, claim.start, claim.end, claim.source, span.body)
    if not got:
        return status, message, witnesses, cex
    if all(g.kind == "connective" for g in got) and _closed(claim.source):
        got = []  # `\iff N > 128 \cdot (3/4)^2 = 81`: arithmetic false on any reading of its side
    if not got:
        return status, message, witnesses, cex
    notes = list(dict.fromkeys(g.note.removeprefix("reading ") for g in got))
    if status in _ALARMS:
        message = (
            f"undecided: {message}; but that rests on reading notation the text does not "
            f"define: {'; '.join(notes)}"
        )
        return "unknown", message, (), None
    own = [g for g in got if g.start >= 0]
    if not own:
        return status, message, witnesses, cex
    return status, f"{message}; {'; '.join(dict.fromkeys(g.note for g in own))}", witnesses, cex


def _entries(
    claim: Any, status: str, message: str, witnesses: tuple[str, ...], cex: Any
) -> tuple[str, str, tuple[str, ...], Any]:
    """A false claim or a shape error that rests on reading `u_i` as an entry of the bold
    vector u, or `s_i` (a shape error only) as an entry of the vector s the text defined: the
    text may mean another thing by it (the i-th of a family of vectors), so it is undecided.

    >>> from types import SimpleNamespace
    >>> c = SimpleNamespace(entry_guesses=(("u", "u_i as entry i of u", True),))
    >>> _entries(c, "false", "the sides differ", (), None)[:2]
    ('unknown', 'undecided: the sides differ; but that reads u_i as entry i of u')
    >>> _entries(c, "proved", "proved", ("symbolic",), None)[1]
    'proved; reading u_i as entry i of u'
    """
    got = getattr(claim, "entry_guesses", ())
    if status == "false":
        got = tuple(g for g in got if g[2])
    if not got:
        return status, message, witnesses, cex
    how = "; ".join(dict.fromkeys(g[1] for g in got))
    if status in _ALARMS:
        return "unknown", f"undecided: {message}; but that reads {how}", (), None
    if status in ("proved", "checked"):
        return status, f"{message}; reading {how}", witnesses, cex
    return status, message, witnesses, cex


def _closed(source: str) -> bool:
    r"""Whether a claim is arithmetic on numbers alone (`128 \cdot (rac{3}{4})^2 = 81`): no
    name of the text's in it, so it means the same wherever it stands.

    >>> _closed(r"128 \cdot \left(\frac{3}{4}\right)^2 = 81"), _closed(r"x^2 = 1")
    (True, False)
    """
    plain = _ARITHMETIC.sub(" ", source)
    return re.search(r"[A-Za-z\\]", plain) is None
