"""Kernel `Proof`s as `align*` blocks (one checked step a line, justified) and explicit matrices.

A back end: reads Proofs and verdicts (kernel.proof, kernel.rules) and prints them with the
textbook printer; must not construct a Proof or import a front end.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import sympy

from symattn.kernel.derivation import Proof, Step
from symattn.kernel.expr import MatExpr, walk
from symattn.kernel.rules import describe
from symattn.latex.document import (
    Lang,
    Math,
    Prose,
    chain_lines,
    partition_alignment,
    render_align,
    render_prose,
)
from symattn.latex.matrix import bmatrix, labelled_matrix
from symattn.latex.printer import latex, written_order

_SCOPE = {
    "all": {"en": "all sizes", "zh": "任意维度"},
    "shown": {"en": "sizes shown", "zh": "所给维度"},
    "checked": {"en": "exact at {sizes}", "zh": "{sizes}精确核对"},
}

# Plain-text mathematics inside a rule's description (`QK^T`, `a_ij`, `W_O^(h)`, `v_1..v_i`).
_MATHISH = re.compile(
    r"v_1\.\.v_i|[A-Z]?[A-Za-z](?:_[A-Za-z0-9]{1,2})?(?:\^\([a-z]\)|\^T)|[a-z]_[a-z0-9]{1,2}\b"
    r"|\bj > i\b|\bd_v\b|\bW_O\b"
)


def step_scope(step: Step) -> str:
    """'all' (symbolic, every size free), 'shown' (symbolic, some sizes explicit) or 'checked'."""
    if step.verdict.status != "proved":
        return "checked"
    return "shown" if _explicit_sizes(step.before) or _explicit_sizes(step.after) else "all"


def _explicit_sizes(e: sympy.Basic) -> bool:
    """A shape or a summation bound is a number other than 1 (a row vector's 1 is no size)."""
    for x in walk(e):
        if isinstance(x, MatExpr) and any(s.is_Integer and s != 1 for s in x.shape):
            return True
        if isinstance(x, sympy.Sum) and any(hi.is_Integer for _, _, hi in x.limits):
            return True
    return False


def math_in_text(text: str) -> list[str | Math]:
    r"""Split a rule description into text and inline math: what is written between `$` signs
    is LaTeX already; in the rest, the pieces written as plain formulas (a user's rule).

    >>> math_in_text("an entry of QK^T is a dot product")
    ['an entry of ', Math(latex='QK^{\\mathsf T}'), ' is a dot product']
    >>> math_in_text(r"head $\lceil h/R\rceil$")
    ['head ', Math(latex='\\lceil h/R\\rceil')]
    """
    out: list[str | Math] = []
    for k, part in enumerate(re.split(r"\$([^$]*)\$", text)):
        if k % 2:
            out.append(Math(part.replace("^T", r"^{\mathsf T}")))
        elif part:
            out.extend(_plain_formulas(part))
    return out


def _plain_formulas(text: str) -> list[str | Math]:
    out: list[str | Math] = []
    pos = 0
    for m in _MATHISH.finditer(text):
        if m.start() > pos:
            out.append(text[pos : m.start()])
        out.append(Math(_formula(m.group())))
        pos = m.end()
    if pos < len(text):
        out.append(text[pos:])
    return out


def _formula(token: str) -> str:
    if token == "v_1..v_i":
        return r"v_1,\ldots,v_i"
    token = token.replace("^T", r"^{\mathsf T}")
    token = re.sub(r"\^\(([a-z])\)", r"^{(\1)}", token)
    return re.sub(r"_([a-z0-9]{2})\b", r"_{\1}", token)


def justification(step: Step, lang: str) -> list[str | Math]:
    """The rule's localised description and a short note of what the witnesses established;
    the sizes of an exact check are set as math (`exact at $G=2, R=3, d_k=5$`)."""
    pieces = math_in_text(describe(step.by, lang, latex=True))
    scope = step_scope(step)
    note: list[str | Math] = [_SCOPE[scope][lang if lang in ("en", "zh") else "en"]]
    if scope == "checked":
        head, _, tail = note[0].partition("{sizes}")  # type: ignore[union-attr]
        plans = [", ".join(f"{_size(k)}={v}" for k, v in s) for s in step.verdict.sizes if s]
        if plans:
            note = [head, Math(r";\ ".join(plans)), tail]
        else:
            note = [head + ("在此尺寸下" if lang == "zh" else "these sizes") + tail]
    sep = "；" if lang == "zh" else "; "
    mark: list[str | Math] = [Math(r"\checkmark"), " "] if scope != "checked" else []
    return [*pieces, sep, *mark, *[x for x in note if x]]


def _size(name: object) -> str:
    """A size's name as math: `d_k` -> `d_{k}`, `ell` -> `\\ell`."""
    return sympy.latex(sympy.Symbol(str(name)))


def proof_lines(proof: Proof, lang: Lang = "en", **style: Any) -> list[tuple[str, Prose | None]]:
    """``(line, justification)`` pairs of a proof for ``Document.align``.

    >>> from symattn.kernel.attention import single_head
    >>> from symattn.kernel.expr import index, Dot
    >>> from symattn.kernel.derivation import Derivation
    >>> s = single_head(); i, j = index("i"), index("j")
    >>> p = Derivation(s.scores[i, j]).step(Dot(s.Q.row(i), s.K.row(j)), "mul_transpose_apply_dot")
    >>> proof_lines(p.prove(witnesses=("symbolic",)))[0][0]
    '(QK^{\\\\mathsf T})_{ij} &= q_i\\\\cdot k_j'
    """
    order = written_order(proof.lhs, *(s.after for s in proof.steps))
    opts: dict[str, Any] = {"order": order, "lang": lang, **style}
    lhs = latex(proof.lhs, **opts)
    steps = [(latex(s.after, **opts), justification(s, lang)) for s in proof.steps]
    return fit_lines(chain_lines(lhs, steps), lang)


def fit_lines(
    lines: Sequence[tuple[str, Prose | None]], lang: str
) -> list[tuple[str, Prose | None]]:
    """The lines as given when they fit beside their justifications; else re-laid out.

    Too wide with the justification column: each justification goes on a line of its own
    under its step, in a paragraph box. Too wide even without it: the left-hand side goes
    on a line of its own too. Widths are estimated (see ``math_em``).

    >>> fit_lines([("a &= b", "why")], "en")
    [('a &= b', 'why')]
    """
    if not _too_wide(lines):
        return list(lines)
    cols = [partition_alignment(tex) for tex, _ in lines]
    left_em = max(math_em(a) for a, _, _ in cols)
    right_em = max(math_em(c) for _, _, c in cols)
    # The box starts after the left column and a \qquad; a text line is about 34.5 em.
    box = 0.86 - (left_em + 2) / 34.5
    stacked = left_em + right_em + 2 > LINE_EM or box < 0.55
    box = 0.85 if stacked else box
    out: list[tuple[str, Prose | None]] = []
    for (tex, why), (head, _, rest) in zip(lines, cols, strict=True):
        if not stacked:
            out.append((tex, None))
        else:
            if head.strip():
                out.append((f"&{head.strip()}", None))
            out.append((f"&\\quad {rest.strip()}", None))
        if why is not None:
            out.append((rf"&\qquad {_box(why, lang, box)}", None))
    return out


def _box(why: Prose, lang: str, fraction: float) -> str:
    left, right = ("（", "）") if lang == "zh" else ("(", ")")
    text = f"{left}{render_prose(why)}{right}"
    return rf"\parbox[t]{{{fraction:.2f}\linewidth}}{{\raggedright {text}}}"


#: Roughly what fits on a line of the standard article/ctexart text block, in em.
LINE_EM = 40.0
_DROP = re.compile(r"\\(?:left|right|operatorname|mathsf|mathbb|mathbf|mathrm|text|qquad|quad)\b")
_FRAC = re.compile(r"\\frac\{([^{}]*)\}\{([^{}]*)\}")
_SUMSYM = re.compile(r"\\sum_\{[^{}]*\}\^\{[^{}]*\}")


def math_em(tex: str) -> float:
    r"""A rough width of inline/display math in em (fractions count their wider part).

    >>> math_em(r"QK^{\mathsf T}") < math_em(r"\sum_{r=1}^{d_k} Q_{ir}K_{jr}")
    True
    """
    t = _SUMSYM.sub("SS", _DROP.sub("", tex))
    for _ in range(6):
        t, k = _FRAC.subn(lambda m: max(m.group(1), m.group(2), key=len), t)
        if not k:
            break
    t = re.sub(r"\\[A-Za-z]+", "x", t)
    t = re.sub(r"[{}]", "", t)
    subs = sum(len(m) for m in re.findall(r"[_^]([A-Za-z0-9(),+'-]+)", t))
    return 0.5 * (len(t) - subs) + 0.3 * subs


def prose_em(p: Prose) -> float:
    """A rough width of prose in em: CJK characters (ctexart sets them larger) 1.3, others 0.5."""
    if isinstance(p, Math):
        return math_em(p.latex)
    if isinstance(p, str):
        return sum(1.3 if ord(ch) > 0x2E7F else 0.5 for ch in p)
    return sum(prose_em(x) for x in p)


def _too_wide(lines: Sequence[tuple[str, Prose | None]]) -> bool:
    cols = [partition_alignment(tex) for tex, _ in lines]
    left = max(math_em(a) for a, _, _ in cols)
    right = max(math_em(c) for _, _, c in cols)
    why = max((prose_em(w) for _, w in lines if w is not None), default=-2.0)
    return left + right + 2 + why + 2 > LINE_EM


def render_proof(proof: Proof, lang: Lang = "en", **style: Any) -> str:
    """A proof as an ``align*`` block (see ``proof_lines``)."""
    return render_align(proof_lines(proof, lang, **style), lang=lang)


def matrix_latex(
    m: sympy.Matrix | Sequence[Sequence[object]],
    row_labels: Sequence[str | Math] | None = None,
    col_labels: Sequence[str | Math] | None = None,
) -> str:
    """An explicit matrix, exact entries printed by the textbook printer; labelled if asked.

    >>> print(matrix_latex(sympy.Matrix([[1, 0], [sympy.Rational(1, 3), sympy.Rational(2, 3)]])))
    \\begin{bmatrix}
    1 & 0 \\\\
    \\frac{1}{3} & \\frac{2}{3}
    \\end{bmatrix}
    """
    rows = m.tolist() if isinstance(m, sympy.MatrixBase) else [list(r) for r in m]
    cells = [[latex(sympy.sympify(x)) for x in r] for r in rows]
    if row_labels is None and col_labels is None:
        return bmatrix(cells)
    return labelled_matrix(cells, row_labels or [], col_labels or [])
