"""Grouped-query and multi-query attention: K/V heads shared by groups of query heads.

A script on the public API (symattn, symattn.derive, symattn.latex, the kernel's modern nodes);
must not import the reader, check or cli. Runnable alone: `python derivations/ch07/sec72.py`.
"""

from __future__ import annotations

import sympy

from symattn.derive import Builder, OnCheck, Section, Text, main
from symattn.kernel.derivation import Derivation
from symattn.kernel.dims import d_k, n
from symattn.kernel.expr import (
    MatSym,
    RowBlock,
    index,
)
from symattn.kernel.modern import (
    RepeatKV,
)
from symattn.latex.document import Math as M
from symattn.soundness.identities import G, R, identities


def content(on_check: OnCheck | None = None) -> Section:
    """Section 7.2, each derivation checked by the kernel as it is added.

    >>> content.__annotations__["return"]
    'Section'
    """
    b = Builder("7.2", Text("分组查询注意力", "Grouped-query attention"), on_check)
    _grouped(b)
    return b.section()


def _grouped(b: Builder) -> None:
    k = MatSym("K", n, G * d_k)
    heads = G * R
    b.say(
        [
            M("H = GR"),
            " 个查询头共用 ",
            M("G"),
            " 个 K/V 头；第 ",
            M("h"),
            " 个查询头读第 ",
            M(r"\lceil h/R\rceil"),
            " 个：",
        ],
        [
            M("H = GR"),
            " query heads share ",
            M("G"),
            " K/V heads; query head ",
            M("h"),
            " reads head ",
            M(r"\lceil h/R\rceil"),
            ":",
        ],
    )
    b.shapes(
        [
            ("K", k, (n, G * d_k)),
            (r"\operatorname{repeat}_R(K)", RepeatKV(k, G, R, d_k), (n, heads * d_k)),
        ]
    )
    b.prove(
        Derivation(
            RowBlock(RepeatKV(k, G, R, d_k).T, index("h"), d_k, heads),
            title="7.2 head h of the repeated keys",
        ).step(RowBlock(k.T, sympy.ceiling(index("h") / R), d_k, G), by="repeat_kv_apply")
    )
    gqa = next(x for x in identities() if x.name == "gqa_output")
    b.say(
        [
            "整个输出：对重复后的 K/V 做多头注意力，等于每组 ",
            M("R"),
            " 个查询头用本组的 K/V 头（对所有维度成立：对查询头的求和按其读取的 K/V 头分组）：",
        ],
        [
            "The whole output: multi-head attention on the repeated K/V equals each group's ",
            M("R"),
            " query heads on the group's K/V head (for all sizes: the sum over the query heads "
            "regrouped by the K/V head each reads):",
        ],
    )
    b.prove(
        Derivation(gqa.lhs, title="7.2 GQA is MHA with repeated K/V").step(gqa.rhs, by="algebra")
    )


if __name__ == "__main__":
    raise SystemExit(main(content))
