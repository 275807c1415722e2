"""The checker's output: compiler-style diagnostics, the summary line, and JSON.

Imports only the standard library, check.results and terminal; must not import the kernel or
the reader.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from symattn.check.results import KINDS, SCHEMA, ClaimResult, one_line
from symattn.terminal import paint

_COLORS = {
    "verified": "32",
    "false": "1;31",
    "shape-error": "1;31",
    "not-understood": "33",
    "undecided": "33",
    "declaration": "36",
    "error": "1;31",
    "malformed": "1;31",
}


def summary_counts(results: Iterable[ClaimResult]) -> dict[str, int]:
    """Counts per kind (every kind present, zeros included), plus proved and checked.

    >>> from symattn.check import check_text
    >>> summary_counts(check_text("$Q=XW_Q$ $A$"))["not-a-claim"]
    1
    """
    results = list(results)
    c = Counter(r.kind for r in results)
    out = {k: c.get(k, 0) for k in KINDS}
    out["proved"] = sum(1 for r in results if r.status == "proved")
    out["checked"] = sum(1 for r in results if r.status == "checked")
    return out


def summary_line(
    name: str, results: Sequence[ClaimResult], conventions: str = "", dialect: str = ""
) -> str:
    """Counts per kind, then the document's conventions when given (`vectors=row (prose, line
    7)`), so a reader sees how its vectors were read, and the dialect its math was read in."""
    c = summary_counts(results)
    return (
        f"{name}: {c['verified']} verified ({c['proved']} proved, {c['checked']} checked), "
        f"{c['false']} false, {c['shape-error']} shape errors, {c['not-understood']} not "
        f"understood, {c['undecided']} undecided"
        + (f", {c['malformed']} malformed" if c["malformed"] else "")
        + (f", {c['error']} errors (exit code 2)" if c["error"] else "")
        + f"; {c['declaration']} declarations, {c['not-a-claim']} not a claim"
        + (f"; read as {dialect}" if dialect else "")
        + (f"; conventions: {conventions}" if conventions else "")
    )


def format_diagnostic(r: ClaimResult, color: bool = False) -> str:
    """`file:line:col: kind: message`, then the source line and a caret under the span."""
    kind = paint(r.kind, _COLORS.get(r.kind), color)
    head = f"{r.location}: {kind}: {r.message}"
    if r.kind in ("verified", "declaration"):
        return head + (f": {one_line(r.source)}" if r.source else "")
    out = [head]
    if r.source_lines:
        text = r.source_lines[0]
        width = (r.end_col - r.col) if r.end_line == r.line else len(text) - r.col + 1
        out.append("  " + text)
        out.append("  " + " " * (r.col - 1) + paint("^" + "~" * max(0, width - 1), "1;32", color))
    if r.counterexample:
        out.append(f"  counterexample: {r.counterexample}")
    return "\n".join(out)


def format_text(
    results: Sequence[ClaimResult],
    name: str,
    color: bool = False,
    conventions: str = "",
    dialect: str = "",
) -> str:
    """Diagnostics of one file (all but not-a-claim), then its summary line."""
    lines = [format_diagnostic(r, color) for r in results if r.kind != "not-a-claim"]
    lines.append(summary_line(name, results, conventions, dialect))
    return "\n".join(lines)


def format_json(
    per_file: Mapping[str, Sequence[ClaimResult]],
    errors: Sequence[str] = (),
    conventions: Mapping[str, Mapping[str, object]] | None = None,
    dialects: Mapping[str, Mapping[str, object]] | None = None,
    macros: Mapping[str, Mapping[str, object]] | None = None,
) -> str:
    """All results as one JSON document (schema `symattn-check/1`); a file's `conventions`
    (`{"vectors": {"value": "row", "source": "prose, line 7", "explicit": false}}`), the
    `dialect` its math was read in (`{"name": "kramdown", "description": "..."}`) and the
    `macros` of its site (`{"root": ..., "sources": [{"file": ..., "macros": 12}], "warnings":
    [...]}`) when given."""
    files = []
    for name, rs in per_file.items():
        entry: dict[str, object] = {"file": name, "summary": summary_counts(rs)}
        if conventions is not None and name in conventions:
            entry["conventions"] = dict(conventions[name])
        if dialects is not None and name in dialects:
            entry["dialect"] = dict(dialects[name])
        if macros is not None and name in macros:
            entry["macros"] = dict(macros[name])
        entry["results"] = [r.to_json() for r in rs]
        files.append(entry)
    doc = {
        "schema": SCHEMA,
        "files": files,
        "errors": list(errors),
        "summary": summary_counts(r for rs in per_file.values() for r in rs),
    }
    return json.dumps(doc, ensure_ascii=False, indent=2)
