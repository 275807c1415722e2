"""The Sphinx extension on a small MyST + reStructuredText project built in a temporary folder: a
false formula becomes a warning at its source line (an error under -W), a true page builds clean."""

from __future__ import annotations

import io

import pytest

pytestmark = pytest.mark.slow  # a server process or a Sphinx build per test
pytest.importorskip("sphinx", reason="sphinx (the sphinx extra) is missing")
pytest.importorskip("myst_parser", reason="myst-parser (a test extra) is missing")

from sphinx.application import Sphinx  # noqa: E402

CONF = (
    'extensions = ["myst_parser", "symattn.sphinxext"]\nmyst_enable_extensions = ["dollarmath"]\n'
)
INDEX_MD = """\
# Attention

```{toctree}
heads
```

Let $Q,K\\in\\mathbb{R}^{n\\times d_k}$.

The scores:

$$(QK^T)_{ij}=q_j\\cdot k_i$$

and $(QK^T)_{ij}=q_i\\cdot k_j$.
"""
HEADS_RST = """\
Heads
=====

Scores :math:`(QK^T)_{ij}=\\sum_{r=1}^{d_k}Q_{ir}K_{jr}`
for :math:`Q,K\\in\\mathbb{R}^{n\\times d_k}`.

.. math::

   (QK^T)_{ij}=\\sum_{r=1}^{d_k}Q_{ri}K_{jr}
"""


def build(tmp_path, files, warning_is_error=False):
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(CONF, encoding="utf-8")
    for name, text in files.items():
        (src / name).write_text(text, encoding="utf-8")
    warnings = io.StringIO()
    app = Sphinx(
        str(src),
        str(src),
        str(tmp_path / "out"),
        str(tmp_path / "doctrees"),
        "html",
        status=None,
        warning=warnings,
        warningiserror=warning_is_error,
        freshenv=True,
    )
    app.build()
    return app, warnings.getvalue()


def symattn_lines(warnings: str) -> list[str]:
    return [line for line in warnings.splitlines() if "symattn" in line]


def test_false_formulas_warn_at_their_source_lines(tmp_path):
    app, warnings = build(tmp_path, {"index.md": INDEX_MD, "heads.rst": HEADS_RST})
    found = symattn_lines(warnings)
    assert len(found) == 2, warnings
    md = next(w for w in found if "index.md" in w)
    rst = next(w for w in found if "heads.rst" in w)
    assert "index.md:11:" in md and "symattn false" in md and "counterexample" in md
    # a block's line is its directive's (docutils numbers the `.. math::` line)
    assert "heads.rst:7:" in rst and "symattn shape-error" in rst and "runs over 1..d_k" in rst
    assert app.statuscode == 0


def test_warning_is_error_fails_the_build(tmp_path):
    from sphinx.errors import SphinxWarning

    try:
        app, _ = build(tmp_path, {"index.md": INDEX_MD, "heads.rst": HEADS_RST}, True)
    except SphinxWarning as exc:
        assert "symattn" in str(exc)
    else:
        assert app.statuscode != 0


def test_a_true_page_builds_without_warnings(tmp_path):
    index = "# A\n\nLet $Q,K\\in\\mathbb{R}^{n\\times d_k}$; then $(QK^T)_{ij}=q_i\\cdot k_j$.\n"
    _, warnings = build(tmp_path, {"index.md": index})
    assert symattn_lines(warnings) == []
