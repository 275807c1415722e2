"""A language server over stdio: each open Markdown/LaTeX document is checked on open, change and
save, and its false claims, shape errors and malformed math are published as diagnostics; a code
action declares a name whose shape the reader inferred.

Imports pygls (the `lsp` extra), lsprotocol, check and the reader; must not import cli or latex.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from symattn import __version__
from symattn.check.document import check_text, project_conventions
from symattn.check.results import ERRORS, PROBLEMS, SOFT, ClaimResult
from symattn.check.sites import SiteFinder
from symattn.kernel.errors import SymattnError
from symattn.reader.claims.resolve import section_lines
from symattn.reader.syntax.dialects import is_notebook_name
from symattn.reader.syntax.scanner import read
from symattn.reader.terms.inference import Proposal, infer_spans, proposals
from symattn.reader.terms.scope import Scope

#: Diagnostic severity per verdict kind; kinds not listed (verified, declarations) are silent.
SEVERITY = {
    **{k: types.DiagnosticSeverity.Error for k in (*PROBLEMS, *ERRORS)},
    **{k: types.DiagnosticSeverity.Information for k in SOFT},
}


class SymattnServer(LanguageServer):
    """The server, with the last results of each document kept for hover."""

    def __init__(self) -> None:
        super().__init__("symattn", __version__)
        self.results: dict[str, list[ClaimResult]] = {}
        self.proposals: dict[str, list[Proposal]] = {}


def path_of(uri: str) -> str:
    """The file path of a `file:` URI (the name shown in messages and used to find the project's
    settings); other schemes keep the URI itself.

    >>> path_of("file:///book/ch%201.md")
    '/book/ch 1.md'
    """
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else uri


def range_of(r: ClaimResult) -> types.Range:
    """The formula's range, 0-based, the end exclusive (the checker's columns are 1-based)."""
    end_col = r.end_col - 1 if r.end_col > 0 else 0
    return types.Range(
        start=types.Position(line=r.line - 1, character=r.col - 1),
        end=types.Position(line=r.end_line - 1, character=max(end_col, 0)),
    )


def diagnostic(r: ClaimResult) -> types.Diagnostic:
    message = r.message + (f"\ncounterexample: {r.counterexample}" if r.counterexample else "")
    return types.Diagnostic(
        range=range_of(r),
        message=message,
        severity=SEVERITY[r.kind],
        code=r.kind,
        source="symattn",
    )


def diagnostics(results: Sequence[ClaimResult]) -> list[types.Diagnostic]:
    return [diagnostic(r) for r in results if r.kind in SEVERITY]


def hover_text(r: ClaimResult) -> str:
    """What a hover over a claim shows: the verdict, what it rests on, the counterexample."""
    lines = [f"**symattn: {r.kind}** ({r.status})", "", r.message]
    if r.witnesses:
        lines += ["", "witnesses: " + ", ".join(r.witnesses)]
    if r.counterexample:
        lines += ["", f"counterexample: {r.counterexample}"]
    return "\n".join(lines)


def at(results: Sequence[ClaimResult], pos: types.Position) -> ClaimResult | None:
    """The claim whose formula holds the position (lines 0-based here, 1-based in results)."""
    line, col = pos.line + 1, pos.character + 1
    for r in results:
        if r.kind == "not-a-claim":
            continue
        after_start = (line, col) >= (r.line, r.col)
        before_end = (line, col) <= (r.end_line, max(r.end_col, r.col))
        if after_start and before_end:
            return r
    return None


server = SymattnServer()


async def _check(ls: SymattnServer, uri: str) -> None:
    """Check the document in a worker thread (the server keeps answering meanwhile) and publish,
    unless the text changed while it ran: then the newer check publishes."""
    doc = ls.workspace.get_text_document(uri)
    text, version, path = doc.source, doc.version, path_of(uri)
    found: list[types.Diagnostic] = []
    try:
        project = project_conventions(path)
    except SymattnError as e:  # the document is still checked, with its own conventions
        project = None
        start = types.Position(line=0, character=0)
        found.append(
            types.Diagnostic(
                range=types.Range(start=start, end=start),
                message=f"the project's settings are not read: {e}",
                severity=types.DiagnosticSeverity.Error,
                code="settings",
                source="symattn",
            )
        )
    site = await asyncio.to_thread(SiteFinder().find, path, text)  # the site's macros
    start = types.Position(line=0, character=0)
    found += [
        types.Diagnostic(
            range=types.Range(start=start, end=start),
            message=f"a file of the site's macros: {w}",
            severity=types.DiagnosticSeverity.Warning,
            code="macros",
            source="symattn",
        )
        for w in site.warnings
    ]
    results = await asyncio.to_thread(check_text, text, path, None, project, site.macros)
    proposed = await asyncio.to_thread(declarations, text, path)
    if ls.workspace.get_text_document(uri).version != version:
        return
    ls.results[uri] = results
    ls.proposals[uri] = proposed
    found += diagnostics(results)
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=found)
    )


def declarations(text: str, path: str) -> list[Proposal]:
    """The declarations the reader's shape inference proposes for `text` (none in a notebook,
    whose lines are not the file's)."""
    if is_notebook_name(path):
        return []
    try:
        found = read(text, path)
        inference = infer_spans(found.items, Scope(section_lines(text)))
    except (SymattnError, RecursionError):
        return []
    return proposals(inference, text)


def paragraph_start(lines: Sequence[str], line: int) -> int:
    """The 0-based line where the paragraph holding 1-based `line` starts.

    >>> paragraph_start(["a", "", "b", "c"], 4)
    2
    """
    k = min(line, len(lines)) - 1
    while k > 0 and lines[k - 1].strip():
        k -= 1
    return max(k, 0)


def declare_actions(
    uri: str, text: str, wanted: types.Range, found: Sequence[Proposal]
) -> list[types.CodeAction]:
    """A quick fix per inferred name used on the lines of `wanted`: the declaration the
    inference proposes, as a sentence before the paragraph of the name's first use."""
    first, last = wanted.start.line + 1, wanted.end.line + 1
    lines = text.splitlines()
    out: list[types.CodeAction] = []
    for p in found:
        if not any(first <= x <= last for x in p.lines):
            continue
        at = types.Position(line=paragraph_start(lines, p.line), character=0)
        edit = types.TextEdit(range=types.Range(start=at, end=at), new_text=f"Let ${p.latex}$.\n\n")
        out.append(
            types.CodeAction(
                title=f"Declare ${p.latex}$ (the shape symattn inferred)",
                kind=types.CodeActionKind.QuickFix,
                edit=types.WorkspaceEdit(changes={uri: [edit]}),
            )
        )
    return out


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
async def did_open(ls: SymattnServer, params: types.DidOpenTextDocumentParams) -> None:
    await _check(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
async def did_change(ls: SymattnServer, params: types.DidChangeTextDocumentParams) -> None:
    await _check(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
async def did_save(ls: SymattnServer, params: types.DidSaveTextDocumentParams) -> None:
    await _check(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: SymattnServer, params: types.DidCloseTextDocumentParams) -> None:
    ls.results.pop(params.text_document.uri, None)
    ls.proposals.pop(params.text_document.uri, None)
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[])
    )


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
)
def code_action(ls: SymattnServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    uri = params.text_document.uri
    text = ls.workspace.get_text_document(uri).source
    return declare_actions(uri, text, params.range, ls.proposals.get(uri, []))


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(ls: SymattnServer, params: types.HoverParams) -> types.Hover | None:
    r = at(ls.results.get(params.text_document.uri, []), params.position)
    if r is None:
        return None
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=hover_text(r)),
        range=range_of(r),
    )


def serve() -> None:
    """Serve over stdin/stdout until the client says exit."""
    server.start_io()
