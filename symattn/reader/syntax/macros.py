"""A document's own macros (`\\newcommand`, `\\def`, `\\DeclareMathOperator`, front-matter maps)
and their expansion, which keeps a map from each expanded character back to the original text.

Imports only the standard library, kernel.errors and reader.syntax.braces; it never parses
formulas.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from symattn.kernel.errors import InputError
from symattn.reader.syntax.braces import group_end

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

_NAME = re.compile(r"\\([A-Za-z]+|.)", re.DOTALL)
_DEFINER = re.compile(
    r"\\(newcommand|renewcommand|providecommand|DeclareMathOperator|def|gdef)(?![A-Za-z])(\*?)"
)


class MacroError(InputError):
    """A macro that cannot be expanded (it calls itself, or grows without limit)."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


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


def _substitute(body: str, args: list[str]) -> str:
    def one(m: re.Match[str]) -> str:
        if m.group() == "##":
            return "#"
        k = int(m.group(1)) - 1
        return args[k] if 0 <= k < len(args) else m.group()

    return re.sub(r"##|#([1-9])", one, body)


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


# ---- macros written in front matter (MathJax / KaTeX configuration) ----------------------------

_FRONT = re.compile(r"\A---[ \t]*\n(.*?)\n---[ \t]*(?:\n|\Z)", re.DOTALL)


def front_matter_macros(text: str) -> list[Macro]:
    r"""The macros of a `macros:` map in YAML front matter (as MathJax and KaTeX take them):
    `name: "body"` or `name: ["body", params]` (and MathJax's `[body, params, default]`).

    >>> head = '---\nkatex:\n  macros:\n    "\\\\RR": "\\\\mathbb{R}"\n'
    >>> [(m.name, m.body, m.params) for m in front_matter_macros(
    ...     head + '    v: ["\\\\mathbf{#1}", 1]\n---\n')]
    [('RR', '\\mathbb{R}', 0), ('v', '\\mathbf{#1}', 1)]
    """
    front = _FRONT.match(text)
    return [] if front is None else yaml_macros(front.group(1))[0]


def yaml_macros(text: str) -> tuple[list[Macro], list[tuple[int, str]]]:
    r"""The macros of every `macros:` map of a YAML text, at any depth (a site's `_config.yml`
    nests it under `kramdown: math_engine_opts:` or `sphinx: config: mathjax3_config: tex:`),
    in block form or as a flow map `{...}`; and each line of such a map that is not a macro,
    with its (1-based) number and why.

    >>> got, bad = yaml_macros('math:\n  macros: {"\\\\R": "\\\\mathbb{R}"}\n'
    ...     'tex:\n  macros:\n    N: "\\\\mathbb{N}"\n    f:\n      - "#1"\n')
    >>> [(m.name, m.body) for m in got]
    [('R', '\\mathbb{R}'), ('N', '\\mathbb{N}')]
    >>> bad
    [(6, 'f: a macro is "body" or ["body", arguments]')]
    """
    lines = text.split("\n")
    out: list[Macro] = []
    problems: list[tuple[int, str]] = []
    for k, line in enumerate(lines):
        head = re.match(r"^(\s*)[\"']?macros[\"']?\s*:\s*(.*?)\s*$", line)
        if head is None or head.group(2).startswith("#"):
            continue
        flow = head.group(2)
        if flow:
            got, bad = object_macros("macros: " + flow)
            out.extend(got)
            problems.extend((k + 1, why) for _, why in bad)
            continue
        indent = len(head.group(1))
        inner: int | None = None
        for j in range(k + 1, len(lines)):
            entry = lines[j]
            if not entry.strip() or entry.lstrip().startswith("#"):
                continue
            depth = len(entry) - len(entry.lstrip())
            if depth <= indent:
                break
            inner = depth if inner is None else inner
            if depth > inner:
                continue  # the value of an entry written over several lines: reported at it
            macro = _front_entry(entry.strip())
            if macro is not None:
                out.append(macro)
            else:
                key = entry.strip().split(":")[0]
                problems.append((j + 1, f'{key}: a macro is "body" or ["body", arguments]'))
    return out, problems


_SCRIPT = re.compile(r"<script\b[^>]*>(.*?)</script\s*>", re.DOTALL | re.IGNORECASE)
_MACROS_OBJECT = re.compile(r"\b[Mm]acros[\"']?\s*:\s*\{|\b(?:const|let|var)\s+[Mm]acros\s*=\s*\{")


def config_macros(text: str) -> list[Macro]:
    r"""The macros of a MathJax or KaTeX configuration written in the document's own `<script>`
    (`MathJax = {tex: {macros: {RR: "\mathbb{R}", v: ["\mathbf{#1}", 1]}}}`, MathJax 2's
    `TeX: {Macros: {...}}`, KaTeX's `macros: {"\RR": "..."}`).

    >>> [(m.name, m.body, m.params) for m in config_macros(
    ...     '<script>MathJax = {tex: {macros: {RR: "\\\\mathbb{R}", v: ["\\\\mathbf{#1}", 1]}}};'
    ...     '</script>')]
    [('RR', '\\mathbb{R}', 0), ('v', '\\mathbf{#1}', 1)]
    """
    out: list[Macro] = []
    for script in _SCRIPT.finditer(text):
        out.extend(object_macros(script.group(1))[0])
    return out


def object_macros(code: str) -> tuple[list[Macro], list[tuple[int, str]]]:
    r"""The macros of every `macros: {...}` object (and `const macros = {...}`) in JavaScript
    `code`, read as data; and for each entry that is not a macro, its offset in `code` and why.

    >>> got, bad = object_macros('katex.render(s, el, {macros: {"\\\\R": "\\\\mathbb{R}", '
    ...     '// reals\n  f: g()}})')
    >>> [(m.name, m.body) for m in got], [why for _, why in bad]
    ([('R', '\\mathbb{R}')], ['f: g() is not a string or [body, arguments]'])
    """
    code = _without_js_comments(code)
    out: list[Macro] = []
    problems: list[tuple[int, str]] = []
    for m in _MACROS_OBJECT.finditer(code):
        end = _js_close(code, m.end() - 1)
        if end < 0:
            problems.append((m.start(), "the macros object never closes"))
            continue
        at = m.end()
        for entry in _js_split(code[m.end() : end]):
            macro = _front_entry(entry.strip(), js=True) if entry.strip() else None
            if macro is not None:
                out.append(macro)
            elif entry.strip():
                offset = at + len(entry) - len(entry.lstrip())
                problems.append((offset, f"{entry.strip()} is not a string or [body, arguments]"))
            at += len(entry) + 1
    return out, problems


def _without_js_comments(code: str) -> str:
    """`code` with its `//` and `/* */` comments blanked (newlines kept, strings skipped)."""
    chars = list(code)
    k = 0
    while k < len(code):
        c = code[k]
        if c in "\"'`":
            end = _js_string_end(code, k)
            k = len(code) if end < 0 else end + 1
            continue
        if code.startswith("//", k) or code.startswith("/*", k):
            end = code.find("\n", k) if code[k + 1] == "/" else code.find("*/", k + 2) + 2
            end = len(code) if end < k + 2 else end
            for j in range(k, end):
                if chars[j] != "\n":
                    chars[j] = " "
            k = end
            continue
        k += 1
    return "".join(chars)


def _js_close(code: str, i: int) -> int:
    """The offset of the bracket closing the one at `i` (strings skipped), or -1."""
    depth = 0
    k = i
    while k < len(code):
        c = code[k]
        if c in "\"'":
            k = _js_string_end(code, k)
            if k < 0:
                return -1
        elif c in "{[(":
            depth += 1
        elif c in "}])":
            depth -= 1
            if depth == 0:
                return k
        k += 1
    return -1


def _js_string_end(code: str, i: int) -> int:
    quote = code[i]
    k = i + 1
    while k < len(code):
        if code[k] == "\\":
            k += 2
            continue
        if code[k] == quote:
            return k
        k += 1
    return -1


def _js_split(inner: str) -> list[str]:
    """The entries of an object literal's body, split at its top-level commas."""
    out: list[str] = []
    depth = 0
    start = 0
    k = 0
    while k < len(inner):
        c = inner[k]
        if c in "\"'":
            end = _js_string_end(inner, k)
            k = len(inner) if end < 0 else end
        elif c in "{[(":
            depth += 1
        elif c in "}])":
            depth -= 1
        elif c == "," and depth == 0:
            out.append(inner[start:k])
            start = k + 1
        k += 1
    out.append(inner[start:])
    return out


def _front_entry(entry: str, js: bool = False) -> Macro | None:
    m = re.match(r"""^("(?:[^"\\]|\\.)*"|'[^']*'|[^:\s]+)\s*:\s*(.+)$""", entry)
    if m is None:
        return None
    name = _scalar(m.group(1), js).lstrip("\\")
    value = m.group(2).strip()
    params = 0
    default = None
    if value.startswith("[") and value.endswith("]"):
        items = re.findall(r"""\s*("(?:[^"\\]|\\.)*"|'[^']*'|[^,\]]+)\s*(?:,|$)""", value[1:-1])
        if not items:
            return None
        if js and not _quoted(items[0]):
            return None  # a JavaScript expression, not a string: not read
        body = _scalar(items[0], js)
        if len(items) > 1 and items[1].strip().isdigit():
            params = int(items[1].strip())
        if len(items) > 2:
            default = _scalar(items[2], js)
    elif js and not _quoted(value):
        return None
    else:
        body = _scalar(value, js)
    if not name or not re.fullmatch(r"[A-Za-z]+|.", name) or params > 9:
        return None
    return Macro(name, params, body, default)


def _quoted(raw: str) -> bool:
    raw = raw.strip()
    return len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'"


def _scalar(raw: str, js: bool = False) -> str:
    """A YAML (or, `js`, JavaScript) scalar: quoted strings unescaped."""
    raw = raw.strip()
    if len(raw) >= 2 and (raw[0] == raw[-1] == '"' or (js and raw[0] == raw[-1] == "'")):
        return re.sub(
            r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), raw[1:-1]
        )
    if len(raw) >= 2 and raw[0] == raw[-1] == "'":
        return raw[1:-1].replace("''", "'")
    return raw


_PARAM = re.compile(r"#([1-9])")


def site_macros(text: str, name: str) -> list[Macro]:
    r"""The macros a site defines outside its documents, from the text of the file `name`: a
    JSON object as KaTeX takes it (`{"\RR": "\mathbb{R}", "\v": "\mathbf{#1}"}`), a YAML
    map of the same, or `\newcommand` / `\def` / `\gdef` lines and MathJax or KaTeX
    configurations in a .tex, .md or .html file. `MacroFileError` names the file when a JSON
    or YAML file is not such a map.

    >>> [(m.name, m.params) for m in site_macros('{"\\\\RR": "\\\\mathbb{R}", '
    ...     '"\\\\v": "\\\\mathbf{#1}"}', "m.json")]
    [('RR', 0), ('v', 1)]
    >>> [(m.name, m.body) for m in site_macros("\\gdef\\RR{\\mathbb{R}}", "macros.tex")]
    [('RR', '\\mathbb{R}')]
    """
    lower = name.lower()
    if lower.endswith(".json"):
        return _json_macros(text, name)
    if lower.endswith((".yaml", ".yml")):
        out: list[Macro] = []
        for k, line in enumerate(text.splitlines(), 1):
            entry = line.strip()
            if not entry or entry.startswith(("#", "---")) or re.fullmatch(r"\w+\s*:", entry):
                continue
            macro = _front_entry(entry)
            if macro is None:
                raise MacroFileError(f'{name}:{k}: not a macro (write "\\\\name": "body")')
            out.append(_with_params(macro))
        return out
    found = [d.macro for d in definitions(text)]
    return [*found, *front_matter_macros(text), *config_macros(text)]


class MacroFileError(InputError):
    """A file of macros that cannot be read as one."""


def _json_macros(text: str, name: str) -> list[Macro]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise MacroFileError(f"{name}:{e.lineno}:{e.colno}: not valid JSON: {e.msg}") from None
    if isinstance(data, dict) and isinstance(data.get("macros"), dict):
        data = data["macros"]  # a whole KaTeX options object
    if not isinstance(data, dict):
        raise MacroFileError(f"{name}: a JSON object of macros is expected, like KaTeX's macros")
    return map_macros(data, name)


def map_macros(data: dict[str, object], name: str) -> list[Macro]:
    r"""The macros of a map as KaTeX and MathJax take it (`{"\R": "\mathbb{R}"}`, a value
    may be `[body, arguments, default]`); `MacroFileError` names `name` at a bad entry.

    >>> [(m.name, m.params) for m in map_macros({"\\v": "\\mathbf{#1}", "R": ["x", 0]}, "f")]
    [('v', 1), ('R', 0)]
    """
    out: list[Macro] = []
    for key, value in data.items():
        params, default = 0, None
        if isinstance(value, list) and value and isinstance(value[0], str):
            body = value[0]
            if len(value) > 1 and isinstance(value[1], int) and 0 <= value[1] <= 9:
                params = value[1]
            if len(value) > 2 and isinstance(value[2], str):
                default = value[2]
        elif isinstance(value, str):
            body = value
        else:
            raise MacroFileError(f"{name}: the macro {key} is not a string or [body, arguments]")
        bare = str(key).lstrip("\\")
        if not re.fullmatch(r"[A-Za-z]+|.", bare):
            raise MacroFileError(f"{name}: {key!r} is not a macro name")
        macro = Macro(bare, params, body, default)
        out.append(macro if params or isinstance(value, list) else _with_params(macro))
    return out


def _with_params(macro: Macro) -> Macro:
    """KaTeX counts a macro's arguments from the highest `#n` of its body."""
    if macro.params:
        return macro
    found = [int(x) for x in _PARAM.findall(macro.body)]
    return replace(macro, params=max(found)) if found else macro
