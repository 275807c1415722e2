"""Arrays of order 3 or more the text declares (`X \\in \\mathbb R^{B\\times L\\times d}`): one
matrix of the last two sizes per element of the leading ones, a reading every verdict names; a
false claim or a shape error that rests on it is undecided."""

from __future__ import annotations

from claim_helpers import kinds, results

from symattn.check import check_text

BATCH = (
    r"The input is $X \in \mathbb{R}^{B \times L \times d}$ and "
    r"$W \in \mathbb{R}^{d \times d}$." + "\n\n"
)


def test_an_array_is_declared_as_its_slices() -> None:
    (decl,) = [r for r in check_text(BATCH, "doc.md") if r.message.startswith("declares X")]
    assert decl.kind == "declaration" and "B × L × d array" in decl.message, decl.message


def test_claims_about_an_array_name_the_reading() -> None:
    (true,) = results(BATCH + r"So $(X W)^T = W^T X^T$.")
    assert true.kind == "verified" and "one matrix per element of B" in true.message
    (false,) = results(BATCH + r"So $(X W)^T = W X^T$.")
    assert false.kind == "undecided" and "one matrix per element of B" in false.message
    (bad,) = results(BATCH + r"So $W X \in \mathbb{R}^{L \times d}$.")
    assert bad.kind == "undecided", bad.message  # never a shape error of the slice reading


def test_a_name_defined_from_an_array_carries_the_reading() -> None:
    text = BATCH + r"The queries are $Q = X W$." + "\n\n"
    (true,) = results(text + r"So $Q \in \mathbb{R}^{L \times d}$.")
    assert true.kind == "verified" and "defined from X" in true.message
    (bad,) = results(text + r"So $Q \in \mathbb{R}^{d \times L}$.")
    assert bad.kind == "undecided", bad.message


def test_a_matrix_view_declared_later_is_no_conflict() -> None:
    text = (
        BATCH
        + r"Flattened, $X \in \mathbb{R}^{n \times d}$, and $X W \in \mathbb{R}^{n \times d}$."
    )
    assert kinds(text) == ["verified"]


def test_an_array_of_a_name_the_text_declared_stays_unread() -> None:
    text = r"Let $X \in \mathbb{R}^{n \times d}$. Then $X \in \mathbb{R}^{B \times n \times d}$."
    assert kinds(text) == ["not-understood"]
