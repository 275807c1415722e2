"""The printer's notation for chapter 7's nodes read back, each with a true and a false
variant: `\\operatorname{online}_{b_1,...}(S, V)` (the kernel's online softmax, decided by the
kernel), `\\operatorname{repeat}_R(K)` (its shape read, its value opaque: never verified) and the
feature map `\\phi(X)` (an arbitrary map: verified when proved, never false or a shape error)."""

from __future__ import annotations

import pytest

from symattn.check import check_text

WIDE = r"$$K\in\mathbb R^{n\times d_k G}$$" + "\n\n"
SQUARE = r"$$S\in\mathbb R^{n\times n}$$" + "\n\n"


def verdicts(text: str) -> list[str]:
    return [r.kind for r in check_text(text, "modern.md") if r.kind != "not-a-claim"]


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
        # \phi(X): an arbitrary row-wise feature map of a width of its own (D_phi); proved for
        # every such map it holds for the text's; false or ill-typed for it, undecided
        (r"\phi(Q)\phi(K)^T V = \phi(Q)(\phi(K)^T V)", "verified"),
        (r"\phi(Q)\phi(K)^T = (\phi(K)\phi(Q)^T)^T", "verified"),
        (r"\phi(Q)\phi(K)^T V = \phi(K)\phi(Q)^T V", "undecided"),
        (r"\phi(Q)V = \phi(Q)V", "undecided"),  # ill-typed only at the width D_phi
        (r"\phi(Q) \ne \phi(K)", "undecided"),  # a counterexample for an arbitrary map only
        (r"\phi(x) = \phi(x)", "declaration"),  # a scalar argument: an unknown function, as before
        # sides of other shapes with an opaque value: not read (as for the text's own functions)
        (WIDE + r"\operatorname{repeat}_R(K) = \operatorname{repeat}_R(K)^T", "not-understood"),
    ],
)
def test_modern_notation(text: str, kind: str) -> None:
    *before, formula = text.split("\n\n")
    got = verdicts("\n\n".join([*before, f"$${formula}$$\n"]))
    assert got == ["declaration"] * len(before) + [kind]


def test_repeat_says_only_its_shape_is_read() -> None:
    text = WIDE + r"$$\operatorname{repeat}_R(K)^T = (\operatorname{repeat}_R(K))^T$$" + "\n"
    (r,) = [x for x in check_text(text, "m.md") if x.kind == "undecided"]
    assert "the value of \\operatorname{repeat}_{R}(K) is not read, only its shape" in r.message
    assert "defined by the text" not in r.message
