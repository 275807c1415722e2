"""An explanation (the kernel's derivation of a claim, or where its sides part) as zh/en LaTeX.

Imports the kernel's explanations and symattn.latex (printer, derivation, document); must not
import the reader, check or cli.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import sympy

from symattn.kernel.explain import Explanation, Line
from symattn.kernel.rules import PHRASES, describe
from symattn.kernel.witness.evidence import Counterexample
from symattn.latex.derivation import fit_lines, math_in_text
from symattn.latex.document import Document, Lang, Math, Prose, escape_text
from symattn.latex.printer import latex, symbol_latex, written_order

_WORDS = {
    "right": {"en": "read right to left", "zh": "反向使用"},
    "part": {"en": "the two sides part here", "zh": "两边在此分开"},
    "value": {"en": "at the counterexample ", "zh": "反例处 "},
    "proved": {"en": "proved for all sizes", "zh": "对所有维度成立"},
    "false": {
        "en": "false: a counterexample shows the sides differ",
        "zh": "不成立：反例表明两边不等",
    },
    "other": {"en": "not proved", "zh": "未证明"},
    "title": {"en": "What the kernel found", "zh": "内核给出的推导"},
    "where": {"en": "Counterexample: ", "zh": "反例："},
}


def explanation_lines(
    expl: Explanation, lang: Lang = "en", **style: Any
) -> list[tuple[str, Prose | None]]:
    r"""``(line, justification)`` pairs for ``Document.align``: one line a rule, `\neq` where
    the two sides part, each justification naming its rule.

    >>> import sympy
    >>> from symattn.kernel.attention import single_head
    >>> from symattn.kernel.expr import Dot
    >>> from symattn.kernel.explain import explain
    >>> s = single_head(); i, j = sympy.symbols("i j", integer=True, positive=True)
    >>> lines = explanation_lines(explain(s.scores[i, j], Dot(s.Q.row(i), s.K.row(j))))
    >>> lines[0][0]
    '(QK^{\\mathsf T})_{ij} &= \\sum_{r=1}^{d_k} Q_{ir}(K^{\\mathsf T})_{rj}'
    """
    if not expl.lines:
        return []
    order = written_order(expl.lhs, *(x.after for x in expl.lines))
    opts: dict[str, Any] = {"order": order, "lang": lang, **style}
    out: list[tuple[str, Prose | None]] = []
    for k, line in enumerate(expl.lines):
        rel = {"proved": "=", "checked": "=", "false": r"\neq"}.get(line.status, r"\overset{?}{=}")
        head = latex(expl.lhs, **opts) + " " if k == 0 else ""
        out.append((f"{head}&{rel} {latex(line.after, **opts)}", _why(line, lang)))
    return fit_lines(out, lang)


def _why(line: Line, lang: Lang) -> Prose:
    if line.status == "false":
        pieces: list[str | Math] = [_WORDS["part"][lang]]
    else:
        pieces = list(math_in_text(describe(line.by, lang, latex=True)))
        if line.by not in PHRASES:
            pieces += [
                ", " if lang == "en" else "，",
                Math(r"\texttt{" + line.by.replace("_", r"\_") + "}"),
            ]
        if line.side == "right" and line.by not in PHRASES:
            pieces += ["; " if lang == "en" else "；", _WORDS["right"][lang]]
    if line.value is not None:
        pieces += [
            "; " if lang == "en" else "；",
            _WORDS["value"][lang],
            Math(f"= {latex(line.value)}"),
        ]
    return pieces


def explanation_document(
    explanations: Sequence[tuple[str, Explanation]], lang: Lang = "en", **style: Any
) -> Document:
    """A standalone document: each claim (its source), its verdict, the derivation, and for a
    false claim the counterexample and where the sides part."""
    doc = Document(lang, _WORDS["title"][lang])
    for source, expl in explanations:
        doc.section([Math(source)])
        status = expl.verdict.status
        stop = "。" if lang == "zh" else "."
        doc.paragraph(_WORDS[status if status in ("proved", "false") else "other"][lang] + stop)
        lines = explanation_lines(expl, lang, **style)
        if lines:
            doc.align(lines)
        if expl.verdict.counterexample is not None:
            doc.paragraph(
                [_WORDS["where"][lang], *counterexample_prose(expl.verdict.counterexample, lang)]
            )
        doc.paragraph(_conclusion(expl, lang))
    return doc


def _conclusion(expl: Explanation, lang: Lang) -> Prose:
    """The explanation's closing sentence, its formulas set as math."""
    p = expl.parted
    if p is None:
        return expl.conclusion(lang)
    pieces: list[str | Math] = []
    if lang == "zh":
        pieces.append(f"两边在前 {p - 1} 步一致，在第 {p} 步分开")
        for k, (a, b) in enumerate(expl.differences):
            pieces += [
                "：" if k == 0 else "；",
                "左边是 ",
                Math(latex(a)),
                "，右边是 ",
                Math(latex(b)),
            ]
        return [*pieces, "。"]
    pieces.append(f"The two sides agree for {p - 1} step{'s' * (p != 2)} and part at step {p}")
    for k, (a, b) in enumerate(expl.differences):
        pieces += [": the left has " if k == 0 else "; ", Math(latex(a))]
        pieces += [" where the right has " if k == 0 else " where it has ", Math(latex(b))]
    return [*pieces, "."]


def counterexample_prose(
    cex: Counterexample, lang: Lang = "en", *, most: int = 8
) -> list[str | Math]:
    """A counterexample as prose: its sizes, indices, entries and both values, each name and
    number set as math and the `=` between them as text, so that a reader of the page (or
    `symattn check` reading it back) never takes them for the document's own sizes or claims;
    at most `most` entries are listed (the rest counted).

    >>> from symattn.kernel.witness.evidence import Counterexample
    >>> c = Counterexample((("n", 2),), (("i", 1),), (("Q[1,2]", "3"),), "3", "0", True)
    >>> counterexample_prose(c)[1:4]
    [Math(latex='n'), ' = ', Math(latex='2')]
    """
    zh = lang == "zh"
    out: list[str | Math] = []
    if cex.sizes:
        out += [
            "尺寸 " if zh else "sizes ",
            *_pairs(((_name(k), str(v)) for k, v in cex.sizes), lang),
        ]
    if cex.indices:
        out.append(("，位置 " if zh else ", at ") if out else ("位置 " if zh else "at "))
        out += _indices(cex.indices, lang)
    shown = [(k, v) for k, v in cex.entries if k != "every other entry"]
    rest = len(shown) - most
    if shown:
        out.append("，取 " if zh else ", with ")
        out += _pairs(((_entry(k), v) for k, v in shown[:most]), lang)
        if rest > 0:
            out.append(f"（另有 {rest} 个）" if zh else f" (and {rest} more)")
    if any(k == "every other entry" for k, _ in cex.entries):
        out.append("，其余元素为 0" if zh else ", every other entry 0")
    out += ["：左边" if zh else ": left side", *_value(cex.lhs)]
    out += ["，右边" if zh else ", right side", *_value(cex.rhs)]
    if cex.certified:
        out.append(
            "（区间算术：两个区间不相交）"
            if zh
            else " (interval arithmetic: the enclosures are disjoint)"
        )
    elif not cex.exact:
        out.append("（30 位精度计算）" if zh else " (with 30-digit arithmetic)")
    out.append("。" if zh else ".")
    return out


#: The entry of a matrix a counterexample points at, named in words: row and column.
_PLACES = {"row": {"en": "row ", "zh": "第 "}, "col": {"en": "column ", "zh": "第 "}}
_PLACE_AFTER = {"row": {"en": "", "zh": " 行"}, "col": {"en": "", "zh": " 列"}}


def _indices(indices: Sequence[tuple[str, object]], lang: Lang) -> list[str | Math]:
    """`h = 2, row 2, column 1` (en) or `h = 2，第 2 行第 1 列` (zh): an index letter with its
    value, the entry's row and column in words of the page's language."""
    letters = [(k, v) for k, v in indices if k not in _PLACES]
    out = _pairs(((_name(k), str(v)) for k, v in letters), lang)
    for k, (key, value) in enumerate((k, v) for k, v in indices if k in _PLACES):
        if out:
            out.append("" if lang == "zh" and k else ("，" if lang == "zh" else ", "))
        out += [_PLACES[key][lang], Math(str(value)), _PLACE_AFTER[key][lang]]
    return [x for x in out if x != ""]


def _pairs(pairs, lang: Lang = "en") -> list[str | Math]:
    out: list[str | Math] = []
    for k, (name, value) in enumerate(pairs):
        out += [("，" if lang == "zh" else ", ")] if k else []
        out += [Math(name), *_value(value)]
    return out


def _value(text: str) -> list[str | Math]:
    """` = ` then the value as math (`\\approx` for a decimal), the relation in text."""
    tex = latex_value(text)
    if tex.startswith(r"\approx "):
        return [" ", Math(r"\approx"), " ", Math(tex[len(r"\approx ") :])]
    return [" = ", Math(tex[2:])]


def latex_value(text: str) -> str:
    r"""A value the kernel wrote as text, as LaTeX: `= -5`, `= \frac{3}{2}`, `\approx 0.7311`.

    >>> latex_value("-5"), latex_value("0.73105857863")
    ('= -5', '\\approx 0.7311')
    """
    if "." in text:
        try:
            return rf"\approx {float(text):.4g}"
        except ValueError:
            pass
    if re.fullmatch(r"\s*-?\d+(?:\s*/\s*\d+)?\s*", text):
        return "= " + latex(sympy.Rational(text.replace(" ", "")))  # a number, never eval'd text
    return r"= \text{" + escape_text(text) + "}"


_FUNCTION = re.compile(r"^([A-Za-z]+)\(([A-Za-z_]+)\)$")  # phi(K), a feature map of a matrix
#: E(S; 2, 3): the running maxima of an online softmax, named after its scores and blocks
_MAXIMA = re.compile(r"^([A-Za-z])\(([A-Za-z](?:_[A-Za-z0-9]+)?); ([A-Za-z0-9_, ]+)\)$")
_SIZE = re.compile(r"\d+|[A-Za-z](?:_[A-Za-z0-9]+)?")


def _name(name: str) -> str:
    """A name from a counterexample as math: `d_k`, `\\lambda`, `\\phi(K)`, `E_{S;\\,b,b}`."""
    if name in ("row", "col"):
        return rf"\text{{{name}}}"
    m = _FUNCTION.match(name)
    if m:
        return f"{symbol_latex(m.group(1))}({symbol_latex(m.group(2))})"
    m = _MAXIMA.match(name)
    sizes = [] if m is None else [x.strip() for x in m.group(3).split(",")]
    if m and all(_SIZE.fullmatch(x) for x in sizes):
        blocks = ",".join(x if x.isdigit() else symbol_latex(x) for x in sizes)
        return f"{symbol_latex(m.group(1))}_{{{symbol_latex(m.group(2))};\\,{blocks}}}"
    if re.fullmatch(r"[A-Za-z]+(_[A-Za-z0-9]+)?", name):
        return symbol_latex(name)
    return r"\text{" + escape_text(name) + "}"


def _entry(key: str) -> str:
    """An entry's name as math: `Q[1,2]` -> `Q_{12}`, `W_O[1,2]` -> `(W_O)_{12}`."""
    name, bracket, rest = key.rpartition("[") if key.endswith("]") else (key, "", "")
    if not bracket:
        return _name(key)
    parts = [x.strip() for x in rest.rstrip("]").split(",")]
    sub = ("," if any(len(x) > 1 for x in parts) else "").join(parts)
    base = _name(name)
    if not re.fullmatch(r"[A-Za-z]|\\[a-z]+", base):
        base = f"({base})"
    return f"{base}_{{{sub}}}"
