"""The checker on the formulas of the textbook's chapter 6 (tests/check/data/chapter6_formulas.md)
and on third-party d2l text (the `corpus` tests)."""

from __future__ import annotations

from pathlib import Path

import pytest

from symattn.reader import MathSpan, scan

# Every claim the chapter makes, by line, with its verdict kind.
CHAPTER_CLAIMS = {
    (13, 2): "verified",  # Q=XW_Q
    (13, 15): "verified",
    (13, 28): "verified",
    (17, 2): "verified",  # Q,K in R^{5x64}: worked example binds n=5, d_k=64
    (17, 4): "verified",
    (21, 2): "verified",  # QK^T in R^{5x5}
    (31, 9): "verified",  # boxed Z=AV
    (35, 2): "verified",  # Z = [z_1; ...; z_5]
    (45, 2): "declaration",  # X in R^{n x d}: a premise
    (49, 2): "verified",
    (49, 4): "verified",
    (49, 39): "verified",
    (53, 2): "verified",
    (57, 2): "verified",  # (QK^T)_{ij} = q_i . k_j
    (63, 2): "verified",  # A = softmax(QK^T / sqrt(d_k))
    (67, 2): "verified",
    (71, 10): "verified",  # Attention(Q,K,V) = softmax(...)V
    (89, 2): "verified",
    (89, 24): "verified",
    (93, 2): "verified",
    (95, 46): "verified",  # z_i = sum_j a_ij v_j
    (109, 2): "verified",  # Z^{(h)} = Attention(Q^{(h)}, K^{(h)}, V^{(h)})
    (113, 10): "declaration",  # Z = Concat(...) W_O: defines the multi-head Z (n x d)
    (119, 30): "verified",  # Z^{(r)} in R^{n x d_v}
    (121, 2): "verified",  # O = Concat(...) W_O
    (121, 60): "declaration",  # W_O in R^{Hd_v x d}: a premise
}


def test_every_span_of_the_chapter_gets_a_verdict(chapter, checked):
    results = checked(str(chapter))
    spans = [s for s in scan(chapter.read_text(encoding="utf-8"), str(chapter))]
    assert all(isinstance(s, MathSpan) for s in spans)
    for s in spans:
        end = s.position_at(len(s.body))
        inside = [
            r
            for r in results
            if (s.start.line, s.start.column) <= (r.line, r.col) <= (end.line, end.column)
        ]
        assert inside, f"no verdict for the span at {s.location()}"


def test_every_claim_of_the_chapter_is_verified_and_none_false(chapter, checked):
    results = checked(str(chapter))
    claims = {(r.line, r.col): r.kind for r in results if r.kind != "not-a-claim"}
    assert claims == CHAPTER_CLAIMS
    assert not [r for r in results if r.kind in ("false", "shape-error", "undecided")]


def test_the_chapter_identities_are_proved_for_all_sizes(chapter, checked):
    for r in checked(str(chapter)):
        if r.kind == "verified":
            assert r.status == "proved", r


@pytest.mark.corpus("chapter6.md")
def test_the_fixture_holds_the_chapter_formulas_in_order(chapter, shared):
    """The fixture's math is the textbook chapter's, span for span, where the chapter is at hand."""
    source = shared / "chapter6.md"

    def bodies(path: Path) -> list[str]:
        return [s.body for s in scan(path.read_text(encoding="utf-8"), str(path))]

    assert bodies(chapter) == bodies(source)


def test_the_chapter_mentions_are_not_claims(chapter, checked):
    prose = [(r.line, r.source) for r in checked(str(chapter)) if r.kind == "not-a-claim"]
    assert (25, "A") in prose and (123, "n\\times Hd_v") in prose
    assert len(prose) == 18


# verified / not understood per d2l file (column-vector conventions; declarations are premises)
D2L_COUNTS = {
    # norms `\|\mathbf{k}_i\|` are read (mentions, not claims): 16 -> 15
    # first equations about new names are definitions (declarations): `a(\mathbf q,\mathbf k_i)
    # = -\frac12\|...\|^2` (line 57), `\alpha(\mathbf q,\mathbf k_i) = \mathrm{softmax}(...)`
    # (line 69), `\textrm{BMM}(\mathbf Q,\mathbf K) = [...]` (line 257): 15 -> 12
    # claims about names the text uses without declaring them are undecided: the second link of
    # line 57 (`\mathbf q` undeclared) and line 64 (`a` restated; its definition at line 57 was
    # not read): 12 -> 10
    # `\mathbf Q = [\mathbf Q_1, \ldots, \mathbf Q_n]` and the same for K (lines 251-252): a list
    # with an ellipsis given to a capital the document never declared defines it: 10 -> 8
    # `\mathbf W_q`, `\mathbf W_k` (line 469) take the shapes the text declares just after
    # ("where ..."): the two claims there are undecided (tanh), no longer refused: 8 -> 6
    # `$l \leq n$` (line 90) and `$i > l$` (line 92) in prose, beside no claim about l or i, are
    # index ranges of the text, context: 6 -> 4
    # `\mathbf w_v^\top \textrm{tanh}(...) \in \mathbb R` (line 469): tanh keeps its argument's
    # shape, so the scalar claim is verified (the value of tanh is not read)
    "attention-scoring-functions.md": (2, 4),
    # `$i = 1, \ldots, h$` is an index range (an equation between indices), not a claim
    # `\mathbf h_i = f(...)` (line 82) defines the sequence h_i: 3 -> 2
    # `\mathbf W_o [\mathbf h_1; \vdots; \mathbf h_h] \in \mathbb R^{p_o}` (line 99): the bmatrix's
    # cells are read, h_i are not declared: the shape is undecided: 2 -> 1
    # `f(\mathbf W_i^{(q)}\mathbf q, ...) \in \mathbb R^{p_v}` (line 82): W_i^{(q)} takes the
    # shape the text declares after it; rows or columns of q, k, v are not settled: undecided
    "multihead-attention.md": (3, 0),  # p_q h = p_k h = p_v h = p_o follows from p_q = p_o / h
    # `$1 \leq i \leq n$` is one condition on an index (not joined to a claim), no longer two
    # relations not read
    # ordinals `i^\textrm{th}`, `6^{\textrm{th}}` are read as mentions: 20 -> 9
    # `\mathbf y_i = f(...)` (line 70) and `\omega_j = 1/10000^{2j/d}` (line 474) define a
    # sequence: 9 -> 7
    # `p_{i,2j} = \sin(...)`, `p_{i,2j+1} = \cos(...)` (line 253): i, j are the entry's indices,
    # `\sin`, `\cos` are not declared: undecided: 7 -> 5
    # `f(\mathbf x_i, (\mathbf x_1, \mathbf x_1), \ldots) \in \mathbb R^d` (line 70): f is not
    # declared, its shape is undecided: 5 -> 4
    # the rotation chain (lines 482-487): a link whose right side is a bmatrix with undeclared
    # `\cos`, `\sin`, `\delta` is undecided, not refused: 4 -> 3
    # its last link, `= [p_{i+\delta, 2j}; p_{i+\delta, 2j+1}]` (line 487): \delta, an offset the
    # text names, in an index: undecided: 3 -> 2
    # the chain's first link (line 483, the rotation bmatrix times [p_{i,2j}; p_{i,2j+1}]) is not
    # `M = [rows]`: read around \cos, \sin, \delta, undecided: 2 -> 1
    # `\mathbf x_i \in \mathbb R^d` ($1 \leq i \leq n$) (line 64): an index range, context: 1 -> 0
    # the entries p_{i,2j}, p_{i,2j+1} (line 253) define P's entries and \omega_j's value is read:
    # the rotation chain's first and last links are verified too: verified 1 -> 3
    "self-attention-and-positional-encoding.md": (3, 0),
}


@pytest.mark.corpus("corpus/d2l-en")
def test_d2l_no_crash_and_nothing_false(d2l_file, checked):
    from symattn.check import summary_line

    name = d2l_file.name
    results = checked(str(d2l_file))
    print(summary_line(name, results))
    assert not [r for r in results if r.kind in ("false", "shape-error")]
    c = {k: sum(1 for r in results if r.kind == k) for k in ("verified", "not-understood")}
    assert (c["verified"], c["not-understood"]) == D2L_COUNTS[name]
    for r in results:
        if r.kind == "not-understood":
            assert r.message and r.line >= 1 and r.col >= 1
