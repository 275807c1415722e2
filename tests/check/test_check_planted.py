"""Planted mistakes in a document written for the project: each caught at its line:col."""

from __future__ import annotations

from pathlib import Path

import pytest

PLANTED = str(Path(__file__).parent / "data" / "planted.md")

# (line, col, kind, a fragment of the message); every claim of the document, in order.
EXPECTED = [
    (8, 2, "declaration", "declares X as n × d"),
    (8, 55, "verified", "definition of Q"),
    (8, 68, "verified", "definition of K"),
    (10, 3, "verified", "QK^T is n × n"),
    (12, 3, "shape-error", "cannot multiply Q (n × d_k) by K (n × d_k)"),
    (14, 3, "shape-error", "QK^T is n × n, not n × d_k"),
    (18, 3, "verified", "proved for all sizes"),
    (20, 3, "false", "differ"),  # wrong transpose: (QK^T)^T = QK^T
    (22, 10, "shape-error", "cannot multiply A^T (n × n) by V^T (d_v × n)"),
    (26, 3, "verified", "proved for all sizes"),
    (26, 15, "verified", "proved for all sizes"),
    (28, 3, "false", "differ"),  # swapped indices q_j . k_i
    (30, 3, "false", "differ"),  # swapped indices a_{ji}
    (34, 3, "verified", "proved for all sizes"),
    (36, 3, "false", "differ"),  # wrong scale sqrt(d_v)
    (40, 14, "not-a-claim", "a mention"),
    (40, 47, "verified", "definition of S: both sides are n × n"),
    (42, 6, "not-understood", "unknown symbol M (declare its shape)"),
    (44, 6, "not-understood", "unknown symbol W_o (declare its shape); did you mean W_O"),
    (48, 7, "declaration", "worked example: n = 5"),
    (48, 25, "verified", "Q = XW_Q is 5 × 64"),
    (48, 27, "verified", "K = XW_K is 5 × 64"),
    (50, 3, "verified", "QK^T is 5 × 5"),
    (52, 3, "shape-error", "QK^T is 5 × 5, not 7 × 7"),
    (56, 3, "verified", "QK^T is n × n"),
]


def test_every_claim_has_the_expected_verdict_at_its_position(checked):
    got = [(r.line, r.col, r.kind) for r in checked(PLANTED)]
    assert got == [e[:3] for e in EXPECTED]


@pytest.mark.parametrize("line,col,kind,fragment", EXPECTED)
def test_message(checked, line, col, kind, fragment):
    (r,) = [r for r in checked(PLANTED) if (r.line, r.col) == (line, col)]
    assert r.kind == kind
    assert fragment in r.message
    assert r.file == PLANTED


def test_false_claims_carry_a_counterexample(checked):
    false = [r for r in checked(PLANTED) if r.kind == "false"]
    assert len(false) == 4
    for r in false:
        assert r.counterexample and "at sizes" in r.counterexample, r
    scale = [r for r in false if r.line == 36][0]
    assert "d_k=" in scale.counterexample and "d_v=" in scale.counterexample


def test_proved_claims_name_their_witness(checked):
    for r in checked(PLANTED):
        if r.kind == "verified":
            assert r.status == "proved" and "symbolic" in r.witnesses


def test_the_worked_example_does_not_leak_into_the_general_case():
    from symattn.check import check_text

    text = (
        "Take $n=5$ and $Q,K\\in\\mathbb R^{5\\times64}$: $QK^T\\in\\mathbb R^{5\\times5}$.\n\n"
        "## General\n\n$$QK^T\\in\\mathbb R^{5\\times5}$$\n"
    )
    got = check_text(text, "p.md")
    kinds = [(r.line, r.kind) for r in got]
    # in the general section the example's n = 5 is not assumed: 5 × 5 holds only if n = 5
    assert kinds == [
        (1, "declaration"),
        (1, "declaration"),
        (1, "declaration"),
        (1, "verified"),
        (5, "undecided"),
    ]
    assert "worked example" in got[-1].message


TEX = str(Path(__file__).parent / "data" / "derivation.tex")


def test_latex_document_with_align_chain_and_sections():
    from symattn.check import check_file

    got = [(r.line, r.col, r.kind) for r in check_file(TEX)]
    assert got == [
        (4, 6, "declaration"),
        (4, 8, "declaration"),
        (4, 42, "declaration"),
        (6, 1, "verified"),  # (QK^T)_{ij} = sum_r Q_{ir} K_{jr}
        (6, 26, "verified"),  # = q_i . k_j  (the align row continues the chain)
        (7, 6, "shape-error"),  # = sum_r Q_{ri} K_{rj}: swapped indices, r would run over rows
        (12, 1, "verified"),
        (12, 5, "verified"),
        (15, 5, "shape-error"),  # V^T: impossible shape
    ]
