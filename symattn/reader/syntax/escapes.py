"""What Markdown leaves in math that the math renderer never sees: escapes (`\\_` written for a
subscript, `\\*` for a star) and the `>` that opens each line of a block quote.

Imports only the standard library; the scanner calls it on the bodies of Markdown texts.
"""

from __future__ import annotations

import re

__all__ = ["markdown_escapes", "quote_marks"]

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


#: The marks of a block quote at the start of a line: `> `, `> > `.
_QUOTE = re.compile(r"[ \t]{0,3}>[ \t]?")


def quote_marks(body: str, before: str) -> str:
    r"""A display inside a block quote (`before`, the text of its first line before the body,
    starts with `>`): the quote's marks at the start of its other lines are blanked, as
    Markdown takes them away before the math is rendered; offsets stay.

    >>> quote_marks("\n> a = b\n> > c", "> $$")
    '\n  a = b\n  > c'
    >>> quote_marks("\n> a", "$$")
    '\n> a'
    """
    depth = 0
    k = 0
    while (m := _QUOTE.match(before, k)) is not None:
        depth, k = depth + 1, m.end()
    if depth == 0 or "\n" not in body:
        return body
    lines = body.split("\n")
    for i in range(1, len(lines)):
        line, k = lines[i], 0
        for _ in range(depth):
            m = _QUOTE.match(line, k)
            if m is None:
                break
            k = m.end()
        lines[i] = " " * k + line[k:]
    return "\n".join(lines)
