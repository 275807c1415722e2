"""The document checker: claims -> kernel verdicts -> diagnostics, as text or JSON.

Modules: results (ClaimResult, kinds), document (check a file, a text or one formula), verdicts (one
claim), report (text and JSON). Imports the kernel and the reader; must not import cli.
"""

from symattn.check.document import (
    check_file,
    check_formula,
    check_text,
    claim_position,
    explain_formula,
    project_conventions,
    read_document,
    resolve_text,
)
from symattn.check.report import (
    format_diagnostic,
    format_json,
    format_text,
    summary_counts,
    summary_line,
)
from symattn.check.results import KINDS, MAX_FILE_BYTES, SCHEMA, ClaimResult, FileError, InputError
from symattn.check.verdicts import decide

__all__ = [
    "KINDS",
    "MAX_FILE_BYTES",
    "SCHEMA",
    "ClaimResult",
    "FileError",
    "InputError",
    "check_file",
    "check_formula",
    "explain_formula",
    "check_text",
    "claim_position",
    "decide",
    "format_diagnostic",
    "format_json",
    "format_text",
    "project_conventions",
    "read_document",
    "resolve_text",
    "summary_counts",
    "summary_line",
]
