"""The common-mistakes block: checked when added (wrong false, right true), printed in zh and en."""

from __future__ import annotations

import pytest
import sympy

from symattn.derive.blocks import Builder, DerivationError, Mistake, Text, render
from symattn.kernel.attention import single_head
from symattn.kernel.expr import Dot, index
from symattn.latex.document import Document

i, j = index("i"), index("j")
S = single_head()
WRONG = (S.scores[i, j], Dot(S.Q.row(j), S.K.row(i)))
RIGHT = (S.scores[i, j], Dot(S.Q.row(i), S.K.row(j)))


def _built(lang: str, **options) -> str:
    b = Builder("x", Text("甲", "A"))
    b.mistake(["下标写反了"], ["indices swapped"], WRONG, RIGHT, **options)
    doc = Document(lang, "A")
    render(b.section(), doc, None)
    return doc.render_fragment()


def test_the_block_keeps_the_kernels_verdicts():
    b = Builder("x", Text("甲", "A")).mistake(["z"], ["e"], WRONG, RIGHT, variants=[WRONG])
    (m,) = b.blocks
    assert isinstance(m, Mistake) and m.variants == 1
    assert m.refuted.status == "false" and m.refuted.counterexample is not None
    assert m.holds.status == "proved"


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("en", ["wrong:", "right:", "Counterexample found by the kernel", "left side", "proved"]),
        ("zh", ["错误：", "正确：", "内核找到的反例", "左边", "对所有维度已证明"]),
    ],
)
def test_printed_as_an_aligned_display_in_both_languages(lang, words):
    tex = _built(lang)
    assert r"\begin{align*}" in tex and r"&(QK^{\mathsf T})_{ij} \neq q_j\cdot k_i" in tex
    assert r"&(QK^{\mathsf T})_{ij} = q_i\cdot k_j" in tex
    assert all(w in tex for w in words)
    b = Builder("x", Text("甲", "A")).mistake(["z"], ["e"], WRONG, RIGHT)
    c = b.blocks[0].refuted.counterexample  # the values shown are the kernel's
    assert f" = \\({sympy.sympify(c.lhs)}\\)" in tex and f" = \\({sympy.sympify(c.rhs)}\\)" in tex
    assert "\\subsubsection*{" in tex and "\\(Q \\in \\mathbb R^{n\\times d_k}\\)" in tex


@pytest.mark.parametrize(
    ("wrong", "right", "problem"),
    [
        (RIGHT, RIGHT, "the wrong claim is not refuted"),
        (WRONG, WRONG, "the right claim does not hold"),
    ],
)
def test_a_mistake_that_is_not_one_is_an_error_at_the_authors_line(wrong, right, problem):
    with pytest.raises(DerivationError, match=problem) as err:
        Builder("x", Text("甲", "A")).mistake(["z"], ["e"], wrong, right)
    assert err.value.site is not None and err.value.site[0].endswith("test_mistakes.py")


def test_a_variant_that_holds_is_refused():
    with pytest.raises(DerivationError, match="variant 1 is not refuted"):
        Builder("x", Text("甲", "A")).mistake(["z"], ["e"], WRONG, RIGHT, variants=[RIGHT])
