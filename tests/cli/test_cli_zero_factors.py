"""A factor that is zero at the sizes of a context must not hide an entry outside its matrix.

`(n-5) S_{i,n+1}` at n = 5 is ill-formed, not 0: each entry is checked as it is built.
"""

from __future__ import annotations

import pytest
import sympy
from cli_helpers import cli

from symattn import Entry, MatSym, Row, Scale, Softmax, assume, index, n
from symattn.check import check_text
from symattn.kernel.proof import prove_equal
from symattn.kernel.ranges import definite_range_problem

SUM = r"\sum_{j=1}^{HI}(n-5)(n-2)(\operatorname{softmax}(2S))_{ij}=n^{2}-7n+10"
WIDE = SUM.replace("HI", "n+1")  # one column past S
TRUE = SUM.replace("HI", "n")  # both sides are 0 at n = 5, and equal at every n

II, J = index("i"), index("j")
CASES = [
    (WIDE, "j runs over 1..6"),  # a sum bound past the columns
    (r"\sum_{j=1}^{n}(n-5)S_{n+1,j}=0", "S_{6,j}"),  # a row index past the rows
    (r"\sum_{j=0}^{n}(n-5)S_{ij}=0", "j runs over 0..5"),  # a sum bound before the first
    (r"\sum_{j=1}^{n+1}0\cdot S_{ij}=0", "j runs over 1..6"),  # a zero written as such
]


@pytest.mark.parametrize(("claim", "why"), CASES)
def test_prove_under_explicit_sizes_refuses_a_hidden_entry(claim, why):
    r = cli("prove", claim, "--dims", "S: n x n", "--assume", "n=5", "--assume", "d_k=4")
    assert r.returncode == 1 and "shape-error" in r.stdout and why in r.stdout, r.stdout
    assert "verified" not in r.stdout


@pytest.mark.parametrize(("claim", "why"), CASES[:2])
def test_prove_over_every_size_refuses_it_too(claim, why):
    r = cli("prove", claim, "--dims", "S: n x n")
    assert r.returncode == 1 and "shape-error" in r.stdout, r.stdout


def test_a_true_claim_with_a_coefficient_zero_at_the_size_stays_proved():
    for extra in ((), ("--assume", "n=5")):
        r = cli("prove", TRUE, "--dims", "S: n x n", *extra)
        assert r.returncode == 0 and "proved" in r.stdout, r.stdout


def doc(claim: str) -> str:
    return f"Let $S\\in\\mathbb R^{{n\\times n}}$. In the example, $n=5$.\n\n$${claim}$$\n"


@pytest.mark.parametrize(("claim", "why"), CASES)
def test_check_under_a_worked_example_refuses_a_hidden_entry(claim, why):
    results = [
        r for r in check_text(doc(claim), "w.md") if r.kind not in ("declaration", "not-a-claim")
    ]
    assert [r.status for r in results] == ["shape_error"], results
    assert why in results[0].message


def test_check_under_a_worked_example_keeps_the_true_claim():
    results = [
        r for r in check_text(doc(TRUE), "w.md") if r.kind not in ("declaration", "not-a-claim")
    ]
    assert [r.kind for r in results] == ["verified"], results


def test_the_api_under_a_size_assumption_refuses_the_sum_past_the_columns():
    i, j = index("i"), index("j")
    S = MatSym("S", n, n)
    lhs = sympy.Sum((n - 5) * (n - 2) * Entry(Softmax(Scale(2, S)), i, j), (j, 1, n + 1))
    with assume(n=5):
        v = prove_equal(lhs, n**2 - 7 * n + 10)
    assert v.status == "shape_error", v


@pytest.mark.parametrize(
    ("size", "row", "col", "limits"),
    [
        (5, 6, 1, {}),
        (5, 1, 6, {}),
        (n, n + 1, 1, {}),
        (n, 1, J, {J: (1, n + 1)}),
        (n, 1, J, {J: (0, n)}),
    ],
)
def test_an_entry_outside_its_matrix_is_found_as_it_is_built(size, row, col, limits):
    problem = definite_range_problem(Entry(MatSym("S", size, size), row, col), limits)
    assert problem is not None and "S_{" in problem


@pytest.mark.parametrize(
    ("size", "row", "col", "limits"),
    [
        (5, 5, 1, {}),
        (n, n, J - 1, {}),
        (n, 1, J, {J: (1, n)}),
        (n, 1, J, {J: (1, II)}),
        (n, 0, 1, {}),
    ],
)
def test_an_entry_that_may_lie_inside_is_not_an_error_as_it_is_built(size, row, col, limits):
    # a window 1..i and a text counting from 0 (x_0) are left to the checks that know more
    assert definite_range_problem(Entry(MatSym("S", size, size), row, col), limits) is None


HEADS = ("--dims", "Z^{(h)}: n x d_v", "--dims", "W_O: H d_v x d")


@pytest.mark.parametrize("extra", [(), ("--assume", "H=2")])
def test_a_sum_over_heads_past_the_last_block_is_ill_formed(extra):
    both = r"\sum_{h=1}^{H+1}(H-2) Z^{(h)}W_O^{(h)}"
    r = cli("prove", f"{both} = {both}", *HEADS, *extra)
    assert r.returncode == 1 and "shape-error" in r.stdout and "blocks" in r.stdout, r.stdout


def test_a_sum_over_heads_with_a_coefficient_zero_at_the_size_stays_proved():
    claim = r"\sum_{h=1}^{H}(H-2) Z^{(h)}W_O^{(h)} = 0 Z^{(1)}W_O^{(1)}"
    r = cli("prove", claim, *HEADS, "--assume", "H=2")
    assert r.returncode == 0 and "proved" in r.stdout, r.stdout


def test_a_row_past_the_last_is_ill_formed_under_a_zero_coefficient():
    r = cli(
        "prove",
        r"\sum_{j=1}^{n+1}(n-5) q_i\cdot k_j = 0",
        "--dims",
        "Q,K: n x d_k",
        "--assume",
        "n=5",
    )
    assert r.returncode == 1 and "shape-error" in r.stdout and "k_" in r.stdout.lower(), r.stdout
    assert definite_range_problem(Row(MatSym("K", 5, 3), 6), {}) is not None


def test_an_entry_of_a_defined_matrix_past_its_columns_is_ill_formed_in_a_worked_example():
    text = (
        "Let $Q,K\\in\\mathbb R^{n\\times d_k}$.\n\n$$A=\\operatorname{softmax}(QK^T)$$\n\n"
        "In the example, $n=5$.\n\n$$\\sum_{j=1}^{HI}(n-5)a_{ij}=0$$\n"
    )
    for hi, want in (("n+1", "shape_error"), ("n", "proved")):
        results = [r for r in check_text(text.replace("HI", hi), "w.md") if r.kind != "not-a-claim"]
        assert [r.status for r in results][-1] == want, results


def test_a_written_matrix_with_an_entry_outside_is_ill_formed_under_a_zero_coefficient():
    text = (
        "Let $S\\in\\mathbb R^{n\\times n}$. In the example, $n=2$.\n\n"
        "$$\\begin{bmatrix}(n-2)S_{13} & 0\\\\ 0 & 0\\end{bmatrix}"
        "=\\begin{bmatrix}0 & 0\\\\ 0 & 0\\end{bmatrix}$$\n"
    )
    results = [r for r in check_text(text, "w.md") if r.kind not in ("declaration", "not-a-claim")]
    assert [r.status for r in results] == ["shape_error"], results
    assert "S_{1,3}" in results[0].message
