"""Unicode math typed directly (`α`, `ℝ`, `×`, `x²`, `𝐱`, `𝗍𝗁𝖾`): the TeX each glyph renders as.

Imports only the standard library; lexer.py reads these tables, and this module must not import it.
"""

from __future__ import annotations

import unicodedata

#: Glyphs that stand for one TeX command, written without its backslash.
_GREEK_GLYPHS = "αβγδεϵζηθϑικλμνξπϖρϱσςτυφϕχψωΓΔΘΛΞΠΣΥΦΨΩ"
_GREEK_NAMES = (
    "alpha beta gamma delta varepsilon epsilon zeta eta theta vartheta iota kappa lambda mu nu xi "
    "pi varpi rho varrho sigma varsigma tau upsilon varphi phi chi psi omega "
    "Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega"
).split()

#: Glyphs that stand for one TeX command, written without its backslash.
COMMANDS = {
    **dict(zip(_GREEK_GLYPHS, _GREEK_NAMES, strict=True)),
    "ℓ": "ell",
    "∞": "infty",
    "×": "times",
    "⊙": "odot",
    "⊗": "otimes",
    "∘": "circ",
    "→": "to",
    "⟶": "to",
    "↦": "mapsto",
    "←": "leftarrow",
    "⇒": "Rightarrow",
    "⟹": "Longrightarrow",
    "⇔": "Leftrightarrow",
    "≤": "le",
    "≥": "ge",
    "⩽": "le",
    "⩾": "ge",
    "≠": "neq",
    "≈": "approx",
    "≡": "equiv",
    "∼": "sim",
    "∝": "propto",
    "∈": "in",
    "⊂": "subset",
    "⊆": "subseteq",
    "≔": "coloneqq",
    "≜": "triangleq",
    "∑": "sum",
    "∏": "prod",
    "√": "sqrt",
    "…": "ldots",
    "⋯": "cdots",
    "⋮": "vdots",
    "⋱": "ddots",
    "⊤": "top",
    "∂": "partial",
    "∇": "nabla",
    "∫": "int",
    "⟨": "langle",
    "⟩": "rangle",
    "‖": "Vert",
    "∣": "mid",
    "⌈": "lceil",
    "⌉": "rceil",
    "⌊": "lfloor",
    "⌋": "rfloor",
    "±": "pm",
    "∓": "mp",
    "✓": "checkmark",
}

#: Full-width punctuation of a CJK input method, read as its ASCII twin (`Q、K、V` lists names).
FULL_WIDTH = dict(zip("（）［］，；＝＋、。", "()[],;=+,.", strict=True))

#: Spaces that TeX ignores in math, as it ignores an ASCII space.
SPACES = frozenset("\u00a0\u2002\u2003\u2009\u200a\u200b\u202f\u3000")

#: Primes, each the number of `'` it stands for.
PRIMES = {"′": 1, "″": 2, "‴": 3}

#: Superscript and subscript glyphs and the script text each stands for.
SUPERSCRIPTS = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻ⁿⁱᵀ", "0123456789+-niT", strict=True))
SUBSCRIPTS = dict(zip("₀₁₂₃₄₅₆₇₈₉₊₋ᵢⱼₖₗₘₙₜ", "0123456789+-ijklmnt", strict=True))

#: The words of a mathematical alphanumeric glyph's name and the font command they mean, the
#: first that matches winning (bold italic is `\boldsymbol`, an italic letter is a plain one).
_FONTS = (
    ("SANS-SERIF", "mathsf"),
    ("MONOSPACE", "mathtt"),
    ("DOUBLE-STRUCK", "mathbb"),
    ("FRAKTUR", "mathfrak"),
    ("BLACK-LETTER", "mathfrak"),
    ("SCRIPT", "mathcal"),
    ("BOLD ITALIC", "boldsymbol"),
    ("BOLD", "mathbf"),
    ("ITALIC", ""),
    ("PLANCK", ""),
)
#: Fonts in which a run of letters spells a word (`𝗍𝗁𝖾`, a token), not a product of letters.
WORD_FONTS = frozenset(("mathsf", "mathtt"))


def styled_letter(c: str) -> tuple[str, str] | None:
    """A mathematical letter (`𝐱`, `𝑥`, `ℬ`, `𝛂`) as (font, letter); font "" is none.

    The letter is ASCII or a Greek command name; None when `c` is not such a glyph.

    >>> styled_letter("𝐱"), styled_letter("𝑥"), styled_letter("𝛂"), styled_letter("x")
    (('mathbf', 'x'), ('', 'x'), ('mathbf', 'alpha'), None)
    """
    base = unicodedata.normalize("NFKC", c)
    if base == c or len(base) != 1:
        return None
    name = unicodedata.name(c, "")
    if not (name.startswith("MATHEMATICAL ") or " CAPITAL " in name or "PLANCK" in name):
        return None
    if base.isascii() and base.isalpha():
        letter = base
    elif base in COMMANDS and base.isalpha():
        letter = COMMANDS[base]
    else:
        return None
    for word, font in _FONTS:
        if word in name:
            return font, letter
    return None
