"""Capitals used as sizes in counts of operations and memory (`2BTD`, `2 \\cdot L \\cdot D^2`):
read as positive integers the text never declares; each use has a true and a false form."""

from __future__ import annotations

import pytest
from claim_helpers import kinds, results

TRUE_AND_FALSE = [
    (r"2BTD + 2BTD = 4BTD", r"2BTD + 2BTD = 3BTD"),
    (r"4 \cdot B \cdot T \cdot D = 4BTD", r"4 \cdot B \cdot T \cdot D = 2BTD"),
    (r"2 \cdot L \cdot D^2 = 2LD^2", r"2 \cdot L \cdot D^2 = 2L^2D"),
    (r"6BT(3DF + 2DN) = 18BTDF + 12BTDN", r"6BT(3DF + 2DN) = 18BTDF + 2BTDN"),
    (r"B \times T \times D = BTD", r"B \times T \times D = 2BTD"),
]


@pytest.mark.parametrize(("true", "false"), TRUE_AND_FALSE)
def test_sizes_true_and_false(true: str, false: str) -> None:
    got = results(f"Cost: $${true}$$ in total.\n")
    assert [r.kind for r in got] == ["verified"], got
    assert "read as sizes (not declared by the text)" in got[0].message
    bad = results(f"Cost: $${false}$$ in total.\n")
    assert [r.kind for r in bad] == ["false"], bad
    assert "read as sizes" in bad[0].message


def test_sizes_named_in_written_order() -> None:
    (r,) = results("Cost: $$2BTD + 2BTD = 4BTD$$.\n")
    assert "B, T, D read as sizes (not declared by the text)" in r.message


def test_counterexample_is_at_positive_integers() -> None:
    (r,) = results("Cost: $$2BTD + 2BTD = 3BTD$$.\n")
    assert r.kind == "false"
    shown = r.message + " ".join(str(x) for x in getattr(r, "details", ()) or ())
    assert "B" in shown


def test_a_stated_relation_keeps_a_false_undecided() -> None:
    # F is used before `F = 4D`: a relation between sizes in use, not F's definition
    text = "So $$3DF = 3DF$$. Take $$F = 4D$$ as usual. Then $$2BDF + BDF = 2BDF$$.\n"
    got = [r for r in results(text) if "BDF" in r.source]
    assert [r.kind for r in got] == ["undecided"], got
    assert "relates" in got[0].message


def test_a_value_in_the_prose_keeps_a_false_undecided() -> None:
    text = "With L=64 layers, $$2LD + LD = 2LD$$ in total.\n"
    assert kinds(text) == ["undecided"]


def test_a_unit_keeps_a_false_undecided() -> None:
    text = "It needs $$2 \\cdot 42 \\cdot TB = 84TB$$ of memory, and $$BT = 2TB$$.\n"
    assert "false" not in kinds(text)


def test_inline_division_before_a_product_is_not_false() -> None:
    text = "So $$4BT^2GH / 4BHT \\cdot (G+1) = TG/(G+1)$$ here.\n"
    assert "false" not in kinds(text)


def test_a_conventional_matrix_used_as_a_size_is_undecided() -> None:
    # the factors reordered: true of numbers, not of the chapter's matrices
    got = results("The cache holds $$2SLKH = 2 \\cdot H \\cdot K \\cdot L \\cdot S$$ numbers.\n")
    assert [r.kind for r in got] == ["undecided"], got
    assert "read as sizes" not in got[0].message
    # in their order the two sides agree as numbers and as matrices (`\\cdot` their product)
    same = "The cache holds $$2SLKH = 2 \\cdot S \\cdot L \\cdot K \\cdot H$$ numbers.\n"
    assert kinds(same) == ["verified"]


#: attention's V in one formula, a count V in the words: which one a count formula means
#: the text leaves to the reader
_BOTH_V = (
    "Attention is $$\\mathrm{Attention}(Q, K, V) = \\mathrm{softmax}(QK^T)V.$$\n\n"
    "A table for a vocabulary of size $V$ with $d$ features each holds\n\n$${}$$\n"
)
_COUNTS = [r"N = Vd + 2d", r"P = 2nd^2 + Vd", r"Vd + 2d = (V + 1)d", r"Vd = 2d"]


@pytest.mark.parametrize("formula", _COUNTS)
def test_a_conventional_matrix_added_to_a_count_is_no_shape_error(formula: str) -> None:
    for text in (_BOTH_V, "The table holds $${}$$ numbers.\n"):
        r = results(text.replace("{}", formula))[-1]
        assert r.kind == "undecided" and "V is a matrix by the chapter's conventions" in r.message


def test_a_count_written_with_a_matrix_letter_the_text_calls_a_size_is_decided() -> None:
    text = "A vocabulary of size $V$, $d$ features each:\n\n$${}$$\n"
    assert kinds(text.replace("{}", r"Vd + 2d = (V + 2)d")) == ["verified"]
    assert kinds(text.replace("{}", r"Vd + 2d = (V + 1)d")) == ["false"]


@pytest.mark.parametrize("formula", _COUNTS)
def test_a_matrix_the_text_declares_added_to_a_count_is_a_shape_error(formula: str) -> None:
    text = "Let $V \\in \\mathbb{R}^{n \\times d}$.\n\n$${}$$\n"
    assert kinds(text.replace("{}", formula)) == ["shape-error"]
    assert kinds(_BOTH_V.replace("{}", r"QK^T + d = d"))[-1] == "shape-error"


def test_a_matrix_of_the_text_is_never_a_number() -> None:
    text = (
        "Let $$B \\in \\mathbb{R}^{n \\times d}$$ be a matrix. "
        "Then $$2BT + BT = 3BT$$ is not about sizes.\n"
    )
    assert not any("read as sizes" in r.message for r in results(text))


def test_a_capital_with_a_subscript_is_not_a_size() -> None:
    got = results("Here $$2W_Q T = W_Q T + W_Q T$$ holds.\n")
    assert not any("read as sizes" in r.message for r in got)


def test_a_lowercase_word_is_not_a_product_of_sizes() -> None:
    assert kinds("Count $$FLOPs = 2BTD$$ here.\n") != ["false"]


# ---- a second worked example where a relation ties the sizes ------------------------------

TIED = (
    "The output weight is $W^O \\in \\mathbb{R}^{h d_v \\times d}$.\n\n"
    "A common setting is $d_k = d_v = d / h$: the small model has $d=4096,h=32,d_k=d_v=128$"
)


@pytest.mark.parametrize(
    ("large", "alarms"),
    [
        ("d=8192,h=64,d_k=d_v=128", 0),  # h changes with d: the text says so next
        ("d=8192,h=32,d_k=d_v=128", 1),  # d/h is 256 there, not 128
        ("d=8192,d_k=d_v=128", 0),  # h = 64 follows from the relation
    ],
)
def test_a_second_example_does_not_carry_the_sizes_a_relation_ties(large, alarms):
    got = [r.kind for r in results(f"{TIED}, and the large one ${large}$.\n")]
    assert sum(k in ("shape-error", "false") for k in got) == alarms, got
