"""A chain of relations broken into one display per line (`$$A =$$`, `$$= B =$$`, `$$C$$`) is
one claim, checked link by link; displays with prose between them stay apart. Each reading has
a true and a false use."""

from __future__ import annotations

from claim_helpers import kinds, results

from symattn.reader.syntax.scanner import scan

QK = "Let $Q, K\\in\\mathbb R^{n\\times d}$.\n\n"


def test_a_chain_across_displays_is_checked_link_by_link() -> None:
    true = QK + "$$(QK^T)^T =$$\n\n$$= (K^T)^T Q^T =$$\n\n$$KQ^T$$\n"
    assert kinds(true) == ["verified", "verified"]
    false = QK + "$$(QK^T)^T =$$\n\n$$= (K^T)^T Q^T =$$\n\n$$QK^T$$\n"
    assert kinds(false) == ["verified", "false"]
    # the false link is reported where it is written: the second display
    assert results(false)[1].location.startswith("doc.md:5:")


def test_a_display_that_starts_with_a_relation_continues_the_one_before() -> None:
    assert kinds("$$2 \\cdot 3 \\cdot 4$$\n\n$$= 24$$") == ["verified"]
    assert kinds("$$2 \\cdot 3 \\cdot 4$$\n\n$$= 25$$") == ["false"]
    assert kinds("\\[2 \\cdot 3 =\\]\n\\[6\\]", "doc.tex") == ["verified"]


def test_displays_with_prose_between_them_stay_apart() -> None:
    # without the join, `= 24` is a row with no claim before it
    text = "$$2 \\cdot 3 \\cdot 4$$\n\nso that\n\n$$= 24$$"
    assert [" ".join(s.body.split()) for s in scan(text, kind="md")] == [
        "2 \\cdot 3 \\cdot 4",
        "= 24",
    ]
    # an inner product in angle brackets does not continue anything
    assert [s.body for s in scan("$$a = b$$\n\n$$<q, k>$$", kind="md")] == ["a = b", "<q, k>"]
