"""The tokenizer's tables: Greek letters, relations, accents, fonts, sizes, punctuation, commands.
Imports only the standard library and the glyph tables; it must not import lark.
"""

from __future__ import annotations

import re

GREEK = frozenset(
    "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi "
    "pi varpi rho varrho sigma varsigma tau upsilon phi varphi chi psi omega Gamma Delta Theta "
    "Lambda Xi Pi Sigma Upsilon Phi Psi Omega ell infty".split()
)


#: `\\partial`, `\\nabla`: read as symbols; the translator reads the gradients written with them.
DERIVATIVES = frozenset(("partial", "nabla"))


FUNCS = frozenset("exp max min log ln tanh sin cos tan det arg sup inf lim".split())


#: Logical connectives between two statements (`A \\Leftrightarrow B`), not relations.
CONNECTIVES = frozenset(
    "Leftrightarrow Longleftrightarrow iff Rightarrow Longrightarrow implies Leftarrow "
    "Longleftarrow impliedby".split()
)


#: Functions of numbers also read when written as upright text (`\\text{exp}`, `\\mathrm{log}`).
SCALAR_WORDS = frozenset("exp log ln sin cos tan tanh".split())


RELATIONS = {
    "in": "in",
    "neq": "neq",
    "ne": "neq",
    "le": "le",
    "leq": "le",
    "ge": "ge",
    "geq": "ge",
    "leqslant": "le",
    "geqslant": "ge",
    "lt": "<",
    "gt": ">",
    "approx": "approx",
    "approxeq": "approx",  # `\\approxeq`, `\\thickapprox`, `\\simeq`: approximately equal
    "thickapprox": "approx",
    "simeq": "approx",
    "equiv": "equiv",
    "sim": "sim",
    "propto": "propto",
    "to": "to",
    "leftarrow": "gets",  # `S \\leftarrow S + v k^T`: an assignment of an algorithm
    "gets": "gets",
    "rightarrow": "to",
    "rightsquigarrow": "to",  # `x \\rightsquigarrow y`: leads to, as an arrow
    "mapsto": "mapsto",
    "Rightarrow": "implies",
    "implies": "implies",
    "Longrightarrow": "implies",
    "subset": "subset",
    "subseteq": "subset",
    "coloneqq": "=",  # `a \\coloneqq b`, `a \\triangleq b`: definitions, equations here
    "triangleq": "=",
}


#: Accents make a new name of the letter under them: `\hat y` is not `y`.
ACCENTS = {
    "hat": "hat",
    "widehat": "hat",
    "tilde": "tilde",
    "widetilde": "tilde",
    "bar": "bar",
    "overline": "bar",
    "vec": "vec",
    "dot": "dot",
    "ddot": "ddot",
    "check": "check",
    "breve": "breve",
    "overrightarrow": "vec",
    "overleftarrow": "overleftarrow",
    "underline": "underline",
}


SIMPLE = {
    "cdot": ("CDOT", "cdot"),
    "times": ("TIMES", "times"),
    "odot": ("TIMES", "odot"),  # the entrywise (Hadamard) product
    "circ": ("TIMES", "circ"),  # entrywise between matrices; a composition is not read
    "otimes": ("TIMES", "otimes"),  # outer or Kronecker product: the text says which
    "top": ("TOP", "top"),
    "intercal": ("TOP", "top"),
    "ldots": ("DOTS", "ldots"),
    "dots": ("DOTS", "dots"),
    "cdots": ("DOTS", "cdots"),
    "vdots": ("DOTS", "vdots"),
    "ddots": ("DOTS", "ddots"),
    "frac": ("FRAC", "frac"),
    "dfrac": ("FRAC", "frac"),
    "tfrac": ("FRAC", "frac"),
    "cfrac": ("FRAC", "frac"),
    "sqrt": ("SQRT", "sqrt"),
    "sum": ("SUM", "sum"),
    "boxed": ("BOXED", "boxed"),
    "quad": ("QUAD", "quad"),
    "qquad": ("QUAD", "qquad"),
    "R": ("REALS", "R"),
    "langle": ("LANGLE", "langle"),
    "rangle": ("RANGLE", "rangle"),
}


IGNORED = frozenset(
    "displaystyle textstyle scriptstyle scriptscriptstyle nonumber notag limits nolimits hline "
    "small footnotesize normalsize large rm mathclap mathllap mathrlap".split()
)


#: Glyphs that are prose inside math (the printer's mark for "checked by the kernel").
PROSE_GLYPHS = frozenset("checkmark pm mp".split())


IGNORED_WITH_ARG = frozenset("label tag color".split())


#: Keywords of an algorithm set in bold (`\\mathbf{for} ... \\mathbf{end}`).
ALGORITHM_WORDS = frozenset(
    "for to do end endfor if then else elif endif while endwhile repeat until return "
    "function procedure foreach parallel break continue".split()
)

#: An end-of-proof mark (`\\square` after the last line); elsewhere a placeholder.
PROOF_MARKS = frozenset("square blacksquare Box qed qedsymbol".split())


#: A delimiter written as a command after `\Big`, `\bigl`, `\left`: `\langle`, `\rangle`.
_SIZED_COMMAND = re.compile(
    r"\\(langle|rangle|lbrace|rbrace|vert|Vert|lceil|rceil|lfloor|rfloor)(?![A-Za-z])"
)


#: Notation the reader knows by name but gives no meaning: a formula with it is not understood,
#: and the message names the notation.
UNREAD_NOTATION = {
    "int": "an integral (\\int) is not read",
    "Leftrightarrow": "an equivalence of statements (\\Leftrightarrow) is not read",
    "iff": "an equivalence of statements (\\iff) is not read",
    "prod": "a product over a range (\\prod) is not read",
    "oplus": (
        "\\oplus between two terms: a concatenation, a direct sum or an exclusive or, which the "
        "text does not say; write [A, B] or the entries"
    ),
    "oslash": "an entrywise division (\\oslash) is not read: write the entries, A_{ij} / B_{ij}",
    "cup": "a union of sets (\\cup) is not read",
    "bigcup": "a union of sets (\\bigcup) is not read",
    "sqcup": "a disjoint union (\\sqcup) is not read",
    "bigsqcup": "a disjoint union (\\bigsqcup) is not read",
    "cap": "an intersection of sets (\\cap) is not read",
    "gg": "much greater than (\\gg) is an estimate the checker does not decide",
    "ll": "much less than (\\ll) is an estimate the checker does not decide",
    "overset": "a symbol with a note set over it (\\overset{...}{...}) is not read",
    "binom": "a binomial coefficient (\\binom) is not read",
    "stackrel": "a symbol with a note set over it (\\stackrel{...}{...}) is not read",
    "substack": "a sum over several conditions (\\substack) is not read: write its bounds",
    "dagger": "a pseudo-inverse or adjoint (A^\\dagger) is not read",
}


#: Font switches of plain TeX (`{\\bf x}`) and the font command each stands for.
FONT_SWITCHES = {"bf": "mathbf", "it": "mathit", "sf": "mathsf", "tt": "mathtt", "cal": "mathcal"}


#: Environments the reader knows by name but gives no meaning, with the message that names them.
UNREAD_ENVIRONMENTS = {
    "rcases": (
        "rows joined by a brace on their right (rcases): what the brace says of them is not read"
    ),
    "vmatrix": "a determinant written with bars (vmatrix) is not read",
    "Vmatrix": "a norm written with double bars (Vmatrix) is not read",
}


_MATHOP_WORD = re.compile(
    r"\s*\{\s*(?:\\(?:mathrm|textrm|text|operatorname)\s*\{\s*([A-Za-z]+)\s*\}|([A-Za-z]{2,}))\s*\}"
)


#: `\underset{seq}{softmax}`: the note under the operator names its axis; softmax is the only
#: operator read through it (row-wise, the one softmax of the dialect).
_UNDERSET_SOFTMAX = re.compile(
    r"\s*\{[^{}]*\}\s*\{\s*(?:\\(?:mathop|mathrm|operatorname|text)\s*)?\{?\s*(softmax)\s*\}?\s*\}"
)


SIZES = frozenset(
    "left right big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr Biggl Biggr middle "
    "bigm Bigm biggm Biggm".split()
)


FONTS = frozenset(
    "mathbf boldsymbol bm mathit mathsf mathrm mathcal mathbb mathtt mathfrak textbf".split()
)


TEXTS = frozenset("text textrm textit mbox mathrm operatorname".split())


MATRICES = frozenset("bmatrix pmatrix array cases".split())


#: Environments whose rows alternate alignment marks and column breaks (`a &= b & c &= d`).
ALIGNING = frozenset("aligned align align* alignat alignat* alignedat flalign flalign*".split())


TRANSPARENT_ENVS = frozenset(
    "aligned equation equation* align align* gather gather* gathered split multline multline* "
    "eqnarray eqnarray* flalign flalign* alignat alignat* alignedat subequations".split()
)


PUNCT = {
    "+": "PLUS",
    "-": "MINUS",
    "/": "SLASH",
    ",": "COMMA",
    ".": "PERIOD",
    ";": "SEMI",
    "(": "LPAR",
    ")": "RPAR",
    "[": "LBRACK",
    "]": "RBRACK",
    "_": "SUB",
    "^": "SUP",
}


DELIMS = {"(": "LPAR", ")": "RPAR", "[": "LBRACK", "]": "RBRACK"}


#: Tokens after which a bar `|` or `\|` closes one that is open (they end a value).
VALUE_END = frozenset(
    "LETTER NUMBER SYMBOL REALS RPAR RBRACK RBRACE END_MATRIX DOTS PRIME BAR_CLOSE NORM_CLOSE "
    "RANGLE".split()
)


#: Function names kept as operators when written `\mathrm{name}_j` (the rest become names).
OPERATOR_WORDS = frozenset("softmax mask concat attention exp sqrt max min argmax log".split())


_NAME = re.compile(r"[A-Za-z]+")


_SPACE = re.compile(r"[ \t\r\n~]*")


#: Multiples written after a number (`7\\text{B}`, `32\\text{K}`, `393K`): their power of ten.
MULTIPLES = {"K": 3, "k": 3, "M": 6, "B": 9, "T": 12}
