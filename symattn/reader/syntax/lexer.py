"""The tokenizer of the attention dialect: TeX math text -> a flat list of `Tok`, or ParseError.

Imports only kernel.errors; parse.py feeds its tokens to the grammar. It must not import lark.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from symattn.kernel.errors import ParseError, Position
from symattn.reader.syntax import layout
from symattn.reader.syntax.braces import group_end
from symattn.reader.syntax.glyphs import (
    COMMANDS,
    FULL_WIDTH,
    PRIMES,
    SPACES,
    SUBSCRIPTS,
    SUPERSCRIPTS,
    WORD_FONTS,
    styled_letter,
)

MAX_LENGTH = 20_000
MAX_NESTING = 200


@dataclass(frozen=True)
class Tok:
    """One token: grammar terminal `kind`, a normalized `value`, and offsets [start, end)."""

    kind: str
    value: str
    start: int
    end: int


def position_in(text: str, offset: int) -> Position:
    """The 1-based line:column of `offset` in `text` (clamped to the text).

    >>> position_in("ab\\ncd", 4)
    Position(line=2, column=2, offset=4)
    """
    offset = max(0, min(offset, len(text)))
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return Position(line, column, offset)


class LineIndex:
    """Positions of many offsets in one text, each in O(log lines).

    >>> LineIndex("ab\\ncd").position(4)
    Position(line=2, column=2, offset=4)
    """

    def __init__(self, text: str) -> None:
        self.size = len(text)
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def position(self, offset: int) -> Position:
        offset = max(0, min(offset, self.size))
        line = bisect.bisect_right(self.starts, offset)
        return Position(line, offset - self.starts[line - 1] + 1, offset)


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
    "equiv": "equiv",
    "sim": "sim",
    "propto": "propto",
    "to": "to",
    "leftarrow": "gets",  # `S \\leftarrow S + v k^T`: an assignment of an algorithm
    "gets": "gets",
    "rightarrow": "to",
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
}
SIMPLE = {
    "cdot": ("CDOT", "cdot"),
    "times": ("TIMES", "times"),
    "odot": ("TIMES", "odot"),  # the entrywise (Hadamard) product
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
    "small footnotesize normalsize large rm".split()
)
#: Glyphs that are prose inside math (the printer's mark for "checked by the kernel").
PROSE_GLYPHS = frozenset("checkmark pm mp".split())
IGNORED_WITH_ARG = frozenset("label tag color".split())
#: Fonts whose argument may be words of prose: `\mathrm{Parallel\ training:}`.
_PROSE_FONTS = frozenset("mathrm textbf textit mathit mathsf textsf".split())


def _prose(inner: str) -> bool:
    """Words with a space or a punctuation mark and no command but `\\ `: a label in prose."""
    if "\\" in inner.replace("\\ ", " ") or not re.search(r"[A-Za-z\u4e00-\u9fff]{2}", inner):
        return False
    return bool(re.search(r"\s|[:：,.;!?，。；]", inner))


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
}
_MATHOP_WORD = re.compile(
    r"\s*\{\s*(?:\\(?:mathrm|textrm|text|operatorname)\s*\{\s*([A-Za-z]+)\s*\}|([A-Za-z]{2,}))\s*\}"
)
#: `\underset{seq}{softmax}`: the note under the operator names its axis; softmax is the only
#: operator read through it (row-wise, the one softmax of the dialect).
_UNDERSET_SOFTMAX = re.compile(
    r"\s*\{[^{}]*\}\s*\{\s*(?:\\(?:mathop|mathrm|operatorname|text)\s*)?\{?\s*(softmax)\s*\}?\s*\}"
)
#: A font around a name with its scripts: `\mathbf{M_k}`, `\mathrm{head_i}`, `\mathbf{\beta_t}`.
_FONT_SCRIPTED = re.compile(r"\{\s*(\\[A-Za-z]+|[A-Za-z]+)\s*(?=[_^])")
#: Parentheses ahead, perhaps sized: `(`, `\big(`, `\left(`.
_PAREN_AHEAD = r"(?=\s*(?:\(|\\(?:left|big|Big|bigg|Bigg|bigl|Bigl|biggl|Biggl)\s*\())"
#: An operator written as a bare word before its parentheses: `softmax(x)`, `Attention(Q,K,V)`.
_BARE_OPERATOR = re.compile(
    r"(softmax|attention|concat|exp|sqrt|tanh|sin|cos|log)" + _PAREN_AHEAD, re.IGNORECASE
)
#: A word of the text's own before parentheses (`MultiHead(Q,K,V)`, `LayerNorm(x)`): one name,
#: a function the text does not declare, not a product of letters.
_BARE_WORD = re.compile(r"([A-Za-z]*[a-z]{3}[A-Za-z]*)" + _PAREN_AHEAD)
#: A word in capitals before parentheses (`PE(pos, 2i)`, `FFN(x)`, `RoPE(x, m)`): a function of
#: the text's when it has a lower-case letter or is a known one; `QK(...)` stays a product.
_CAPS_WORD = re.compile(r"([A-Za-z]*[A-Z][A-Za-z]*[A-Z][A-Za-z]*)" + _PAREN_AHEAD)
#: Words in capitals only that name a function or sequence of the text's (others, like `YW`,
#: are products of matrices).
_CAPS_WORDS = frozenset("PE APE RPE TE FFN FNN MLP GLU RMS MHA MQA GQA".split())
#: The same words with a subscript: `PE_{(pos,2i)}`, a sequence of the text's.
_CAPS_NAME = re.compile(r"([A-Z][A-Za-z]*[A-Z][A-Za-z]*)(?=\s*_)")
#: Digits grouped by thousands: `17,179,869,184` and `17{,}179`.
_GROUPED = re.compile(r"[0-9]{1,3}(?:(?:,|\{,\})[0-9]{3})+(?![0-9])")
_UNPAIRED = frozenset(("(", "[", "|", "||"))
_DEF_EQUALS = re.compile(
    r"\s*\{\s*(?:\\(?:textrm|text|mathrm|rm)\s*\{\s*def\s*\}|def|\\triangle)\s*\}\s*\{\s*=\s*\}"
)
SIZES = frozenset(
    "left right big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr Biggl Biggr middle".split()
)
FONTS = frozenset(
    "mathbf boldsymbol bm mathit mathsf mathrm mathcal mathbb mathtt mathfrak textbf".split()
)
TEXTS = frozenset("text textrm textit mbox mathrm operatorname".split())
MATRICES = frozenset("bmatrix pmatrix array cases".split())
#: Environments whose rows alternate alignment marks and column breaks (`a &= b & c &= d`).
ALIGNING = frozenset("aligned align align* alignat alignat* flalign flalign*".split())
TRANSPARENT_ENVS = frozenset(
    "aligned equation equation* align align* gather gather* gathered split multline multline* "
    "eqnarray eqnarray* flalign flalign*".split()
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
_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)?")
_BARE_NAMES = frozenset("softmax attention concat exp sqrt tanh sin cos log".split())
_NAME = re.compile(r"[A-Za-z]+")
_WORD = re.compile(r"[A-Za-z]+\Z")
_SPACE = re.compile(r"[ \t\r\n~]*")
_CALL_AHEAD = re.compile(r"\s*(?:[(\[]|\\(?:left|bigl|Bigl|biggl|Biggl|big|Big|bigg|Bigg)\s*[(\[])")

#: A script then parentheses: `\operatorname{online}_{b,b}(S, V)` is an operator with its note.
_SCRIPT_THEN_CALL = re.compile(
    r"\s*[_^]\s*(?:\{[^{}]*\}|\\[A-Za-z]+|[A-Za-z0-9])" + _CALL_AHEAD.pattern
)


#: Words that make a `\\text{...}` a name: letters and digits, single spaces, no space around;
#: or a special token in brackets (`\\text{[CLS]}`).
_TEXT_NAME = re.compile(r"(?:(?=[A-Za-z0-9 ]*[A-Za-z])[A-Za-z0-9]+(?: [A-Za-z0-9]+)*|\[[A-Z]+\])\Z")
#: First words of a `\\text{...}` that is prose between formulas, never a name.
_PROSE_WORDS = frozenset(
    "and or if for where with else otherwise then when all each since as is are of to in on by "
    "given such that let so thus hence because while even odd s".split()
)
#: Tokens after which a value stands: an operator, an opening, a fraction or a root.
_OPERAND_BEFORE = frozenset(
    "REL PLUS MINUS CDOT TIMES SLASH LPAR LBRACK LBRACE FRAC SQRT LSET BAR_OPEN NORM_OPEN "
    "LANGLE".split()
)
#: What may follow a value: an operator, a closing, a separator, the end.
_OPERAND_AFTER = re.compile(
    r"\s*(?:[=+\-*/,;.)\]}|&<>_^]|\Z|\\(?:\\|[,;!: ]|(?:cdot|times|in|le|leq|ge|geq|neq|ne|"
    r"approx|right|bigr|Bigr|biggr|Biggr|quad|qquad|end|rightarrow|to)(?![A-Za-z])))"
)


#: What may follow a dot that stands for an argument: `)`, `,`, a condition's bar.
_PLACEHOLDER_END = re.compile(r"\s*(?:[),|]|\\(?:mid|vert|right)(?![A-Za-z]))")
#: What a `√` covers: a letter with its index, `√d_k`, `√d_{model}`.
_ROOTED = re.compile(r"[A-Za-z](?:_(?:\{[^{}]*\}|[A-Za-z0-9]))?(?![A-Za-z0-9{])")


def _paren_end(text: str, at: int) -> int | None:
    """The offset of the `)` that closes the `(` at `at`."""
    depth = 0
    for k in range(at, len(text)):
        depth += {"(": 1, ")": -1}.get(text[k], 0)
        if depth == 0:
            return k
    return None


def _text_word(word: str) -> bool:
    """`RoPE`, `LayerNorm`, `PE`, `FFN`: a word of the text's, not letters side by side."""
    return any(c.islower() for c in word) or word in _CAPS_WORDS


def tokenize(text: str, env: str | None = None) -> list[Tok]:
    """Split a formula body into tokens; spacing, `&` outside matrices and `\\label` vanish.
    `env` is the environment the body stands in when the scanner took its `\\begin` off
    (`align`: its `&` marks alternate alignment points and column breaks).

    >>> [t.kind for t in tokenize(r"Q=XW_Q")]
    ['LETTER', 'REL', 'LETTER', 'LETTER', 'SUB', 'LETTER']
    >>> tokenize(r"\\foo")
    Traceback (most recent call last):
    symattn.kernel.errors.ParseError: 1:1: unknown command \\foo
    """
    if len(text) > MAX_LENGTH:
        raise ParseError(
            f"formula too long: {len(text)} characters, the limit is {MAX_LENGTH}",
            position_in(text, 0),
        )
    return _Lexer(text, env).run()


class _Lexer:
    """A single left-to-right pass; state is the open braces and environments."""

    def __init__(self, text: str, env: str | None = None) -> None:
        self.text = text
        self.env = env  # the environment around the whole body, if any
        self.i = 0
        self.out: list[Tok] = []
        self.opens: list[tuple[str, int]] = []  # ('{' | '(' | '[' | env name, offset)
        self.matrix_depth = 0
        self.amps = 0  # alignment marks so far in this row of an aligning environment
        self.skips: dict[int, int] = {}  # offsets of notes to skip -> where they end
        self.closes: dict[int, int] = {}  # where the invisible braces after a `√` close

    def fail(self, message: str, offset: int) -> ParseError:
        return ParseError(message, position_in(self.text, offset))

    def emit(self, kind: str, value: str, start: int, end: int) -> None:
        self.out.append(Tok(kind, value, start, end))

    def run(self) -> list[Tok]:
        text = self.text
        while self.i < len(text):
            self.step(text[self.i])
        self.close_root(len(text))
        if self.opens:
            what, where = self.opens[-1]
            shown = "\\|" if what == "||" else what
            label = f"\\begin{{{what}}}" if what.isalpha() else f"'{shown}'"
            raise self.fail(f"unbalanced {label}: it is never closed", where)
        return self.out

    def step(self, c: str) -> None:
        i = self.i
        self.close_root(i)
        if i in self.skips:
            self.i = self.skips.pop(i)  # the note under an `\\underbrace`: prose
            return
        if c in " \t\r\n~":
            self.i += 1
        elif c == "\\":
            self.command()
        elif c.isascii() and c.isalpha():
            self.letters(i)
        elif c.isascii() and c.isdigit():
            self.number()
        elif c in "{}":
            self.brace(c)
        elif c in "()[]":
            self.delimiter(c, i, i + 1)
        elif not c.isascii() and self.glyph(c, i):
            pass
        elif self.text.startswith("...", i):
            self.emit("DOTS", "ldots", i, i + 3)  # `x_1, x_2, ..., x_n`: `\\ldots` typed out
            self.i += 3
        elif c in PUNCT:
            self.emit(PUNCT[c], c, i, i + 1)
            self.i += 1
        elif self.text.startswith(":=", i):
            self.emit("REL", "=", i, i + 2)  # `a := b`, a definition: an equation here
            self.i += 2
        elif c == ":" and self.opens and self.opens[-1][0] == "\\{":
            self.emit("COLON", c, i, i + 1)  # `\\{j : j \\le i\\}`, a set by a condition
            self.i += 1
        elif c in "\u00b7\u22c5":  # `·`, `⋅`: `\\cdot` typed as a character
            self.emit("CDOT", "cdot", i, i + 1)
            self.i += 1
        elif c == "\u2212":  # `−`, the Unicode minus sign
            self.emit("MINUS", "-", i, i + 1)
            self.i += 1
        elif c == ":" and self.in_script():
            # `(AV)_{i,:}`: the colon of a row slice, all columns
            self.emit("SYMBOL", "|colon", i, i + 1)
            self.i += 1
        elif self.text.startswith("==", i):
            self.emit("REL", "=", i, i + 2)  # `a == b`: the equality of code, an equation
            self.i += 2
        elif c in "=<>":
            self.emit("REL", c, i, i + 1)
            self.i += 1
        elif c == "'":
            self.emit("PRIME", "'", i, i + 1)
            self.i += 1
        elif c == "|":
            self.bar("|", i, i + 1)
        elif c == "&":
            if self.innermost_env() == "cases":
                self.skip_condition()
                return
            if self.matrix_depth:
                self.emit("AMP", c, i, i + 1)
            elif self.innermost_env() in ALIGNING:
                # `a &= b & c &= d`: the odd marks of a row align, the even ones set two
                # formulas apart
                self.amps += 1
                if self.amps % 2 == 0:
                    self.emit("QUAD", "&", i, i + 1)
            elif self.text.startswith("&&", i):
                # `a = b &&&& c = d`: a run of alignment marks sets two formulas apart
                k = i
                while k < len(self.text) and self.text[k] in "& \t":
                    k += 1
                self.emit("QUAD", "&&", i, k)
                self.i = k
                return
            self.i += 1
        elif c == "*" and not self.after_script():
            self.emit("TIMES", "star", i, i + 1)  # `0.6 * 10`: multiplication, as in code
            self.i += 1
        else:
            raise self.fail(layout.unexpected_mark(c, self.row_kinds()), i)

    def glyph(self, c: str, i: int) -> bool:
        """Unicode math typed directly (`α`, `ℝ`, `×`, `x²`, `𝐱`), read as the TeX it renders
        as, each token at the glyph's own offset; False for a glyph that means nothing here."""
        if c in SPACES:
            self.i = i + 1
        elif c in FULL_WIDTH:
            self.step(FULL_WIDTH[c])
        elif c in PRIMES:
            for _ in range(PRIMES[c]):
                self.emit("PRIME", "'", i, i + 1)
            self.i = i + 1
        elif c in SUPERSCRIPTS or c in SUBSCRIPTS:
            self.script_glyphs(i, SUPERSCRIPTS if c in SUPERSCRIPTS else SUBSCRIPTS)
        elif c == "√":
            self.root_glyph(i)
        elif c in COMMANDS:
            self.i = i + 1
            self.named(COMMANDS[c], i)
        else:
            styled = styled_letter(c)
            if styled is None:
                return self.cjk_prose(i)
            self.styled(i, *styled)
        return True

    def close_root(self, i: int) -> None:
        """The invisible `}` where what a `√` covers ends."""
        if self.closes.pop(i, None) is not None:
            if not self.opens or self.opens[-1][0] != "{":
                raise self.fail("what the root covers is not closed where it ends", i)
            self.opens.pop()
            self.emit("RBRACE", "}", i, i)

    def root_glyph(self, i: int) -> None:
        """`√d_k` and `√(d_k)`: the root, drawn without a bar, covers the name with its index
        or the parentheses that follow, as `\\sqrt{d_k}` does."""
        self.emit("SQRT", "sqrt", i, i + 1)
        m = _ROOTED.match(self.text, i + 1)
        end = m.end() if m is not None else None
        if m is None and self.text[i + 1 : i + 2] == "(":
            close = _paren_end(self.text, i + 1)
            end = close + 1 if close is not None else None
        self.i = i + 1
        if end is not None and end not in self.closes:
            self.push("{", i)
            self.emit("LBRACE", "{", i + 1, i + 1)
            self.closes[end] = i

    def script_glyphs(self, i: int, table: dict[str, str]) -> None:
        """`x²`, `d₁`, `x⁻¹`, `Xᵀ`: a run of script glyphs is one script, `x^{-1}`."""
        k = i
        while k < len(self.text) and self.text[k] in table:
            k += 1
        self.emit(
            "SUP" if table is SUPERSCRIPTS else "SUB",
            "^" if table is SUPERSCRIPTS else "_",
            i,
            i + 1,
        )
        if k - i > 1:
            self.emit("LBRACE", "{", i, i + 1)
        j = i
        while j < k:
            ch = table[self.text[j]]
            if ch.isdigit():
                end = j
                while end < k and table[self.text[end]].isdigit():
                    end += 1
                digits = "".join(table[d] for d in self.text[j:end])
                self.emit("NUMBER", digits, j, end)
                j = end
                continue
            kind = "LETTER" if ch.isalpha() else PUNCT[ch]
            self.emit(kind, ch, j, j + 1)
            j += 1
        if k - i > 1:
            self.emit("RBRACE", "}", k - 1, k)
        self.i = k

    def styled(self, i: int, font: str, letter: str) -> None:
        """`𝐱` is `\\mathbf x`, `𝑥` is `x`; a run of sans-serif or monospace letters (`𝗍𝗁𝖾`) is
        a word, one name (an operator before parentheses), as `\\text{the}`."""
        k = i + 1
        if font in WORD_FONTS and len(letter) == 1:
            while k < len(self.text):
                nxt = styled_letter(self.text[k])
                if nxt is None or nxt[0] != font or len(nxt[1]) != 1:
                    break
                letter += nxt[1]
                k += 1
        self.i = k
        if len(letter) > 1 and k - i > 1:
            if _CALL_AHEAD.match(self.text, k):
                known = letter.lower() if letter.lower() in _BARE_NAMES else letter
                self.emit("FUNC", known, i, k)
            else:
                self.emit("SYMBOL", f"text|{letter}", i, k)
        elif not font:
            if len(letter) == 1:
                self.emit("LETTER", letter, i, k)
            else:
                self.emit("SYMBOL", f"|{letter}", i, k)
        else:
            self.font_body(font, letter if len(letter) == 1 else "\\" + letter, i)

    def after_script(self) -> bool:
        """Whether the last token opened a script (`p^*`, a conjugate, is not a product)."""
        return bool(self.out) and self.out[-1].kind in ("SUP", "SUB")

    def letters(self, i: int) -> None:
        """A letter, or a word written bare before parentheses (`softmax(x)`, `LayerNorm(x)`):
        an operator, read as `\\operatorname{...}` is."""
        text = self.text
        after_letter = i > 0 and (text[i - 1].isalpha() or text[i - 1] == "\\")
        if not after_letter and not self.script_arg() and not self.matrix_depth:
            m = _BARE_OPERATOR.match(text, i) or _BARE_WORD.match(text, i)
            caps = _CAPS_WORD.match(text, i)
            if m is None and caps is not None and _text_word(caps.group(1)):
                m = caps
            named = _CAPS_NAME.match(text, i)
            if m is None and named is not None and _text_word(named.group(1)):
                # `PE_{(pos, 2i)}`: a name of the text's with its index, as `\\text{PE}_{...}`
                self.emit("SYMBOL", f"text|{named.group(1)}", i, named.end(1))
                self.i = named.end(1)
                return
            if m is not None and len(m.group(1)) >= (2 if m is caps else 3):
                word = m.group(1)
                known = word.lower() if word.lower() in _BARE_NAMES else word
                self.emit("FUNC", known, i, m.end(1))
                self.i = m.end(1)
                return
        self.emit("LETTER", text[i], i, i + 1)
        self.i += 1

    def innermost_env(self) -> str | None:
        for what, _ in reversed(self.opens):
            if what.rstrip("*").isalpha():
                return what
        return self.env

    def skip_condition(self) -> None:
        """In `\\begin{cases}`, the column after `&` is the case's condition (`\\text{if } j > i`):
        skipped, so each row is the value alone (a definition by cases is read, not checked)."""
        text, k, depth = self.text, self.i + 1, 0
        while k < len(text):
            if depth == 0 and (text.startswith("\\\\", k) or text.startswith("\\end", k)):
                break
            if text[k] == "\\":
                k += 2
                continue
            depth += {"{": 1, "}": -1}.get(text[k], 0)
            if depth < 0:
                break
            k += 1
        self.i = k

    def in_script(self) -> bool:
        """Inside the braces of a subscript (`_{i,:}`)."""
        depth = 0
        for k in range(len(self.out) - 1, -1, -1):
            kind = self.out[k].kind
            if kind == "RBRACE":
                depth += 1
            elif kind == "LBRACE":
                if depth == 0:
                    return k > 0 and self.out[k - 1].kind == "SUB"
                depth -= 1
        return False

    def script_arg(self) -> bool:
        """Right after `_`/`^`, or inside the braces of a script (`d_{\\text{model}}`)."""
        if self.out and self.out[-1].kind in ("SUB", "SUP"):
            return True
        depth = 0
        for k in range(len(self.out) - 1, -1, -1):
            kind = self.out[k].kind
            if kind == "RBRACE":
                depth += 1
            elif kind == "LBRACE":
                if depth == 0:
                    return k > 0 and self.out[k - 1].kind in ("SUB", "SUP")
                depth -= 1
        return False

    def scripted_next(self) -> bool:
        """A `_` or `^` follows: `\\text{head}_i` is a name with an index."""
        m = _SPACE.match(self.text, self.i)
        return m is not None and self.text[m.end() : m.end() + 1] in ("_", "^")

    def word_name(self, word: str) -> bool:
        """A word in `\\text`/`\\mathrm` that is part of a name, not an operator or prose."""
        if not _WORD.match(word) or self.matrix_depth:
            return False
        if self.script_arg():
            return True
        return word.lower() not in OPERATOR_WORDS and self.scripted_next()

    def bar(self, kind: str, start: int, end: int) -> None:
        """`|x|` and `\\|x\\|`: a bar closes the innermost open one of its kind when a value
        ends right before it; otherwise it opens one."""
        if kind == "|" and self.given(start, end):
            return
        name = "BAR" if kind == "|" else "NORM"
        last = self.out[-1].kind if self.out else ""
        if self.opens and self.opens[-1][0] == kind and last in VALUE_END:
            self.opens.pop()
            self.emit(f"{name}_CLOSE", kind, start, end)
        else:
            self.push(kind, start)
            self.emit(f"{name}_OPEN", kind, start, end)
        self.i = end

    def placeholder(self) -> bool:
        """`f(\\cdot)`, `p(\\cdot \\mid x)`, `g(\\cdot, y)`: a dot alone in an argument list."""
        if not self.out or not self.opens or self.opens[-1][0] != "(":
            return False
        if self.out[-1].kind not in ("LPAR", "COMMA"):
            return False
        return _PLACEHOLDER_END.match(self.text, self.i) is not None

    def given(self, start: int, end: int) -> bool:
        """`p(a \\mid b)`, `p_\\theta(x_i | x_{1:i-1})`: the bar of a condition inside a function's
        parentheses, read as a comma of another function (`p|`), never as `p(a, b)` nor as a bar
        that opens an absolute value. False (nothing emitted) when it is not one."""
        if not self.opens or self.opens[-1][0] != "(" or not self.out:
            return False
        if self.out[-1].kind not in VALUE_END or self.bar_ahead(end):
            return False
        head = self.call_head(self.opens[-1][1])
        if head is None:
            return False
        tok = self.out[head]
        name = tok.value.split("|")[-1] if tok.kind == "SYMBOL" else tok.value
        if tok.kind == "FUNC" and name.endswith("|"):
            return False
        self.out[head] = Tok("FUNC", f"{name}|", tok.start, tok.end)
        self.emit("COMMA", "|", start, end)
        self.i = end
        return True

    def bar_ahead(self, at: int) -> bool:
        """Another bar before the `)` that closes the parentheses open at `at`: `(a |b|)`."""
        depth, text = 0, self.text
        for k in range(at, len(text)):
            c = text[k]
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth -= 1
                if depth < 0:
                    return False
            elif depth == 0 and (c in "|\u2223" or text.startswith(("\\vert", "\\mid"), k)):
                return True
        return True

    def call_head(self, paren: int) -> int | None:
        """The index of the name before the `(` at offset `paren`, past its scripts
        (`p_\\theta(`); None when a name does not stand there."""
        j = next((k for k in range(len(self.out) - 1, -1, -1) if self.out[k].start == paren), -1)
        if j < 0 or self.out[j].kind != "LPAR":
            return None
        j -= 1
        while j >= 0:
            kind = self.out[j].kind
            if kind == "PRIME":
                j -= 1
            elif kind == "RBRACE":
                depth, k = 0, j
                while k >= 0:
                    depth += {"RBRACE": 1, "LBRACE": -1}.get(self.out[k].kind, 0)
                    if depth == 0:
                        break
                    k -= 1
                if k < 1 or self.out[k - 1].kind not in ("SUB", "SUP"):
                    return None
                j = k - 2
            elif j >= 1 and self.out[j - 1].kind in ("SUB", "SUP"):
                j -= 2
            else:
                break
        if j < 0 or self.out[j].kind not in ("LETTER", "SYMBOL", "FUNC"):
            return None
        return j

    def number(self) -> None:
        i = self.i
        after_script = bool(self.out) and self.out[-1].kind in ("SUB", "SUP")
        g = _GROUPED.match(self.text, i)
        if g is not None and not after_script and not self.in_list() and not self.script_arg():
            digits = re.sub(r"\D", "", g.group())
            self.emit("NUMBER", digits, i, g.end())  # `17,179,869,184`: one number
            self.i = g.end()
            return
        m = _NUMBER.match(self.text, i)
        assert m is not None
        # TeX takes one digit as a script argument: z_12 is z_1 followed by 2.
        end = i + 1 if after_script else m.end()
        self.emit("NUMBER", self.text[i:end], i, end)
        self.i = end

    def in_list(self) -> bool:
        """Inside parentheses, brackets or set braces, where `1,234` may be two items."""
        return any(what in ("(", "[", "\\{") for what, _ in self.opens) or (
            bool(self.out) and self.out[-1].kind == "COMMA"
        )

    def push(self, what: str, offset: int) -> None:
        self.opens.append((what, offset))
        if len(self.opens) > MAX_NESTING:
            raise self.fail(f"nesting deeper than {MAX_NESTING} levels", offset)

    def brace(self, c: str) -> None:
        i = self.i
        self.i += 1
        if c == "{":
            self.push("{", i)
            self.emit("LBRACE", c, i, i + 1)
            return
        if not self.opens or self.opens[-1][0] != "{":
            raise self.fail("unbalanced '}': nothing to close", i)
        self.opens.pop()
        self.emit("RBRACE", c, i, i + 1)

    def delimiter(self, c: str, start: int, end: int) -> None:
        # Parentheses count towards nesting; their balance is the grammar's business.
        if c in "([":
            self.push(c, start)
        elif self.opens and self.opens[-1][0] in "([":
            self.opens.pop()
        self.emit(DELIMS[c], c, start, end)
        self.i = end

    def command(self) -> None:
        i = self.i
        text = self.text
        nxt = text[i + 1 : i + 2]
        if nxt in (",", ";", "!", ":", ">", " ", "\t", "\n"):
            self.i = i + 2
            return
        if nxt == "\\":
            self.amps = 0
            if self.continues_row():
                self.i = i + 2  # `a &= \\ b`: a row that ends in a relation or sign goes on
                return
            self.emit("ROWSEP", "\\\\", i, i + 2)
            self.i = i + 2
            return
        if nxt == "|":
            self.bar("||", i, i + 2)
            return
        if nxt in "{}" and nxt:
            self.set_brace(nxt, i)
            return
        m = _NAME.match(text, i + 1)
        if m is None:
            shown = nxt if nxt else ""
            raise self.fail(f"unsupported command \\{shown}", i)
        name = m.group()
        self.i = m.end()
        self.named(name, i)

    def continues_row(self) -> bool:
        """A row of an aligned display that ends in a relation or an operator (`A &= \\\\`,
        `a &+ \\\\`): the formula goes on in the next row, as it renders."""
        if self.matrix_depth or not self.out:
            return False
        return self.out[-1].kind in ("REL", "PLUS", "MINUS", "CDOT", "TIMES")

    def named(self, name: str, start: int) -> None:
        end = self.i
        if name in ("quad", "qquad") and self.opens and self.opens[-1][0] == "cases":
            self.i -= 1  # skip_condition starts after the mark that ends the value
            self.skip_condition()  # `\\sin(x) \\quad k \\text{ even}`: the case's condition
        elif self.layout(name, start):
            pass
        elif name in ("cdot", "bullet") and self.placeholder():
            self.emit("SYMBOL", f"|{name}", start, end)  # `f(\\cdot)`: the argument left open
        elif name in SIMPLE:
            kind, value = SIMPLE[name]
            self.emit(kind, value, start, end)
        elif name in GREEK or name in DERIVATIVES:
            self.emit("SYMBOL", f"|{name}", start, end)
        elif name in RELATIONS:
            self.emit("REL", RELATIONS[name], start, end)
        elif name in FUNCS:
            self.emit("FUNC", name, start, end)
        elif name == "mathop" and _MATHOP_WORD.match(self.text, self.i):
            m = _MATHOP_WORD.match(self.text, self.i)
            assert m is not None
            self.i = m.end()
            word = m.group(1) or m.group(2)
            self.emit("FUNC", word, start, self.i)  # `\\mathop{\\mathrm{max}}`: an operator
        elif name == "underset" and _UNDERSET_SOFTMAX.match(self.text, self.i):
            m = _UNDERSET_SOFTMAX.match(self.text, self.i)
            assert m is not None
            self.i = m.end()
            self.emit("FUNC", "softmax", start, self.i)
        elif name in ("underbrace", "overbrace"):
            self.braced_note(name, start)
        elif name == "textcolor":
            self.braced_raw(name, start)  # `\\textcolor{red}{x}`: the colour only; `{x}` is read
        elif name in IGNORED or name == "mathop":
            pass
        elif name in ACCENTS:
            self.emit("ACCENT", ACCENTS[name], start, end)
        elif name in ("vert", "Vert"):
            self.bar("|" if name == "vert" else "||", start, end)
        elif name == "prime" and self.out and self.out[-1].kind == "SUP":
            self.out.pop()  # `x^\prime` is `x'`
            self.emit("PRIME", "'", start, end)
        elif name in ("bmod", "mod"):
            self.emit("TIMES", "mod", start, end)
        elif name in PROSE_GLYPHS:
            self.emit("TEXT", name, start, end)
        elif name in IGNORED_WITH_ARG:
            self.braced_raw(name, start)
        elif name in SIZES:
            self.sized(name, start)
        elif name in ("text", "textrm", "textit", "mbox", "operatorname"):
            self.text_command(name, start)
        elif name in FONTS:
            self.font(name, start)
        elif name in ("begin", "end"):
            self.environment(name, start)
        elif name == "mid" and self.opens and self.opens[-1][0] == "\\{":
            self.emit("COLON", ":", start, end)
        elif name == "mid" and self.given(start, end):
            pass
        elif name in ("lceil", "lfloor"):
            self.push(f"\\{name}", start)  # `\\lceil x \\rceil`: the function ceil of x
            self.emit("FUNC", name[1:], start, end)
            self.emit("LPAR", "(", start, end)
        elif name in ("rceil", "rfloor"):
            opener = "\\l" + name[1:]
            if not self.opens or self.opens[-1][0] != opener:
                raise self.fail(f"unbalanced \\{name}: no {opener} to close", start)
            self.opens.pop()
            self.emit("RPAR", ")", start, end)
        elif name in ("lbrace", "rbrace"):
            self.i = start  # read as `\\{` and `\\}`
            self.set_brace("{" if name == "lbrace" else "}", start)
            self.i = end
        elif name in ("stackrel", "overset") and self.defining_equals():
            self.emit("REL", "=", start, self.i)
        elif name in CONNECTIVES:
            # `A \\Leftrightarrow B` claims neither A nor B: never two claims of their own
            raise self.fail(
                f"\\{name} joins two statements, neither of which is claimed on its own; "
                "an equivalence or implication between claims is not decided",
                start,
            )
        elif name in UNREAD_NOTATION:
            raise self.fail(UNREAD_NOTATION[name], start)
        else:
            raise self.fail(f"unknown command \\{name}", start)

    def layout(self, name: str, start: int) -> bool:
        """Spacing, size switches and boxes around one symbol (layout.py): False for others."""
        if name in layout.SPACING or name in layout.SIZE_SWITCHES:
            return True
        if name == "forall":
            self.i = layout.quantifier_end(self.text, self.i)
            self.emit("TEXT", "forall", start, self.i)
            return True
        if name in layout.TEXT_FONTS:
            self.font(layout.TEXT_FONTS[name], start)
            return True
        if name in layout.BREAKS:
            self.emit("QUAD", name, start, self.i)  # `a = b \\hfill j \\le i`, as `\\quad`
            return True
        if name in layout.SPACING_WITH_ARG:
            end = layout.spacing_arg_end(self.text, self.i)
            if end is None:
                raise self.fail(f"\\{name} needs its length or argument", start)
            self.i = end
            return True
        if name in ("operatorname", "text", "mbox", "mathbin", "mathrel"):
            at = self.i + len(self.text[self.i :]) - len(self.text[self.i :].lstrip())
            boxed = layout.boxed_symbol(self.text, at)
            if boxed is not None:
                self.i = boxed[1]  # `\\operatorname{\\text{\\raisebox{..}{$\\otimes$}}}`
                self.named(boxed[0], start)
                return True
        return False

    def row_kinds(self) -> list[str]:
        """The kinds of the tokens since the current row (or the formula) began."""
        kinds = [t.kind for t in self.out]
        return kinds[len(kinds) - kinds[::-1].index("ROWSEP") :] if "ROWSEP" in kinds else kinds

    def cjk_prose(self, i: int) -> bool:
        """A run of CJK words inside math (`n个词`) is prose, as `\\text{个词}` is."""
        end = layout.cjk_run_end(self.text, i)
        if end is None:
            return False
        self.emit("TEXT", self.text[i:end], i, end)
        self.i = end
        return True

    def braced_note(self, name: str, start: int) -> None:
        """`\\underbrace{x}_{\\text{erase}}`: x is read, the note under (or over) it is not."""
        self.skip_space()
        close = self.matching(self.i)
        if close is None:
            raise self.fail(f"\\{name} needs a {{...}} argument", start)
        k = _SPACE.match(self.text, close + 1)
        at = k.end() if k is not None else close + 1
        if self.text[at : at + 1] in ("_", "^"):
            m = _SPACE.match(self.text, at + 1)
            arg = m.end() if m is not None else at + 1
            if self.text[arg : arg + 1] == "{":
                end = self.matching(arg)
                if end is None:
                    raise self.fail(f"cannot read the note of \\{name}", start)
                self.skips[at] = end + 1
            else:
                self.skips[at] = arg + 1

    def matching(self, at: int) -> int | None:
        """The offset of the `}` that closes the `{` at `at` (None when there is none)."""
        return group_end(self.text, at)

    def set_brace(self, c: str, start: int) -> None:
        """`\\{` and `\\}`: the braces of a set, `\\{S_1, \\ldots, S_n\\}`, `\\{j : j \\le i\\}`."""
        self.i = start + 2
        if c == "{":
            self.push("\\{", start)
            self.emit("LSET", "\\{", start, start + 2)
            return
        if not self.opens or self.opens[-1][0] != "\\{":
            raise self.fail("unbalanced '\\}': no '\\{' to close", start)
        self.opens.pop()
        self.emit("RSET", "\\}", start, start + 2)

    def defining_equals(self) -> bool:
        """`\\stackrel{\\text{def}}{=}`, `\\overset{\\mathrm{def}}{=}` (also `{\\triangle}`):
        an equals sign that says "defined as"; leaves self.i after it when it is one."""
        m = _DEF_EQUALS.match(self.text, self.i)
        if m is None:
            return False
        self.i = m.end()
        return True

    def skip_space(self) -> None:
        m = _SPACE.match(self.text, self.i)
        assert m is not None
        self.i = m.end()

    def braced_raw(self, name: str, start: int) -> str:
        """The text of a `{...}` argument without nested braces; leaves self.i after it."""
        self.skip_space()
        text = self.text
        if text[self.i : self.i + 1] != "{":
            raise self.fail(f"\\{name} needs a {{...}} argument", start)
        close = text.find("}", self.i + 1)
        inner = text[self.i + 1 : close] if close >= 0 else ""
        if close < 0 or "{" in inner:
            raise self.fail(f"cannot read the argument of \\{name}", start)
        self.i = close + 1
        return inner

    def sized(self, name: str, start: int) -> None:
        self.skip_space()
        c = self.text[self.i : self.i + 1]
        if c == "|" or self.text.startswith("\\|", self.i):
            width = 1 if c == "|" else 2
            self.bar("|" if c == "|" else "||", start, self.i + width)
            return
        if self.text.startswith(("\\{", "\\}"), self.i):  # `\left\{ j : j \le i \right\}`
            self.set_brace(self.text[self.i + 1], self.i)
            return
        angle = _SIZED_COMMAND.match(self.text, self.i)
        if angle is not None:  # `\Big\langle u, v \Big\rangle`, `\bigl\{`
            self.i = angle.end()
            self.named(angle.group(1), start)
            return
        if c not in DELIMS:
            shown = c if c else "nothing"
            raise self.fail(f"unsupported delimiter after \\{name}: {shown}", start)
        self.delimiter(c, start, self.i + 1)

    def text_command(self, name: str, start: int) -> None:
        inner = self.braced_raw(name, start)
        word = inner.strip()
        if word == "mod":
            # `i \text{ mod } 2`: the operator, so `i \text{ mod } 2 = 0` is not split at it
            self.emit("TIMES", "mod", start, self.i)
            return
        if word in SCALAR_WORDS:
            self.emit("FUNC", word, start, self.i)  # `\\text{exp } w`: the function, as \\exp
            return
        if name != "operatorname" and self.word_name(word):
            # `\\text{d}_k` is the letter d with its index; in a script a letter is a label
            font = "mathrm" if len(word) == 1 and not self.script_arg() else "text"
            self.emit("SYMBOL", f"{font}|{word}", start, self.i)
        elif (
            name == "operatorname"
            and self.word_name(word)
            and not self.script_arg()
            and not _SCRIPT_THEN_CALL.match(self.text, self.i)
        ):
            # `\\operatorname{head}_i`: a name with an index, as `\\mathrm{head_i}`
            self.emit("SYMBOL", f"text|{word}", start, self.i)
        elif name == "operatorname" and self.operand_name(inner):
            self.emit("SYMBOL", f"text|{word}", start, self.i)  # `= \\operatorname{cost}`
        elif name == "operatorname" or (_WORD.match(word) and _CALL_AHEAD.match(self.text, self.i)):
            if not _WORD.match(word):
                raise self.fail(f"cannot read the operator name {inner!r}", start)
            self.emit("FUNC", word, start, self.i)
        elif self.matrix_depth:
            pass  # a row or column label of a table: prose, its cell stays empty
        elif self.operand_text(inner) or (self.script_arg() and _TEXT_NAME.match(inner)):
            # `\\text{softmax}(\\text{scores})`, `T_\\text{HBM comms}`: a named quantity
            font = "mathrm" if len(inner) == 1 and not self.script_arg() else "text"
            self.emit("SYMBOL", f"{font}|{inner}", start, self.i)
        else:
            self.emit("TEXT", inner, start, self.i)

    def operand_text(self, inner: str) -> bool:
        """Words written as `\\text{...}` where a value stands (after an operator or an opening,
        before an operator or a closing), not prose: `= \\text{Batch Size} \\times`. Spaces
        around the words (`\\text{ and }`) or a first word of prose (`\\text{where}`) say prose."""
        if self.matrix_depth or not _TEXT_NAME.match(inner):
            return False
        if _SCRIPT_THEN_CALL.match(self.text, self.i):
            return False  # `\\operatorname{online}_{b,b}(S, V)`: an operator with its note
        if inner.split()[0].lower() in _PROSE_WORDS:
            return False
        last = self.out[-1].kind if self.out else None
        listed = last == "COMMA" and bool(self.opens) and self.opens[-1][0] in ("(", "[")
        if not (last is None or last in _OPERAND_BEFORE or listed):
            return False
        return _OPERAND_AFTER.match(self.text, self.i) is not None

    def operand_name(self, inner: str) -> bool:
        """A word in an operator's font standing as a value, not an operator the dialect knows:
        `\\mathrm{scores} = QK^T`, `\\operatorname{cost} + 1`."""
        word = inner.strip()
        known = word.lower() in OPERATOR_WORDS or word in FUNCS or word in SCALAR_WORDS
        return bool(_WORD.match(word)) and not known and self.operand_text(word)

    def font(self, name: str, start: int) -> None:
        self.skip_space()
        text = self.text
        m = _FONT_SCRIPTED.match(text, self.i)
        if m is not None and self.font_scripted(name, m, start):
            return
        if text[self.i : self.i + 1] == "{":
            inner = self.braced_raw(name, start).strip()
        elif text[self.i : self.i + 1] == "\\":
            m = _NAME.match(text, self.i + 1)
            inner = "\\" + m.group() if m else "\\"
            self.i += len(inner)
        else:
            inner = text[self.i : self.i + 1]
            self.i += len(inner)
        self.font_body(name, inner, start)

    def font_scripted(self, name: str, m: re.Match[str], start: int) -> bool:
        """`\\mathbf{M_k}`: the font is on the name, the scripts are read as usual inside the
        braces, which group (`{\\mathbf M}_k`). A letter, a Greek letter or (upright) a word."""
        head = m.group(1)
        letter = len(head) == 1 or (head.startswith("\\") and head[1:] in GREEK)
        word = not head.startswith("\\") and name in ("mathrm", "textbf", "mathit")
        if not (letter or word):
            return False
        brace = self.i
        self.push("{", brace)
        self.emit("LBRACE", "{", start, brace + 1)
        self.i = m.end()
        self.font_body(name, head, start)
        return True

    def font_body(self, name: str, inner: str, start: int) -> None:
        name = layout.word_font(name, inner)
        end = self.i
        nxt = self.text[end : end + 1]
        if inner == "R" and name in ("mathbb", "mathbf"):
            self.emit("REALS", "R", start, end)
        elif inner == "d" and name == "mathrm" and nxt.isascii() and nxt.isalpha():
            self.i = end + 1  # `\\mathrm{d}O`: the differential of O, one name as `\\mathit{dO}`
            self.emit("SYMBOL", f"text|d{nxt}", start, self.i)
        elif len(inner) == 1 and inner.isascii() and inner.isalpha():
            self.emit("SYMBOL", f"{name}|{inner}", start, end)
        elif inner == "1" and name in ("mathbf", "boldsymbol", "bm", "mathbb"):
            self.emit("SYMBOL", f"{name}|1", start, end)  # the all-ones vector
        elif inner.startswith("\\") and inner[1:] in GREEK:
            self.emit("SYMBOL", f"{name}|{inner[1:]}", start, end)
        elif name in ("mathrm", "textbf") and self.word_name(inner):
            self.emit("SYMBOL", f"text|{inner}", start, end)
        elif (name == "mathit" and _WORD.match(inner)) or (
            name in ("mathrm", "textbf") and self.operand_name(inner)
        ):
            self.emit("SYMBOL", f"text|{inner}", start, end)  # `\\mathit{dO}`: one name
        elif name in ("mathrm", "textbf") and _WORD.match(inner):
            self.emit("FUNC", inner, start, end)
        elif name in _PROSE_FONTS and _prose(inner):
            if not self.matrix_depth:  # `\mathrm{Parallel\ training:}`: a label, prose
                self.emit("TEXT", inner, start, end)
        else:
            raise self.fail(f"\\{name} takes one letter here, not {inner!r}", start)

    def environment(self, which: str, start: int) -> None:
        env = layout.environment_alias(self.braced_raw(which, start).strip())
        if which == "begin":
            self.i = layout.placement_end(env, self.text, self.i)
        end = self.i
        if env not in MATRICES and env not in TRANSPARENT_ENVS:
            raise self.fail(f"unsupported environment {env!r}", start)
        if which == "begin" and env == "array":
            self.braced_raw("array", start)  # the column spec {r|ccccc} says nothing about values
            end = self.i
        if which == "begin":
            self.amps = 0
            self.push(env, start)
            if env in MATRICES:
                self.matrix_depth += 1
                self.emit("BEGIN_MATRIX", env, start, end)
            return
        if self.opens and self.opens[-1][0] in _UNPAIRED:
            # TeX does not pair parentheses and bars: `p(c_i \\vert c_1)`, a `(` left open,
            # make the formula unreadable here, not malformed LaTeX
            what, at = self.opens[-1]
            raise self.fail(f"unbalanced '{what}' before \\end{{{env}}}", at)
        if not self.opens or self.opens[-1][0] != env:
            opened = self.opens[-1][0] if self.opens else None
            got = f"\\end{{{env}}}"
            reason = f"closes '{opened}'" if opened else "has no \\begin"
            raise self.fail(f"unbalanced {got}: it {reason}", start)
        self.opens.pop()
        if env in MATRICES:
            self.matrix_depth -= 1
            self.emit("END_MATRIX", env, start, end)
