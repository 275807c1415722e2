"""Scalar claims over names the text never declares: the imaginary unit of a text that works
with complex numbers, products of letters written side by side, and rows of the chapter's
matrices that a scalar claim uses as numbers. Each notation has a true and a false use."""

from __future__ import annotations

import pytest
from claim_helpers import results

COMPLEX = "We now multiply complex numbers.\n\n"

TRUE_AND_FALSE = [
    (r"i^2 = -1", r"i^2 = 1"),
    (r"i^3 = -i", r"i^3 = i"),
    (r"e^{i\pi} + 1 = 0", r"e^{i\pi} = 1"),
    (r"e^{i\phi} = \cos\phi + i\sin\phi", r"e^{i\phi} = \cos\phi - i\sin\phi"),
    (r"e^{iu} e^{iv} = e^{i(u+v)}", r"e^{iu} e^{iv} = e^{i(u-v)}"),
    (r"(p+qi)(r+si) = (pr - qs) + (ps + qr)i", r"(p+qi)(r+si) = (pr + qs) + (ps + qr)i"),
    (r"(p+qi)(r+si) = pr + psi + qri + qsi^2", r"(p+qi)(r+si) = pr + psi + qri + qs"),
    # the real and imaginary parts
    (r"\mathrm{Re}(e^{i\phi}) = \cos\phi", r"\mathrm{Re}(e^{i\phi}) = \sin\phi"),
    (r"\operatorname{Im}[(p+qi)(r+si)] = ps + qr", r"\operatorname{Im}[(p+qi)(r+si)] = ps - qr"),
    (
        r"(\cos\phi + i\sin\phi)(p + qi) = (p\cos\phi - q\sin\phi) + (q\cos\phi + p\sin\phi)i",
        r"(\cos\phi + i\sin\phi)(p + qi) = (p\cos\phi - q\sin\phi) + (q\cos\phi + p\sin\phi)",
    ),
]


@pytest.mark.parametrize(("true", "false"), TRUE_AND_FALSE)
def test_i_is_the_imaginary_unit_where_the_text_works_with_complex_numbers(true, false):
    rs = results(COMPLEX + f"First ${true}$.\n\nThen ${false}$.\n")
    assert [r.kind for r in rs] == ["verified", "false"], [r.message for r in rs]
    assert all("i as the imaginary unit" in r.message for r in rs)
    assert "complex numbers" in rs[0].message


@pytest.mark.parametrize(
    "cue",
    [
        "The imaginary unit satisfies this.",
        "复数的乘法如下。",
        r"Take $z \in \mathbb{C}$.",
        "By Euler's formula,",
    ],
)
def test_the_text_says_it_works_with_complex_numbers_in_many_ways(cue):
    rs = results(f"{cue}\n\nSo $i^4 = 1$ and $i^4 = -1$.\n")
    assert [r.kind for r in rs if r.source.startswith("i^4")] == ["verified", "false"]


def test_without_a_cue_a_claim_true_either_way_is_verified():
    rs = results("So $(p+qi)(r+si) = pr + psi + qri + qsi^2$.\n")
    assert [r.kind for r in rs] == ["verified"]
    assert "either way" in rs[0].message


def test_without_a_cue_a_claim_true_for_one_reading_only_is_undecided():
    rs = results("So $i^4 = 1$ and $(p+qi)(r+si) = (pr + qs) + (ps + qr)i$.\n")
    assert [r.kind for r in rs] == ["undecided", "undecided"]
    assert "imaginary unit" in rs[0].message


def test_the_plural_in_chinese_is_no_cue():
    rs = results("名词的单复数形式。\n\n$i^4 = 1$\n")
    assert [r.kind for r in rs] == ["undecided"]


def test_an_index_i_stays_an_index_in_a_complex_text():
    rs = results(COMPLEX + r"Then $\omega_i = 2i$ and $\omega_i + \omega_i = 4i$." + "\n")
    assert "imaginary unit" not in " ".join(r.message for r in rs)


def test_rows_of_the_chapters_matrices_used_as_numbers():
    true = r"(a_1 + b_1 i) + (a_2 + b_2 i) = (a_1 + a_2) + (b_1 + b_2)i"
    false = r"(a_1 + b_1 i) + (a_2 + b_2 i) = (a_1 + a_2) + (b_1 - b_2)i"
    rs = results(COMPLEX + f"First ${true}$.\n\nThen ${false}$.\n")
    assert [r.kind for r in rs] == ["verified", "undecided"]


def test_letters_side_by_side_are_a_product_when_each_stands_alone_too():
    rs = results("So $(x+y)(u+v) = xu + xv + yu + yv$ and $(x+y)u = xu + yuv$.\n")
    assert [r.kind for r in rs][:1] == ["verified"]
    true, false = "xuw + xvw + yuw + yvw", "xuw + xvw + yuw + yuw"
    rs = results(f"So $(x+y)(u+v)w = {true}$, $(x+y)(u+v)w = {false}$.\n")
    assert [r.kind for r in rs] == ["verified", "false"]
