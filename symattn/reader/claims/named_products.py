"""Names the text spells with two or three capitals and defines (`QK \\equiv QK^\\top`): one
name, where the reader reads the product Q·K. Imports the reader's claims and scanner."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from symattn.reader.claims.resolved import ResolvedClaim
from symattn.reader.syntax.scanner import MathSpan

__all__ = ["defined_products", "with_named_products"]

#: `QK \equiv`, `QK :=`, `QK \coloneqq`, `QK \triangleq`, `QK \stackrel{\text{def}}{=}`
_DEFINED = re.compile(
    r"(?<![A-Za-z\\_^{])([A-Z]{2,3})\s*"
    r"(?:\\equiv|:=|\\coloneqq|\\triangleq|\\(?:stackrel|overset)\s*\{[^{}]*\}\s*\{=\})"
)


def defined_products(items: Sequence[object]) -> dict[str, int]:
    """The names of two or three capitals that a formula among `items` defines, with its line.

    >>> from symattn.reader.syntax.scanner import scan
    >>> defined_products(scan("We write $QK \\\\equiv QK^T$ and $AB = BA$.\\nThen $VO := VW_O$."))
    {'QK': 1, 'VO': 2}
    """
    out: dict[str, int] = {}
    for item in items:
        if not isinstance(item, MathSpan):
            continue
        for m in _DEFINED.finditer(item.body):
            out.setdefault(m.group(1), item.position_at(m.start()).line)
    return out


def with_named_products(claim: ResolvedClaim, names: dict[str, int]) -> ResolvedClaim:
    """`claim`, undecided where it writes a name the text defines with capitals side by side
    (`QK`, at line 6) and the reader's product of those letters does not typecheck; a `false`
    reading it as that product is undecided too (`ResolvedClaim.defines`)."""
    if not names or claim.status not in ("shape_error", "pending"):
        return claim
    written = [k for k in names if re.search(rf"(?<![A-Za-z\\_^{{]){k}(?![a-z])", claim.source)]
    if not written:
        return claim
    said = ", ".join(f"{k} (line {names[k]})" for k in written)
    why = f"the text defines {said} as a name of its own, which this reads as a product of letters"
    if claim.status == "shape_error":
        msg = f"not decided: {claim.message}; but {why}"
        return dataclasses.replace(claim, status="unknown", message=msg, pairs=())
    return dataclasses.replace(claim, defines=claim.defines or why)
