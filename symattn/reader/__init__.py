"""The document reader (syntax/, terms/, claims/); here its front half: spans, grammar, AST.

Importing it is cheap (the lark parser is built on first use); of the kernel it imports only
kernel.errors (ParseError, Position), and it must not import the rest of the kernel.
"""

from __future__ import annotations

from symattn.reader.syntax import ast as ast
from symattn.reader.syntax.parse import parse_formula as parse_formula
from symattn.reader.syntax.parse import parse_span as parse_span
from symattn.reader.syntax.scanner import MathSpan as MathSpan
from symattn.reader.syntax.scanner import ScanProblem as ScanProblem
from symattn.reader.syntax.scanner import scan as scan

__all__ = ["MathSpan", "ScanProblem", "ast", "parse_formula", "parse_span", "scan"]
