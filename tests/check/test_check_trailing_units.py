"""A unit written in the prose straight after an inline formula (`$... = 4$ MB`) is the unit of
the number the formula ends in: read as if written inside (`= 4\\text{ MB}`), never a bare
number that a byte count written out would contradict."""

from __future__ import annotations

import pytest
from claim_helpers import results


def _one(sentence: str):
    (r,) = results(sentence + "\n")
    return r


@pytest.mark.parametrize(
    ("sentence", "kind", "says"),
    [
        # a count of bytes written out, its size in MB after the formula
        (r"The keys take $2 \times 1000 \times 1000 \times 2 = 4$ MB.", "verified", "4 MB read as"),
        (r"The keys take $2^{32} = 4.0$ GB.", "undecided", "GiB"),
        (r"The keys take $2 \times 1024 \times 1024 \times 2 = 4$~MiB.", "verified", "MiB"),
        (r"It takes $2 \times 10^9 \times 2 = 4$ GB of memory.", "verified", "GB = 10^9"),
        (r"It takes \(2 \times 10^9 \times 2 = 4\) GB of memory.", "verified", "GB = 10^9"),
        # wrong in every reading of the unit: still false
        (r"It takes $2 \times 10^9 \times 2 = 9$ GB of memory.", "false", "nor in any other"),
        # a unit the checker does not read: undecided, named
        (r"The step takes $3 \times 4 = 12$ ms.", "undecided", "(ms)"),
    ],
)
def test_a_unit_after_the_formula_is_its_number_s(sentence, kind, says):
    r = _one(sentence)
    assert r.kind == kind and says in r.message, r


@pytest.mark.parametrize(
    ("sentence", "kind"),
    [
        # no unit after it, or the unit not next to the formula: the bare numbers are compared
        (r"Plain arithmetic: $2 \times 2 = 5$ and more.", "false"),
        (r"Plain arithmetic: $2 \times 2 = 4$, about 4 MB in all.", "verified"),
        # a base unit: both sides count it
        (r"The cache needs $2 \times 3 = 7$ bytes.", "false"),
        (r"The cache needs $2 \times 3 = 6$ bytes.", "verified"),
        # a word that only starts like a unit
        (r"Plain arithmetic: $2 \times 2 = 5$ MBA students.", "false"),
    ],
)
def test_only_a_unit_next_to_the_last_number_counts(sentence, kind):
    r = _one(sentence)
    assert r.kind == kind, r


def test_a_display_keeps_its_bare_numbers():
    (r,) = results("The product is\n\n$$2 \\times 2 = 5$$\n\nMB in total.\n")
    assert r.kind == "false", r
