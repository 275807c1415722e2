"""Checking a document or one formula: read it, resolve its claims, decide each one.

Imports the reader, check.verdicts (decide), check.results, check.sites (a file's site macros),
kernel.errors and settings; must not import cli.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import sympy

from symattn.check.gradient_facts import decide_in_order
from symattn.check.results import MAX_FILE_BYTES, ClaimResult, FileError
from symattn.check.sites import SiteFinder
from symattn.check.verdicts import decide, explain_claim
from symattn.kernel.errors import Position
from symattn.kernel.explain import Explanation
from symattn.kernel.proof import check_shapes
from symattn.reader.claims.declarations import conventional_sizes, parse_dims
from symattn.reader.claims.resolve import Resolver, attach_conditions, section_lines
from symattn.reader.claims.resolved import ResolvedClaim
from symattn.reader.syntax.dialects import is_notebook_name
from symattn.reader.syntax.macros import Macro
from symattn.reader.syntax.notebook import NotebookError, read_notebook
from symattn.reader.syntax.scanner import MathSpan, Scan, ScanProblem, read
from symattn.reader.terms.conventions import (
    TYPING,
    Convention,
    DocumentConventions,
    read_conventions,
    shaped_reading,
)
from symattn.settings import SettingsError, load


def check_text(
    text: str,
    filename: str = "<string>",
    conventions: Mapping[str, str] | None = None,
    project: Mapping[str, Convention] | None = None,
    macros: Sequence[Macro] = (),
) -> list[ClaimResult]:
    """Every claim of a Markdown/LaTeX text with its verdict, in file order; `macros` are the
    site's (defined outside the document, `site_macros`), below the document's own.

    >>> [r.kind for r in check_text("$Q=XW_Q$ and $(QK^T)_{ij}=q_j\\\\cdot k_i$", "a.md")]
    ['verified', 'false']
    """
    found = read(text, filename, site=macros)
    lines = found.text.splitlines()
    results = decide_in_order(
        _resolve(found, filename, conventions, project), lambda x: decide(x, lines)
    )
    if found.notebook is None:
        return results
    return [_in_cell(r, found) for r in results]


def _in_cell(r: ClaimResult, found: Scan) -> ClaimResult:
    """A result on the joined Markdown cells of a notebook, placed in its cell:
    `file.ipynb:cell N:line:col`."""
    assert found.notebook is not None
    cell, line = found.notebook.where(r.line)
    _, end_line = found.notebook.where(r.end_line)
    return dataclasses.replace(r, file=f"{r.file}:cell {cell}", line=line, end_line=end_line)


def resolve_text(
    text: str,
    filename: str = "<string>",
    conventions: Mapping[str, str] | None = None,
    project: Mapping[str, Convention] | None = None,
) -> list[Any]:
    """Every claim resolved but not yet decided (`ResolvedClaim`), in file order; what the
    scanner could not read comes back as a `ClaimResult` already. `decide` gives the verdict.

    >>> [getattr(c, "status", None) for c in resolve_text("$Q=XW_Q$ $q_i=k_i$ $A$")]
    ['shape', 'pending', 'prose']

    `conventions` are the user's settings (`{"vectors": "row"}`, the `--conventions` option);
    the document's own are read from it (`read_conventions`), and a bad setting in its front
    matter is reported where it is written. `project` is the project's default
    (`project_conventions(path)`: `vectors` of `[tool.symattn]`), below the document's own.
    """

    return _resolve(read(text, filename), filename, conventions, project)


def _resolve(
    scanned: Scan,
    filename: str,
    conventions: Mapping[str, str] | None,
    project: Mapping[str, Convention] | None,
) -> list[Any]:
    found = read_conventions(scanned.text, dict(conventions or {}), project)
    out = _resolve_with(scanned, filename, found)
    vectors = found.vectors
    if vectors.applies() or vectors.source.startswith("prose"):
        return out  # set by the user or said in the prose (or the prose is torn): as it says
    if not vectors.value and vectors.source != "not stated" and not shaped_reading(scanned.text):
        return out  # its formulas write both `q k^T` and `q^T k`: a mixed document
    return _settled_by_typing(scanned, filename, found, out)


def _resolve_with(scanned: Scan, filename: str, found: DocumentConventions) -> list[Any]:
    text = scanned.text
    lines = text.splitlines()
    resolver = Resolver(section_lines(text), conventions=found)
    out: list[Any] = [
        _scan_problem(msg, Position(k, 1, 0), filename, lines, "bad convention")
        for k, msg in found.problems
    ]
    for item in resolver.resolve_items(scanned.items, text):
        if isinstance(item, ScanProblem):
            out.append(_scan_problem(item.message, item.position, filename, lines))
        else:
            out.append(item)
    return attach_conditions(out, text)


def _settled_by_typing(
    scanned: Scan, filename: str, found: DocumentConventions, out: list[Any]
) -> list[Any]:
    """A document that never says whether its vectors are rows or columns, where some formula
    typechecks with one reading only and none with the other only: that reading is the
    document's, and the document is read again with it. Formulas that typecheck either way or
    neither way say nothing; evidence both ways (`q k^T` here, `q^T k` there) leaves every such
    claim undecided, as does a second reading that adds a shape error anywhere. A formula is
    never its own evidence: one that only its own typing would settle stays as it was."""
    evidence = [c for c in out if isinstance(c, ResolvedClaim) and c.typed]
    readings = {c.typed for c in evidence}
    if len(readings) != 1 or found.vectors.value not in ("", *readings):
        return out
    (reading,) = readings
    at = {_key(c): c.span.position_at(c.start).line for c in evidence}
    settled = dataclasses.replace(found, vectors=Convention(reading, _typing(set(at.values()))))
    again = _resolve_with(scanned, filename, settled)
    if _errors(again) - _errors(out):
        return out  # the reading makes another formula ill-typed: the document is mixed
    before = {_key(c): c for c in out if isinstance(c, ResolvedClaim) and _unsettled(c)}
    result: list[Any] = []
    for c in again:
        key = _key(c) if isinstance(c, ResolvedClaim) else None
        if key is None or key not in before:
            result.append(c)
            continue
        others = {line for k, line in at.items() if k != key}
        if not others or c.status == "shape_error" or _sides_differ(c):
            # a formula is never its own cue: it needs another formula's evidence; and one
            # that is ill-typed in the reading is no formula that reading makes typecheck
            result.append(before[key])
            continue
        note = f"vectors read as {reading}s: {_typing(others)}"
        result.append(dataclasses.replace(c, orientation=note))
    return result


def _sides_differ(c: ResolvedClaim) -> bool:
    """A claim for the kernel whose two sides have shapes not provably equal (the kernel would
    call it a shape error)."""
    return c.status == "pending" and any(check_shapes(a, b) is not None for a, b in c.pairs)


def _typing(lines: set[int]) -> str:
    where = ", ".join(str(k) for k in sorted(lines))
    return f"{TYPING} (line{'s' if len(lines) > 1 else ''} {where})"


def _key(c: ResolvedClaim) -> tuple[int, int, int]:
    return (c.span.position_at(c.start).line, c.span.position_at(c.start).column, c.end - c.start)


def _unsettled(c: ResolvedClaim) -> bool:
    """The claim was read both ways (or left undecided) for want of the vectors' reading."""
    said = "undecided (convention)" in c.message or "not settled" in c.message
    return bool(c.split or c.typed or c.pinnable or said)


def _errors(claims: list[Any]) -> set[tuple[int, int, int]]:
    return {_key(c) for c in claims if isinstance(c, ResolvedClaim) and c.status == "shape_error"}


def claim_position(claim: Any) -> Position:
    """Where `decide` will place the claim's diagnostic (known before the kernel runs)."""
    start = claim.focus[0] if claim.status in ("not_understood", "shape_error") else claim.start
    return claim.span.position_at(start)


def check_file(
    path: str | os.PathLike[str],
    display_name: str | None = None,
    conventions: Mapping[str, str] | None = None,
    site_macros: bool = True,
) -> list[ClaimResult]:
    """Check one file, with the macros of its site (`SiteFinder`) unless `site_macros` is
    False; `FileError` if it is missing, a directory, too large or not UTF-8 text.

    >>> check_file("/no/such/file.md")
    Traceback (most recent call last):
    symattn.check.results.FileError: /no/such/file.md: no such file
    """
    text = read_document(path)
    project = project_conventions(path)
    site = SiteFinder().find(path, text).macros if site_macros else ()
    return check_text(text, display_name or str(path), conventions, project, site)


def project_conventions(path: str | os.PathLike[str]) -> dict[str, Convention]:
    """The conventions a project sets for its documents: `vectors` of `[tool.symattn]` in the
    pyproject.toml nearest to `path` (`symattn.settings`); `FileError` if that is malformed.

    >>> project_conventions("/no/such/folder/notes.md")
    {}
    """
    try:
        notation = load(Path(path))
    except SettingsError as e:
        raise FileError(str(e)) from None
    if not notation.vectors:
        return {}
    return {"vectors": Convention(notation.vectors, notation.source, True)}


def read_document(path: str | os.PathLike[str]) -> str:
    """The text of a document, or `FileError` saying why it cannot be read."""
    p = Path(path)
    if not p.exists():
        raise FileError(f"{path}: no such file")
    if p.is_dir():
        raise FileError(f"{path}: is a directory (give the Markdown or LaTeX files inside it)")
    try:
        size = p.stat().st_size
        if size > MAX_FILE_BYTES:
            raise FileError(f"{path}: file too large ({size} bytes; limit {MAX_FILE_BYTES})")
        data = p.read_bytes()
    except OSError as e:
        raise FileError(f"{path}: cannot read: {e.strerror}") from None
    if b"\x00" in data:
        raise FileError(f"{path}: not a text file (it contains NUL bytes)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise FileError(f"{path}: not UTF-8 text (bad byte at offset {e.start})") from None
    if is_notebook_name(str(path)):
        try:
            read_notebook(text)
        except NotebookError as e:
            raise FileError(f"{path}: {e}") from None
    return text


def check_formula(
    latex: str,
    dims: str | None = None,
    assume: Mapping[str, sympy.Expr] | None = None,
    conventions: Mapping[str, str] | None = None,
    project: Mapping[str, Convention] | None = None,
) -> list[ClaimResult]:
    """Check one LaTeX formula, with optional shape declarations `Q,K: n x d_k; V: n x d_v`
    and size relations `{"d_v": d/H}` or values `{"n": Integer(5)}` (`--assume`).
    `conventions` are the user's settings (`{"vectors": "column"}`, `--conventions`), read by
    the same logic as a document's (`read_conventions`), over the `project`'s own
    (`project_conventions`); without either, vectors are rows (the chapter's convention: one
    formula has no text around it to settle them otherwise).

    >>> check_formula(r"q_i^\\top k_j = q_i\\cdot k_j", "Q,K: n x d_k", None,
    ...               {"vectors": "column"})[0].kind
    'verified'

    >>> [r.status for r in check_formula(r"(QK^T)_{ij} = q_i\\cdot k_j", "Q,K: n x d_k")]
    ['proved']
    >>> check_formula("B = QK^T", "B: n x d")[0].kind
    'shape-error'
    """

    claims, lines = _formula_claims(latex, dims, assume, conventions, project)
    return decide_in_order(claims, lambda c: decide(c, lines, document=False))


def explain_formula(
    latex: str,
    dims: str | None = None,
    assume: Mapping[str, sympy.Expr] | None = None,
    conventions: Mapping[str, str] | None = None,
    project: Mapping[str, Convention] | None = None,
) -> list[tuple[ClaimResult, list[Explanation]]]:
    """`check_formula`, each result with the derivation behind it (`symattn prove --explain`).

    >>> [(r.kind, [x.by for e in es for x in e.lines])
    ...  for r, es in explain_formula(r"(QK^T)_{ij} = q_i\\cdot k_j", "Q,K: n x d_k")]
    [('verified', ['mul_apply', 'transpose_apply', 'dot_def'])]
    """
    claims, lines = _formula_claims(latex, dims, assume, conventions, project)
    return [(decide(c, lines, document=False), explain_claim(c)) for c in claims]


def _formula_claims(latex, dims, assume, conventions, project) -> tuple[list[Any], list[str]]:
    given = dict(conventions or {})
    if "vectors" not in given and not (project and "vectors" in project):
        # one formula has no text around it to say otherwise: the chapter's rows
        given["vectors"] = "row"
    found = read_conventions("", given, project)
    declared = parse_dims(dims)
    sizes = {**conventional_sizes(declared, dict(assume or {})), **(assume or {})}
    resolver = Resolver(assume=sizes, conventions=found)
    for entry in declared.values():
        resolver.declare(entry.key, entry.shape)
    span = MathSpan(latex, Position(1, 1, 0), False, "$", None, "<formula>")
    lines = latex.splitlines() or [""]
    return attach_conditions(resolver.resolve_span(span), latex), lines


def _scan_problem(
    message: str,
    pos: Position,
    filename: str,
    lines: Sequence[str],
    what: str = "malformed LaTeX",
) -> ClaimResult:
    return ClaimResult(
        filename,
        pos.line,
        pos.column,
        pos.line,
        pos.column + 1,
        "malformed",
        "malformed",
        f"{what}: {message}",
        source_lines=tuple(lines[pos.line - 1 : pos.line]),
    )
