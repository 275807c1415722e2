"""Macro definitions read into `Macro`s: `\\newcommand`, `\\def`, `\\DeclareMathOperator`.
Imports only the standard library and reader.syntax.braces; it never parses formulas.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from symattn.reader.syntax.braces import group_end

_NAME = re.compile(r"\\([A-Za-z]+|.)", re.DOTALL)


_DEFINER = re.compile(
    r"\\(newcommand|renewcommand|providecommand|DeclareMathOperator|def|gdef)(?![A-Za-z])(\*?)"
)


@dataclass(frozen=True)
class Macro:
    """`\\name` with `params` arguments; `default` is the first one's default, if optional."""

    name: str
    params: int
    body: str
    default: str | None = None


@dataclass(frozen=True)
class Definition:
    """A definition found in a text: the macro, and the text span it occupies."""

    macro: Macro
    start: int
    end: int
    renew: bool = True


def _argument(text: str, i: int) -> tuple[str, int] | None:
    """One TeX argument at `i`: a braced group (without its braces) or a single token."""
    i = _skip_space(text, i)
    if i >= len(text):
        return None
    if text[i] == "{":
        close = group_end(text, i)
        return None if close is None else (text[i + 1 : close], close + 1)
    if text[i] == "\\":
        m = _NAME.match(text, i)
        if m is None:
            return None
        return m.group(), m.end()
    if text[i] in "}":
        return None
    return text[i], i + 1


def _skip_space(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\n":
        i += 1
    return i


def _bracket_end(text: str, i: int) -> int:
    depth = 0
    k = i + 1
    while k < len(text):
        c = text[k]
        if c == "\\":
            k += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "]" and depth == 0:
            return k
        k += 1
    return -1


def definitions(text: str) -> Iterator[Definition]:
    r"""The macro definitions written in `text`, in order.

    >>> [(d.macro.name, d.macro.params, d.macro.default) for d in definitions(
    ...     r"\newcommand{\v}[2][x]{#1#2} \def\w#1{#1} \DeclareMathOperator{\sm}{softmax}")]
    [('v', 2, 'x'), ('w', 1, None), ('sm', 0, None)]
    """
    for m in _DEFINER.finditer(text):
        kind = m.group(1)
        got = (
            _parse_def(text, m.end())
            if kind in ("def", "gdef")
            else _parse_operator(text, m.end(), bool(m.group(2)))
            if kind == "DeclareMathOperator"
            else _parse_newcommand(text, m.end())
        )
        if got is not None:
            macro, end = got
            yield Definition(macro, m.start(), end, renew=kind != "providecommand")


def _control_name(text: str, i: int) -> tuple[str, int] | None:
    """`\\name` or `{\\name}` at `i`: the name and the offset after it."""
    i = _skip_space(text, i)
    braced = i < len(text) and text[i] == "{"
    j = _skip_space(text, i + 1) if braced else i
    m = _NAME.match(text, j)
    if m is None:
        return None
    end = m.end()
    if braced:
        end = _skip_space(text, end)
        if end >= len(text) or text[end] != "}":
            return None
        end += 1
    return m.group(1), end


def _parse_newcommand(text: str, i: int) -> tuple[Macro, int] | None:
    got = _control_name(text, i)
    if got is None:
        return None
    name, i = got
    params = 0
    default = None
    j = _skip_space(text, i)
    if text.startswith("[", j):
        close = text.find("]", j)
        if close < 0 or not text[j + 1 : close].strip().isdigit():
            return None
        params = int(text[j + 1 : close].strip())
        i = close + 1
        j = _skip_space(text, i)
        if text.startswith("[", j):
            close = _bracket_end(text, j)
            if close < 0:
                return None
            default = text[j + 1 : close]
            i = close + 1
    body = _argument(text, i)
    if body is None or params > 9:
        return None
    return Macro(name, params, body[0], default), body[1]


def _parse_def(text: str, i: int) -> tuple[Macro, int] | None:
    r"""`\def\name#1#2{body}`; spaces around the parameters are allowed, as KaTeX's `\gdef
    \vect #1 {\boldsymbol{#1}}` writes them (a space before the body is read as no delimiter).

    >>> _parse_def(r" \vect #1 {\mathbf{#1}} rest", 0)
    (Macro(name='vect', params=1, body='\\mathbf{#1}', default=None), 23)
    """
    m = _NAME.match(text, _skip_space(text, i))
    if m is None:
        return None
    j = _skip_space(text, m.end())
    params = re.match(r"(?:#[1-9][ \t]*)*", text[j:])
    spec = re.sub(r"\s", "", params.group()) if params else ""
    if spec != "".join(f"#{k}" for k in range(1, len(spec) // 2 + 1)):
        return None  # delimited parameters are not supported
    j += len(params.group()) if params else 0
    if j >= len(text) or text[j] != "{":
        return None
    close = group_end(text, j)
    if close is None:
        return None
    return Macro(m.group(1), len(spec) // 2, text[j + 1 : close]), close + 1


def _parse_operator(text: str, i: int, star: bool) -> tuple[Macro, int] | None:
    got = _control_name(text, i)
    if got is None:
        return None
    name, i = got
    body = _argument(text, i)
    if body is None:
        return None
    limits = "\\limits" if star else ""
    return Macro(name, 0, f"\\operatorname{{{body[0]}}}{limits}"), body[1]
