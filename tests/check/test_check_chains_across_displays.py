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
    # a sentence between them, or a condition: `= 24` is a row with no claim before it
    for words in ("This is a product. It gives", "if $n = 3$", "where", "当"):
        text = f"$$2 \\cdot 3 \\cdot 4$$\n\n{words}\n\n$$= 24$$"
        bodies = [" ".join(s.body.split()) for s in scan(text, kind="md")]
        assert bodies[0] == "2 \\cdot 3 \\cdot 4" and bodies[-1] == "= 24", words
    # an inner product in angle brackets does not continue anything
    assert [s.body for s in scan("$$a = b$$\n\n$$<q, k>$$", kind="md")] == ["a = b", "<q, k>"]


def test_a_connective_between_displays_continues_the_chain() -> None:
    # "which gives", "so that", "重写为：" before a display that starts with a relation
    for words in ("which gives", "so that", "重写为：", "rewritten:"):
        assert kinds(f"$$2 \\cdot 3 \\cdot 4$$\n\n{words}\n\n$$= 24$$") == ["verified"], words
        assert kinds(f"$$2 \\cdot 3 \\cdot 4$$\n\n{words}\n\n$$= 25$$") == ["false"], words
    # the link is between matrices too, reported where the second display is
    ab = "Let $A, B \\in \\mathbb R^{n\\times n}$.\n\n$$(AB)^T$$\n\nwhich gives\n\n"
    assert kinds(ab + "$$= B^T A^T$$") == ["verified"]
    wrong = results(ab + "$$= A^T B^T$$")
    assert [r.kind for r in wrong] == ["false"]


def test_an_inline_formula_after_a_connective_continues_the_one_before() -> None:
    # `$$2 \cdot 3 \cdot 4$$ which gives $= 24$`
    for words in ("which gives", ", so", "i.e.", "即"):
        assert kinds(f"$$2 \\cdot 3 \\cdot 4$$ {words} $= 24$ here.\n") == ["verified"], words
        assert kinds(f"$$2 \\cdot 3 \\cdot 4$$ {words} $= 25$ here.\n") == ["false"], words
    # any other words before it: a formula of its own (its left side is in the prose)
    assert kinds("$$2 \\cdot 3 \\cdot 4$$\n\nIn total, we get $= 24$ FLOPs.\n") == [
        "not-understood"
    ]
