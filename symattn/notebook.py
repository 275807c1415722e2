"""Jupyter rendering of kernel objects: LaTeX for expressions and proofs, HTML for verdicts.

Registers IPython formatters by class name (`register`), so the kernel carries no `_repr_*` hooks
and never imports this module; reads kernel objects and never creates one. Imports the kernel and
the textbook printer (symattn.latex.printer); must not import reader, check or cli.
"""

from __future__ import annotations

import html
from typing import Any

from symattn.kernel.text import text
from symattn.latex import chain_lines, render_align
from symattn.latex.printer import latex

_BADGE = (
    "display:inline-block;padding:0 .5em;margin-right:.3em;border-radius:.6em;"
    "font:600 85% sans-serif;color:#fff;background:{bg}"
)
_STATUS_COLOURS = {
    "proved": "#1a7f37",
    "checked": "#0969da",
    "agreed": "#9a6700",
    "unknown": "#6e7781",
    "false": "#cf222e",
    "shape_error": "#cf222e",
}
_WITNESS_COLOUR = "#57606a"
_WITNESS_TITLES = {
    "symbolic": "holds for every size (canonical index forms agree)",
    "exact": "holds exactly at explicit sizes, every entry an independent symbol",
    "numeric": "float64 random data agree within tolerance (evidence, not proof)",
}


def tex(e: Any) -> str:
    """The LaTeX of a kernel expression (no `$`), by the textbook printer.

    >>> from symattn.kernel.attention import single_head
    >>> tex(single_head().scores)
    'QK^{\\\\mathsf T}'
    """
    return str(latex(e))


def expr_latex(e: Any) -> str:
    """`$...$` for Jupyter's `_repr_latex_` of a matrix expression.

    >>> from symattn.kernel.attention import single_head
    >>> expr_latex(single_head().Q)
    '$Q$'
    """
    return f"${tex(e)}$"


def proof_latex(p: Any) -> str:
    """A proof as an `align*` block, each step with its rule name.

    >>> from symattn.kernel.attention import single_head
    >>> from symattn.kernel.expr import Dot, index
    >>> from symattn.kernel.derivation import Derivation
    >>> s = single_head(); i, j = index("i"), index("j")
    >>> d = Derivation(s.scores[i, j], title="entry").step(Dot(s.Q.row(i), s.K.row(j)),
    ...                                                     by="mul_transpose_apply_dot")
    >>> print(proof_latex(d.prove()))
    \\begin{align*}
    (QK^{\\mathsf T})_{ij} &= q_i\\cdot k_j && \\text{(mul\\_transpose\\_apply\\_dot)}
    \\end{align*}
    """

    steps = [(tex(s.after), s.by) for s in p.steps]
    return render_align(chain_lines(tex(p.lhs), steps))


def badge(word: str, colour: str, title: str = "") -> str:
    """A small coloured label; `title` becomes its tooltip.

    >>> badge("exact", "#57606a", "a < b")  # doctest: +ELLIPSIS
    '<span style="...background:#57606a" title="a &lt; b">exact</span>'
    """
    tip = f' title="{html.escape(title)}"' if title else ""
    return f'<span style="{_BADGE.format(bg=colour)}"{tip}>{html.escape(word)}</span>'


def _witness_badges(witnesses: Any) -> str:
    return "".join(badge(w, _WITNESS_COLOUR, _WITNESS_TITLES.get(w, "")) for w in witnesses)


def _badges(v: Any) -> str:
    return f"{_status_badge(v.status)} {_witness_badges(v.witnesses)}"


def _status_badge(status: str) -> str:
    return badge(status.replace("_", " "), _STATUS_COLOURS.get(status, _WITNESS_COLOUR))


def verdict_html(v: Any) -> str:
    """A verdict: its status and witness badges, the reason, and any counterexample.

    >>> from symattn.kernel.proof import Verdict
    >>> print(verdict_html(Verdict("proved", ("symbolic",))))  # doctest: +ELLIPSIS
    <div class="symattn-verdict"><span style="...">proved</span> <span ...>symbolic</span></div>
    """
    parts = [f"{_status_badge(v.status)} {_witness_badges(v.witnesses)}"]
    if v.reason and v.status != "proved":
        parts.append(f'<div style="margin-top:.3em">{html.escape(v.reason)}</div>')
    if v.counterexample is not None:
        parts.append(
            '<div style="margin-top:.3em"><b>counterexample</b>: '
            f"{html.escape(str(v.counterexample))}</div>"
        )
    return '<div class="symattn-verdict">' + "".join(parts) + "</div>"


def proof_html(p: Any) -> str:
    """A proof as a table: one row per step, with its rule and witness badges (MathJax math)."""
    rows = [
        f"<tr><td>\\({html.escape(tex(p.lhs))}\\)</td><td></td><td></td></tr>",
    ]
    for s in p.steps:
        rows.append(
            f"<tr><td>\\(= {html.escape(tex(s.after))}\\)</td>"
            f"<td><code>{html.escape(s.by)}</code></td>"
            f"<td>{_badges(s.verdict)}</td></tr>"
        )
    scope = "for all sizes" if p.for_all_sizes else "at the sizes checked"
    head = (
        f"<div><b>{html.escape(p.title)}</b> {badge(scope, _STATUS_COLOURS['proved'])}"
        f"{_witness_badges(p.witnesses)}</div>"
    )
    table = '<table style="text-align:left">' + "".join(rows) + "</table>"
    return f'<div class="symattn-proof">{head}{table}</div>'


class Rendered:
    """Any kernel expression (a matrix or a scalar such as `(QK^T)_{ij}`) for Jupyter display."""

    def __init__(self, e: Any):
        self.expr = e

    def _repr_latex_(self) -> str:
        return f"${tex(self.expr)}$"

    def __repr__(self) -> str:
        return text(self.expr)


def rendered(e: Any) -> Rendered:
    """Wrap an expression so Jupyter shows its textbook LaTeX; scalars included.

    >>> from symattn.kernel.attention import single_head
    >>> from symattn.kernel.expr import index, expand_entries
    >>> s = single_head(); i, j = index("i"), index("j")
    >>> rendered(expand_entries(s.scores[i, j]))._repr_latex_()
    '$\\\\sum_{r=1}^{d_k} Q_{ir}K_{jr}$'
    >>> rendered(s.scores[i, j])
    (QK^T)_{ij}
    """
    return Rendered(e)


# ---- IPython formatters ---------------------------------------------------------------------

# (mime type, module, class, formatter): registered by name, so nothing is imported until shown
_FORMATTERS = (
    ("text/latex", "symattn.kernel.nodes", "MatExpr", "expr_latex"),
    ("text/latex", "symattn.kernel.derivation", "Proof", "proof_latex"),
    ("text/html", "symattn.kernel.derivation", "Proof", "proof_html"),
    ("text/html", "symattn.kernel.proof", "Verdict", "verdict_html"),
)


def register(shell: Any) -> None:
    """Teach an IPython shell to show expressions, proofs and verdicts (`%load_ext symattn`).

    `import symattn` calls this by itself inside a running IPython or Jupyter kernel.
    """
    formatters = shell.display_formatter.formatters
    for mime, module, cls, name in _FORMATTERS:
        formatters[mime].for_type_by_name(module, cls, globals()[name])
