"""Chapter 7 (derivations/ch07, beyond multi-head attention): every chain proves, with the scope
each step claims; the false variants are false; `symattn derive` builds it after chapter 6."""

from __future__ import annotations

import re

import pytest

from symattn.derive.blocks import Fact, Mistake, ProofBlock
from symattn.derive.sources import bundled, bundled_root, chapter
from symattn.latex.derivation import math_in_text, step_scope
from symattn.soundness.identities import ZH

CH07 = chapter(bundled_root() / "ch07")

FOR_ALL_SIZES = {
    "7.1 ALiBi keeps only lambda j",
    "7.1 padded rows sum to 1",
    "7.2 head h of the repeated keys",
    "7.2 GQA is MHA with repeated K/V",  # the sum over query heads regrouped (sum_regroup)
    "7.3 linear attention reassociates",
    "7.3 causal linear attention as a prefix sum",
    "7.4 the newest token from the cache",
    "7.4 appending a token",
    "7.6 online softmax, blocks 1",
    "7.6 online softmax, blocks b",
    "7.6 online softmax, any number of blocks",  # by induction on B
}
AT_SIZES_SHOWN = {
    "7.5 RoPE is relative",  # symbolic in p; the 2 of the p x 2 pair layout is a size shown
    # symbolic block size b, explicit number of blocks (the columns of E)
    "7.6 online softmax, blocks b, b",
    "7.6 online softmax, blocks b, b, b",
    "7.6 online softmax, blocks b, b, b, b",
    "7.6 online softmax, blocks 2, 3",
    "7.6 online softmax, blocks 1, 2, 3",
    "7.6 online softmax, blocks 1, 2, 3, 2",
}


class _All:
    """The blocks of every section of chapter 7, in order."""

    def __init__(self) -> None:
        self.blocks = [b for p in CH07.scripts for b in CH07.module(p.stem).content().blocks]


@pytest.fixture(scope="module")
def section():
    return _All()


@pytest.mark.slow
def test_every_chain_proves_with_its_scope(section) -> None:
    proofs = {b.proof.title: b.proof for b in section.blocks if isinstance(b, ProofBlock)}
    assert FOR_ALL_SIZES | AT_SIZES_SHOWN == set(proofs)
    for title in FOR_ALL_SIZES:
        assert proofs[title].for_all_sizes, title
        assert {step_scope(s) for s in proofs[title].steps} == {"all"}, title
    for title in AT_SIZES_SHOWN:
        assert proofs[title].for_all_sizes, title
        assert {step_scope(s) for s in proofs[title].steps} == {"shown"}, title


@pytest.mark.slow
def test_steps_cite_the_rules_they_follow_from(section) -> None:
    cited = {s.by for b in section.blocks if isinstance(b, ProofBlock) for s in b.proof.steps}
    assert {
        "softmax_add_alibi",
        "softmax_pad_rowsum",
        "repeat_kv_apply",
        "mul_assoc",
        "mul_causal_zero_row",
        "softmax_mask_mul_row_last",
        "softmax_mask_mul_first_rows",
        "rope_pairs_apply",
    } <= cited


@pytest.mark.slow
def test_common_mistakes_show_the_wrong_claim_its_counterexample_and_the_right_one(
    section,
) -> None:
    mistakes = [b for b in section.blocks if isinstance(b, Mistake)]
    assert len(mistakes) == 12 and sum(1 + m.variants for m in mistakes) == 18
    for m in mistakes:
        assert m.refuted.status == "false" and m.refuted.counterexample is not None
        assert m.holds.status in ("proved", "checked") and m.wrong != m.right
    assert not [b for b in section.blocks if isinstance(b, Fact)]


def test_the_chapter_is_bundled_after_chapter_6() -> None:
    assert [p.stem for p in CH07.scripts] == [f"sec7{k}" for k in range(1, 8)]
    assert [(u.name, u.number) for u in bundled()][:2] == [("chapter6", "6"), ("chapter7", "7")]


RAW_MATH = re.compile(r"<=|>=|\.\.|->|ceil\(|sqrt\(")


@pytest.mark.parametrize("note", sorted({*ZH, *ZH.values()}))
def test_the_headings_of_the_mistakes_set_their_formulas_as_math(note: str) -> None:
    text = "".join(x for x in math_in_text(note) if isinstance(x, str))
    assert not RAW_MATH.search(text) and not re.search(r"\b[a-z] [<+-] ", text), text
