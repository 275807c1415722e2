"""Macros given outside the math: front matter, MathJax and KaTeX configuration, a site's files.
Imports only the standard library, kernel.errors and the macro definitions; never formulas.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace

from symattn.kernel.errors import InputError
from symattn.reader.syntax.macro_definitions import Macro, definitions

_FRONT = re.compile(r"\A---[ \t]*\n(.*?)\n---[ \t]*(?:\n|\Z)", re.DOTALL)


def front_matter_macros(text: str) -> list[Macro]:
    r"""The macros of a `macros:` map in YAML front matter (as MathJax and KaTeX take them):
    `name: "body"` or `name: ["body", params]` (and MathJax's `[body, params, default]`).

    >>> head = '---\nkatex:\n  macros:\n    "\\\\RR": "\\\\mathbb{R}"\n'
    >>> [(m.name, m.body, m.params) for m in front_matter_macros(
    ...     head + '    v: ["\\\\mathbf{#1}", 1]\n---\n')]
    [('RR', '\\mathbb{R}', 0), ('v', '\\mathbf{#1}', 1)]

    Pandoc's `header-includes` (any value of the front matter, in fact) may hold `\newcommand`,
    `\def` or `\DeclareMathOperator` lines: they define macros for every formula too.

    >>> [(m.name, m.body) for m in front_matter_macros(
    ...     '---\nheader-includes: |\n  \\newcommand{\\R}{\\mathbb{R}}\n---\n')]
    [('R', '\\mathbb{R}')]
    """
    front = _FRONT.match(text)
    if front is None:
        return []
    return [*(d.macro for d in definitions(front.group(1))), *yaml_macros(front.group(1))[0]]


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
