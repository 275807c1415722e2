"""Words and fonts in the tokenizer: letters, words as names, `\\text{...}`, fonts around a name.
Imports kernel.errors and the tokenizer's tables and glyphs; it must not import lark.
"""

from __future__ import annotations

import re

from symattn.reader.syntax import layout
from symattn.reader.syntax.glyphs import WORD_FONTS, styled_letter
from symattn.reader.syntax.lexer_base import LexerBase, Tok
from symattn.reader.syntax.lexer_names import cjk_name, identifier, word_name_end
from symattn.reader.syntax.lexer_tables import (
    _NAME,
    _SPACE,
    ALGORITHM_WORDS,
    FUNCS,
    GREEK,
    MULTIPLES,
    OPERATOR_WORDS,
    SCALAR_WORDS,
)

_PLAIN_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)?\Z")

#: Fonts that may hold a quantity with its unit (`\\textbf{14 GB}`).
_QUANTITY_FONTS = frozenset("textbf mathbf boldsymbol bm textit mathit mathrm".split())

#: Fonts whose argument may be words of prose: `\mathrm{Parallel\ training:}`.
_PROSE_FONTS = frozenset("mathrm textbf textit mathit mathsf textsf".split())


def _prose(inner: str) -> bool:
    """Words with a space or a punctuation mark and no command but `\\ `: a label in prose."""
    if "\\" in inner.replace("\\ ", " ") or not re.search(r"[A-Za-z\u4e00-\u9fff]{2}", inner):
        return False
    return bool(re.search(r"\s|[:：,.;!?，。；]", inner))


#: A font around a name with its scripts: `\mathbf{M_k}`, `\mathrm{head_i}`, `\mathbf{\beta_t}`.
_FONT_SCRIPTED = re.compile(r"\{\s*(\\[A-Za-z]+|[A-Za-z]+)\s*(?=[_^])")


#: Words joined by `\\_` that are all of a subscript (`_{rope\\_cache}`); inline Markdown math
#: has the escape unescaped to ` _` (the scanner keeps the offsets).
_SCRIPT_WORDS = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:(?:\\_| _)[A-Za-z0-9]{2,})+(?=\s*\})")


#: A number in a bold font, perhaps with its unit: `\\textbf{14 GB}`, `\\mathbf{34.3}`.
_QUANTITY = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]+(?:/s)?)?\s*\Z")


_BOLD = frozenset("textbf mathbf boldsymbol bm".split())


#: A bold font around a letter in another font: `\\boldsymbol{\\mathcal{H}}`, `\\bm{\\mathbb E}`.
_NESTED_FONT = re.compile(
    r"\{\s*\\(mathcal|mathbb|mathfrak|mathrm|mathsf|mathit)\s*"
    r"(?:\{\s*([A-Za-z])\s*\}|([A-Za-z]))\s*\}"
)


#: A braced argument without braces inside.
_BRACED = re.compile(r"\{([^{}]*)\}")


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
_CAPS_WORDS = frozenset(
    "PE APE RPE TE FFN FNN MLP GLU RMS MHA MQA GQA GELU RELU SILU ELU SELU GEGLU SWIGLU LN BN "
    "KL CE MSE NLL".split()
)


#: The same words with a subscript: `PE_{(pos,2i)}`, a sequence of the text's.
_CAPS_NAME = re.compile(r"([A-Z][A-Za-z]*[A-Z][A-Za-z]*)(?=\s*_)")


_BARE_NAMES = frozenset("softmax attention concat exp sqrt tanh sin cos log".split())


_WORD = re.compile(r"[A-Za-z]+\Z")

#: Letters set apart by spaces in one font: `\\mathbf{P V}`.
_LETTERS_APART = re.compile(r"[A-Za-z](?:\s+[A-Za-z])+\Z")

#: A letter's call of letters in one font: `\\mathbf{f(x)}`, `\\mathbf{g(x, y)}`.
_LETTER_CALL = re.compile(r"[A-Za-z]\s*\(\s*[A-Za-z](?:\s*,\s*[A-Za-z])*\s*\)\Z")
_CALL_MARKS = {"(": "LPAR", ")": "RPAR", ",": "COMMA"}
_TEX_SPACE = re.compile(r"\\[ ,;:!]|~")


#: A quantity in a font, a number and its unit: `\textbf{14 GB}`, `\mathbf{3.5\,TFLOPs}`.
_UNIT_QUANTITY = re.compile(
    r"\s*([0-9]+(?:\.[0-9]+)?)(?:\s|\\[,;: ]|~)*"
    r"(?:[KMGTPE]i?B|kB|bytes?|bits?|[kKMGTPE]?FLOPs?|[kMGTP]?FLOPS|thousand|million|billion"
    r"|trillion)\s*\Z"
)


#: A unit in `\mathrm` after a number (`68.7\,\mathrm{GB}`), read as `\text{GB}` is.
_UNIT_WORD = re.compile(
    r"\s*(?:[KMGTPE]i?B|kB|bytes?|bits?|[kKMGTPE]?FLOPs?|[kMGTP]?FLOPS|ms|[munp]s|GPUs?|tokens?"
    r"|params?|thousand|million|billion|trillion)\s*\Z"
)


#: What may follow a value that ends a claim: the end, a row's end, a column, a stop, prose.
_VALUE_ENDS = re.compile(r"\s*(?:\Z|\\\\|&|[.,;]|\\(?:end|quad|qquad|text)(?![A-Za-z]))")

#: Operators a font may be put around before their parentheses: `\\mathbf{softmax}(x)`.
_KNOWN_OPERATORS = frozenset(w.lower() for w in (*OPERATOR_WORDS, *FUNCS, *SCALAR_WORDS))


_CALL_AHEAD = re.compile(r"\s*(?:[(\[]|\\(?:left|bigl|Bigl|biggl|Biggl|big|Big|bigg|Bigg)\s*[(\[])")


#: A script then parentheses: `\operatorname{online}_{b,b}(S, V)` is an operator with its note.
_SCRIPT_THEN_CALL = re.compile(
    r"\s*[_^]\s*(?:\{[^{}]*\}|\\[A-Za-z]+|[A-Za-z0-9])" + _CALL_AHEAD.pattern
)


#: Words that make a `\\text{...}` a name: letters and digits, single spaces or hyphens between
#: them (`\\text{KV-cache}`), no space around; or a special token in brackets (`\\text{[CLS]}`).
_TEXT_NAME = re.compile(
    r"(?:(?=[A-Za-z0-9 -]*[A-Za-z])[A-Za-z0-9]+(?:[ -][A-Za-z0-9]+)*|\[[A-Z]+\])\Z"
)


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


def _text_word(word: str) -> bool:
    """`RoPE`, `LayerNorm`, `PE`, `FFN`: a word of the text's, not letters side by side."""
    return any(c.islower() for c in word) or word in _CAPS_WORDS


class WordsMixin(LexerBase):
    """Letters and words, `\\text{...}` around an operand, fonts around a name."""

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

    def letters(self, i: int) -> None:
        """A letter, or a word written bare before parentheses (`softmax(x)`, `LayerNorm(x)`):
        an operator, read as `\\operatorname{...}` is."""
        text = self.text
        joined = _SCRIPT_WORDS.match(text, i) if text[i - 1 : i] == "{" else None
        if joined is not None and self.in_script():
            # `K_{rope\\_cache}`: words joined by `\\_` label the name, as `\\text{rope\\_cache}`
            self.emit("SYMBOL", f"text|{identifier(joined.group())}", i, joined.end())
            self.i = joined.end()
            return
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
            bare = word_name_end(text, i) if m is None else None
            if bare is not None:
                # `output = x + y`: a word of the text's, one name as `\\text{output}` is
                self.emit("SYMBOL", f"text|{bare[0]}", i, bare[1])
                self.i = bare[1]
                return
        self.emit("LETTER", text[i], i, i + 1)
        self.i += 1

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

    def text_command(self, name: str, start: int) -> None:
        inner = self.braced_raw(name, start)
        word = inner.strip()
        if inner in MULTIPLES and self.suffixed(inner, start):
            return
        if word == "mod":
            # `i \text{ mod } 2`: the operator, so `i \text{ mod } 2 = 0` is not split at it
            self.emit("TIMES", "mod", start, self.i)
            return
        if word in SCALAR_WORDS:
            self.emit("FUNC", word, start, self.i)  # `\\text{exp } w`: the function, as \\exp
            return
        ident = identifier(inner) if not self.matrix_depth else None
        if ident is None and cjk_name(inner) and self.value_place():
            ident = inner.strip()  # `\\text{参数量} = 12 d^2`: a name in Chinese
        if ident is not None:
            self.emit("SYMBOL", f"text|{ident}", start, self.i)  # `\\text{seq_len}`: one name
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
        elif self.lead_in(inner, start):
            pass
        elif name == "operatorname" or (
            _WORD.match(word)
            and (
                _CALL_AHEAD.match(self.text, self.i)
                or (word.lower() in OPERATOR_WORDS and _SCRIPT_THEN_CALL.match(self.text, self.i))
            )
        ):
            if not _WORD.match(word):
                raise self.fail(f"cannot read the operator name {inner!r}", start)
            self.emit("FUNC", word, start, self.i)
        elif self.matrix_depth and not (self.script_arg() and _TEXT_NAME.match(inner)):
            pass  # a row or column label of a table: prose, its cell stays empty
        elif self.operand_text(inner) or (self.script_arg() and _TEXT_NAME.match(inner)):
            # `\\text{softmax}(\\text{scores})`, `T_\\text{HBM comms}`: a named quantity
            font = "mathrm" if len(inner) == 1 and not self.script_arg() else "text"
            self.emit("SYMBOL", f"{font}|{inner}", start, self.i)
        else:
            self.emit("TEXT", inner, start, self.i)

    def suffixed(self, suffix: str, start: int) -> bool:
        """`7\\text{B}`, `32\\text{K}`: a number written with the multiple after it, one number
        (7e9, 32e3); the reader says K may be 1024 (`reader.claims.units`)."""
        last = self.out[-1] if self.out else None
        if last is None or last.kind != "NUMBER" or not _PLAIN_NUMBER.match(last.value):
            return False
        if self.text[last.end : start].strip(" \\,"):
            return False
        value = f"{last.value}e{MULTIPLES[suffix]}"
        self.out[-1] = Tok("NUMBER", value, last.start, self.i)
        return True

    def lead_in(self, inner: str, start: int) -> bool:
        """`\\text{where head}_i`: a word of prose, then a name with its index in the same
        `\\text`; the prose is a separator, the last word the name (as `\\text{head}_i`)."""
        words = inner.split()
        if len(words) != 2 or not self.scripted_next() or self.script_arg():
            return False
        lead, word = words
        if lead.lower() not in _PROSE_WORDS or not _WORD.match(word):
            return False
        if word.lower() in OPERATOR_WORDS:
            return False
        self.emit("TEXT", lead, start, self.i)
        self.emit("SYMBOL", f"text|{word}", start, self.i)
        return True

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

    def value_place(self) -> bool:
        """Where a value stands: after an operator or an opening (or first), before an
        operator, a closing or the end; never in a matrix."""
        if self.matrix_depth or _SCRIPT_THEN_CALL.match(self.text, self.i):
            return False
        last = self.out[-1].kind if self.out else None
        if not (last is None or last in _OPERAND_BEFORE):
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
        braced = _BRACED.match(text, self.i)
        ident = identifier(braced.group(1)) if braced and not self.matrix_depth else None
        if ident is not None and braced is not None:
            self.i = braced.end()  # `\\mathrm{batch\\_size}`: an identifier, one name
            self.emit("SYMBOL", f"text|{ident}", start, self.i)
            return
        quantity = _QUANTITY.match(braced.group(1)) if braced and name in _BOLD else None
        if quantity is not None and (name == "textbf" or quantity.group(2)) and braced:
            # `\\textbf{14 GB}`: the number in bold, then its unit, as `14 \\text{ GB}`;
            # `\\mathbf{1}` alone is the all-ones vector
            self.i = braced.end()
            digits = quantity.group(1)
            self.emit("NUMBER", digits, start, self.i)
            if quantity.group(2):
                self.emit("TEXT", quantity.group(2), start, self.i)
            return
        nested = _NESTED_FONT.match(text, self.i) if name in _BOLD else None
        if nested is not None:
            # `\\boldsymbol{\\mathcal{H}}`: the letter in the inner font, as the text's other uses
            self.i = nested.end()
            self.font_body(nested.group(1), nested.group(2) or nested.group(3), start)
            return
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
        if name in ("mathbf", "textbf", "bf") and inner.strip() in ALGORITHM_WORDS:
            # `\mathbf{for}`, `\textbf{end}`: a keyword of an algorithm, whose names may take
            # new values from step to step
            word = inner.strip()
            raise self.fail(f"a step of an algorithm (\\{name}{{{word}}}) is not read", start)
        name = layout.word_font(name, inner)
        end = self.i
        nxt = self.text[end : end + 1]
        quantity = _UNIT_QUANTITY.match(inner) if name in _QUANTITY_FONTS else None
        after_number = bool(self.out) and self.out[-1].kind == "NUMBER"
        if (
            after_number
            and name in ("mathrm", "mathsf")
            and _UNIT_WORD.match(inner)
            and _VALUE_ENDS.match(self.text, end)
        ):
            self.emit("TEXT", inner, start, end)  # `68.7\,\mathrm{GB}`: a unit, as `\text{GB}`
        elif quantity is not None and not self.matrix_depth:
            # `\approx \textbf{14 GB}`: the number, then its unit as words after it
            self.emit("NUMBER", quantity.group(1), start, end)
            self.emit("TEXT", inner[quantity.end(1) :].strip(), end, end)
        elif inner == "R" and name in ("mathbb", "mathbf"):
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
        elif not self.several_letters(name, inner, start):
            raise self.fail(f"\\{name} takes one letter here, not {inner!r}", start)

    def spread_font(self, name: str, inner: str, start: int) -> bool:
        """A bold font around letters apart (`\\mathbf{P V}`) or a letter's call of letters
        (`\\mathbf{f(x)}`, `\\mathbf{g(x, y)}`): each letter in the font, as they render."""
        if name not in _BOLD or self.matrix_depth or self.scripted_next():
            return False
        inner = _TEX_SPACE.sub(" ", inner)
        if _LETTERS_APART.match(inner):
            for letter in inner.split():
                self.emit("SYMBOL", f"{name}|{letter}", start, self.i)
            return True
        if not _LETTER_CALL.match(inner):
            return False
        for c in inner.replace(" ", ""):
            kind = "SYMBOL" if c.isalpha() else _CALL_MARKS[c]
            self.emit(kind, f"{name}|{c}" if c.isalpha() else c, start, self.i)
        return True

    def several_letters(self, name: str, inner: str, start: int) -> bool:
        """A font around several letters: `\\mathbf{softmax}(x)` is the operator, `\\mathbf{XA}`
        is the letters side by side in that font (as they render: `\\mathbf{X}\\mathbf{A}`).
        A script after them is refused by name: on the last letter or on their product, the text
        does not say (`\\mathbf{QK}_{ij}`)."""
        if self.spread_font(name, inner, start):
            return True
        if not _WORD.match(inner) or self.matrix_depth:
            return False
        end = self.i
        if inner.lower() in _KNOWN_OPERATORS and _CALL_AHEAD.match(self.text, end):
            self.emit("FUNC", inner.lower(), start, end)  # `\\mathbf{softmax}(...)`
            return True
        if _text_word(inner) and len(inner) > 2:
            return False
        if self.scripted_next():
            raise self.fail(
                f"a script after several letters in one font (\\{name}{{{inner}}}) is not read: "
                f"on the last letter or on their product, which the text does not say; write "
                f"\\{name}{{{inner[:-1]}}}\\{name}{{{inner[-1]}}}_... or "
                f"(\\{name}{{{inner}}})_...",
                start,
            )
        for letter in inner:
            self.emit("SYMBOL", f"{name}|{letter}", start, end)
        return True
