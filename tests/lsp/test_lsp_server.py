"""`symattn lsp` driven by a real language-server client over stdio (pygls's LanguageClient): a
false formula gets a diagnostic at its range, the counterexample on hover; a fix clears it."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Awaitable, Callable

import pytest

pytestmark = pytest.mark.slow  # a server process or a Sphinx build per test
pytest.importorskip("pygls", reason="pygls (the lsp extra) is missing")

from lsprotocol import types  # noqa: E402
from pygls.lsp.client import LanguageClient  # noqa: E402

HEAD = "Let $Q,K\\in\\mathbb{R}^{n\\times d_k}$.\n\n"
WRONG = "The scores are $(QK^T)_{ij}=q_j\\cdot k_i$.\n"
RIGHT = "The scores are $(QK^T)_{ij}=q_i\\cdot k_j$.\n"
#: The false formula, 0-based as the protocol counts: line 2, from after `$` to before `$`.
RANGE = types.Range(
    start=types.Position(line=2, character=16), end=types.Position(line=2, character=40)
)


class Client(LanguageClient):
    """A client that keeps each document's last diagnostics and can wait for the next ones."""

    def __init__(self) -> None:
        super().__init__("symattn-test", "1")
        self.diagnostics: dict[str, list[types.Diagnostic]] = {}
        self.published: asyncio.Queue[str] = asyncio.Queue()

        @self.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def _publish(params: types.PublishDiagnosticsParams) -> None:
            self.diagnostics[params.uri] = list(params.diagnostics)
            self.published.put_nowait(params.uri)

    async def next_publication(self, uri: str, timeout: float = 60) -> list[types.Diagnostic]:
        while await asyncio.wait_for(self.published.get(), timeout) != uri:
            pass
        return self.diagnostics[uri]

    def open(self, uri: str, text: str) -> None:
        item = types.TextDocumentItem(uri=uri, language_id="markdown", version=1, text=text)
        self.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))


def session(body: Callable[[Client], Awaitable[None]]) -> None:
    """Start `symattn lsp`, initialize, run the body, shut down and exit."""

    async def main() -> None:
        client = Client()
        await client.start_io(sys.executable, "-m", "symattn", "lsp")
        try:
            await client.initialize_async(
                types.InitializeParams(capabilities=types.ClientCapabilities())
            )
            client.initialized(types.InitializedParams())
            await body(client)
        finally:  # also after a failed assertion, so the server exits and the test ends
            await asyncio.wait_for(client.shutdown_async(None), 30)
            client.exit(None)
            await client.stop()

    asyncio.run(main())


def test_a_false_formula_is_published_at_its_range_and_cleared_by_a_fix(tmp_path):
    uri = (tmp_path / "notes.md").as_uri()

    async def body(client: Client) -> None:
        client.open(uri, HEAD + WRONG)
        (d,) = await client.next_publication(uri)
        assert (d.code, d.source) == ("false", "symattn")
        assert d.severity == types.DiagnosticSeverity.Error
        assert d.range == RANGE
        assert "counterexample" in d.message

        hover = await client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=types.Position(line=2, character=20),
            )
        )
        assert hover is not None
        assert "symattn: false" in hover.contents.value
        assert "counterexample" in hover.contents.value

        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=HEAD + RIGHT)],
            )
        )
        assert await client.next_publication(uri) == []

    session(body)


def test_a_300_formula_document_is_published_with_its_one_false_claim(tmp_path):
    uri = (tmp_path / "long.md").as_uri()
    claims = "".join(
        f"Claim {k}: $(QK^T)_{{ij}}=\\sum_{{r=1}}^{{d_k}}Q_{{ir}}K_{{jr}}$.\n\n" for k in range(299)
    )

    async def body(client: Client) -> None:
        start = time.perf_counter()
        client.open(uri, HEAD + claims + WRONG)
        (d,) = await client.next_publication(uri)
        elapsed = time.perf_counter() - start
        print(f"300 formulas published after {elapsed:.2f} s")
        assert d.code == "false" and d.range.start.line == 2 + 2 * 299

    session(body)


def test_a_code_action_declares_a_name_whose_shape_was_inferred(tmp_path):
    uri = (tmp_path / "inferred.md").as_uri()
    text = "# Products\n\nThe rule:\n\n$$(\\mathbf M \\mathbf N)^T = \\mathbf N^T \\mathbf M^T$$\n"

    def hover_at(client: Client, line: int):
        return client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=types.Position(line=line, character=5),
            )
        )

    async def body(client: Client) -> None:
        client.open(uri, text)
        assert await client.next_publication(uri) == []  # verified: nothing to report
        before = await hover_at(client, 4)
        assert before is not None and "inferred from line 5" in before.contents.value
        formula = types.Range(
            start=types.Position(line=4, character=2), end=types.Position(line=4, character=20)
        )
        actions = await client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=formula,
                context=types.CodeActionContext(diagnostics=[]),
            )
        )
        assert actions is not None
        titles = [a.title for a in actions]
        assert titles == [
            "Declare $M \\in \\mathbb{R}^{m_{a} \\times m_{b}}$ (the shape symattn inferred)",
            "Declare $N \\in \\mathbb{R}^{m_{b} \\times m_{c}}$ (the shape symattn inferred)",
        ]
        edits = [e for a in actions for e in a.edit.changes[uri]]
        assert {(e.range.start.line, e.range.start.character) for e in edits} == {(4, 0)}
        fixed = text.replace("$$(", "".join(e.new_text for e in edits) + "$$(")
        assert "Let $M \\in \\mathbb{R}^{m_{a} \\times m_{b}}$.\n\n" in fixed
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=fixed)],
            )
        )
        assert await client.next_publication(uri) == []
        after = await hover_at(client, 8)
        assert after is not None and "verified" in after.contents.value
        assert "inferred" not in after.contents.value  # declared now: nothing is inferred
        none = await client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=types.Range(
                    start=types.Position(line=8, character=2),
                    end=types.Position(line=8, character=20),
                ),
                context=types.CodeActionContext(diagnostics=[]),
            )
        )
        assert not none

    session(body)


def test_a_sites_macros_are_read_and_its_warnings_published(tmp_path):
    """The layout defines `\\vect`: the false formula behind it is published, and a bad entry
    of the site's configuration is a warning at the top."""
    (tmp_path / "_config.yml").write_text('katex:\n  macros: {"\\\\RR": f()}\n', "utf-8")
    (tmp_path / "_layouts").mkdir()
    (tmp_path / "_layouts" / "post.html").write_text("$$\\gdef\\vect#1{#1}$$\n", "utf-8")
    uri = (tmp_path / "notes.md").as_uri()

    async def body(client: Client) -> None:
        client.open(uri, HEAD + WRONG.replace("q_j", "\\vect{q}_j"))
        found = await client.next_publication(uri)
        assert sorted(d.code for d in found) == ["false", "macros"], found
        [warning] = [d for d in found if d.code == "macros"]
        assert warning.severity == types.DiagnosticSeverity.Warning
        assert "_config.yml:2:" in warning.message

    session(body)
