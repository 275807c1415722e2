"""Blocks a section of derivations is made of (bilingual prose, checked proofs, shapes, figures).

Sections build blocks through `Builder`, which asks the kernel to check each claim as it is
added; rendering into a `Document` only prints. Imports the kernel and symattn.latex; must not
import the reader, check or cli. A failed claim is a `DerivationError` at the author's file:line.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sympy

from symattn.kernel.derivation import Derivation, Proof
from symattn.kernel.dims import Shape, dims_equal, shape_str
from symattn.kernel.errors import ProofError, ShapeError
from symattn.kernel.expr import MatExpr, MatSym, walk
from symattn.kernel.proof import Verdict, prove_equal
from symattn.latex.derivation import (
    LINE_EM,
    fit_lines,
    math_em,
    matrix_latex,
    proof_lines,
    step_scope,
)
from symattn.latex.document import Document, Lang, Math, Prose, escape_text, render_prose
from symattn.latex.explain import counterexample_prose
from symattn.latex.figures import attention_heatmap
from symattn.latex.printer import latex, shape_latex
from symattn.latex.readable import readable


class DerivationError(ProofError):
    """A claim of a derivation script failed; `site` is the (file, line) of the step or call.

    >>> str(DerivationError("step 2 is false", site=("notes.py", 14), step=2))
    'notes.py:14: step 2 is false'
    """

    def __init__(
        self,
        message: str,
        *,
        site: tuple[str, int] | None,
        step: int | None = None,
        counterexample: object = None,
    ):
        super().__init__(message, step=step, counterexample=counterexample)
        self.message = message
        self.site = site

    def __str__(self) -> str:
        if self.site is None:
            return self.message
        return f"{shown(self.site[0])}:{self.site[1]}: {self.message}"


def shown(file: str) -> str:
    """A path as the author typed it: relative to the working directory when inside it."""
    path = Path(file)
    try:
        return str(path.relative_to(Path.cwd())) if path.is_absolute() else file
    except ValueError:
        return file


def _caller(depth: int = 2) -> tuple[str, int]:
    """(file, line) of the code `depth` frames up: the author's call of a Builder method."""
    frame = sys._getframe(depth)
    return frame.f_code.co_filename, frame.f_lineno


_STEP = re.compile(r"^step (\d+)\b")


@dataclass(frozen=True)
class Text:
    """The same content in Chinese and English (the prose is the project's own)."""

    zh: Prose
    en: Prose

    def __call__(self, lang: Lang) -> Prose:
        return self.zh if lang == "zh" else self.en


@dataclass(frozen=True)
class Paragraph:
    text: Text


@dataclass(frozen=True)
class Heading:
    text: Text


@dataclass(frozen=True)
class ProofBlock:
    proof: Proof


@dataclass(frozen=True)
class Shapes:
    """`lhs = expr ∈ R^{r×c}` lines; the kernel computed each shape and it was the expected one."""

    lines: tuple[tuple[str, MatExpr], ...]


@dataclass(frozen=True)
class Display:
    """Display math; a `Text` when the two languages differ (e.g. table headers)."""

    latex: str | Text


@dataclass(frozen=True)
class Fact:
    """A claim decided by the kernel outside a chain (e.g. every entry of A is positive)."""

    text: Text
    verdict: Verdict


@dataclass(frozen=True)
class Check:
    """A property of explicit numbers checked by code (exact rational arithmetic)."""

    text: Text


@dataclass(frozen=True)
class Computation:
    """Lines computed with sympy outside the kernel (not a kernel Proof); `how` says what holds."""

    lines: tuple[tuple[str, Text | None], ...]
    how: Text


@dataclass(frozen=True)
class Figure:
    """A heatmap of weights: an exact `Matrix`, an array, or a kernel matrix on `inputs`."""

    stem: str
    weights: Any
    labels: tuple[str, ...]
    caption: Text
    inputs: Mapping[Any, Any] | None = None
    col_labels: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Mistake:
    """A common mistake: the wrong claim with the kernel's counterexample, and the right claim.

    `refuted` is the kernel's `false` verdict on `wrong` (its counterexample: small sizes, the
    entries, both values); `holds` its verdict on `right` (proved, or checked exactly);
    `variants` counts further forms of the same mistake the kernel also refuted.
    """

    note: Text
    wrong: tuple[sympy.Basic, sympy.Basic]
    refuted: Verdict
    right: tuple[sympy.Basic, sympy.Basic]
    holds: Verdict
    variants: int = 0


Block = (
    Paragraph
    | Heading
    | ProofBlock
    | Shapes
    | Display
    | Fact
    | Check
    | Computation
    | Figure
    | Mistake
)


@dataclass(frozen=True)
class Section:
    key: str
    title: Text
    blocks: tuple[Block, ...]
    #: Printer options for the kernel's formulas (`symattn.settings.Notation.style()`).
    style: Mapping[str, Any] = field(default_factory=dict)


OnCheck = Callable[[str, str], None]
_SCOPE_WORDS = {"all": "all sizes", "shown": "at the sizes shown", "checked": "checked exactly"}


@dataclass
class Builder:
    """Collects a section's blocks; every claim is checked by the kernel when it is added."""

    key: str
    title: Text
    on_check: OnCheck | None = None
    blocks: list[Block] = field(default_factory=list)

    def _report(self, what: str, status: str) -> None:
        if self.on_check is not None:
            self.on_check(what, status)

    def say(self, zh: Prose, en: Prose) -> Builder:
        self.blocks.append(Paragraph(Text(zh, en)))
        return self

    def heading(self, zh: Prose, en: Prose) -> Builder:
        self.blocks.append(Heading(Text(zh, en)))
        return self

    def prove(self, derivation: Derivation, **options: Any) -> Proof:
        """Check a derivation (all steps, symbolic by default) and add it."""
        try:
            proof = derivation.prove(**options)
        except (ProofError, ShapeError) as exc:
            self._report(derivation.title, "FAILED")
            raise _failed(f"{self.key}: {derivation.title}: {exc}", derivation, exc) from None
        scopes = Counter(step_scope(s) for s in proof.steps)
        parts = [f"{scopes[k]} {_SCOPE_WORDS[k]}" for k in _SCOPE_WORDS if scopes[k]]
        count = len(proof.steps)
        self._report(proof.title, f"{count} step{'s' * (count != 1)}: " + ", ".join(parts))
        self.blocks.append(ProofBlock(proof))
        return proof

    def shapes(self, lines: Sequence[tuple[str, MatExpr, Shape]]) -> Builder:
        """Shape lines; each expected shape must equal the kernel's (strictly)."""
        for lhs, e, want in lines:
            got = e.shape
            if not all(dims_equal(a, b) for a, b in zip(got, want, strict=True)):
                raise DerivationError(
                    f"{self.key}: {lhs} has shape {shape_str(got)}, expected {shape_str(want)}",
                    site=_caller(),
                )
        self._report(f"{len(lines)} shapes", "typecheck")
        self.blocks.append(Shapes(tuple((lhs, e) for lhs, e, _ in lines)))
        return self

    def display(self, tex: str | Text) -> Builder:
        self.blocks.append(Display(tex))
        return self

    def fact(self, zh: Prose, en: Prose, verdict: Verdict, *, expect: str = "proved") -> Builder:
        if verdict.status != expect:
            self._report(str(en), "FAILED")
            raise DerivationError(
                f"{self.key}: expected {expect}, got {verdict.summary()}: {_plain(en, 200)}",
                site=_caller(),
            )
        self._report(_plain(en), verdict.status)
        self.blocks.append(Fact(Text(zh, en), verdict))
        return self

    def mistake(
        self,
        zh: Prose,
        en: Prose,
        wrong: tuple[sympy.Basic, sympy.Basic],
        right: tuple[sympy.Basic, sympy.Basic],
        *,
        defs: Mapping[Any, Any] | None = None,
        variants: Sequence[tuple[sympy.Basic, sympy.Basic]] = (),
    ) -> Builder:
        """A common mistake: `wrong` must be false with a counterexample, `right` proved (or
        checked exactly), and every one of `variants` (other forms of the mistake) false."""
        refuted = prove_equal(*wrong, defs=defs)
        holds = prove_equal(*right, defs=defs)
        others = [prove_equal(*v, defs=defs) for v in variants]
        if refuted.status != "false" or refuted.counterexample is None:
            problem = f"the wrong claim is not refuted ({refuted.summary()})"
        elif not holds.ok:
            problem = f"the right claim does not hold ({holds.summary()})"
        else:
            bad = [k for k, v in enumerate(others, start=1) if v.status != "false"]
            problem = (
                f"variant {bad[0]} is not refuted ({others[bad[0] - 1].summary()})" if bad else ""
            )
        if problem:
            self._report(_plain(en), "FAILED")
            raise DerivationError(f"{self.key}: mistake {_plain(en)!r}: {problem}", site=_caller())
        self._report(_plain(en), f"refuted, right claim {holds.status}")
        self.blocks.append(Mistake(Text(zh, en), wrong, refuted, right, holds, len(others)))
        return self

    def check(self, zh: Prose, en: Prose, holds: bool) -> Builder:
        if not holds:
            self._report(_plain(en), "FAILED")
            raise DerivationError(f"{self.key}: check failed: {_plain(en)}", site=_caller())
        self._report(_plain(en), "checked")
        self.blocks.append(Check(Text(zh, en)))
        return self

    def computation(self, lines: Sequence[tuple[str, Text | None]], how: Text) -> Builder:
        self._report(_plain(how.en), "computed")
        self.blocks.append(Computation(tuple(lines), how))
        return self

    def figure(
        self,
        stem: str,
        weights: Any,
        labels: Sequence[str],
        caption: Text,
        *,
        inputs: Mapping[Any, Any] | None = None,
        col_labels: Sequence[str] | None = None,
    ) -> Builder:
        """A heatmap drawn next to the document (`figures/<stem>.<lang>.pdf`) when it is built.

        `weights`: an exact sympy `Matrix`, an array-like, or a kernel matrix evaluated on
        `inputs` (`symattn.evaluate`); `labels` name the rows (and the columns, unless
        `col_labels` is given).
        """
        cols = None if col_labels is None else tuple(col_labels)
        self.blocks.append(Figure(stem, weights, tuple(labels), caption, inputs, cols))
        return self

    def section(self) -> Section:
        return Section(self.key, self.title, tuple(self.blocks))


def _failed(message: str, derivation: Derivation, exc: Exception) -> DerivationError:
    """The error at the line where the failing step was written (else where it was proved)."""
    step = getattr(exc, "step", None)
    if step is None:
        m = _STEP.match(str(exc))
        step = int(m.group(1)) if m else None
    sites = derivation.sites
    site = sites[step - 1] if step is not None and 0 < step <= len(sites) else _caller(3)
    ce = getattr(exc, "counterexample", None)
    return DerivationError(message, site=site, step=step, counterexample=ce)


def _plain(p: Prose, limit: int = 72) -> str:
    text = _flatten(p)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _flatten(p: Prose) -> str:
    if isinstance(p, str):
        return p
    if isinstance(p, Math):
        return readable(p.latex)
    return "".join(_flatten(x) for x in p)


# ---- tallies ------------------------------------------------------------------------------


@dataclass
class Tally:
    """What a set of sections establishes, kept apart by the kind of evidence."""

    derivations: int = 0
    steps_all_sizes: int = 0
    steps_explicit: int = 0
    steps_checked: int = 0
    shapes: int = 0
    facts: int = 0
    exact_checks: int = 0
    computations: int = 0
    witnesses: Counter[str] = field(default_factory=Counter)

    def add(self, section: Section) -> Tally:
        for b in section.blocks:
            if isinstance(b, ProofBlock):
                self.derivations += 1
                for s in b.proof.steps:
                    scope = step_scope(s)
                    self.steps_all_sizes += scope == "all"
                    self.steps_explicit += scope == "shown"
                    self.steps_checked += scope == "checked"
                    self.witnesses.update(s.verdict.witnesses)
            elif isinstance(b, Shapes):
                self.shapes += len(b.lines)
            elif isinstance(b, Fact):
                self.facts += 1
                self.witnesses.update(b.verdict.witnesses)
            elif isinstance(b, Check):
                self.exact_checks += 1
            elif isinstance(b, Computation):
                self.computations += 1
            elif isinstance(b, Mistake):
                self.facts += 2 + b.variants
                self.witnesses.update(b.holds.witnesses)
        return self

    @property
    def steps(self) -> int:
        return self.steps_all_sizes + self.steps_explicit + self.steps_checked


# ---- rendering ----------------------------------------------------------------------------

_PROVED_NOTE = {
    "proved": {"en": "proved for all sizes", "zh": "对所有维度已证明"},
    "false": {"en": "refuted by a counterexample", "zh": "被反例否定"},
    "shape_error": {
        "en": "rejected by the kernel: the shapes do not fit",
        "zh": "内核拒绝：形状不相容",
    },
}
_SYMPY_NOTE = {
    "en": "computed with sympy, outside the kernel",
    "zh": "用 sympy 计算，不属于内核证明",
}


def render(section: Section, doc: Document, figures: Path | None) -> None:
    """Append a section to a document; figures are drawn into `figures` (None: left out)."""
    lang = doc.lang
    doc.section(section.title(lang))
    # A figure is set after the section's last block: a float placed where it was added could
    # land between a derivation and the one that continues it.
    blocks: list[Block] = [b for b in section.blocks if not isinstance(b, Figure)]
    blocks += [b for b in section.blocks if isinstance(b, Figure)]
    for b in blocks:
        _render_block(b, doc, lang, figures, section.style)


def _render_block(
    b: Block, doc: Document, lang: Lang, figures: Path | None, style: Mapping[str, Any]
) -> None:
    if isinstance(b, Paragraph):
        doc.paragraph(b.text(lang))
    elif isinstance(b, Heading):
        doc.subsection(b.text(lang))
    elif isinstance(b, ProofBlock):
        lines = proof_lines(b.proof, lang, **style)
        doc.align(lines, breakable=len(lines) > KEEP_LINES)
    elif isinstance(b, Shapes):
        doc.align([(f"{lhs} &\\in {shape_latex(e.shape, **style)}", None) for lhs, e in b.lines])
    elif isinstance(b, Display):
        doc.display(b.latex(lang) if isinstance(b.latex, Text) else b.latex)  # type: ignore[arg-type]
    elif isinstance(b, Fact):
        note = _PROVED_NOTE.get(b.verdict.status, {}).get(lang, b.verdict.status)
        doc.paragraph(_with_note(b.text(lang), note, lang, mark=b.verdict.status == "proved"))
    elif isinstance(b, Check):
        doc.paragraph(_with_note(b.text(lang), _check_note(lang), lang))
    elif isinstance(b, Computation):
        lines = [(tex, None if why is None else why(lang)) for tex, why in b.lines]
        doc.align(fit_lines(lines, lang))
        doc.paragraph(_with_note(b.how(lang), _SYMPY_NOTE[lang], lang))
    elif isinstance(b, Mistake):
        _render_mistake(b, doc, lang, style)
    elif isinstance(b, Figure) and figures is not None:
        _render_figure(b, doc, lang, figures)


#: A derivation of more printed lines than this may break across pages; a shorter one never.
KEEP_LINES = 16

_MISTAKE_WORDS = {
    "wrong": {"en": "wrong", "zh": "错误"},
    "right": {"en": "right", "zh": "正确"},
    "cex": {"en": "Counterexample found by the kernel: ", "zh": "内核找到的反例："},
    "checked": {"en": "checked exactly at the sizes given", "zh": "在所给尺寸下精确核对"},
    "variants": {
        "en": "The kernel refutes {k} more form{s} of this mistake",
        "zh": "内核还否定了这一错误的另外 {k} 种形式",
    },
}


def _render_mistake(b: Mistake, doc: Document, lang: Lang, style: Mapping[str, Any]) -> None:
    """The note, then an aligned display: the wrong claim, the counterexample under it, the
    right claim with what the kernel established."""
    words = {k: v[lang] for k, v in _MISTAKE_WORDS.items()}
    doc.subsubsection(b.note(lang))  # a section of its own: the shapes below hold in it
    where = _where(b, lang, style)
    if where:
        doc.paragraph(where)
    status = b.holds.status
    note = _PROVED_NOTE["proved"][lang] if status == "proved" else words["checked"]
    wrong = _claim_lines(words["wrong"], b.wrong, r"\neq", None, lang, style)
    cex = [words["cex"], *counterexample_prose(b.refuted.counterexample, lang)]  # type: ignore[arg-type]
    box = rf"&\qquad \parbox[t]{{0.75\linewidth}}{{\raggedright\small {render_prose(cex)}}}"
    right = _claim_lines(words["right"], b.right, "=", None, lang, style)
    left, close = ("（", "）") if lang == "zh" else ("(", ")")
    verdict = rf"&\qquad \text{{{left}\(\checkmark\) {escape_text(note)}{close}}}"
    doc.align([*wrong, (box, None), *right, (verdict, None)])
    if b.variants:
        k = b.variants
        doc.paragraph(
            words["variants"].format(k=k, s="s" * (k != 1)) + ("。" if lang == "zh" else ".")
        )


_NAME = re.compile(r"[A-Za-z](_[A-Za-z0-9]+)?")  # a name a reader can declare: Q, W_O


def _where(b: Mistake, lang: Lang, style: Mapping[str, Any]) -> list[str | Math]:
    """The shapes of the named matrices both claims use (`Q \\in \\mathbb R^{n\\times d_k}`):
    a reader of the page, and `symattn check` reading it back, needs them for this item."""
    shapes: dict[str, list[Shape]] = {}
    for x in walk(sympy.Tuple(*b.wrong, *b.right)):
        if isinstance(x, MatSym) and _NAME.fullmatch(x.name):
            shapes.setdefault(x.name, []).append(x.shape)
    names = [
        k
        for k, v in shapes.items()
        if all(dims_equal(a, c) for s in v[1:] for a, c in zip(s, v[0], strict=True))
    ]
    if not names:
        return []
    pieces: list[str | Math] = ["其中 " if lang == "zh" else "Here "]
    for k, name in enumerate(names):
        if k:
            pieces.append("，" if lang == "zh" else ", ")
        tex = latex(MatSym(name, *shapes[name][0]), **style)
        pieces.append(Math(rf"{tex} \in {shape_latex(shapes[name][0], **style)}"))
    return [*pieces, "。" if lang == "zh" else "."]


def _claim_lines(
    word: str,
    claim: tuple[sympy.Basic, sympy.Basic],
    rel: str,
    why: Prose | None,
    lang: Lang,
    style: Mapping[str, Any],
) -> list[tuple[str, Prose | None]]:
    """`word: lhs rel rhs` on one line, or the right side on a line of its own when too wide."""
    label = rf"\text{{{word}{'：' if lang == 'zh' else ':'}}}\quad "
    left, right = (latex(x, lang=lang, **style) for x in claim)
    if math_em(left) + math_em(right) + 9 > LINE_EM:  # the label, the relation, the gaps
        return fit_lines([(f"{label}&{left}", None), (f"&{rel} {right}", why)], lang)
    return fit_lines([(f"{label}&{left} {rel} {right}", why)], lang)


def _check_note(lang: Lang) -> str:
    return "由程序精确核对" if lang == "zh" else "checked by code in exact arithmetic"


def _with_note(text: Prose, note: str, lang: Lang, *, mark: bool = True) -> list[str | Math]:
    pieces: list[str | Math] = [text] if isinstance(text, (str, Math)) else list(text)
    if pieces and isinstance(pieces[0], str) and pieces[0][:1].islower():
        pieces[0] = pieces[0][0].upper() + pieces[0][1:]  # a sentence of its own
    left, right = ("（", "）") if lang == "zh" else (" (", ")")
    tick: list[str | Math] = [Math(r"\checkmark"), " "] if mark else []
    return [*pieces, left, *tick, note, right]


def _render_figure(b: Figure, doc: Document, lang: Lang, figures: Path) -> None:

    figures.mkdir(parents=True, exist_ok=True)
    stem = figures / f"{b.stem}.{lang}"
    weights = b.weights
    if isinstance(weights, sympy.MatrixBase):
        weights = [[float(x) for x in row] for row in weights.tolist()]
    cols = b.labels if b.col_labels is None else b.col_labels
    attention_heatmap(weights, list(b.labels), list(cols), stem, lang=lang, inputs=b.inputs)
    doc.figure(f"{figures.name}/{stem.name}.pdf", b.caption(lang), width=0.6)


def exact_matrix(m: sympy.Matrix, labels: Sequence[str] | None = None) -> str:
    """An explicit matrix with exact entries, labelled by tokens when given."""
    if labels is None:
        return matrix_latex(m)
    return matrix_latex(m, list(labels), list(labels))


__all__ = [
    "Block",
    "Builder",
    "Check",
    "Computation",
    "DerivationError",
    "Display",
    "Fact",
    "Figure",
    "Heading",
    "Mistake",
    "Paragraph",
    "ProofBlock",
    "Section",
    "Shapes",
    "Tally",
    "Text",
    "exact_matrix",
    "latex",
    "shown",
    "render",
]
