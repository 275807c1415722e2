"""The document reader's front half: math spans with positions, the dialect's grammar, its AST.

Importing it is cheap (the lark parser is built on first use); of the kernel it imports only
kernel.errors (ParseError, Position), and it must not import the rest of the kernel.
"""

from __future__ import annotations

from symattn.reader import ast as ast
from symattn.reader.parse import parse_formula as parse_formula
from symattn.reader.parse import parse_span as parse_span
from symattn.reader.scanner import MathSpan as MathSpan
from symattn.reader.scanner import ScanProblem as ScanProblem
from symattn.reader.scanner import scan as scan

__all__ = ["MathSpan", "ScanProblem", "ast", "parse_formula", "parse_span", "scan"]
