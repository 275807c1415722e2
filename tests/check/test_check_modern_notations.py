"""Issue 14: the printer's notation for chapter 7's nodes read back, each with a true and a false
variant: `\\operatorname{online}_{b_1,...}(S, V)` (the kernel's online softmax, decided by the
kernel) and `\\operatorname{repeat}_R(K)` (its shape read, its value opaque: never verified)."""

from __future__ import annotations

import pytest

from symattn.check import check_text

WIDE = r"$$K\in\mathbb R^{n\times d_k G}$$" + "\n\n"
SQUARE = r"$$S\in\mathbb R^{n\times n}$$" + "\n\n"


def verdicts(text: str) -> list[str]:
    return [
        r.kind
        for r in check_text(text, "modern.md")
        if r.kind not in ("declaration", "not-a-claim")
    ]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # S and V only the chapter's conventions: the blocks give the number of keys
        (r"\operatorname{online}_{2,3}(S, V) = \operatorname{softmax}(S)V", "verified"),
        (r"\operatorname{online}_{b,b}(S, V) = \operatorname{softmax}(S)V", "verified"),
        (r"\operatorname{online}_{b,b}(S, V) = \operatorname{softmax}(2S)V", "false"),
        (r"\operatorname{online}_{2,3}(S, V) = \operatorname{softmax}(S)", "shape-error"),
        (r"\operatorname{online}_{1,1}(S, V) = 2\operatorname{softmax}(S)V", "false"),
        # S declared by the text keeps its shape: the blocks must cut its columns
        (SQUARE + r"\operatorname{online}_{n}(S, V) = \operatorname{softmax}(S)V", "verified"),
        (SQUARE + r"\operatorname{online}_{2,3}(S, V) = \operatorname{softmax}(S)V", "shape-error"),
        # repeat_R(K): n x R times K's columns, however they split into heads
        (WIDE + r"\operatorname{repeat}_R(K)\in\mathbb R^{n\times d_k G R}", "verified"),
        (WIDE + r"\operatorname{repeat}_R(K)\in\mathbb R^{n\times d_k G}", "shape-error"),
        (WIDE + r"\operatorname{repeat}_R(K)^T = (\operatorname{repeat}_R(K))^T", "undecided"),
        # sides of other shapes with an opaque value: not read (as for the text's own functions)
        (WIDE + r"\operatorname{repeat}_R(K) = \operatorname{repeat}_R(K)^T", "not-understood"),
    ],
)
def test_modern_notation(text: str, kind: str) -> None:
    *before, formula = text.split("\n\n")
    assert verdicts("\n\n".join([*before, f"$${formula}$$\n"])) == [kind]
