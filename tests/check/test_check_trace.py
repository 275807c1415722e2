"""The trace and the Frobenius inner product (`\\mathrm{tr}(A^\\top B)`, `\\langle A, B\\rangle_F`):
read as the sum of a square matrix's diagonal and as `tr(A^T B)`; true identities verified for
every size, wrong ones false, a trace of a matrix that is not square and a Frobenius product of
two shapes a shape error."""

from __future__ import annotations

import pytest
from claim_helpers import last

DECLARED = (
    r"Let $A, B \in \mathbb{R}^{n \times d}$ and $C, S \in \mathbb{R}^{d \times d}$." + "\n\n"
)


@pytest.mark.parametrize(
    "formula",
    [
        r"\mathrm{tr}(A^\top B) = \sum_{i=1}^{n}\sum_{j=1}^{d} A_{ij} B_{ij}",
        r"\mathrm{tr}(A^\top B) = \mathrm{tr}(B A^\top)",
        r"\operatorname{tr}(A^\top B C) = \operatorname{tr}(C A^\top B)",
        r"\text{tr}(C + S) = \text{tr}(C) + \text{tr}(S)",
        r"\mathrm{Tr}(C^\top) = \mathrm{Tr}(C)",
        r"\langle A, B \rangle_F = \mathrm{tr}(A^\top B)",
        r"\langle A, B \rangle_F = \langle B, A \rangle_F",
    ],
)
def test_a_true_identity_of_traces_is_verified(formula: str) -> None:
    got = last(DECLARED + f"Then $${formula}$$\n")
    assert got.kind == "verified" and "for all sizes" in got.message, got.message


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        (r"\mathrm{tr}(A^\top B C) = \mathrm{tr}(A^\top C B)", "shape-error"),
        (r"\mathrm{tr}(C S) = \mathrm{tr}(C^\top S)", "false"),
        (r"\mathrm{tr}(2C) = \mathrm{tr}(C)", "false"),
        (r"\mathrm{tr}(A) = 0", "shape-error"),
        (r"\langle A, C \rangle_F = 0", "shape-error"),
    ],
)
def test_a_wrong_identity_of_traces_is_refuted(formula: str, kind: str) -> None:
    got = last(DECLARED + f"Then $${formula}$$\n")
    assert got.kind == kind, got.message


def test_the_messages_name_the_shapes() -> None:
    got = last(DECLARED + r"Then $$\mathrm{tr}(A) = 0$$" + "\n")
    assert "the trace of A (n × d): it is not a square matrix" in got.message
    got = last(DECLARED + r"Then $$\langle A, C \rangle_F = 0$$" + "\n")
    assert "the Frobenius product of A (n × d) and C (d × d): the shapes differ" in got.message
