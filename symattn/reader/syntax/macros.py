"""A document's own macros and their expansion, mapping each expanded character to the original.
Imports the standard library, kernel.errors and the macro definitions; never formulas.
"""

from __future__ import annotations

import re

from symattn.kernel.errors import InputError
from symattn.reader.syntax.macro_config import (
    MacroFileError,
    config_macros,
    front_matter_macros,
    map_macros,
    object_macros,
    site_macros,
    yaml_macros,
)
from symattn.reader.syntax.macro_definitions import (
    _NAME,
    Macro,
    _argument,
    _bracket_end,
    _skip_space,
    definitions,
)

__all__ = [
    "Macro",
    "MacroError",
    "Macros",
    "config_macros",
    "map_macros",
    "object_macros",
    "yaml_macros",
    "front_matter_macros",
    "package_macros",
    "MacroFileError",
    "site_macros",
]

MAX_DEPTH = 32
MAX_GROWTH = 20  # an expansion may be this many times longer than the formula, plus MIN_ROOM
MIN_ROOM = 20_000


class MacroError(InputError):
    """A macro that cannot be expanded (it calls itself, or grows without limit)."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


class Macros:
    """The macros in force, in the order a document defines them.

    >>> m = Macros()
    >>> body = m.define_in(r"\\newcommand{\\v}[1]{\\mathbf{#1}} \\v{q}")
    >>> m.expand(body)[0].strip()
    '\\\\mathbf{q}'
    """

    def __init__(self) -> None:
        self.table: dict[str, Macro] = {}

    def __bool__(self) -> bool:
        return bool(self.table)

    def add(self, macro: Macro, renew: bool = True) -> None:
        if renew or macro.name not in self.table:
            self.table[macro.name] = macro

    def define_in(self, text: str) -> str:
        """Take the definitions written in `text` into the table; the text comes back with
        each definition blanked to spaces (newlines kept), so offsets still match."""
        chars: list[str] | None = None
        for d in definitions(text):
            self.add(d.macro, d.renew)
            if chars is None:
                chars = list(text)
            for k in range(d.start, d.end):
                if chars[k] != "\n":
                    chars[k] = " "
        return text if chars is None else "".join(chars)

    def expand(self, text: str) -> tuple[str, list[int]]:
        """`text` with every macro of the table expanded, and for each character of the result
        (and one past its end) the offset in `text` it comes from; `MacroError` if an expansion
        calls itself deeper than MAX_DEPTH or grows past the size limit."""
        origin = list(range(len(text) + 1))
        if not self.table or "\\" not in text:
            return text, origin
        budget = [MIN_ROOM + MAX_GROWTH * len(text)]
        out, where = self._expand(text, origin[:-1], 0, budget)
        where.append(len(text))
        return out, where

    def _expand(
        self, text: str, origin: list[int], depth: int, budget: list[int]
    ) -> tuple[str, list[int]]:
        out: list[str] = []
        where: list[int] = []
        i = 0
        n = len(text)
        while i < n:
            k = text.find("\\", i)
            if k < 0:
                k = n
            out.append(text[i:k])
            where.extend(origin[i:k])
            if k >= n:
                break
            m = _NAME.match(text, k)
            if m is None:  # a lone backslash at the end
                out.append("\\")
                where.append(origin[k])
                break
            macro = self.table.get(m.group(1))
            if macro is None:
                out.append(m.group())
                where.extend(origin[k : m.end()])
                i = m.end()
                continue
            if depth >= MAX_DEPTH:
                raise MacroError(
                    f"macro \\{macro.name} expands into itself (more than {MAX_DEPTH} levels deep)",
                    origin[k],
                )
            args, end = _arguments(text, m.end(), macro)
            if args is None:
                out.append(m.group())
                where.extend(origin[k : m.end()])
                i = m.end()
                continue
            body = _substitute(macro.body, args)
            budget[0] -= len(body)
            if budget[0] < 0:
                raise MacroError(
                    f"macro \\{macro.name}: its expansion grows past the size limit", origin[k]
                )
            # a control word followed by a letter must stay apart from it
            if re.search(r"\\[A-Za-z]+$", body) and end < n and text[end].isalpha():
                body += " "
            sub, sub_where = self._expand(body, [origin[k]] * len(body), depth + 1, budget)
            out.append(sub)
            where.extend(sub_where)
            i = end
        return "".join(out), where


#: Commands of common packages that the reader knows under another name: eulervm's `\mathbold`
#: and amsmath's `\pmb` are bold like `\boldsymbol`. A document's own definition wins.
PACKAGE_MACROS = (
    Macro("mathbold", 1, "\\boldsymbol{#1}"),
    Macro("pmb", 1, "\\boldsymbol{#1}"),
)


def package_macros(text: str) -> list[Macro]:
    r"""The package commands that `text` uses.

    >>> [m.name for m in package_macros(r"\mathbold a + \mathbf b")]
    ['mathbold']
    """
    return [m for m in PACKAGE_MACROS if re.search(rf"\\{m.name}(?![A-Za-z])", text)]


def _arguments(text: str, i: int, macro: Macro) -> tuple[list[str] | None, int]:
    args: list[str] = []
    count = macro.params
    if macro.default is not None and count > 0:
        j = _skip_space(text, i)
        if j < len(text) and text[j] == "[":
            close = _bracket_end(text, j)
            if close < 0:
                return None, i
            args.append(text[j + 1 : close])
            i = close + 1
        else:
            args.append(macro.default)
        count -= 1
    for _ in range(count):
        got = _argument(text, i)
        if got is None:
            return None, i
        arg, i = got
        args.append(arg)
    return args, i


def _substitute(body: str, args: list[str]) -> str:
    def one(m: re.Match[str]) -> str:
        if m.group() == "##":
            return "#"
        k = int(m.group(1)) - 1
        return args[k] if 0 <= k < len(args) else m.group()

    return re.sub(r"##|#([1-9])", one, body)
