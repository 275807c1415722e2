"""Braced groups of TeX: where the `}` that closes a `{` is (escaped braces skipped).

Imports only the standard library; every other module of the reader may import it.
"""

from __future__ import annotations


def group_end(text: str, at: int) -> int | None:
    """The offset of the `}` that closes the `{` at `at`; None when `at` holds no `{` or the
    group never closes.

    >>> group_end(r"{a{b}\\}c}d", 0), group_end("{a", 0), group_end("a}", 0)
    (8, None, None)
    """
    if text[at : at + 1] != "{":
        return None
    depth, k = 0, at
    while k < len(text):
        c = text[k]
        if c == "\\":
            k += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return k
        k += 1
    return None
