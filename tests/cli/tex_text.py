"""What a reader of a built page sees as text (not math), and the raw ASCII formulas in it.

A test helper on plain strings; imports nothing from symattn.
"""

from __future__ import annotations

import re

#: A formula typed in ASCII: it belongs in math (`\le`, `\ldots`, `\to`, `\lceil`, `\sqrt`).
RAW_MATH = re.compile(r"<=|>=|(?<![.\\])\.\.(?!\.)|->|ceil\(|sqrt\(")

_MATH = re.compile(r"\\\((.*?)\\\)|\\\[(.*?)\\\]|\$[^$]*\$", re.DOTALL)
_ALIGN = re.compile(r"\\begin\{(align\*?|equation\*?|gather\*?)\}(.*?)\\end\{\1\}", re.DOTALL)


def _texts(math: str) -> list[str]:
    r"""The arguments of every `\text{...}` in a piece of math (braces balanced)."""
    out: list[str] = []
    k = 0
    while (k := math.find(r"\text{", k)) >= 0:
        start, depth = k + len(r"\text{"), 0
        for m in range(start, len(math)):
            if math[m - 1] == "\\":
                continue
            depth += {"{": 1, "}": -1}.get(math[m], 0)
            if depth < 0:
                out.append(math[start:m])
                break
        k = start
    return out


def text_mode(tex: str) -> str:
    r"""The text of a LaTeX source: everything outside math, and the `\text{...}` inside it
    (a derivation's justifications), with the inline math of those taken out too.

    >>> text_mode(r"a \(x <= y\) b \begin{align*} x &= y && \text{(by \(j\) 1..n)} \end{align*}")
    'a   b  \n(by   1..n)'
    """
    pieces: list[str] = []

    def keep(m: re.Match[str]) -> str:
        pieces.extend(_texts(m.group(0)))
        return " "

    outside = _MATH.sub(keep, _ALIGN.sub(keep, tex))
    return "\n".join([outside, *(_MATH.sub(" ", p) for p in pieces)])


def raw_math(tex: str, around: int = 40) -> list[str]:
    """Each ASCII formula in the text of `tex`, with `around` characters of context."""
    text = text_mode(tex)
    return [text[max(0, m.start() - around) : m.end() + around] for m in RAW_MATH.finditer(text)]
