"""Hypotheses about numbers that the claims after them are decided under: a relation between
names (`assume $N H = D$`), a list of values after *with* that goes on past an item the text
defines, and the hypotheses of a question, in force for its answer. Each has a true use that
is verified and a false one that is refuted or stays undecided."""

from __future__ import annotations

from claim_helpers import kinds, results

from symattn.check import check_text

SHARE = "$$4DNH / (4DNH + 3DF) = 4D^2 / (4D^2 + 12D^2)$$"


def test_a_relation_between_names_is_a_hypothesis_the_claims_use() -> None:
    true = f"Take $F = 4D$ and assume $N H = D$. The share is {SHARE} here.\n"
    got = results(true)
    assert [r.kind for r in got] == ["verified"]
    assert "N H = D" in got[0].message
    # the relation itself is the text's, not checked
    hyp = [r for r in check_text(true, "doc.md") if r.source == "N H = D"]
    assert hyp[0].kind == "declaration" and "a hypothesis" in hyp[0].message
    # without the relation the share is not verified
    assert kinds(f"Take $F = 4D$. The share is {SHARE} here.\n") != ["verified"]


def test_a_claim_false_under_the_relation_is_not_verified() -> None:
    false = "Take $F = 4D$ and assume $N H = D$. The share is $$4DNH / (4DNH + 3DF) = 1/3$$.\n"
    assert kinds(false) in (["false"], ["undecided"])
    # a gap that is a number for every value under the relation is an error of the text
    assert kinds("Assume $N H = D$. Then $$\\frac{D}{NH} = 2$$ follows.\n") == ["false"]
    assert kinds("Assume $N H = D$. Then $$\\frac{D}{NH} = 1$$ follows.\n") == ["verified"]


def test_a_list_of_values_goes_on_past_a_number_the_text_defines() -> None:
    # `V = 1000` is not read as a hypothesis (V is a matrix by the chapter's names); `L = 12`
    # after it is still in the list after "with"
    text = (
        "Later, $L = 6$. A model with $D=512$, $V=1000$, and $L=12$ has this many layers: "
        "$$2 \\cdot L \\cdot D = {}$$ per token.\n"
    )
    assert kinds(text.format("12288"))[-1] == "verified"
    assert kinds(text.format("12289"))[-1] == "false"


QUESTION = (
    "**Question 1:** How large is the cache of a model with $L=12$ and $D=512$, with $N$ "
    "(number of heads)? You can assume $N H = D$.\n\n"
    "Answer:\n\n"
    "The cache is $$2 \\cdot L \\cdot N \\cdot H = {}$$ per token.\n\n"
    "**Question 2:** What is the cache of a model with $L=6$? It is "
    "$$2 \\cdot L \\cdot N \\cdot H = 2 \\cdot 6 \\cdot 512$$ per token.\n"
)


def test_the_hypotheses_of_a_question_hold_for_its_answer() -> None:
    got = results(QUESTION.format("2 \\cdot 12 \\cdot 512"))
    assert got[0].kind == "verified"
    assert "L = 12" in got[0].message and "N H = D" in got[0].message
    wrong = results(QUESTION.format("2 \\cdot 12 \\cdot 500"))
    assert wrong[0].kind in ("false", "undecided")
    # the next question is read under its own hypothesis, not the first one's relation
    assert "L = 6" in got[-1].message and "N H = D" not in got[-1].message
    # a paragraph that asks nothing keeps its hypotheses to itself
    plain = QUESTION.replace("How large is", "This is").replace("? You", ". You")
    assert results(plain.format("2 \\cdot 12 \\cdot 512"))[0].kind != "verified"


def test_a_condition_after_a_claim_is_a_premise_of_that_claim_only() -> None:
    text = "The share is {} when $NH = D$ and $F = 4D$. Later, {}.\n"
    after = "$4DNH / (4DNH + 3DF) = 1/4$"
    got = check_text(text.format(SHARE, after), "doc.md")
    claims = [r for r in got if r.kind not in ("declaration", "not-a-claim")]
    assert claims[0].kind == "verified" and "NH = D" in claims[0].message
    conds = [r for r in got if r.source in ("NH = D", "F = 4D")]
    assert [r.kind for r in conds] == ["declaration", "declaration"]
    assert "a condition of the claim before it" in conds[0].message
    # the next sentence is not read under them
    assert claims[-1].kind != "verified"
    # a value condition that the claim fails under: false
    value = "The ratio is $\\frac{T}{2D} = 1$ when $T = 3D$.\n"
    assert kinds(value) == ["false"]
    assert kinds(value.replace("3D", "2D")) == ["verified"]
    # a sentence between the claim and the relation: not its condition
    apart = "The ratio is $\\frac{T}{2D} = 1$ here. This holds when $T = 2D$.\n"
    assert "verified" not in kinds(apart)


def test_a_condition_written_in_the_formula_is_a_premise_of_the_claims_before_it() -> None:
    inside = "$$4DNH / (4DNH + 3DF) = {} \\quad \\text{{when }} NH = D, F = 4D$$\n"
    got = check_text(inside.format("1/4"), "doc.md")
    assert got[0].kind == "verified" and "NH = D" in got[0].message
    assert [r.kind for r in got[1:]] == ["declaration", "declaration"]
    assert "a condition of the claim before it (after 'when')" in got[1].message
    assert kinds(inside.format("1/3")) in (["false"], ["undecided"])
    assert kinds("$$\\frac{T}{2D} = 1 \\text{ if } T = 2D$$\n") == ["verified"]
    assert kinds("$$\\frac{T}{2D} = 1 \\text{ if } T = 4D$$\n") == ["false"]
    # a condition on indices keeps its own reading (a case of A's definition)
    index = "Let $A \\in \\mathbb R^{n\\times n}$.\n\n$$A_{ij} = 0 \\text{ for } j > i$$\n"
    got = check_text(index, "doc.md")
    assert "the condition of a case of A" in got[-1].message


def test_when_and_for_before_an_equation_make_it_a_hypothesis_of_its_paragraph() -> None:
    text = "The two costs agree when $\\frac{{12 T^2}}{{24 T D}} = 1$, that is $${}$$ here.\n"
    got = check_text(text.format("2D = T"), "doc.md")
    hyp = [r for r in got if r.source.endswith("= 1")]
    assert hyp[0].kind == "declaration" and "after 'when'" in hyp[0].message
    assert [r.kind for r in got if r.kind not in ("declaration", "not-a-claim")] == ["verified"]
    assert kinds(text.format("3D = T")) != ["verified"]
    # `for $D = 4096$`: the value holds for the rest of its paragraph
    value = "Then, e.g. for $D=4096$, the length is $${}$$ tokens.\n"
    assert kinds(value.format("2D = 8192")) == ["verified"]
    assert kinds(value.format("2D = 8000")) == ["false"]


def test_a_condition_on_names_a_claim_does_not_use_restricts_nothing_in_it() -> None:
    ab = (
        "Let $A, B \\in \\mathbb{{R}}^{{n\\times n}}$. Then $$(AB)^T = {}$$ when $T = 2D$.\n\n"
        "The ratio is $\\frac{{T}}{{2D}} = 1$ when $T = 2D$.\n"
    )
    assert kinds(ab.format("A^T B^T")) == ["false", "verified"]
    assert kinds(ab.format("B^T A^T")) == ["verified", "verified"]
