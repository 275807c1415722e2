"""A chain of relations written across display blocks: `$$A =$$`, then `$$= B =$$`, then `$$C$$`.

Authors of Markdown posts often break a long derivation into one display per line; a display that
ends with a relation, or one that starts with one, continues its neighbour. Such neighbours (only
blank space between them) become one formula, `A = B = C`, whose positions still point into the
file. Imports only the scan's data types and the standard library.
"""

from __future__ import annotations

import re
from dataclasses import replace

from symattn.reader.syntax.spans import MathSpan, ScanProblem

_RELATION = (
    r"(?:=|<|>|\\approx|\\leqslant|\\geqslant|\\leq?|\\geq?|\\sim|\\simeq|\\equiv|\\neq?|\\propto"
    r"|\\in)"
)
#: a relation that ends a body (`... =`, `... \approx`)
_ENDS = re.compile(_RELATION + r"\s*\Z")
#: a relation anywhere in a body
_ANY = re.compile(_RELATION + r"(?![A-Za-z])")
#: a relation that starts a body (`= B`, `\approx B`), not a longer command (`\left`, `\sum`);
#: not `<` (`<q, k>` is a bracket)
_STARTS = re.compile(r"\A\s*(?!<)" + _RELATION + r"(?![A-Za-z])")
#: what may stand between two displays of one chain: their delimiters and blank space
_BETWEEN = re.compile(r"\s*(?:\$\$|\\\])\s*(?:\$\$|\\\[)\s*")
#: ... or a short connective before a display that starts with a relation ("which gives",
#: "so that", "重写为：", "展开："): no math, no sentence that ends and goes on
_LINK = re.compile(
    r"\s*(?:\$\$|\\\])\s*(?P<words>[^$\\.!?。！？;；]{1,40}?)[:：,，]?\s*(?:\$\$|\\\[)\s*"
)
#: ... or, before an inline formula that starts with a relation, one of these connectives alone
_INLINE_LINK = re.compile(
    r"\s*(?:\$\$|\$|\\\]|\\\))\s*,?\s*(?:which\s+(?:gives|is|equals)|giving|so(?:\s+that)?|that\s+is"
    r"|i\.e\.|hence|thus|therefore|we\s+(?:get|have|obtain)|and\s+so|得到|即|可得|化简得|也就是)"
    r"\s*[:：,，]?\s*(?:\$|\\\()\s*",
    re.IGNORECASE,
)
#: ... or, between two inline formulas, nothing but spaces: `$W_V$ $\in \mathbb{R}^{d}$`
_ADJACENT = re.compile(r"\s*(?:\$\$?|\\\))[ \t]*\n?[ \t]*(?:\$\$?|\\\()\s*")
#: words that make the display after them a condition or a new statement, not a continuation
_CUE = re.compile(
    r"\b(?:if|when|whenever|where|for|with|given|assum\w*|suppos\w*|let|only|unless|provided"
    r"|otherwise|else)\b|若|如果|当|假设|设|令|其中|否则|对于",
    re.IGNORECASE,
)


def join_chains(items: list[MathSpan | ScanProblem], text: str) -> list[MathSpan | ScanProblem]:
    r"""The items with each chain of displays that continue one another joined into one.

    >>> from symattn.reader.syntax.scanner import read
    >>> spans = read("So\n\n$$A =$$\n\n$$= B =$$\n\n$$C$$\n\nand $$D$$", "p.md").items
    >>> [" ".join(s.body.split()) for s in spans]
    ['A = B = C', 'D']
    >>> str(spans[0].position_at(spans[0].body.index("C")))
    '7:3'
    """
    out: list[MathSpan | ScanProblem] = []
    for item in items:
        prev = out[-1] if out else None
        if (
            isinstance(item, MathSpan)
            and isinstance(prev, MathSpan)
            and _continues(prev, item, text)
        ):
            out[-1] = _joined(prev, item, text)
        else:
            out.append(item)
    return out


def _continues(a: MathSpan, b: MathSpan, text: str) -> bool:
    if a.env is not None or b.env is not None or a.filename != b.filename:
        return False
    if not b.display:
        # `$$A = B$$, which gives $= C$`: an inline formula that goes on after a connective
        link = _INLINE_LINK.fullmatch(text, a.end, b.start.offset)
        if link is None and not a.display:
            link = _ADJACENT.fullmatch(text, a.end, b.start.offset)
        return link is not None and _STARTS.match(b.body) is not None and not _ENDS.search(a.body)
    if not a.display:
        # `so $s = q^T k$` and, on the next line, `$$= \sum_i q_i k_i$$`: nothing between them,
        # and the inline formula a claim of its own (after a bare `$X$` the display's left side
        # may be the words before it: "the cost of $X$")
        adjacent = _ADJACENT.fullmatch(text, a.end, b.start.offset) is not None
        claims = _ANY.search(a.body) is not None and not _ENDS.search(a.body)
        return adjacent and claims and _STARTS.match(b.body) is not None
    if _BETWEEN.fullmatch(text, a.end, b.start.offset) is None:
        # `$$A = B$$ which gives $$= C$$`: a connective, then a display that goes on
        link = _LINK.fullmatch(text, a.end, b.start.offset)
        if link is None or _CUE.search(link.group("words")) or not link.group("words").strip():
            return False
        return _STARTS.match(b.body) is not None and _ENDS.search(a.body) is None
    return _ENDS.search(a.body) is not None or _STARTS.match(b.body) is not None


def _joined(a: MathSpan, b: MathSpan, text: str) -> MathSpan:
    """One span: `a`'s body, a line break, `b`'s body; when both write the relation at the seam
    (`A =` and `= B`), `b`'s copy is blanked. `source` is the file from `a`'s body to the end of
    `b`'s, and `origin` maps each character of the new body into it."""
    second = b.body
    end, start = _ENDS.search(a.body), _STARTS.match(second)
    if end is not None and start is not None:
        second = (
            second[: start.start()] + " " * (start.end() - start.start()) + second[start.end() :]
        )
    body = a.body + "\n" + second
    shift = b.start.offset - a.start.offset
    origin = [
        *_origin(a),
        a.end - a.start.offset,
        *(shift + k for k in _origin(b)),
        b.end - a.start.offset,
    ]
    guesses = (*a.guesses, *(_moved(g, len(a.body) + 1) for g in b.guesses))
    return replace(
        a, body=body, source=text[a.start.offset : b.end], origin=tuple(origin), guesses=guesses
    )


def _origin(s: MathSpan) -> list[int]:
    """Each character of `s.body` -> its offset in `s.written` (one entry per character)."""
    if s.origin is None:
        return list(range(len(s.body)))
    return list(s.origin[: len(s.body)])


def _moved(guess: object, by: int) -> object:
    start, end = getattr(guess, "start", -1), getattr(guess, "end", -1)
    if start < 0:
        return guess
    return replace(guess, start=start + by, end=end + by)  # type: ignore[type-var]
