"""Whether a document works with complex numbers (`complex numbers`, 复数, `\\mathbb C`,
`e^{i\\theta}`), so that a bare `i` of its scalar claims is the imaginary unit.
Imports only the standard library and sympy; never the translator, the resolver or the checker."""

from __future__ import annotations

import re

import sympy

__all__ = ["UNIT", "complex_cue", "unit_context"]

#: The imaginary unit, as the reader gives it to the kernel.
UNIT = sympy.I

#: Words that say a text works with complex numbers. `复数` alone is also the grammatical
#: plural (单复数, 复数形式), which says nothing about numbers.
_WORDS = re.compile(
    r"\b(?:complex|imaginary)[\s-]+(?:numbers?|unit|plane|parts?|exponentials?|conjugates?"
    r"|multiplication|products?|space|form|domain|rotations?|vectors?|fields?|valued|values?)\b"
    r"|\bEuler'?s\s+(?:formula|identity)\b|\bcomplex\s+analysis\b"
    r"|(?<!单)复数(?!形式)|虚数|虚部|实部|复平面|复变|复指数|欧拉公式",
    re.IGNORECASE,
)
#: Formulas that only complex numbers write: the complex numbers themselves, an upright i,
#: or e raised to i times an angle (`e^{i\\theta}`, `e^{im\\theta}`, `e^{ix}`).
_FORMULAS = re.compile(
    r"\\mathbb\s*\{?\s*C\b"
    r"|\\(?:mathrm|text|rm)\s*(?:\{\s*i\s*\}|\s+i\b)"
    r"|\be\s*\^\s*\{\s*-?\s*i\s*(?:\\(?:theta|varphi|phi|omega|alpha|pi)\b|[mnx]\s*\\theta|[xt]\s*\})"
)


def complex_cue(text: str) -> str:
    """Where the document says it works with complex numbers ('' when it never does), as
    shown in a verdict.

    >>> complex_cue("Recall that complex numbers a + bi ...")
    "'complex numbers' at line 1"
    >>> complex_cue("a complex model of $x_i$"), complex_cue("$e^{i\\\\theta}$")
    ('', "'e^{i\\\\theta' at line 1")
    """
    found = _WORDS.search(text) or _FORMULAS.search(text)
    if found is None:
        return ""
    line = text.count("\n", 0, found.start()) + 1
    return f"'{' '.join(found.group(0).split())}' at line {line}"


def unit_context(cue: str) -> str:
    """How a verdict names the reading of i that it rests on."""
    if cue:
        return f"i as the imaginary unit (the text works with complex numbers: {cue})"
    return "i read as the imaginary unit"
