"""Tokens of the tokenizer: glyphs, roots, scripts, numbers, braces, delimiters and bars.
Imports kernel.errors and the tokenizer's tables and glyphs; it must not import lark.
"""

from __future__ import annotations

import re
from decimal import Decimal

from symattn.reader.syntax.glyphs import (
    COMMANDS,
    FULL_WIDTH,
    PRIMES,
    SPACES,
    SUBSCRIPTS,
    SUPERSCRIPTS,
    styled_letter,
)
from symattn.reader.syntax.lexer_base import LexerBase, Tok
from symattn.reader.syntax.lexer_tables import DELIMS, MULTIPLES, PUNCT, VALUE_END

#: Digits grouped by thousands: `17,179,869,184` and `17{,}179`.
_GROUPED = re.compile(r"[0-9]{1,3}(?:(?:,|\{,\})[0-9]{3})+(?![0-9])")
#: Digits grouped by thousands with a space, the same one between every group: `2\,359\,296`,
#: `2~359~296`, `2\ 359`, `{\,}`, a thin or no-break space, or plain spaces (which TeX drops).
_SPACED = re.compile(
    r"[0-9]{1,3}( *(?:\\[, ]|\{\\,\}|\\thinspace(?![A-Za-z])|~) *| +|[\u2009\u202f\u00a0])"
    r"[0-9]{3}(?:\1[0-9]{3})*(?:\.[0-9]+)?(?![0-9]|[.,][0-9]|\{,\})"
)


_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)?")

#: Tokens of arithmetic before parentheses: `2 \times (1,600 \times 6,400)`.
_ARITHMETIC = frozenset("TIMES CDOT SLASH PLUS MINUS".split())
#: A comma between digits with three after it, at its position minus one.
_GROUPING_COMMA = re.compile(r"[0-9],[0-9]{3}(?![0-9])")
#: An operator of arithmetic inside parentheses.
_OPERATOR = re.compile(r"\\times|\\cdot|[*+/^-]")


def _paren_body(text: str, at: int) -> str | None:
    """What the parentheses opened at `at` hold, None when they do not close."""
    depth = 0
    for k in range(at, len(text)):
        c = text[k]
        depth += 1 if c in "([{" else -1 if c in ")]}" else 0
        if depth == 0:
            return text[at + 1 : k]
    return None


def _commas(body: str) -> list[int]:
    """The offsets of the commas of `body` outside any inner bracket."""
    out, depth = [], 0
    for k, c in enumerate(body):
        depth += 1 if c in "([{" else -1 if c in ")]}" else 0
        if c == "," and depth == 0:
            out.append(k)
    return out


#: A percent sign after a number: `25\%`, `7.5 \%`.
_PERCENT = re.compile(r"\s*\\%")
#: A multiple written straight after a number of two digits or more (`393K`, `1.5B`, `128K`
#: tokens): one number, as `7\\text{B}` is; a one-digit `2K` stays 2 times K, and T (a count
#: of steps as often as a trillion) is left to `\\text{T}`.
BARE_MULTIPLE = re.compile(
    r"(?<![A-Za-z_.0-9])(?:[0-9]{2,}|[0-9]+\.[0-9]+)([KMB])(?![A-Za-z0-9_^'(])"
)
#: The exponent of a number in scientific notation (`1.2e12`, `8.20E+11`, `1e-6`).
_EXPONENT = re.compile(r"([eE])([+-]?)[0-9]+(?![A-Za-z0-9.])")


def _exponent_end(text: str, number: re.Match[str]) -> int:
    """Where a number ends with its exponent (`1.2e12`); `2e-1` stays 2e - 1 (Euler's e), and
    `2e` or `2e^x` are products."""
    m = _EXPONENT.match(text, number.end())
    if m is None:
        return number.end()
    mantissa = number.group()
    if m.group(2) == "-" and m.group(1) == "e" and mantissa != "1" and "." not in mantissa:
        return number.end()
    return m.end()


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


#: What a raised star decorates: a letter, a name in a font, a name with its index.
_STAR_BASES = frozenset(("LETTER", "SYMBOL", "RBRACE"))


class TokensMixin(LexerBase):
    """Glyphs, roots, scripts, numbers, braces, delimiters, bars and `\\mid`."""

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

    def after_script(self) -> bool:
        """Whether the last token opened a script (`p^*`, a conjugate, is not a product)."""
        return bool(self.out) and self.out[-1].kind in ("SUP", "SUB")

    def starred(self, i: int) -> bool:
        """`\\alpha^*`, `b^{*}`, `a_j^\\ast`: a star raised on a name decorates it (an optimal
        value, a minimiser), a new name as a prime makes; where the text works with complex
        numbers the star is a conjugate, and the claim is refused by name (`claims.starred`)."""
        out, text = self.out, self.text
        glyph = 4 if text.startswith("\\ast", i) else 1
        if len(out) >= 2 and out[-1].kind == "SUP" and out[-2].kind in _STAR_BASES:
            out.pop()
            self.emit("PRIME", "*", out[-1].end, i + glyph)
            self.i = i + glyph
            return True
        if len(out) < 3 or out[-1].kind != "LBRACE" or out[-2].kind != "SUP":
            return False
        at = i + glyph
        while text[at : at + 1] in (" ", "\t", "\n"):
            at += 1
        if out[-3].kind not in _STAR_BASES or text[at : at + 1] != "}" or self.opens[-1][0] != "{":
            return False
        del out[-2:]
        self.opens.pop()
        self.emit("PRIME", "*", out[-1].end, at + 1)
        self.i = at + 1
        return True

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
        out = self.out
        # TeX takes one digit as a script's or a fraction's argument: `z_12` is z_1 times 2,
        # `\frac12` is 1/2 and `\frac1n` is 1/n
        after_script = bool(out) and (
            out[-1].kind in ("SUB", "SUP", "FRAC")
            or (len(out) > 1 and out[-2].kind == "FRAC" and out[-1].kind in ("NUMBER", "LETTER"))
        )
        g = _GROUPED.match(self.text, i)
        if g is None or (self.in_list() and not self.grouped_in_parentheses()):
            g = _SPACED.match(self.text, i)
        if g is not None and not after_script and not self.script_arg():
            digits = re.sub(r"[^0-9.]", "", g.group())
            self.emit("NUMBER", digits, i, g.end())  # `17,179,869,184`: one number
            self.i = g.end()
            return
        m = _NUMBER.match(self.text, i)
        assert m is not None
        end = i + 1 if after_script else m.end()
        if not after_script:
            end = _exponent_end(self.text, m)  # `1.2e12`, `8.20E+11`: one number
            bare = BARE_MULTIPLE.match(self.text, i)
            if bare is not None and bare.end() == end + 1:  # `393K`: 393e3
                self.emit("NUMBER", f"{self.text[i:end]}e{MULTIPLES[bare.group(1)]}", i, end + 1)
                self.i = end + 1
                return
            percent = _PERCENT.match(self.text, end)
            if percent is not None:  # `25\%`: the number 0.25, its digits kept
                value = Decimal(self.text[i:end]).scaleb(-2)
                self.emit("NUMBER", str(value), i, percent.end())
                self.i = percent.end()
                return
        self.emit("NUMBER", self.text[i:end], i, end)
        self.i = end

    def grouped_in_parentheses(self) -> bool:
        """`2 \\times (50,257 \\times 1,600)`, `(1,600^2)`: commas that group digits by thousands
        inside parentheses of arithmetic, which hold no list: every comma in them sits between
        digits, three after it, and the parentheses follow an operator or hold one; the
        arguments of a call (`f(1,000)`) and a pair alone (`(1,024)`) stay lists."""
        if not self.opens or self.opens[-1][0] != "(":
            return False
        at = self.opens[-1][1]
        found = (k for k in range(len(self.out) - 1, -1, -1) if self.out[k].start == at)
        opened = next(found, None)
        if opened is None:
            return False
        before = self.out[opened - 1].kind if opened > 0 else ""
        if before not in _ARITHMETIC and before not in ("", "REL", "LPAR", "NUMBER"):
            return False  # `f(1,000)`, `x_{(1,024)}`: arguments, indices
        inside = _paren_body(self.text, at)
        if inside is None or not all(_GROUPING_COMMA.match(inside, k - 1) for k in _commas(inside)):
            return False
        return before in _ARITHMETIC or _OPERATOR.search(inside) is not None

    def in_list(self) -> bool:
        """Inside parentheses, brackets or set braces, where `1,234` may be two items."""
        return any(what in ("(", "[", "\\{") for what, _ in self.opens) or (
            bool(self.out) and self.out[-1].kind == "COMMA"
        )

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
        if c in ")]" and self.out and self.out[-1].kind == "COMMA" and len(self.out) > 1:
            self.out.pop()  # `[a, b, \\big]`: a comma before the closing ends no item
        self.emit(DELIMS[c], c, start, end)
        self.i = end
