"""Quantities in a multiple of a unit (`\\approx 14\\text{ GB}`, `\\textbf{34.3 GB}`): verified in
the unit as stated (GB as 10^9 bytes); undecided where only another reading of the unit holds
(GB as GiB, the left side in MB or counting 2-byte elements); false where every reading fails."""

from __future__ import annotations

import pytest
from claim_helpers import results


def _one(formula: str):
    (r,) = results(f"The weights take ${formula}$ of memory.\n")
    return r


@pytest.mark.parametrize(
    ("formula", "kind", "says"),
    [
        # a quantity in bold: the number, then its unit
        (r"7 \times 10^9 \times 2 \approx \textbf{14 GB}", "verified", "GB = 10^9 bytes"),
        (r"7 \times 10^9 \times 2 \approx \textbf{41 GB}", "false", "nor in any other reading"),
        (r"2^{35} \approx \mathbf{34.3\,GB}", "verified", "34.3 GB read as"),
        (r"2^{35} \approx \mathbf{3.43\,GB}", "false", "nor in any other reading"),
    ],
)
def test_a_quantity_in_a_font(formula, kind, says):
    r = _one(formula)
    assert r.kind == kind and says in r.message, r


@pytest.mark.parametrize(
    ("formula", "kind", "says"),
    [
        (r"2^{35} = 32 \text{ GiB}", "verified", "GiB = 2^30 bytes"),
        # 2^35 bytes in GB is 34.4: holds only with GB read as GiB
        (r"2^{35} = 32 \text{ GB}", "undecided", "GB read as GiB"),
        (r"2 \times 4096 \times 4096 = 32 \text{ MB}", "undecided", "MB read as MiB"),
        # a whole unit off is no rounding of the value (14 GB exactly)
        (r"7 \times 10^9 \times 2 \approx 15 \text{ GB}", "undecided", "coarse"),
        # the left side may be in MB already, or count 2-byte elements
        (r"512 \times 4 = 2 \text{ GB}", "undecided", "the left side in MB"),
        (r"7 \times 10^9 = 14 \text{ GB}", "undecided", "2-byte elements"),
        # a slip of the arithmetic and a wrong power of ten fail in every reading
        (r"2 \times 64 \times 32768 \times 32 \times 128 \approx 43.3 \text{ GB}", "false", ""),
        (r"7 \times 10^9 \times 2 \approx 140 \text{ GB}", "false", ""),
    ],
)
def test_the_readings_of_a_unit(formula, kind, says):
    r = _one(formula)
    assert r.kind == kind and says in r.message, r


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        (r"2 \cdot 4096^2 \cdot 8192 \approx 275 \text{ GFLOPs}", "verified"),
        (r"4096^2 \cdot 8192 \approx 275 \text{ GFLOPs}", "undecided"),  # multiply-adds
        (r"4096^2 \cdot 8192 \approx 375 \text{ GFLOPs}", "false"),
        (r"4096 \times 4096 \approx 16.8 \text{ million}", "verified"),
        (r"4096 \times 4096 \approx 61.8 \text{ million}", "false"),
    ],
)
def test_counts_of_operations_and_of_ones(formula, kind):
    assert _one(formula).kind == kind


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        (r"7\text{B} \times 2 = 14\text{B}", "verified"),
        (r"7\text{B} \times 2 = 15\text{B}", "false"),  # B on every number: bytes alike
        (r"12 \times 4096^2 \times 32 \approx 6.4\text{B}", "verified"),
        (r"12 \times 4096^2 \times 32 \approx 4.6\text{B}", "undecided"),  # B may be bytes
        (r"3 \times 10^{12} = 3\,\text{T}", "verified"),
        (r"32\text{K} \times 2 = 64\text{K}", "verified"),
        (r"32\text{K} = 32768", "undecided"),  # K may be 1024
        (r"7\text{B} \times 2 \approx 14 \text{ GB}", "verified"),
    ],
)
def test_a_multiple_written_after_a_number(formula, kind):
    r = _one(formula)
    assert r.kind == kind, r
    assert "read as its power of ten" in r.message or "GB read as" in r.message


@pytest.mark.parametrize(
    ("unit", "kind"),
    [
        (r"68.7\,\mathrm{GFLOPs}", "verified"),
        (r"68.7\mathrm{GB}", "verified"),
        (r"6.87\mathrm{GB}", "false"),
    ],
)
def test_a_unit_in_mathrm_after_a_number(unit, kind):
    assert _one(rf"2 \times 4096 \times 4096 \times 2048 \approx {unit}").kind == kind


@pytest.mark.parametrize(
    ("formula", "kind", "says"),
    [
        # 13.65 GB written as 14 GB with `=`: the value rounded to its last digit, so no exact
        # equation holds; with \approx it is verified
        (r"7 \cdot 1.95 \cdot 10^9 = 14 \text{ GB}", "undecided", "rounded to its last digit"),
        (r"7 \cdot 1.95 \cdot 10^9 \approx 14 \text{ GB}", "verified", "its last digit"),
        (r"7 \cdot 2 \cdot 10^9 = 14 \text{ GB}", "verified", "14 GB read as"),
        (r"7 \cdot 1.95 \cdot 10^9 = 20 \text{ GB}", "false", "nor in any other reading"),
        # 31.7 GiB is 34.0 GB: 32 GB holds only with GB read as GiB, rounded
        (r"31.7 \cdot 2^{30} = 32 \text{ GB}", "undecided", "holds with GB read as GiB"),
    ],
)
def test_an_equation_rounds_its_unit_once(formula, kind, says):
    r = _one(formula)
    assert r.kind == kind and says in r.message, r


def test_each_reading_keeps_the_rounding_of_the_stated_one():
    import sympy

    from symattn.check.unit_readings import unit_readings

    half = sympy.Integer(2**29)  # half of 1 GiB: the last digit of `32 GB` read as GiB

    class Claim:
        pairs = ((sympy.Rational(317, 10) * 2**30, sympy.Integer(32 * 10**9)),)
        units = (("GB read as GiB", sympy.Integer(32 * 2**30), half),)
        rounded = True

    status, message, _, _ = unit_readings(Claim(), "false", "they differ", (), None)
    assert status == "unknown" and "it holds with GB read as GiB" in message


# ---- a multiple written straight after a number -------------------------------------------


def _kind(text: str) -> str:
    (r,) = results(text)
    return r.kind


def test_a_bare_multiple_after_a_number_is_its_power_of_ten():
    (r,) = results("A table of positions has $512 \\times 768 \\approx 393K$ weights.\n")
    assert r.kind == "verified" and "K = 10^3" in r.message, r.message
    # with `=`, 393216 written 393K is the value rounded: no exact equation holds
    (r,) = results("A table of positions has $512 \\times 768 = 393K$ weights.\n")
    assert r.kind == "undecided" and "rounded to its last digit" in r.message, r.message
    assert _kind("It has $1.5B = 1500M$ weights.\n") == "verified"
    # neither 120 000 nor 120 · 1024: not the product, never verified
    assert _kind("It has $12 \\times 10 = 120K$ weights.\n") != "verified"
    assert _kind("It has $300 \\times 100 = 393K$ weights.\n") != "verified"


def test_a_one_digit_multiple_of_a_matrix_stays_a_product():
    text = "Let $K \\in \\mathbb{R}^{n\\times d}$.\n\n$$2K - K = K$$\n"
    assert _kind(text) == "verified"
    assert _kind(text.replace("2K - K = K", "2K - K = 2K")) == "false"
