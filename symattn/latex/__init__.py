"""LaTeX back end: documents, explicit matrices and the PDF build (re-exports only).

Imports only latex.build, .document and .matrix (which take nothing from the kernel but its
errors); must not import the reader, check or cli.
"""

from __future__ import annotations

from symattn.latex.build import (
    LatexBuildError,
    compile_pdf,
    install_hint,
    png_is_blank,
    render_page_png,
    tex_engine_available,
)
from symattn.latex.document import (
    HOST_PACKAGES,
    Document,
    LatexInputError,
    Math,
    chain_lines,
    escape_text,
    render_align,
)
from symattn.latex.matrix import bmatrix, labelled_matrix

__all__ = [
    "HOST_PACKAGES",
    "Document",
    "LatexBuildError",
    "LatexInputError",
    "Math",
    "bmatrix",
    "chain_lines",
    "compile_pdf",
    "escape_text",
    "install_hint",
    "labelled_matrix",
    "png_is_blank",
    "render_align",
    "render_page_png",
    "tex_engine_available",
]
