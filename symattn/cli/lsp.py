"""`symattn lsp`: the language server over stdio, for editors (the optional extra `lsp`).

Imports symattn.lsp (and so pygls); a missing pygls is reported by the command line, exit 2.
"""

from __future__ import annotations

import argparse

try:
    from symattn.lsp.server import serve
except ImportError as exc:  # pygls is the optional extra `lsp`
    raise ImportError(f"{exc}; install it with: pip install 'symattn[lsp]'") from None

DESCRIPTION = "Run the language server over stdio: diagnostics and hovers in Markdown and LaTeX."
EPILOG = """\
The editor starts it; see docs/howto-ci.md for VS Code, Neovim and Emacs.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """`symattn lsp` takes no options: it speaks the protocol on stdin and stdout."""
    parser.add_argument("--stdio", action="store_true", help="accepted for editors that pass it")


def run(args: argparse.Namespace) -> int:
    serve()
    return 0
