"""The language server `symattn lsp`: the checker's verdicts as editor diagnostics (optional extra).

Imports pygls and the check package; nothing in symattn imports it but cli.lsp.
"""
