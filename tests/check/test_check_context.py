"""Context as a reader uses it (hypotheses, conditions, worked examples, sizes),
errors that fail and warnings that don't, and the printer's own notation read back.
Each rule has a true and a false variant."""

from __future__ import annotations

import pytest

from symattn.check import check_text

MASKED = r"$$A=\operatorname{softmax}(\operatorname{mask}(QK^T/\sqrt{d_k}))$$" + "\n\n"


def kinds(text: str, name: str = "doc.md") -> list[str]:
    return [r.kind for r in check_text(text, name)]


def claims(text: str, name: str = "doc.md") -> list[str]:
    return [k for k in kinds(text, name) if k not in ("declaration", "not-a-claim")]


# ---- hypotheses: suppose / assume / let / if / 假设 / 设 ------------------------------------


@pytest.mark.parametrize("cue", ["Suppose", "Assume that", "If", "假设", "设"])
def test_a_hypothesis_is_assumed_not_checked(cue):
    (r,) = check_text(rf"{cue} $\mathbf k_i=\mathbf v_i$ for every $i$.", "h.md")[:1]
    assert r.kind == "declaration" and "hypothesis" in r.message


def test_the_same_identity_asserted_is_checked():
    assert claims(r"So $\mathbf k_i=\mathbf v_i$ for every $i$.") in (["false"], ["shape-error"])


# ---- conditions attached in the text ------------------------------------------------------


@pytest.mark.parametrize(
    "text,want",
    [
        (MASKED + r"The weights vanish: $a_{ij}=0$ for $j>i$.", ["verified"]),
        (MASKED + r"The weights vanish: $a_{ij}=0$ for $j<i$.", ["false"]),
        (MASKED + r"$$a_{ij} = 0 \quad\text{if } j > i$$", ["verified"]),
        (MASKED + r"$$a_{ij} = 0 \quad\text{if } j \le i$$", ["false"]),
        (MASKED + r"Above the diagonal (assuming $j>i$): $$a_{ij} = 0$$", ["verified"]),
        (MASKED + r"The weights vanish: $a_{ij}=0$.", ["false"]),
    ],
)
def test_a_condition_qualifies_the_claim_it_is_attached_to(text, want):
    assert claims(text) == ["verified", *want]  # the definition of A, then the claim


# ---- sizes: declarations, not claims --------------------------------------------------------


def test_a_chain_of_sizes_is_a_worked_example():
    text = "In the paper, $d_k=d_v=64$.\n\n$$(QK^T)_{ij}=q_i\\cdot k_j$$\n"
    assert kinds(text) == ["declaration", "declaration", "verified"]
    wrong = text.replace("q_i\\cdot k_j", "q_j\\cdot k_i")
    assert claims(wrong) == ["false"]


def test_sizes_with_a_relation_are_declarations_and_a_wrong_one_is_false():
    assert claims("$$H=8,\\quad d=512,\\quad d_k=d/H$$") == []
    assert claims("$$H=8,\\quad d=512,\\quad d/H=32$$") == ["false"]


def test_mod_is_an_operator_not_a_separator():
    assert kinds(r"The even positions, $i \text{ mod } 2 = 0$, get sines.") == ["not-a-claim"]
    assert kinds(r"$i \bmod 2 = 0$") == ["not-a-claim"]
    assert claims(r"Then $2 = 0$.") == ["false"]


# ---- silence where it should speak --------------------------------------------------------


@pytest.mark.parametrize(
    "text,want",
    [
        ("$$QK$$", ["shape-error"]),
        ("$$QK^T$$", ["not-a-claim"]),
        (r"$$X+\operatorname{Concat}(Z^{(1)},\ldots,Z^{(H)})$$", ["shape-error"]),
        (r"$Hd_v=d$. $$X+\operatorname{Concat}(Z^{(1)},\ldots,Z^{(H)})$$", ["not-a-claim"]),
        ("Inline $QK$ is only a mention.", ["not-a-claim"]),
    ],
)
def test_a_display_expression_that_does_not_typecheck_is_a_shape_error(text, want):
    got = [k for k in kinds(text) if k != "declaration"]
    assert got == want


ALIGN = r"""\begin{align*}
(QK^{\mathsf T})_{ij} &= \sum_{r=1}^{d_k} Q_{ir}K_{jr} \\
&= \unreadable{x + 1} \\
&= q_i\cdot k_j \\
&= LAST
\end{align*}
"""


@pytest.mark.parametrize("last,want", [(r"k_j\cdot q_i", "verified"), (r"q_j\cdot k_i", "false")])
def test_an_align_chain_is_checked_link_by_link_past_an_unreadable_row(last, want):
    text = "\\documentclass{article}\n" + ALIGN.replace("LAST", last)
    got = kinds(text, "a.tex")
    # the link after the row not read starts from the side before it (all rows are `=`)
    assert got == ["verified", "not-understood", "verified", want]


# ---- the printer's notation -----------------------------------------------------------------

TABLE = r"""\documentclass{article}
\begin{document}
Take $n=3$.
\[
A = \begin{array}{r|ccc}
 & \text{a} & \text{b} & \text{c} \\
\hline
\text{a} & 1 & 0 & 0 \\
\text{b} & \frac{1}{2} & \frac{1}{2} & 0 \\
\text{c} & \frac{1}{4} & \frac{1}{4} & \frac{1}{2}
\end{array}
\]
\begin{align*}
Z &= AV && \text{(by definition; \(\checkmark\) sizes shown)} \\
z_i &= (AV)_{i,:} && \text{(by definition)} \\
&= \sum_{j=1}^{i} a_{ij}v_j \\
&\qquad \parbox[t]{0.5\linewidth}{\raggedright (the table is lower triangular)} \\
z_2 &= ROW2
\end{align*}
With $n=4$: $QK^{\mathsf T} \in \mathbb R^{4\times 4}$.
\end{document}
"""


@pytest.mark.parametrize(
    "row2,want", [(r"\frac{1}{2}v_1 + \frac{1}{2}v_2", "verified"), (r"v_2", "false")]
)
def test_a_table_written_out_in_a_worked_example_is_its_matrix(row2, want):
    results = check_text(TABLE.replace("ROW2", row2), "t.tex")
    got = [(r.kind, r.source.split("&")[0].strip()) for r in results if r.kind != "declaration"]
    assert ("not-understood", "") not in [(k, "") for k, _ in got]
    assert got[-2] == (want, "z_2")
    assert got[-1][0] == "verified"  # n = 4 replaces n = 3: Q, K follow


def test_softmax_entry_and_row_slice_are_read():
    text = r"$$\operatorname{softmax}(S)_{ij} = \frac{\exp(S_{ij})}{\sum_{l=1}^{n}\exp(S_{il})}$$"
    assert claims(text) == ["verified"]
    assert claims(text.replace("S_{ij})}{", "S_{ji})}{")) == ["false"]
    both = r"$$z_i = (AV)_{i,:}$$ $$(AV)_{i,:} = \sum_{j=1}^{n} a_{ij}v_j$$"
    assert claims(both) == ["verified", "verified"]


@pytest.mark.parametrize(
    ("low", "want"),
    [
        # a window r = i-s .. i-1 lies inside the rows only where i > s, which a text about
        # local attention leaves to its reader: undecided, not an alarm
        ("i-s", "unknown"),
        # a window starting at row 0 is outside the matrix for every size: an error of the text
        ("0", "shape_error"),
    ],
)
def test_a_sum_range_that_may_leave_the_matrix_is_undecided_one_that_must_is_an_error(low, want):
    text = (
        "Let $Q, K \\in \\mathbb R^{n\\times d_k}$ and $V \\in \\mathbb R^{n\\times d_v}$.\n\n"
        f"$$\\sum_{{r={low}}}^{{i-1}} a_{{ir}} v_r = \\sum_{{r={low}}}^{{i-1}} a_{{ir}} v_r$$\n"
    )
    claims = [r for r in check_text(text, "w.md") if r.kind not in ("not-a-claim", "declaration")]
    assert [r.status for r in claims] == [want], claims
