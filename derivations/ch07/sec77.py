"""Common mistakes: the false variants of chapter 7's identities, each refuted.

A script on the public API (symattn, symattn.derive, symattn.latex, the kernel's modern nodes);
must not import the reader, check or cli. Runnable alone: `python derivations/ch07/sec77.py`.
"""

from __future__ import annotations

from symattn.derive import Builder, OnCheck, Section, Text, main
from symattn.kernel.identities import ZH, identities
from symattn.kernel.proof import prove_equal


def content(on_check: OnCheck | None = None) -> Section:
    """Section 7.7, each derivation checked by the kernel as it is added.

    >>> content.__annotations__["return"]
    'Section'
    """
    b = Builder("7.7", Text("常见错误", "Common mistakes"), on_check)
    _false_variants(b)
    return b.section()


def _false_variants(b: Builder) -> None:
    for x in identities():
        if x.holds:
            continue
        verdict = prove_equal(x.lhs, x.rhs, defs=x.defs)
        b.fact([f"错误：{ZH[x.note]}"], [f"Wrong: {x.note}"], verdict, expect="false")


if __name__ == "__main__":
    raise SystemExit(main(content))
