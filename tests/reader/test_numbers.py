"""The evidence a document gives that a name it never declares is a number or a matrix: each
kind of evidence found at its line, and names without it left alone."""

from __future__ import annotations

import pytest

from symattn.reader.syntax.scanner import scan
from symattn.reader.terms.numbers import number_evidence


def _evidence(text: str) -> tuple[dict[str, str], dict[str, str]]:
    got = number_evidence(scan(text, kind="md"), text)
    return (
        {k: str(v) for k, v in got.numbers.items()},
        {k: str(v) for k, v in got.matrices.items()},
    )


@pytest.mark.parametrize(
    ("formula", "name", "why"),
    [
        (r"$x = \frac{a}{N}$", "N", "a denominator"),
        (r"$x = a / (NC)$", "C", "a denominator"),
        (r"$x = \sqrt{8G}$", "G", "under a square root"),
        (r"$x = 2^{L}$", "L", "an exponent"),
        (r"$x = \sum_{i=1}^{M} i$", "M", "a bound of a sum"),
        (r"$X \in \mathbb R^{B \times D}$", "B", "a dim of a space"),
        (r"$x = \frac{a}{W_\text{ici}}$", "W_{ici}", "a denominator"),
    ],
)
def test_number_evidence_in_formulas(formula: str, name: str, why: str) -> None:
    numbers, _ = _evidence(f"Text.\n\n{formula}\n")
    assert numbers.get(name) == f"{why} at line 3"


@pytest.mark.parametrize(
    ("prose", "name"),
    [
        ("Let the batch size be $B$.", "B"),
        ("The number of heads $H$ is fixed.", "H"),
        ("Here $S$ and $T$ are lengths.", "T"),
        ("Here $S$ and $T$ are lengths.", "S"),
        ("$G$ (the number of groups) is small.", "G"),
        ("设批大小为 $B$。", "B"),
        ("其中 $L$ 为层数。", "L"),
    ],
)
def test_the_prose_calls_a_name_a_size(prose: str, name: str) -> None:
    numbers, _ = _evidence(prose + "\n")
    assert numbers.get(name) == "called a size by the text at line 1"


@pytest.mark.parametrize(
    "prose",
    ["The size of $Q$ grows.", "We write $M$ for the mask.", "Take $B$ and $D$ as given."],
)
def test_other_prose_is_no_evidence(prose: str) -> None:
    numbers, _ = _evidence(prose + "\n")
    assert numbers == {}


def test_equal_to_a_number_follows_the_evidence() -> None:
    numbers, _ = _evidence("$\\frac{1}{D}$ and $F = 4D$ and $T = FM$\n")
    assert numbers["F"] == "equal to a number at line 1"
    assert "T" not in numbers  # M has no evidence: T = FM may be a matrix


@pytest.mark.parametrize(
    ("formula", "name", "why"),
    [
        (r"$Y = M^T$", "M", "transposed"),
        (r"$Y = \mathbf{W} x$", "W", "in bold"),
        (r"$Y = \mathrm{softmax}(S)$", "S", "an argument of softmax"),
        (r"$y = M_{ij}$", "M", "written with an entry index"),
        (r"$M \in \mathbb R^{n \times d}$", "M", "declared a matrix"),
        (r"$Y = P^T N$", "N", "multiplied by the matrix P"),
    ],
)
def test_matrix_evidence(formula: str, name: str, why: str) -> None:
    _, matrices = _evidence(f"{formula}\n")
    assert matrices.get(name) == f"{why} at line 1"


def test_a_name_with_both_is_contested_not_readable() -> None:
    text = "The batch size $B$.\n\n$Y = B^T$\n"
    got = number_evidence(scan(text, kind="md"), text)
    assert "B" not in got.readable()
    number, matrix = got.conflicts()["B"]
    assert (number.line, matrix.line) == (1, 3)


def test_a_contested_name_makes_no_other_name_a_matrix() -> None:
    # B is transposed once, and a batch size: D beside it is not shown to be a matrix
    text = "The batch size $B$.\n\n$Y = B^T$ and $c = BD$ and $\\frac{1}{D}$\n"
    got = number_evidence(scan(text, kind="md"), text)
    assert "D" in got.readable()


def test_a_conventional_letter_needs_a_formula_of_numbers() -> None:
    alone = "$x = \\frac{Q}{V}$\n"
    assert "V" not in number_evidence(scan(alone, kind="md"), alone).readable({"Q", "V"})
    one = "$\\frac{1}{N}$ and $M = N/K$\n"  # N alone makes no count of K
    assert "K" not in number_evidence(scan(one, kind="md"), one).readable({"K"})
    counted = "$\\frac{1}{B}$ and $y = \\frac{2BDS}{BD + S}$\n"
    got = number_evidence(scan(counted, kind="md"), counted)
    assert "S" in got.readable({"S"})


def test_a_definition_introduces_a_name_once() -> None:
    text = "$\\frac{1}{D}$, $F = 4D$, $T = 2F$ and $c = 2T$ and $T = 8D$\n"
    got = number_evidence(scan(text, kind="md"), text)
    assert "F" in got.defined()
    assert "T" not in got.defined()  # given two values
    used = "$c = 3E$ and $E = 4D$\n"
    assert "E" not in number_evidence(scan(used, kind="md"), used).defined()
