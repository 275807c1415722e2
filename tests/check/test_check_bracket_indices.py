"""Bracket indices of code-like notation (`M[i,j]`, `M[i][j]`, `x[t]`, `A[i,:]`) read as entries
and rows of the matrices and vectors the text declares or defines; a bracket after any other
name, and every bracket of a text that may count from 0, stays as written. Each reading has a
true use and a false one."""

from __future__ import annotations

import pytest
from claim_helpers import kinds, results

from symattn.reader.syntax import ast
from symattn.reader.syntax.brackets import bracket_indices, counts_from_zero
from symattn.reader.syntax.parse import parse_formula

SCORES = (
    r"Let $Q \in \mathbb{R}^{n \times d_k}$ and $K \in \mathbb{R}^{n \times d_k}$, "
    r"and $S = QK^\top$." + "\n\n"
)
VECTOR = (
    r"Let $M \in \mathbb{R}^{n \times n}$ and let $u \in \mathbb{R}^{n}$ be a column vector, "
    r"$w = Mu$." + "\n\n"
)


@pytest.mark.parametrize(
    ("claim", "kind"),
    [
        (r"$S[i,j] = \sum_{r=1}^{d_k} Q[i,r] K[j,r]$.", "verified"),
        (r"$S[i][j] = \sum_{r=1}^{d_k} Q[i][r] K[j][r]$.", "verified"),
        (r"$S[i,j] = \sum_{r=1}^{d_k} Q[j,r] K[i,r]$.", "false"),
        (r"$S[i,j] = \sum_{r=1}^{d_k} Q[i,r] K[r,j]$.", "shape-error"),
        (r"$S[i,:] = Q[i,:] K^\top$.", "verified"),
        (r"$S[i,:] = Q[i,:] Q^\top$.", "false"),
        (r"$S[:,j] = Q K[j,:]^\top$.", "verified"),
        (r"$S[:,j] = K Q[j,:]^\top$.", "false"),
        (r"$S[i,j]^2 = S[i,j] S[i,j]$.", "verified"),
        (r"$S[i,j]^2 = 2 S[i,j]$.", "false"),
    ],
)
def test_entries_and_rows_of_a_declared_matrix(claim: str, kind: str) -> None:
    assert kinds(SCORES + claim) == ["verified", kind]  # the definition of S, then the claim


@pytest.mark.parametrize(
    ("claim", "kind"),
    [
        (r"$w[i] = \sum_j M[i,j] u[j]$.", "verified"),
        # code also writes `h[t]` for the t-th state of a recurrence: an alarm resting on the
        # component reading is undecided
        (r"$w[i] = \sum_j M[j,i] u[j]$.", "undecided"),
        (r"$w[t] = \sum_j M_{tj} u_j$.", "verified"),
    ],
)
def test_components_of_a_defined_vector(claim: str, kind: str) -> None:
    assert kinds(VECTOR + claim) == [kind]


def test_a_state_written_with_brackets_raises_no_alarm() -> None:
    text = (
        r"Let $h \in \mathbb{R}^{d}$ be a column vector and $W \in \mathbb{R}^{d \times d}$."
        "\n\n"
        r"The state is $h[t] = W h[t-1]$ and also $h[t] = 2 h[t-1]$."
    )
    got = results(text)
    assert got and all(r.kind not in ("false", "shape-error") for r in got)
    assert any("h[·] as a component of the vector h" in r.message for r in got)


def test_a_bracket_after_another_name_is_no_index() -> None:
    # E is no matrix of the text: `E[x]` is not an entry of it, and stays undecided
    (moment,) = results(VECTOR + r"Here $E[u] = 0$.")
    assert moment.kind not in ("verified", "false", "shape-error")
    assert kinds(VECTOR + r"So $\lambda[a+b] = c$.") not in (["verified"], ["false"])


def test_a_text_counting_from_zero_keeps_its_brackets() -> None:
    # read from 1, `S[n-1, 0]` and a sum from 0 would be other entries: a false alarm
    zero = r"$S[n-1, 0] = \sum_{r=0}^{d_k-1} Q[n-1,r] K[0,r]$."
    assert kinds(SCORES + zero)[1:] == ["not-understood"]
    later = r"$S[i,j] = \sum_{r=1}^{d_k} Q[i,r] K[j,r]$ where $x[0]$ is the first."
    assert kinds(SCORES + later)[1] == "not-understood"
    below = kinds(SCORES + r"$S[i,j] = \sum_{r < d_k} Q[i,r] K[j,r]$.")[1:]
    assert "verified" not in below and "false" not in below


@pytest.mark.parametrize(
    ("bodies", "text", "zero"),
    [
        (["y = x[0]"], "", True),
        (["A[i, 0] = 1"], "", True),
        (["A[0:t]"], "", True),
        ([r"\sum_{j=0}^{n-1} a_j"], "", True),
        (["S[i,j] = 1"], "Arrays are zero-based here.", True),
        (["S[i,j] = 1", "x[t-1]", "y[10]"], "", False),
    ],
)
def test_counts_from_zero(bodies: list[str], text: str, zero: bool) -> None:
    assert counts_from_zero(bodies, text) is zero


@pytest.mark.parametrize(
    ("body", "dumped"),
    [
        ("A[i,j]", "[(index (group A) (seq i, j))]"),
        ("A[i][j]", "[(index (group A) (seq i, j))]"),
        ("A[i, :]", "[(index (group A) (seq i, \\colon))]"),
        ("x[t-1]", "[x_{(t - 1)}]"),
        ("A [i,j]", "[(* A (bracket i, j))]"),  # a space: a product, as before
        ("A[1,2]", "[(* A (bracket 1, 2))]"),  # a number alone: where it counts from is open
        ("A[x,j]", "[(* A (bracket x, j))]"),  # x is a vector: an argument, no index
        ("A[i][j][k]", "[(* (index (group A) (seq i, j)) (bracket k))]"),
    ],
)
def test_which_brackets_are_indices(body: str, dumped: str) -> None:
    def arrays(node: ast.Expr) -> str | None:
        name = getattr(node, "name", "")
        return {"A": "matrix", "x": "vector"}.get(name) if getattr(node, "sub", 0) is None else None

    tree = bracket_indices(parse_formula(body), arrays)
    assert ast.dump(tree) == dumped


def test_positions_are_kept() -> None:
    tree = bracket_indices(
        parse_formula("y = A[i,j]"), lambda n: "matrix" if n.name == "A" else None
    )
    entry = tree.items[0].steps[0].rhs
    assert isinstance(entry, ast.IndexedGroup)
    assert (entry.start, entry.end) == (4, 10)
    assert (entry.group.start, entry.group.end) == (4, 5)
