"""A square matrix the prose calls the causal mask (`$\\mathbf M\\in\\mathbb R^{L\\times L}$ is the
causal mask`): the kernel's causal mask wherever it is used (`S + M`, `S \\odot M`).

Imports the reader's spans and scope; never the resolver (which calls `mark_masks`), the
checker or the CLI.
"""

from __future__ import annotations

import re

from symattn.kernel.dims import dims_equal
from symattn.reader.syntax.scanner import MathSpan
from symattn.reader.terms.scope import Scope

__all__ = ["mark_masks"]

#: The words that give a matrix the causal mask's role, in the sentence after its declaration.
_CAUSAL = re.compile(
    r"^[^.;:!?。；！？]*?\b(?:is|denotes|represents|be)\b[^.;:!?。；！？]{0,40}?\b(?:causal|"
    r"autoregressive|look-ahead|lower[- ]triangular)\s+(?:attention\s+)?mask\b"
    r"|^[^.;:!?。；！？]{0,20}?(?:是|为|表示)[^.;:!?。；！？]{0,20}?因果掩码",
    re.IGNORECASE,
)
#: "is not the causal mask", "rather than a causal mask", 不是: the role is denied, not given.
_NEGATED = re.compile(
    r"\b(?:not|no|never|neither|nor|rather|instead|unlike)\b|n't|不是|并非|非", re.I
)
_SENTENCE = 240


def mark_masks(scope: Scope, text: str, span: MathSpan) -> None:
    """When `span` declares exactly one square matrix of the document and the words after it
    open a sentence that calls it the causal mask, mark it as the mask: `S + M` is then the
    kernel's additive causal mask of S, `S \\odot M` its multiplicative one (zeros above the
    diagonal), and M alone the matrix of ones on and below the diagonal (so `M^\\top` is its
    transpose). A matrix the text only mentions near the word "mask" keeps its general
    reading."""
    if not text:
        return
    line = span.start.line
    declared = [
        (key, entry)
        for key, entry in scope.document.names.items()
        if entry.origin == "declared" and entry.line == line and entry.definition is None
    ]
    here = [(k, e) for k, e in declared if k in span.body]
    if len(here) != 1:
        return
    key, entry = here[0]
    if not dims_equal(entry.shape[0], entry.shape[1]) or entry.shape[0] == 1:
        return
    after = text[span.end : span.end + _SENTENCE]
    after = after.lstrip("$)]\\ \t")
    found = _CAUSAL.match(after)
    if found is not None and not _NEGATED.search(found.group()):
        entry.mask = True
        entry.causal_ones = True
