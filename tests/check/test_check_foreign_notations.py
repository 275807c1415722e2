"""Notations of texts nobody here wrote that the checker read as something else: a derivative
in Leibniz's notation (not the size d times a name), a letter the chapter uses for a size given
a value no size has (an entropy H = 0, a position n = 0), a convention stated where a side has
no value (0 log 0 = 0). Each with the variant whose verdict rests on the text and must stay."""

from __future__ import annotations

from claim_helpers import results


def kinds(text: str) -> list[str]:
    return [r.kind for r in results(text)]


def test_a_derivative_in_leibniz_notation_is_no_product_of_the_size_d():
    text = "For real functions, $$\\frac{d}{dt} u(v(t)) = \\frac{du}{dv} \\frac{dv}{dt}$$\n"
    got = kinds(text)
    assert got == ["not-understood"]


def test_an_upright_differential_is_not_read_either():
    text = "$$\\frac{\\mathrm{d} y}{\\mathrm{d} s} = 3 s^2$$\n"
    assert kinds(text) == ["not-understood"]


def test_the_size_d_over_another_size_is_still_refuted():
    text = "With $d = 8$ and $d_k = 2$ we get $\\frac{d}{d_k} = 4$ and $\\frac{d}{d_k} = 3$.\n"
    assert kinds(text)[-2:] == ["verified", "false"]


def test_a_letter_of_the_chapter_given_zero_is_not_a_size():
    text = (
        "Let $Q \\in \\mathbb{R}^{n \\times d}$.\n\n"
        "A one-hot row has entropy $H = 0$; at the first position $n = 0$.\n"
    )
    got = kinds(text)
    assert "shape-error" not in got and got[-2:] == ["not-understood", "not-understood"]


def test_a_size_given_an_integer_still_decides_the_example():
    text = "With $h = 4$ and $d = 32$ we get $d/h = 8$ and $d/h = 6$.\n"
    assert kinds(text)[-2:] == ["verified", "false"]


def test_a_convention_where_a_side_has_no_value_is_undecided():
    text = "By convention $0 \\log 0 = 0$ (a limit).\n"
    got = results(text)
    assert [r.kind for r in got] == ["undecided"] and "convention" in got[0].message


def test_the_same_arithmetic_with_values_is_still_refuted():
    text = "Also $0 \\cdot \\log 1 = 0$ and $2 \\log 1 = 1$.\n"
    assert kinds(text) == ["verified", "false"]


def test_a_second_declaration_with_other_size_names_writes_the_notation_anew():
    text = (
        "Here $Q \\in \\mathbb{R}^{n \\times d_k}$, $K \\in \\mathbb{R}^{m \\times d_k}$; "
        "for brevity we set $Q, K \\in \\mathbb{R}^{n \\times d}$ below.\n\n"
        "$$S = QK^T \\in \\mathbb{R}^{n \\times n}$$\n"
    )
    assert kinds(text) == ["verified", "verified"]


def test_one_name_declared_again_with_other_sizes_is_still_a_shape_error():
    text = "Here $Q \\in \\mathbb{R}^{n \\times d_k}$ and $Q \\in \\mathbb{R}^{n \\times d}$.\n"
    assert kinds(text)[-1] == "shape-error"


def test_a_second_declaration_turned_over_is_still_a_shape_error():
    text = "Here $Q \\in \\mathbb{R}^{n \\times d}$ and again $Q \\in \\mathbb{R}^{d \\times n}$.\n"
    assert kinds(text)[-1] == "shape-error"
