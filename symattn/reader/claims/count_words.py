"""Words after numbers that say what is counted (`32维`, `8 \\text{ heads}`, `16 \\text{ bits}`):
counts, not units that change a value. Imports only the resolved claims; never the scope."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from symattn.reader.claims.resolved import ResolvedClaim

__all__ = ["as_counts"]

#: What a number counts, in English (singular, lower case) and in CJK measure words: the same
#: word on every number of a claim leaves the equation between the bare numbers.
_COUNTS = frozenset(
    {
        "token",
        "word",
        "param",
        "parameter",
        "layer",
        "head",
        "step",
        "epoch",
        "sample",
        "gpu",
        "dim",
        "dimension",
        "flop",
        *"维个头层次步块张行列词条轮卡",
    }
)
#: Counts that other counts convert to (8 bits to a byte): the bare numbers of a claim that
#: fails may be in different ones, so it is never false on their account.
_CONVERTIBLE = frozenset({"bit", "byte", "位", "字节"})
_WRAP = re.compile(r"\\(?:text|mathrm|textrm|mbox|rm|mathsf|textsf|operatorname)\s*\{")


def _word(unit: str) -> str | None:
    """`32维` → 维, `8 \\text{ heads}` → head, `2\\,\\text{FLOPs}` → flop; None for a unit
    (`GiB`, `ms`, `FLOPS`, `亿`) or a rate (`tokens/s`, marked by the caller with a `/`)."""
    if unit.endswith("/"):
        return None  # `tokens/s`: a rate, a unit of its own
    w = _WRAP.sub("", unit.lstrip("0123456789.")).strip(" \\,;:!~{}")
    if w == "FLOPS":
        return None  # operations per second: a rate
    if w[:1].isascii():
        w = w.lower()
        w = w[:-1] if w.endswith("s") and w[:-1] in _COUNTS | _CONVERTIBLE else w
    return w if w in _COUNTS | _CONVERTIBLE else None


def as_counts(claim: ResolvedClaim, units: Sequence[str]) -> ResolvedClaim | None:
    r"""`claim` read with its numbers' words as what they count (`\frac{512}{8} = 32维` is an
    equation between 512/8 and 32, so false): when every word is the same count. A count that
    converts (bits, bytes) leaves a failing claim undecided. None when a word is a unit, or
    two different words meet (`1\text{ byte} = 8\text{ bits}`)."""
    if claim.status != "pending" or not units or not claim.pairs:
        return None
    words = {_word(u) for u in units}
    if None in words or len(words) != 1:
        return None
    (word,) = words
    assert word is not None
    read = f"the numbers read as counts of {word}s" if word.isascii() else f"{word} read as a count"
    context = f"{claim.context}; {read}" if claim.context else read
    out = dataclasses.replace(claim, context=context)
    if word in _CONVERTIBLE:
        why = (
            f"its numbers are counted in {word}s, and the text may mean another unit on one "
            "side (bits, bytes)"
        )
        out = dataclasses.replace(out, defines=why, free=why)
    return out
