"""Commands of the tokenizer: `\\name` by its table, braced notes, sized delimiters, environments.
Imports kernel.errors and the tokenizer's tables and glyphs; it must not import lark.
"""

from __future__ import annotations

import re

from symattn.reader.syntax import layout
from symattn.reader.syntax.braces import group_end
from symattn.reader.syntax.lexer_base import LexerBase
from symattn.reader.syntax.lexer_tables import (
    _MATHOP_WORD,
    _NAME,
    _SIZED_COMMAND,
    _SPACE,
    _UNDERSET_SOFTMAX,
    ACCENTS,
    CONNECTIVES,
    DELIMS,
    DERIVATIVES,
    FONT_SWITCHES,
    FONTS,
    FUNCS,
    GREEK,
    IGNORED,
    IGNORED_WITH_ARG,
    MATRICES,
    PROOF_MARKS,
    PROSE_GLYPHS,
    RELATIONS,
    SIMPLE,
    SIZES,
    TRANSPARENT_ENVS,
    UNREAD_ENVIRONMENTS,
    UNREAD_NOTATION,
)

_UNPAIRED = frozenset(("(", "[", "|", "||"))


_DEF_EQUALS = re.compile(
    r"\s*\{\s*(?:\\(?:textrm|text|mathrm|rm)\s*\{\s*def\s*\}|def|\\triangle)\s*\}\s*\{\s*=\s*\}"
)


#: The rest of an identifier of code after its first word: `\_proj`, `\_of\_computations`.
_IDENT_TAIL = re.compile(r"\\_[A-Za-z0-9]+(?:\\_[A-Za-z0-9]+)*(?![A-Za-z0-9])")


#: The start of a row that goes on inside a bracket left open above: `\\left.`, or an operator.
_GOES_ON = re.compile(r"[\s&]*(?:\\q?quad\s*)*(?:\\left\s*\.|[+\-=]|\\(?:cdot|times)(?![A-Za-z]))")


#: The index of a root: `\sqrt[3]{x}`, `\sqrt[n]{x}`.
_ROOT_INDEX = re.compile(r"\s*\[\s*([^\[\]{}]*?)\s*\]")


#: What may follow a dot that stands for an argument: `)`, `,`, a condition's bar.
_PLACEHOLDER_END = re.compile(r"\s*(?:[),|]|\\(?:mid|vert|right)(?![A-Za-z]))")


#: An implication arrow ahead, past spaces: `\\quad \\Rightarrow`, `\\qquad\\implies`.
_ARROW_AHEAD = re.compile(
    r"(?:\s|\\[,;: ]|\\q?quad(?![A-Za-z]))*"
    r"(?:\\(?:Rightarrow|implies|Longrightarrow)(?![A-Za-z])|⇒)"
)


class CommandsMixin(LexerBase):
    """Commands: a `\\name` by its table, notes, `\\left`/`\\big`, environments."""

    def placeholder(self) -> bool:
        """`f(\\cdot)`, `p(\\cdot \\mid x)`, `g(\\cdot, y)`: a dot alone in an argument list."""
        if not self.out or not self.opens or self.opens[-1][0] != "(":
            return False
        if self.out[-1].kind not in ("LPAR", "COMMA"):
            return False
        return _PLACEHOLDER_END.match(self.text, self.i) is not None

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
                self.continued = i + 2
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
        if nxt == "_" and self.joined_words(i):
            self.i = i + 2  # `K_{rope\\_cache}`: one label of words, as `K_{rope cache}`
            return
        if nxt == "_" and self.code_identifier(i):
            return
        m = _NAME.match(text, i + 1)
        if m is None:
            shown = nxt if nxt else ""
            raise self.fail(f"unsupported command \\{shown}", i)
        name = m.group()
        self.i = m.end()
        self.named(name, i)

    def code_identifier(self, i: int) -> bool:
        """`Q\\_proj`, `group\\_size`: TeX prints the underscore itself, so the letters and digits
        around it are one identifier of code, one name (the letters before it were read already
        and are taken back)."""
        text = self.text
        j = i
        while j > 0 and text[j - 1].isascii() and text[j - 1].isalnum():
            j -= 1
        tail = _IDENT_TAIL.match(text, i)
        if j == i or tail is None or not text[j].isalpha() or self.in_script():
            return False
        k = len(self.out)
        while k > 0 and self.out[k - 1].start >= j:
            k -= 1
        taken = self.out[k:]
        if not taken or any(t.kind not in ("LETTER", "NUMBER", "SYMBOL") for t in taken):
            return False
        if taken[0].start != j or (k > 0 and self.out[k - 1].end > j):
            return False
        del self.out[k:]
        parts = [text[j:i], *re.split(r"\\_", text[i + 2 : tail.end()])]
        self.i = tail.end()
        self.emit("SYMBOL", "text|" + "\\_".join(parts), j, self.i)
        return True

    def indent(self, start: int) -> bool:
        """A `\\quad` that starts a row going on inside a bracket left open above: a space."""
        if self.continued < 0 or not self.opens or self.opens[-1][0] not in ("(", "["):
            return False
        return not self.text[self.continued : start].strip(" \t\n&")

    def braced_prime(self) -> bool:
        """`^{\\prime}`: the braces hold the prime alone; they and the `^` are dropped."""
        out = self.out
        if len(out) < 2 or out[-1].kind != "LBRACE" or out[-2].kind != "SUP":
            return False
        at = self.i
        while self.text[at : at + 1] in (" ", "\t", "\n"):
            at += 1
        if self.text[at : at + 1] != "}" or not self.opens or self.opens[-1][0] != "{":
            return False
        del out[-2:]
        self.opens.pop()
        self.i = at + 1
        return True

    def braced_note_arg(self, name: str, start: int) -> None:
        """Skip a `{...}` note (it may hold braces): `\\xrightarrow{\\text{softmax}}`."""
        self.skip_space()
        close = self.matching(self.i) if self.text[self.i : self.i + 1] == "{" else None
        if close is None:
            raise self.fail(f"\\{name} needs a {{...}} argument", start)
        self.i = close + 1

    def font_switch(self, font: str, start: int) -> None:
        """`{\\bf x}`, `{\\bf W}^Q`, `\\bf{x}`: a font switch around the letters of its group, read
        as the font command; a switch over the rest of a formula is refused by name."""
        self.skip_space()
        text = self.text
        if text[self.i : self.i + 1] == "{":
            self.font(font, start)
            return
        m = _NAME.match(text, self.i)
        after = m.end() if m is not None else self.i
        while text[after : after + 1] in (" ", "\t", "\n"):
            after += 1
        grouped = bool(self.opens) and self.opens[-1][0] == "{"
        if m is None or text[after : after + 1] != "}" or not grouped:
            raise self.fail(
                "a font switch over the rest of a group ({\\bf x y}) is not read: "
                "write \\mathbf{x}",
                start,
            )
        self.i = m.end()
        self.font_body(font, m.group(), start)

    def joined_words(self, i: int) -> bool:
        """`\\_` between two words of a subscript: the underscore of a label, which TeX prints."""
        before, after = self.text[i - 1 : i], self.text[i + 2 : i + 3]
        return before.isalpha() and after.isalpha() and self.in_script()

    def continues_row(self) -> bool:
        """A row of an aligned display that ends in a relation or an operator (`A &= \\\\`,
        `a &+ \\\\`): the formula goes on in the next row, as it renders."""
        if self.matrix_depth or not self.out:
            return False
        if self.opens and self.opens[-1][0] in ("(", "[") and _GOES_ON.match(self.text, self.i + 2):
            return True  # `\left( a \right. \\ &\left. + b \right)`: the bracket goes on
        return self.out[-1].kind in ("REL", "PLUS", "MINUS", "CDOT", "TIMES")

    def after_inner_comma(self) -> bool:
        """A `\\quad` right after a comma inside an open bracket: the comma separates."""
        if not self.out or self.out[-1].kind != "COMMA":
            return False
        return bool(self.opens) and self.opens[-1][0] in ("(", "[")

    def beside_arrow(self) -> bool:
        """A `\\quad` right after an implication arrow or right before one."""
        last = self.out[-1] if self.out else None
        if last is not None and last.kind == "REL" and last.value == "implies":
            return True
        return _ARROW_AHEAD.match(self.text, self.i) is not None

    def named(self, name: str, start: int) -> None:
        end = self.i
        if name in ("quad", "qquad") and self.opens and self.opens[-1][0] == "cases":
            self.i -= 1  # skip_condition starts after the mark that ends the value
            self.skip_condition()  # `\\sin(x) \\quad k \\text{ even}`: the case's condition
        elif self.layout(name, start):
            pass
        elif name in ("quad", "qquad") and self.indent(start):
            pass  # `\left( a + \right. \\ &\quad \left. b \right)`: the indent of a row
        elif name in ("quad", "qquad") and self.after_inner_comma():
            pass  # `f(a,\quad b)`: the space after a comma of a list in brackets
        elif name in ("quad", "qquad") and self.beside_arrow():
            pass  # `a = b \quad\Rightarrow\quad c = d`: the space around an implication
        elif name in ("cdot", "bullet") and self.placeholder():
            self.emit("SYMBOL", f"|{name}", start, end)  # `f(\\cdot)`: the argument left open
        elif name == "sqrt" and _ROOT_INDEX.match(self.text, self.i):
            m = _ROOT_INDEX.match(self.text, self.i)
            assert m is not None
            if m.group(1) != "2":
                raise self.fail("an n-th root (\\sqrt[n]{x}) is not read: write x^{1/n}", start)
            self.i = m.end()  # `\sqrt[2]{x}` is `\sqrt{x}`
            self.emit("SQRT", "sqrt", start, self.i)
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
        elif name == "smash":
            self.i = layout.placement_end(name, self.text, self.i)  # `\smash[b]{d_k}`: d_k
        elif name in IGNORED or name == "mathop":
            pass
        elif name in PROOF_MARKS:
            if self.text[end:].strip(" \t\n.,;") != "":
                msg = f"a placeholder (\\{name}) stands for what the text leaves open: not read"
                raise self.fail(msg, start)
            self.emit("TEXT", name, start, end)  # `\square` after the last line: end of proof
        elif name in ACCENTS:
            self.emit("ACCENT", ACCENTS[name], start, end)
        elif name in ("vert", "Vert"):
            self.bar("|" if name == "vert" else "||", start, end)
        elif name == "prime" and self.out and self.out[-1].kind == "SUP":
            self.out.pop()  # `x^\prime` is `x'`
            self.emit("PRIME", "'", start, end)
        elif name == "prime" and self.braced_prime():
            self.emit("PRIME", "'", start, self.i)  # `x^{\prime}` is `x'`
        elif name in ("xrightarrow", "xleftarrow"):
            # `S \xrightarrow{\text{softmax}} A`: an arrow with its note, the note not read
            self.skip_space()
            if self.text[self.i : self.i + 1] == "[":
                close = self.text.find("]", self.i)
                self.i = close + 1 if close > 0 else self.i
            self.braced_note_arg(name, start)
            self.emit("REL", "to" if name == "xrightarrow" else "gets", start, self.i)
        elif name in FONT_SWITCHES:
            self.font_switch(FONT_SWITCHES[name], start)
        elif name == "ast":
            self.i = start  # `2 \\ast 3`, `x^\\ast`: read as `*` is
            self.step("*")
            self.i = max(self.i, end)  # `x^{\\ast}`: the star took its braces
        elif name in ("bmod", "mod"):
            self.emit("TIMES", "mod", start, end)
        elif name in PROSE_GLYPHS:
            self.emit("TEXT", name, start, end)
        elif name in IGNORED_WITH_ARG:
            self.braced_raw(name, start)
        elif name in SIZES:
            self.sized(name, start)
        elif name in ("text", "textrm", "textit", "mbox", "operatorname"):
            if name == "operatorname" and self.text[self.i : self.i + 1] == "*":
                self.i += 1  # `\operatorname*{softmax}`: limits set below, the same operator
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
        if c == "." and name in ("left", "right"):
            # `\left( a + \right. \\ \left. b \right)`: the invisible side of a pair split
            # across rows; the visible sides pair up as they render
            self.i += 1
            return
        if c not in DELIMS:
            shown = c if c else "nothing"
            raise self.fail(f"unsupported delimiter after \\{name}: {shown}", start)
        self.delimiter(c, start, self.i + 1)

    def environment(self, which: str, start: int) -> None:
        env = layout.environment_alias(self.braced_raw(which, start).strip())
        if which == "begin":
            self.i = layout.placement_end(env, self.text, self.i)
        end = self.i
        if env in UNREAD_ENVIRONMENTS:
            raise self.fail(UNREAD_ENVIRONMENTS[env], start)
        if env not in MATRICES and env not in TRANSPARENT_ENVS:
            raise self.fail(f"unsupported environment {env!r}", start)
        if which == "begin" and env in ("array", "alignat", "alignat*", "alignedat"):
            # the column spec {r|ccccc}, the count of columns {2}: nothing about values
            self.braced_raw(env, start)
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
