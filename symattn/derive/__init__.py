"""Derivation documents: sections of checked blocks (derive.blocks), their sources (derive.sources).

`document()` renders sections into a zh or en `Document` (standalone or an `\\input`-able
fragment); `main(content)` runs one script on its own. Imports the kernel and symattn.latex; must
not import the reader, check or cli.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from symattn.derive.blocks import (
    Builder,
    DerivationError,
    OnCheck,
    ProofBlock,
    Section,
    Tally,
    Text,
    exact_matrix,
    render,
)
from symattn.derive.sources import Unit
from symattn.kernel.errors import SymattnError
from symattn.latex.document import Document, Lang, Math


def _legend(lang: Lang, dims: str | None) -> list[str | Math]:
    if lang == "zh":
        every: list[str | Math] = (
            [" 任意维度——符号证明，对任意 ", Math(dims), " 都成立；"]
            if dims
            else [" 任意维度——符号证明，对所有符号维度都成立；"]
        )
        return [
            "本文每一行推导都由 symattn 的内核检查过。行末括号里先写依据，再写检查的范围：",
            Math(r"\checkmark"),
            *every,
            Math(r"\checkmark"),
            " 所给维度——符号证明，但部分维度取了具体数值，其余仍为符号；"
            "精确核对——只在所列的具体尺寸下，"
            "把每个元素当作独立符号完全展开后比较，不是对所有尺寸的证明。",
        ]
    every = (
        [" all sizes: a symbolic proof, valid for every ", Math(dims), "; "]
        if dims
        else [" all sizes: a symbolic proof, valid for every value of the symbolic dims; "]
    )
    return [
        "Every line below was checked by the symattn kernel. The note at the end of a line "
        "gives the reason, then the scope of the check: ",
        Math(r"\checkmark"),
        *every,
        Math(r"\checkmark"),
        " sizes shown: a symbolic proof where some dims are numbers and the rest symbols; exact: "
        "only at the listed explicit sizes, with every entry an independent symbol, both sides "
        "were expanded and compared (not a proof for all sizes).",
    ]


def document(
    secs: Sequence[Section],
    lang: Lang,
    figures: Path | None,
    unit: Unit | None = None,
    *,
    fragment: bool = False,
) -> Document:
    """A document of the sections (`unit` gives title, numbering, dims); figures go to `figures`.

    With `fragment=True` the section numbering is left to the host document.

    >>> from symattn.derive.blocks import Section, Text
    >>> doc = document([Section("x", Text("甲", "A"), ())], "en", None)
    >>> doc.render_standalone().count("\\\\section{A}")
    1
    """
    text = unit.title if unit is not None and unit.title is not None else None
    if text is None and secs:
        text = secs[0].title
    title = text(lang) if text is not None else ""
    doc = Document(lang, str(title))
    # A numbered chapter numbers its sections n.1, ...; only a long derivation may break across
    # pages (blocks.KEEP_LINES), a short one stays on its page.
    number = unit.number if unit is not None and not fragment else None
    if number is not None:
        doc.raw(rf"\renewcommand{{\thesection}}{{{number}.\arabic{{section}}}}")
    doc.paragraph(_legend(lang, unit.dims if unit is not None else None))
    for sec in secs:
        render(sec, doc, figures)
    return doc


def tally(secs: Sequence[Section]) -> Tally:
    """Counts of what the sections establish, by kind of evidence."""
    t = Tally()
    for sec in secs:
        t.add(sec)
    return t


def main(content: Callable[[OnCheck | None], Section], out: TextIO | None = None) -> int:
    """Run a derivation script on its own: print every checked chain; 0, or 1 with the failure.

    A script ends with `if __name__ == "__main__": raise SystemExit(main(content))`.
    """
    out = out or sys.stdout
    try:
        sec = content(None)
    except SymattnError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for block in sec.blocks:
        if isinstance(block, ProofBlock):
            print(block.proof, end="\n\n", file=out)
    t = tally([sec])
    print(
        f"{sec.key}: {t.derivations} derivations, {t.steps} steps checked "
        f"({t.steps_all_sizes} for all sizes, {t.steps_explicit} at the sizes shown, "
        f"{t.steps_checked} exactly at explicit sizes only)",
        file=out,
    )
    return 0


__all__ = [
    "Builder",
    "DerivationError",
    "OnCheck",
    "Section",
    "Text",
    "Unit",
    "document",
    "exact_matrix",
    "main",
    "tally",
]
