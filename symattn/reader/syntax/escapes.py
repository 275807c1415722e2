"""Markdown escapes left in display math: `\\_` written for a subscript, `\\*` for a star.

Imports only the standard library; the scanner calls it on the bodies of Markdown texts.
"""

from __future__ import annotations

import re

__all__ = ["markdown_escapes"]

#: `\_` where a subscript stands: before a brace, a command or one letter or digit that ends
#: there (`\mathbf{p}\_j`, `\text{head}\_{1}`, `\alpha\_0`); `n\_heads` is an identifier of
#: code, whose underscore TeX prints, and stays.
_SUBSCRIPT = re.compile(r"(?<!\\)\\(?=_\s*(?:\{|\\[A-Za-z]|[A-Za-z0-9](?![A-Za-z0-9])))")
#: `\*`: Markdown's escaped star, the `*` of a product (in TeX an invisible break point).
_STAR = re.compile(r"(?<!\\)\\(?=\*)")


def markdown_escapes(body: str) -> str:
    r"""A body of Markdown math as its author meant it: `\_` before a subscript is `_`, `\*` is
    `*`; each removed backslash becomes a space, so offsets still match.

    >>> markdown_escapes(r"\mathbf{p}\_j = \text{head}\_{1} \* n\_heads")
    '\\mathbf{p} _j = \\text{head} _{1}  * n\\_heads'
    >>> markdown_escapes(r"a \\_ b")
    'a \\\\_ b'
    """
    return _STAR.sub(" ", _SUBSCRIPT.sub(" ", body))
