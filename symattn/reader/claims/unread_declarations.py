"""Names a text declares in a formula the reader cannot read (`Q, K, V \\in \\mathbb{R}^{d\\times
t}` after an unknown arrow): a shape error resting on such a name's conventional shape is undecided.

Imports the standard library, claims.resolved and terms.scope; must not import check.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from symattn.reader.claims.resolved import ResolvedClaim
from symattn.reader.terms.scope import Scope

__all__ = ["UnreadDeclarations"]

_FONT = re.compile(r"\\(?:boldsymbol|mathbf|bm|mathrm|mathit|vec|mathsf)\s*")
_NAME = r"[A-Z](?:_\{?[A-Za-z0-9]+\}?)?"
_NAMES = re.compile(rf"({_NAME}(?:\s*,\s*{_NAME})*)\s*\\in\s*\\mathbb\s*\{{?\s*R")
_USE = re.compile(rf"(?<![A-Za-z\\])({_NAME})")
#: `Q = W_Q X`: a definition of a capital, its left side alone
_DEFINED = re.compile(rf"\A\s*({_NAME})\s*=(?!=)")


def _plain(text: str) -> str:
    """The formula without fonts and braces around a name: `\\boldsymbol{V}` reads `V`."""
    text = _FONT.sub("", text)
    return re.sub(r"\{\s*([A-Z](?:_\{?[A-Za-z0-9]+\}?)?)\s*\}", r"\1", text)


def _key(name: str) -> str:
    return re.sub(r"[{}\s]", "", name)


class UnreadDeclarations:
    """The names declared in formulas that were not understood, with their lines.

    >>> u = UnreadDeclarations()
    >>> u.note(r"\\{x\\} \\leadsto \\boldsymbol{Q}, \\boldsymbol{K} \\in \\mathbb{R}^{d}", 9)
    >>> sorted(u.lines.items())
    [('K', 9), ('Q', 9)]
    """

    def __init__(self) -> None:
        self.lines: dict[str, int] = {}
        self.defined: set[str] = set()  # of those, the names a formula defines, not declares

    def note(self, body: str, line: int) -> None:
        for m in _NAMES.finditer(_plain(body)):
            for name in m.group(1).split(","):
                self.lines.setdefault(_key(name), line)

    def note_definitions(self, claims: Sequence[ResolvedClaim], scope: Scope, line: int) -> None:
        """`Q = W_Q X` that was not read (undecided or not understood) where Q has only the
        chapter's shape: the text gives Q a value of its own, whose shape is not known.

        >>> from symattn.reader.claims.resolved import new_claim
        >>> from symattn.reader.syntax.scanner import scan
        >>> span = scan("$Q = W_Q X$")[0]
        >>> u = UnreadDeclarations()
        >>> u.note_definitions([new_claim(span, 0, 9, "unknown", "")], Scope(), 4)
        >>> u.lines, u.defined
        ({'Q': 4}, {'Q'})
        """
        for c in claims:
            if c.status not in ("unknown", "not_understood"):
                continue
            m = _DEFINED.match(_plain(c.source))
            if m is None:
                continue
            name = _key(m.group(1))
            entry = scope.lookup(name)
            if entry is not None and entry.origin == "convention" and name not in self.lines:
                self.lines[name] = line
                self.defined.add(name)

    def soften(self, claims: Sequence[ResolvedClaim], scope: Scope) -> list[ResolvedClaim]:
        """Each shape error of `claims` that uses a name declared in an unread formula whose
        shape is still only the chapter's convention, made undecided; the others as they are."""
        if not self.lines:
            return list(claims)
        out = []
        for c in claims:
            named = self._resting_on(c, scope) if c.status == "shape_error" else []
            if not named:
                out.append(c)
                continue
            said = ", ".join(f"{k} (line {self.lines[k]})" for k in named)
            how = "defines" if all(k in self.defined for k in named) else "declares"
            msg = (
                f"{c.message}; but the text {how} {said} in a formula that was not read, "
                "so its shape here is not known"
            )
            out.append(dataclasses.replace(c, status="unknown", message=msg, pairs=()))
        return out

    def _resting_on(self, claim: ResolvedClaim, scope: Scope) -> list[str]:
        used = {_key(m.group(1)) for m in _USE.finditer(_plain(claim.span.body))}
        out = []
        for name in sorted(used & set(self.lines)):
            entry = scope.lookup(name)
            if entry is not None and entry.origin == "convention":
                out.append(name)
        return out
