"""A conventional name the text declares with another shape inside one section (chapter
7's GQA keys `K \\in \\mathbb R^{n\\times d_k G}`) and uses again in a later section: a formula
that typechecks only with the chapter's convention is undecided, never a shape error and never
verified; ill-typed either way, or in the declaration's own section, it stays a shape error."""

from __future__ import annotations

import pytest

from symattn.check import check_text

WIDE = r"$$K\in\mathbb R^{n\times d_k G}$$"


def verdicts(text: str) -> list[str]:
    return [
        r.kind
        for r in check_text(text, "sections.md")
        if r.kind not in ("declaration", "not-a-claim")
    ]


def later(formula: str) -> str:
    return f"# One\n\n{WIDE}\n\n# Two\n\n$${formula}$$\n"


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        # typechecks only with the convention's K (n x d_k): which K is meant is not said
        (later(r"(QK^T)_{ij} = \sum_{r=1}^{d_k} Q_{ir}K_{jr}"), ["undecided"]),
        (later(r"QK^T = (KQ^T)^T"), ["undecided"]),
        (later(r"QK^T = KQ^T"), ["undecided"]),  # false with the convention's K: not said either
        # a display expression: ill-typed only with the earlier K; with M undeclared, the
        # convention's reading is not understood, so the formula is not understood
        (later(r"QK^T"), ["undecided"]),
        (later(r"QK^T + M"), ["not-understood"]),
        (later(r"Q + K"), ["undecided"]),  # n x d_k + n x d_k with the convention
        (later(r"Q + K^T"), ["shape-error"]),
        # ill-typed with either K: the shape error stands
        (later(r"Q + K^T = Q"), ["shape-error"]),
        # the declaration's own section: its K holds, the error stands
        (f"# One\n\n{WIDE}\n\n$$QK^T = (KQ^T)^T$$\n", ["shape-error"]),
        # declared before the first heading: for the whole document
        (f"{WIDE}\n\n# One\n\n$$QK^T = (KQ^T)^T$$\n", ["shape-error"]),
        # typechecking with the declared K, it is read with it, as before
        (later(r"(KK^T)^T = KK^T"), ["verified"]),
        (later(r"(KK^T)^T = K^TK"), ["shape-error"]),
    ],
)
def test_a_declaration_of_an_earlier_section(text: str, kinds: list[str]) -> None:
    assert verdicts(text) == kinds


def test_the_undecided_message_names_the_declaration() -> None:
    (r,) = [x for x in check_text(later(r"QK^T = (KQ^T)^T"), "s.md") if x.kind == "undecided"]
    assert "K (n × G*d_k, line 3) was declared so in an earlier section" in r.message
    assert "typechecks" in r.message
