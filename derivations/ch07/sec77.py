"""Common mistakes: the false variants of chapter 7's identities, each refuted, with the right one.

A script on the public API (symattn, symattn.derive, symattn.latex, the kernel's modern nodes);
must not import the reader, check or cli. Runnable alone: `python derivations/ch07/sec77.py`.
"""

from __future__ import annotations

from symattn.derive import Builder, OnCheck, Section, Text, main
from symattn.latex.derivation import math_in_text
from symattn.soundness.identities import ZH, identities

#: Each mistake (a false variant), the identity it gets wrong, and other forms of the same mistake.
MISTAKES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("alibi_key_sign", "alibi_row_sign", ()),
    ("pad_empty_rowsum", "pad_empty_zero", ()),
    ("gqa_tile", "repeat_kv_head", ("gqa_output_tile",)),
    ("repeat_kv_next_head", "repeat_kv_head", ()),
    ("gqa_shared_queries", "gqa_scores", ()),
    ("linear_causal_strict", "linear_causal_prefix", ()),
    ("linear_softmax_assoc", "linear_assoc", ()),
    ("kv_newest_first_query", "kv_newest", ()),
    ("kv_append_unmasked", "kv_append", ()),
    ("rope_swapped", "rope_relative", ()),
    ("rope_no_rotation", "rope_relative", ()),
    (
        "online_b_b_no_rescale",
        "online_b_b",
        tuple(f"online_{k}_no_rescale" for k in ("2_3", "1_2_3", "b_b_b", "1_2_3_2", "b_b_b_b")),
    ),
)


def content(on_check: OnCheck | None = None) -> Section:
    """Section 7.7, each mistake refuted and each right claim proved as it is added.

    >>> content.__annotations__["return"]
    'Section'
    """
    b = Builder("7.7", Text("常见错误", "Common mistakes"), on_check)
    b.say(
        "下面每一条先写出错误的等式和内核找到的反例（尺寸尽量小，列出取值和两边的值），"
        "再写出正确的等式。",
        "Each item gives the wrong formula with the counterexample the kernel found (small "
        "sizes, the entries, the values of both sides), then the right formula.",
    )
    _mistakes(b)
    return b.section()


def _mistakes(b: Builder) -> None:
    by_name = {x.name: x for x in identities()}
    for wrong_name, right_name, others in MISTAKES:
        wrong, right = by_name[wrong_name], by_name[right_name]
        variants = [(by_name[v].lhs, by_name[v].rhs) for v in others]
        b.mistake(
            math_in_text(ZH[wrong.note]),
            math_in_text(wrong.note[0].upper() + wrong.note[1:]),
            (wrong.lhs, wrong.rhs),
            (right.lhs, right.rhs),
            defs=dict(wrong.defs),
            variants=variants,
        )


if __name__ == "__main__":
    raise SystemExit(main(content))
