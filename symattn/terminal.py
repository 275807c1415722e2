"""Colour on a terminal: the one painter of every command's and diagnostic's output.

Imports only the standard library; must not import anything of symattn.
"""

from __future__ import annotations


def paint(text: str, code: str | None, on: bool) -> str:
    """`text` in the SGR colour `code` (`"31"` red, `"1;32"` bold green) when `on` and a code
    is given; unchanged otherwise.

    >>> paint("false", "31", True), paint("false", "31", False), paint("x", None, True)
    ('\\x1b[31mfalse\\x1b[0m', 'false', 'x')
    """
    return f"\x1b[{code}m{text}\x1b[0m" if on and code else text
