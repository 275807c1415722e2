"""Empty groups `{}` that only place what follows: `W^{(h)}{}^{\\top}`, `a &{}= b`, `{}^T`.

Imports only the standard library; parse.py rewrites a body with it before the lexer reads it,
keeping its length, so every offset still points into the formula.
"""

from __future__ import annotations

import re

__all__ = ["without_empty_groups"]

#: `X^{(h)}{}^{\top}`: a transpose set after a head's superscript, through an empty group; the
#: head's braces hold no braces of their own.
_AFTER_HEAD = re.compile(
    r"\^\{(?P<head>[^{}]*)\}\s*\{\s*\}\s*\^\s*"
    r"(?P<mark>\{\s*(?P<braced>\\top|\\intercal|T|\\mathsf\s*\{\s*T\s*\}|\\mathsf\s*T)\s*\}"
    r"|\\top(?![A-Za-z])|\\intercal(?![A-Za-z])|T(?![A-Za-z]))"
)
#: `{}` standing where no argument is taken: at the start, or after a relation, an operator,
#: an alignment mark, an opening bracket or a comma (`a &{}= b`, `{}={}`), or between a value
#: and its script (`\left(AB\right){}^{\top}`).
_EMPTY = re.compile(
    r"(?:(?<=^)|(?<=[=&+\-(,<>])|(?<=\\\\))\s*\{\s*\}"
    r"|(?<=[)\]}A-Za-z0-9])\s*\{\s*\}(?=\s*[\^_])"
)


def without_empty_groups(body: str) -> str:
    r"""`body` with the empty groups that only place what follows taken out, its length kept.

    >>> without_empty_groups(r"W^{(s)}{}^{\top} = A")
    'W^{(s)     \\top} = A'
    >>> without_empty_groups(r"a &{}= b"), without_empty_groups(r"(AB){}^T")
    ('a &  = b', '(AB)  ^T')
    >>> without_empty_groups(r"x^{} + \frac{a}{}")
    'x^{} + \\frac{a}{}'
    """
    if "{" not in body:
        return body
    body = _AFTER_HEAD.sub(_merged, body)
    return _EMPTY.sub(lambda m: " " * len(m.group()), body)


def _merged(m: re.Match[str]) -> str:
    core = m.group("braced") or m.group("mark")
    head = "^{" + m.group("head")
    return head + " " * (len(m.group()) - len(head) - len(core) - 1) + core + "}"
