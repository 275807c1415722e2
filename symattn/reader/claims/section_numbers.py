"""Number evidence per section: a capital used as a number in some sections and as a matrix in
others, read as a number in the sections that show only that. Imports the reader's terms."""

from __future__ import annotations

import re
from collections.abc import Sequence

from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.conventions import CONVENTIONS
from symattn.reader.terms.inference import Inference
from symattn.reader.terms.numbers import Numbers, number_evidence
from symattn.reader.terms.scope import Scope

__all__ = ["borrowed_numbers", "enter_section_numbers", "note_section_numbers", "section_title"]

_MARKS = re.compile(r"^\s*(?:#{1,6}\s+|\\(?:part|chapter|section|subsection|subsubsection)\*?\{)")


def section_title(text: str, sections: Sequence[int], section: int) -> str:
    """The heading of `section` (1 for the first heading), as the text writes it; 0 is the text
    before the first heading.

    >>> section_title("intro\\n## Cost of attention\\nx", [2], 1)
    "the section 'Cost of attention'"
    >>> section_title("intro\\n## Cost\\nx", [2], 0)
    'the text before its first heading'
    """
    if section <= 0 or section > len(sections):
        return "the text before its first heading"
    lines = text.splitlines()
    line = sections[section - 1]
    head = lines[line - 1] if 0 < line <= len(lines) else ""
    title = _MARKS.sub("", head).strip().rstrip("}").strip()
    if len(title) > 60:
        title = title[:57] + "..."
    return f"the section '{title}'" if title else f"the section at line {line}"


def note_section_numbers(scope: Scope, items: Sequence[object], text: str, got: Numbers) -> None:
    """For each capital the document shows to be a number and a matrix (`got.conflicts()`), the
    sections whose own formulas and prose show it to be a number and never a matrix, and the
    sections that use it without evidence of their own after such a section (read as there,
    a reading that may verify but never refute). Only when every section that gives evidence
    about it gives one kind; a section with both, or one of the chapter's conventional
    matrices (`V`, `K`), keeps it contested everywhere."""
    scope.section_numbers = {}
    scope.section_base = (dict(scope.numbers), dict(scope.contested_numbers))
    names = {k for k in got.conflicts() if k[:1].isupper() and k not in CONVENTIONS}
    if not names or not scope.sections:
        return
    groups: dict[int, list[MathSpan]] = {}
    for item in items:
        if isinstance(item, MathSpan):
            section = sum(1 for s in scope.sections if s <= item.start.line)
            groups.setdefault(section, []).append(item)
    kinds: dict[str, list[tuple[int, str, str]]] = {}  # name: (section, kind, why)
    mixed: set[str] = set()
    for section, spans in sorted(groups.items()):
        here = number_evidence(spans, text)
        readable = here.readable(CONVENTIONS)
        used = set().union(*here.uses.values()) if here.uses else set()
        for name in names:
            where = section_title(text, scope.sections, section)
            if name in here.numbers and (name in here.matrices or name not in readable):
                mixed.add(name)  # both, or a number by a cue the conventions do not accept
            elif name in readable:
                kinds.setdefault(name, []).append(
                    (section, "number", f"{readable[name]}, in {where}")
                )
            elif name in here.matrices:
                kinds.setdefault(name, []).append((section, "matrix", ""))
            elif name in used:
                kinds.setdefault(name, []).append((section, "", ""))
    for name, seen in kinds.items():
        if name in mixed:
            continue
        last = ("", "")
        for section, kind, why in seen:
            if kind:
                last = (kind, why)
            if kind == "number":
                scope.section_numbers.setdefault(section, {})[name] = (why, False)
            elif not kind and last[0] == "number":
                why = f"{last[1]}, the last section before this one that shows what it is"
                scope.section_numbers.setdefault(section, {})[name] = (why, True)


def enter_section_numbers(
    scope: Scope, inference: Inference | None = None, span: MathSpan | None = None
) -> None:
    """At a formula of `scope.section`: the capitals this section shows to be numbers are
    numbers here, with their evidence, and without the shape the inference gave them from
    the other sections; elsewhere they are contested as the document shows."""
    table = scope.section_numbers
    if not table:
        return
    numbers, contested = scope.section_base
    here = table.get(scope.section, {})
    layer = scope.document
    for name, entry in scope.section_hidden.items():
        layer.names.setdefault(name, entry)
    scope.section_hidden = {}
    for name in here:
        got = layer.names.get(name)
        if got is not None and got.origin == "inferred":  # a shape from the other sections
            scope.section_hidden[name] = layer.names.pop(name)
    if inference is not None and span is not None and here:
        key = (span.start.line, span.start.column)
        if key in inference.uses:  # the verdict names no shape inferred for a number here
            inference.uses[key] = inference.uses[key] - set(here)
    scope.numbers = {**numbers, **{k: v for k, (v, _) in here.items()}}
    scope.contested_numbers = {k: v for k, v in contested.items() if k not in here}


def borrowed_numbers(scope: Scope, names: Sequence[str]) -> str:
    """Why a false about `names` is not decided, when one of them is a number here only as an
    earlier section shows (`B` in a section that never says what B is): empty otherwise."""
    here = scope.section_numbers.get(scope.section, {})
    borrowed = [x for x in names if x in here and here[x][1]]
    if not borrowed:
        return ""
    shown = ", ".join(borrowed)
    return (
        f"this section does not show what {shown} {'is' if len(borrowed) == 1 else 'are'}; "
        "a matrix elsewhere in the text, read as a number as an earlier section shows"
    )
