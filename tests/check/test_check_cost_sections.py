"""Cost arithmetic as texts on inference write it: a letter that is a number in one section and a
matrix in another, factors of a count of FLOPs, count words after numbers, scientific notation."""

from __future__ import annotations

import pytest
from claim_helpers import results

from symattn.reader.syntax.scanner import scan
from symattn.reader.terms.numbers import number_evidence

#: B is a matrix in the first section (transposed) and a number in the second (a denominator).
TWO_SECTIONS = (
    "# Backward pass\n\n"
    "With $$C = AB$$ we get $$\\frac{\\partial L}{\\partial A} = "
    "\\frac{\\partial L}{\\partial C} B^T$$.\n\n"
    "# Cost\n\n"
    "The cost per token is $$\\frac{x}{BT}$$.\n\n"
    "$${claim}$$\n"
)


def _claim(text: str, needle: str) -> list[object]:
    return [r for r in results(text) if r.source.strip() == needle]


@pytest.mark.parametrize(
    ("claim", "kind"),
    [("2BT + 4BT = 6BT", "verified"), ("2BT + 4BT = 8BT", "false")],
)
def test_a_section_whose_uses_are_numbers_reads_a_number(claim: str, kind: str) -> None:
    got = _claim(TWO_SECTIONS.replace("{claim}", claim), claim)
    assert [r.kind for r in got] == [kind], got
    assert "in the section 'Cost'" in got[0].message, got[0].message
    assert "inferred" not in got[0].message, got[0].message  # no matrix shape for B here


def test_the_same_letter_in_one_document_without_sections_stays_contested() -> None:
    text = TWO_SECTIONS.replace("# Cost\n\n", "").replace("# Backward pass\n\n", "")
    got = _claim(text.replace("{claim}", "2BT + 4BT = 8BT"), "2BT + 4BT = 8BT")
    assert [r.kind for r in got] == ["undecided"], got
    assert "as a number and as a matrix" in got[0].message


def test_a_section_with_both_uses_keeps_the_letter_contested() -> None:
    text = TWO_SECTIONS.replace("# Cost\n\n", "# Cost\n\nAgain $$B^T B$$.\n\n")
    got = _claim(text.replace("{claim}", "2BT + 4BT = 8BT"), "2BT + 4BT = 8BT")
    assert [r.kind for r in got] == ["undecided"], got


def test_the_matrix_section_never_reads_the_number() -> None:
    claim = "B^T + B^T = 2B^T"
    text = TWO_SECTIONS.replace("{claim}", "x = 1").replace(
        "# Cost", f"Then $${claim}$$.\n\n# Cost"
    )
    got = _claim(text, claim)
    assert got and not any("as numbers" in r.message for r in got), got


BORROWED = TWO_SECTIONS.replace("{claim}", "x = 1") + "\n# Totals\n\n$${claim}$$\n"


def test_a_section_without_evidence_reads_as_the_section_before_it_but_never_refutes() -> None:
    good = _claim(BORROWED.replace("{claim}", "BT + BT = 2BT"), "BT + BT = 2BT")
    assert [r.kind for r in good] == ["verified"], good
    assert "the last section before this one" in good[0].message
    bad = _claim(BORROWED.replace("{claim}", "BT + BT = 3BT"), "BT + BT = 3BT")
    assert [r.kind for r in bad] == ["undecided"], bad
    assert "does not show what B is" in bad[0].message


def test_the_denominator_of_a_derivative_is_no_number() -> None:
    got = number_evidence(
        scan("$$\\frac{\\partial C}{\\partial B}$$ and $$\\frac{x}{N}$$", kind="md")
    )
    assert "B" not in got.numbers and "partial" not in got.matrices
    assert "N" in got.numbers


@pytest.mark.parametrize(
    ("claim", "kind"),
    [("2NPM + 4NPM = 6NPM", "verified"), ("2NPM + 4NPM = 4NPM", "false")],
)
def test_factors_of_a_count_of_flops_are_numbers(claim: str, kind: str) -> None:
    text = f"The product takes $2NPM$ FLOPs and the backward pass more.\n\n$${claim}$$\n"
    got = _claim(text, claim)
    assert [r.kind for r in got] == [kind], got
    assert "a factor of a count of FLOPs at line 1" in got[0].message


def test_a_product_before_other_words_is_no_count() -> None:
    got = number_evidence(scan("the product $NPM$ is a matrix", kind="md"), "the product $NPM$ is")
    assert not got.numbers


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        # a count word says what is counted: the bare numbers are compared
        (r"\frac{512}{8}=32维", "false"),
        (r"\frac{512}{8}=64维", "verified"),
        (r"8 \times 64 = 512 \text{ heads}", "verified"),
        (r"12 \times 96 = 1052 \text{ layers}", "false"),
        (r"2 \times 4096 = 8192\ \text{tokens}", "verified"),
        # bits and bytes convert: the numbers are compared, and a failure is undecided
        (r"2 \times 8 = 16 \text{ bits}", "verified"),
        (r"2 \times 8 = 18 \text{ bits}", "undecided"),
        (r"2 \text{ bytes} = 16", "undecided"),
        # two different words, or a multiple: not a bare equation
        (r"1 \text{ byte} = 8 \text{ bits}", "undecided"),
        (r"5 \times 10^{9}\ \text{FLOPs} = 5\text{ GFLOPs}", "verified"),
        (r"2 \times 10^{9}\ \text{bits} = 2\text{ GB}", "undecided"),
    ],
)
def test_count_words_after_numbers(formula: str, kind: str) -> None:
    got = results(f"So $${formula}$$ here.\n")
    assert [r.kind for r in got] == [kind], got


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        (r"1.2e12 / 2e9 = 600", "verified"),
        (r"1.2e12 / 2e9 = 6000", "false"),  # a wrong power of ten
        (r"\frac{1.97E+14}{8.20E+11} \approx 240", "verified"),
        (r"\frac{1.97E+14}{8.20E+11} \approx 24", "false"),
        (r"1e-6 = 10^{-6}", "verified"),
        (r"2 \cdot 4 \cdot 3 \cdot 12288^2 = 3623878656", "verified"),
        (r"4 \cdot 3 \cdot 12288^2 = 3623878656", "false"),  # a factor of 2 dropped
    ],
)
def test_cost_figures_in_scientific_notation(formula: str, kind: str) -> None:
    got = results(f"So $${formula}$$ here.\n")
    assert [r.kind for r in got] == [kind], got


def test_euler_e_minus_one_is_no_exponent() -> None:
    got = results("So $$2e-1 = 0.2$$ here.\n")
    assert "verified" not in [r.kind for r in got], got


#: F and D are given two values each, one per paragraph: hypotheses, not definitions.
HYPOTHESIS = (
    "The batch size $B$, the length $T$, the width $D$, the hidden size $F$, the number of "
    "heads $N$ and the head size $H$.\n\n"
    "We assume $$F=4D$$ and $$D=NH$$ (as is typical):\n\n"
    "$${claim}$$\n\n"
    "A narrow model takes $$F = 2D$$ and $$D = 2NH$$ instead, so $${later}$$.\n"
)


@pytest.mark.parametrize(
    ("claim", "kind"),
    [
        (r"\frac{12BT^2NH}{18BTDF + 24BTDNH} = \frac{T}{8D}", "verified"),
        # a factor of 2: never verified; undecided, as the text relates these sizes elsewhere
        (r"\frac{12BT^2NH}{18BTDF + 24BTDNH} = \frac{T}{4D}", "undecided"),
    ],
)
def test_a_hypothesis_about_numbers_holds_in_its_paragraph(claim: str, kind: str) -> None:
    text = HYPOTHESIS.replace("{claim}", claim).replace("{later}", "BF = 2BD")
    got = _claim(text, claim)
    assert [r.kind for r in got] == [kind], got
    assert "given F = 4*D (line 3), D = H*N (line 3), as the text assumes" in got[0].message


@pytest.mark.parametrize(("later", "kind"), [("BF = 4BNH", "verified"), ("BF = 8BNH", "undecided")])
def test_a_hypothesis_ends_with_its_paragraph(later: str, kind: str) -> None:
    text = HYPOTHESIS.replace("{claim}", "x = 1").replace("{later}", later)
    hypotheses = [r for r in results(text) if r.source.strip() in ("F=4D", "D=NH")]
    assert hypotheses == [], hypotheses  # declarations, not claims
    got = _claim(text, later)
    assert [r.kind for r in got] == [kind], got
    assert "F = 2*D (line 7), D = 2*H*N (line 7)" in got[0].message


def test_with_a_value_the_paragraph_computes_with_it() -> None:
    text = "The width $D$ of the model.\n\nWith $$D = 8192$$ we get $$2D^2 = 134217728$$.\n"
    (got,) = _claim(text, "2D^2 = 134217728")
    assert got.kind == "verified", got
    text = text.replace("134217728", "13421772800")
    (got,) = _claim(text, "2D^2 = 13421772800")
    assert got.kind == "false", got  # a wrong power of ten
    assert "D = 8192" in got.message


#: A count of 12.54e9 and one of 6.71e9 bytes, written as sums.
_COST = r"64 \cdot (3 \cdot 4e3 \cdot 16e3 + 4e3) + 2 \cdot 4e3 \cdot 32e3"
_CACHE = r"8192 \times 40 \times 128 \times 40 \times 2 \times 2"


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        # a result in scientific notation, the value rounded to its last digit: with `=` no
        # exact equation holds (undecided), with `\approx` it is what is said (verified)
        (r"64 \cdot (3 \cdot 4e3 \cdot 16e3 + 4e3) + 2 \cdot 4e3 \cdot 32e3 = 13e9", "undecided"),
        (_COST + r" \approx 13e9", "verified"),
        (r"2 \cdot 8e9 = 16e9", "verified"),  # equal as written
        # 12.54e9 written 12e9: a coarse rounding, not decided
        (r"64 \cdot (3 \cdot 4e3 \cdot 16e3 + 4e3) + 2 \cdot 4e3 \cdot 32e3 = 12e9", "undecided"),
        (r"64 \cdot (3 \cdot 4e3 \cdot 16e3 + 4e3) + 2 \cdot 4e3 \cdot 32e3 = 12e10", "false"),
        (r"64 \cdot (3 \cdot 4e3 \cdot 16e3 + 4e3) + 2 \cdot 4e3 \cdot 32e3 = 6e9", "false"),
    ],
)
def test_a_result_in_scientific_notation_is_rounded(formula: str, kind: str) -> None:
    got = results(f"So $${formula}$$, or so.\n")
    assert [r.kind for r in got] == [kind], got


@pytest.mark.parametrize(
    ("words", "kind"),
    [(", so the ratio is", "verified"), (". The ratio is then below.", "undecided")],
)
def test_a_hypothesis_goes_on_into_the_display_its_sentence_introduces(
    words: str, kind: str
) -> None:
    claim = r"\frac{12BT^2NH}{18BTDF + 24BTDNH} = \frac{T}{8D}"
    text = HYPOTHESIS.replace(" (as is typical):", words).replace("{claim}", claim)
    got = _claim(text.replace("{later}", "x = 1"), claim)
    assert [r.kind for r in got] == [kind], got


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        (r"\frac{1}{4} = 25\%", "verified"),
        (r"\frac{1}{4} = 20\%", "false"),
        (r"50\% \times 50\% = 25\%", "verified"),
        (r"\frac{1}{3} \approx 33\%", "verified"),
        (r"\frac{1}{3} \approx 3.3\%", "false"),  # a wrong power of ten
    ],
)
def test_a_percentage_is_hundredths(formula: str, kind: str) -> None:
    got = results(f"So $${formula}$$ here.\n")
    assert [r.kind for r in got] == [kind], got


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        (r"8192\ (T) \times 40\ (K) \times 2\ (\text{bytes}) = 655360", "verified"),
        (r"8192\ (T) \times 40\ (K) \times 2\ (\text{bytes}) = 327680", "false"),
        (r"2 \times 4 (B) = 8B", "verified"),  # no explicit space: twice four times B
    ],
)
def test_a_label_after_a_number_says_what_it_counts(formula: str, kind: str) -> None:
    got = results(f"The batch size $B$. So $${formula}$$ here.\n")
    assert [r.kind for r in got] == [kind], got


@pytest.mark.parametrize(("rhs", "kind"), [("2(BSD + D^2)", "verified"), ("BSD + D^2", "false")])
def test_a_word_in_parentheses_after_a_size_labels_it(rhs: str, kind: str) -> None:
    claim = f"2*(B * S * D(input) + D * D(weight)) = {rhs}"
    got = results(f"Cost $\\frac{{x}}{{BSD}}$ per byte.\n\n$${claim}$$\n")
    assert [r.kind for r in got] == [kind], got


@pytest.mark.parametrize(
    "formula",
    [
        r"5 \text{ tokens/ms} = 5000 \text{ tokens/s}",
        r"5 \text{ tokens per ms} = 5000 \text{ tokens per s}",
        r"P(input) + P(output) = 1",
        r"2\,(n) = 2",
    ],
)
def test_rates_and_functions_are_never_bare_numbers(formula: str) -> None:
    got = results(f"So $${formula}$$ here.\n")
    assert "false" not in [r.kind for r in got], got


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        (r"2 \cdot 7 \cdot 10^9 = 14 \text{ GB}", "verified"),
        # 6.71 GB written 6.7 GB with `=`: no exact equation holds as written
        (r"8192 \times 40 \times 128 \times 40 \times 2 \times 2 = 6.7\,\text{GB}", "undecided"),
        (_CACHE + r" \approx 6.7\,\text{GB}", "verified"),
        (r"2 \cdot 2^{32} = 8\text{GiB}", "verified"),
        (r"2 \times 10^{12} = 2 \text{ TFLOPs}", "verified"),
        (r"10^8 = 1亿", "verified"),
        # the left side may count 2-byte elements (or bits, or mean GiB by GB): undecided
        (r"2 \cdot 7 \cdot 10^9 = 28 \text{ GB}", "undecided"),
        (r"2 \cdot 7 \cdot 10^9 = 14 \text{ GB} = 13 \text{ GiB}", "undecided"),
        # 2^33 bytes is 8 GiB, and 9 is no other reading of the unit either
        (r"2 \cdot 2^{32} = 9\text{GiB}", "false"),
    ],
)
def test_a_figure_in_a_multiple_of_a_unit(formula: str, kind: str) -> None:
    got = results(f"So $${formula}$$ here.\n")
    assert kind in [r.kind for r in got], got
    if kind != "false":
        assert "false" not in [r.kind for r in got], got
    if kind == "undecided":
        assert "verified" not in [r.kind for r in got], got


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        (r"2^{34} \approx 17 \text{ GB}", "verified"),
        (r"2^{34} \approx 16\,\text{GB}", "undecided"),  # 16 GiB, written GB
        # an arithmetic slip and a wrong power of ten: false in every reading of the unit
        (r"2^{34} \approx 27\,\text{GB}", "false"),
        (r"2^{34} \approx 1.7\,\text{GB}", "false"),
    ],
)
def test_an_approximation_in_a_multiple_of_a_unit(formula: str, kind: str) -> None:
    got = results(f"So $${formula}$$ of memory.\n")
    assert [r.kind for r in got] == [kind], got
    assert "GB read as" in got[0].message
