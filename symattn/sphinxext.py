"""A Sphinx extension (also for Jupyter Book and MyST): every page's math is checked during the
build, and false claims, shape errors and malformed math become build warnings at their source line.

Imports sphinx and docutils (the `sphinx` extra) and symattn.check; nothing in symattn imports it.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging

from symattn import __version__
from symattn.check.document import check_text
from symattn.check.results import ERRORS, PROBLEMS, SOFT, ClaimResult

logger = logging.getLogger(__name__)


def page_text(doctree: nodes.document) -> str:
    """The page's formulas as a Markdown text in which each formula sits on its source line (an
    inline one as `$…$`, a display as `$$…$$`), so the checker's lines are the source's.

    >>> from docutils.utils import new_document
    >>> from docutils.frontend import get_default_settings
    >>> from docutils.parsers.rst import Parser
    >>> doc = new_document("x", get_default_settings(Parser))
    >>> m = nodes.math_block("", "Q=XW_Q"); m.line = 3; doc += m
    >>> page_text(doc).splitlines()
    ['', '', '$$Q=XW_Q$$']
    """
    lines: dict[int, list[str]] = {}
    for node in doctree.findall(lambda n: isinstance(n, (nodes.math, nodes.math_block))):
        line = _line_of(node)
        if line is None:
            continue
        latex = " ".join(node.astext().split())
        lines.setdefault(line, []).append(
            f"$${latex}$$" if isinstance(node, nodes.math_block) else f"${latex}$"
        )
    if not lines:
        return ""
    last = max(lines)
    return "\n".join(" ".join(lines.get(k, [])) for k in range(1, last + 1)) + "\n"


def _line_of(node: nodes.Node) -> int | None:
    while node is not None:
        if getattr(node, "line", None):
            return int(node.line)
        node = node.parent
    return None


def report(app: Sphinx, doctree: nodes.document) -> None:
    """Check one page as it is read and warn at each problem's line."""
    docname = app.env.docname
    strict = bool(app.config.symattn_strict)
    for r in check_text(page_text(doctree), app.env.doc2path(docname).name):
        if r.kind in PROBLEMS or r.kind in ERRORS or (strict and r.kind in SOFT):
            logger.warning(_message(r), location=(docname, r.line), type="symattn", subtype=r.kind)


def _message(r: ClaimResult) -> str:
    text = f"symattn {r.kind}: {r.message}: {' '.join(r.source.split())}"
    return text + (f" (counterexample: {r.counterexample})" if r.counterexample else "")


def setup(app: Sphinx) -> dict[str, Any]:
    """`extensions = ["symattn.sphinxext"]` in conf.py; `symattn_strict = True` also warns about
    formulas the checker could not read or decide."""
    app.add_config_value("symattn_strict", False, "env")
    app.connect("doctree-read", report)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}
