"""LaTeX as a terminal shows it (progress lines, short messages): `A\\circ\\mathit{dA}` reads
`A∘dA`, `\\operatorname{Concat}(Z^{(1)},\\ldots)` reads `Concat(Z^{(1)},…)`. Standard library only.
"""

from __future__ import annotations

import re

__all__ = ["readable"]

_SYMBOLS = {
    "circ": "∘",
    "odot": "⊙",
    "cdot": "·",
    "times": "×",
    "top": "ᵀ",
    "intercal": "ᵀ",
    "ldots": "…",
    "dots": "…",
    "cdots": "⋯",
    "le": "≤",
    "leq": "≤",
    "ge": "≥",
    "geq": "≥",
    "ne": "≠",
    "neq": "≠",
    "approx": "≈",
    "in": "∈",
    "to": "→",
    "infty": "∞",
    "sum": "Σ",
    "prod": "Π",
    "partial": "∂",
    "nabla": "∇",
    "mathsf{T}": "ᵀ",
    "quad": " ",
    "qquad": " ",
    "alpha": "α",
    "beta": "β",
    "gamma": "γ",
    "delta": "δ",
    "epsilon": "ε",
    "theta": "θ",
    "lambda": "λ",
    "mu": "μ",
    "sigma": "σ",
    "tau": "τ",
    "phi": "φ",
    "varphi": "φ",
    "omega": "ω",
    "pi": "π",
    "ell": "ℓ",
    "Sigma": "Σ",
    "Delta": "Δ",
    "Theta": "Θ",
    "left": "",
    "right": "",
    "big": "",
    "Big": "",
    "bigl": "",
    "bigr": "",
}
_FONTS = re.compile(
    r"\\(?:operatorname|mathit|mathrm|mathbf|boldsymbol|bm|mathsf|mathcal|mathbb|text|textrm"
    r"|textit|textbf|emph)\s*\{([^{}]*)\}"
)
_FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_SQRT = re.compile(r"\\sqrt\s*\{([^{}]*)\}")
_COMMAND = re.compile(r"\\([A-Za-z]+)")
_SPACES = re.compile(r"\\[,;:! ]|~")


def readable(latex: str) -> str:
    """`latex` with its commands replaced by what they show, for a line of plain text.

    >>> readable(r"A\\circ\\mathit{dA}, \\frac{QK^\\top}{\\sqrt{d_k}}")
    'A∘dA, (QKᵀ)/(√(d_k))'
    >>> readable(r"\\operatorname{Concat}(Z^{(1)},\\ldots,Z^{(H)})")
    'Concat(Z^{(1)},…,Z^{(H)})'
    """
    text = _SPACES.sub(" ", latex)
    text = _COMMAND.sub(lambda m: _SYMBOLS.get(m.group(1), m.group(0)), text)
    for _ in range(4):  # nested fonts and fractions, innermost first
        before = text
        text = _FONTS.sub(r"\1", text)
        text = _SQRT.sub(r"√(\1)", text)
        text = _FRAC.sub(r"(\1)/(\2)", text)
        if text == before:
            break
    text = _COMMAND.sub(lambda m: _SYMBOLS.get(m.group(1), m.group(1)), text)
    text = text.replace("^{ᵀ}", "ᵀ").replace("^ᵀ", "ᵀ").replace("^T", "ᵀ")
    return re.sub(r"\s+", " ", text).strip()
