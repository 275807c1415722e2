"""The tokenizer of the attention dialect: TeX math text -> a flat list of `Tok`, or ParseError.
Imports kernel.errors and the tokenizer's parts; it must not import lark.
"""

from __future__ import annotations

import re

from symattn.kernel.errors import ParseError
from symattn.reader.syntax import layout
from symattn.reader.syntax.brace_cases import brace_cases
from symattn.reader.syntax.lexer_base import MAX_LENGTH, Tok, position_in
from symattn.reader.syntax.lexer_commands import CommandsMixin
from symattn.reader.syntax.lexer_tables import ALIGNING, PUNCT
from symattn.reader.syntax.lexer_tokens import TokensMixin
from symattn.reader.syntax.lexer_words import WordsMixin


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
    return _Lexer(brace_cases(text), env).run()


_REAL_FONTS = ("mathrm", "boldsymbol", "bm", "mathsf", "textbf")


def _reals_after_in(out: list[Tok]) -> list[Tok]:
    """`x \\in \\mathrm R^n`, `\\boldsymbol{R}^k`, `R^{n\\times d}`: an R in another font (or
    none) right after `\\in` and raised to a power is the reals, as `\\mathbb R` is. Elsewhere R
    stays a name (`R_m q`, a rotation).

    >>> [t.kind for t in tokenize(r"x\\in\\mathrm R^n")]
    ['LETTER', 'REL', 'REALS', 'SUP', 'LETTER']
    >>> [t.kind for t in tokenize(r"R^n")]
    ['LETTER', 'SUP', 'LETTER']
    """
    for k in range(1, len(out) - 1):
        t, before, after = out[k], out[k - 1], out[k + 1]
        if before.kind != "REL" or before.value != "in" or after.kind != "SUP":
            continue
        font, _, inner = t.value.partition("|")
        if (t.kind == "LETTER" and t.value == "R") or (
            t.kind == "SYMBOL" and inner == "R" and font in _REAL_FONTS
        ):
            out[k] = Tok("REALS", "R", t.start, t.end)
    return out


#: A tag set apart at the end of a formula: `\\qquad (\\ast)`, `\\quad (*)`, `\\qquad (3.1)`.
_TAG = re.compile(r"\(\s*(?:\*+|\\ast|\\star|\\dagger|[0-9]+(?:\.[0-9]+)*[a-z]?)\s*\)\s*\Z")


_DIGIT = re.compile(r"[0-9]")

#: The arrow of a signature `f : A \to B`.
_ARROW = re.compile(r"\\(?:to|rightarrow|longrightarrow|mapsto)(?![A-Za-z])|\u2192")
#: The tokens a function's name is written with (`\phi`, `f_\theta`, `\mathrm{Attn}`).
_NAME_TOKENS = frozenset("LETTER SYMBOL FUNC SUB SUP LBRACE RBRACE ACCENT".split())


class _Lexer(TokensMixin, CommandsMixin, WordsMixin):
    """A single left-to-right pass; state is the open braces and environments."""

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
        return _reals_after_in(self.out)

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
        elif c == "(" and self.tag_at(i):
            self.i = len(self.text)  # `a = b \\qquad (\\ast)`: the formula's tag, a label
        elif c in "()[]":
            self.delimiter(c, i, i + 1)
        elif not c.isascii() and self.glyph(c, i):
            pass
        elif self.text.startswith("...", i):
            self.emit("DOTS", "ldots", i, i + 3)  # `x_1, x_2, ..., x_n`: `\\ldots` typed out
            self.i += 3
        elif c == "_" and self.text[i - 1 : i] == " " and self.joined_words(i - 1):
            self.i += 1  # `$K_{rope\\_cache}$` of Markdown, unescaped to `rope _cache`
        elif c == "." and self.dot_placeholder(i):
            self.emit("SYMBOL", "|cdot", i, i + 1)  # `f(.)`: the argument left open, as `\cdot`
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
        elif c == ":" and (self.in_script() or self.bracket_slice(i)):
            # `(AV)_{i,:}`, `A[i,:]`: the colon of a row slice, all columns
            self.emit("SYMBOL", "|colon", i, i + 1)
            self.i += 1
        elif c == ":" and not self.opens and self.out and self.out[-1].kind == "TEXT":
            self.i += 1  # `\text{Query}: Q = XW_Q`: the colon that ends a label, prose
        elif c == ":" and self.signature(i):
            # `f : \mathbb R^d \to \mathbb R`: what a function takes and gives, no claim
            self.out.clear()
            self.emit("TEXT", "signature", 0, len(self.text))
            self.i = len(self.text)
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
                if self.out and self.out[-1].kind == "COMMA":
                    self.out.pop()  # `x, & x > 0`: the comma ends the value, as it renders
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
        elif c == "*" and self.starred(i):
            pass
        elif c == "*" and not self.after_script():
            self.emit("TIMES", "star", i, i + 1)  # `0.6 * 10`: multiplication, as in code
            self.i += 1
        else:
            raise self.fail(layout.unexpected_mark(c, self.row_kinds()), i)

    def signature(self, i: int) -> bool:
        """`f : A \\to B`, `\\phi: V^L \\rightarrow \\mathbb R^{d}`: a name, a colon, and sets
        joined by an arrow, at the top level of the formula."""
        if self.opens or not self.out or len(self.out) > 8:
            return False
        if any(t.kind not in _NAME_TOKENS for t in self.out):
            return False
        return _ARROW.search(self.text, i + 1) is not None and "=" not in self.text[i + 1 :]

    def bracket_slice(self, i: int) -> bool:
        """`A[i,:]`, `A[:, j]`: a colon standing alone as an item of brackets after a name."""
        if not (self.opens and self.opens[-1][0] == "["):
            return False
        if not self.out or self.out[-1].kind not in ("LBRACK", "COMMA"):
            return False
        after = self.text[i + 1 :].lstrip()
        return after[:1] in (",", "]")

    def dot_placeholder(self, i: int) -> bool:
        """`f(.)`, `g(., y)`: a period alone in an argument list stands for the argument."""
        self.i = i + 1
        if self.placeholder():
            return True
        self.i = i
        return False

    def tag_at(self, i: int) -> bool:
        """A tag that ends the formula after a space (`\\qquad (\\ast)`), or is all of it."""
        if self.out and self.out[-1].kind != "QUAD":
            return False
        return _TAG.match(self.text, i) is not None and (
            bool(self.out) or not _DIGIT.search(self.text, i)
        )

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
