"""The chapter's derivations: one module per section (6.1–6.5) and `beyond` (6.6), each checked.

Each module's `content(on_check)` returns a `Section` of blocks; `document()` renders sections
into a zh or en `Document`. Imports derivations.blocks and latex.document (the section modules by
name, through `importlib`); must not import the reader, check or cli, and nothing imports this
package but `symattn derive`, the soundness suite and tests.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

from symattn.derivations.blocks import OnCheck, Section, Tally, render
from symattn.latex.document import Document, Lang, Math

#: Section modules in reading order.
SECTION_MODULES: tuple[str, ...] = ("sec61", "sec62", "sec63", "sec64", "sec65", "beyond")

TITLE = {
    "zh": "第 6 章的推导：注意力的矩阵形式与多头注意力",
    "en": "Chapter 6 derivations: attention as matrices, and multi-head attention",
}

_LEGEND: dict[str, list[str | Math]] = {
    "zh": [
        "本文每一行推导都由 symattn 的内核检查过。行末括号里先写依据，再写检查的范围：",
        Math(r"\checkmark"),
        " 任意维度——符号证明，对任意 ",
        Math("n, d, d_k, d_v, H"),
        " 都成立；",
        Math(r"\checkmark"),
        " 所给维度——符号证明，但部分维度取了具体数值，其余仍为符号；"
        "精确核对——只在所列的具体尺寸下，"
        "把每个元素当作独立符号完全展开后比较，不是对所有尺寸的证明。",
    ],
    "en": [
        "Every line below was checked by the symattn kernel. The note at the end of a line "
        "gives the reason, then the scope of the check: ",
        Math(r"\checkmark"),
        " all sizes: a symbolic proof, valid for every ",
        Math("n, d, d_k, d_v, H"),
        "; ",
        Math(r"\checkmark"),
        " sizes shown: a symbolic proof where some dims are numbers and the rest symbols; exact: "
        "only at the listed explicit sizes, with every entry an independent symbol, both sides "
        "were expanded and compared (not a proof for all sizes).",
    ],
}


def module(name: str) -> ModuleType:
    """The section module called `name` (one of SECTION_MODULES)."""
    if name not in SECTION_MODULES:
        raise KeyError(name)
    return importlib.import_module(f"symattn.derivations.{name}")


def sections(
    on_check: OnCheck | None = None, names: Sequence[str] = SECTION_MODULES
) -> list[Section]:
    """Build (and check) the sections, in reading order."""
    return [module(name).content(on_check) for name in names]


def document(secs: Sequence[Section], lang: Lang, figures: Path | None) -> Document:
    """A standalone-ready document of the sections; figures are drawn into `figures`.

    >>> from symattn.derivations.blocks import Section, Text
    >>> doc = document([Section("x", Text("甲", "A"), ())], "en", None)
    >>> doc.render_standalone().count("\\\\section{A}")
    1
    """
    doc = Document(lang, TITLE[lang])
    # Sections are numbered as in the chapter; long derivations may break across pages.
    doc.raw(r"\renewcommand{\thesection}{6.\arabic{section}}\allowdisplaybreaks")
    doc.paragraph(_LEGEND[lang])
    for sec in secs:
        render(sec, doc, figures)
    return doc


def tally(secs: Sequence[Section]) -> Tally:
    """Counts of what the sections establish, by kind of evidence."""
    t = Tally()
    for sec in secs:
        t.add(sec)
    return t


__all__ = ["SECTION_MODULES", "TITLE", "document", "module", "sections", "tally"]
