"""The identity matrix beside a matrix (`\\mathbf S(\\mathbf I - \\beta\\mathbf k\\mathbf k^\\top)`,
`(I - B)A`, `W I_d`): read as the identity of the size its product needs, and said so in the
verdict; a wrong expansion is refuted where the text declares its names; an I the text declares,
an I no matrix sizes, and the letters of a word (`AI`) are not read so."""

from __future__ import annotations

import pytest
from claim_helpers import last

DECLARED = (
    r"Let $\mathbf{A}, \mathbf{B} \in \mathbb{R}^{n \times n}$, $\mathbf{W} \in \mathbb{R}^{n "
    r"\times d}$, $\mathbf{S} \in \mathbb{R}^{d \times d}$, $\mathbf{k}, \mathbf{v} \in "
    r"\mathbb{R}^{d \times 1}$ and $\beta \in \mathbb{R}$." + "\n\n"
)


TRUE = [
    r"\mathbf{A}(\mathbf{I} + \mathbf{B}) = \mathbf{A} + \mathbf{A}\mathbf{B}",
    r"(\mathbf{I} - \mathbf{B})\mathbf{A} = \mathbf{A} - \mathbf{B}\mathbf{A}",
    r"\mathbf{A}(\mathbf{I} - \mathbf{B})\mathbf{W}"
    r" = \mathbf{A}\mathbf{W} - \mathbf{A}\mathbf{B}\mathbf{W}",
    r"\mathbf{S}(\mathbf{I} - \beta \mathbf{k}\mathbf{k}^\top) + \beta\mathbf{v}\mathbf{k}^\top"
    r" = \mathbf{S} - \beta(\mathbf{S}\mathbf{k} - \mathbf{v})\mathbf{k}^\top",
    r"\mathbf{W}\mathbf{I}_d = \mathbf{W}",
    r"\mathbf{I}_n\mathbf{W} = \mathbf{W}",
    r"\mathbf{A}(2\mathbf{I}) = 2\mathbf{A}",
]


@pytest.mark.parametrize("formula", TRUE)
def test_an_identity_beside_a_matrix_is_read_and_said(formula: str) -> None:
    got = last(DECLARED + f"Then $${formula}$$\n")
    assert got.kind == "verified", got.message
    assert "read as the identity matrix" in got.message


FALSE = [
    r"(\mathbf{I} - \mathbf{B})\mathbf{A} = \mathbf{A} - \mathbf{A}\mathbf{B}",  # order kept
    r"\mathbf{A}(\mathbf{I} + \mathbf{B}) = \mathbf{A}\mathbf{B}",  # a term lost
    r"\mathbf{S}(\mathbf{I} - 2 \mathbf{k}\mathbf{k}^\top) + 2\mathbf{v}\mathbf{k}^\top"
    r" = \mathbf{S} - 2(\mathbf{S}\mathbf{k} + \mathbf{v})\mathbf{k}^\top",  # a sign
]


@pytest.mark.parametrize("formula", FALSE)
def test_a_wrong_expansion_with_an_identity_is_false(formula: str) -> None:
    got = last(DECLARED + f"Then $${formula}$$\n")
    assert got.kind == "false", got.message


def test_the_delta_rule_of_undeclared_names_is_verified_and_its_mutant_is_not() -> None:
    rule = (
        r"$$\mathbf{S}_{t-1}(\mathbf{I} - \beta_t \mathbf{k}_t \mathbf{k}_t^\top)"
        r" + \beta_t \mathbf{v}_t \mathbf{k}_t^\top"
        r" = \mathbf{S}_{t-1} - \beta_t(\mathbf{S}_{t-1}\mathbf{k}_t {} \mathbf{v}_t)"
        r"\mathbf{k}_t^\top$$" + "\n"
    )
    good = last(rule.replace("{}", "-"))
    assert good.kind == "verified", good.message
    assert "identity matrix" in good.message and "\\beta_t read as a real number" in good.message
    bad = last(rule.replace("{}", "+"))
    assert bad.kind == "undecided", bad.message  # names the text never declares: never false


@pytest.mark.parametrize(
    "formula",
    [
        r"\mathbf{W}\mathbf{I}_n = \mathbf{W}",  # W is n × d: I_n does not fit on its right
        r"\mathbf{A}^\top\mathbf{A} = \mathbf{I}",  # no matrix beside it says its size
        r"\beta\mathbf{I} + \mathbf{A} = \mathbf{A}",
    ],
)
def test_an_identity_no_matrix_sizes_is_not_verified(formula: str) -> None:
    got = last(DECLARED + f"Then $${formula}$$\n")
    assert got.kind != "verified", got.message


def test_an_I_the_text_declares_is_its_own_matrix() -> None:
    text = DECLARED.replace("$ and", r"$, $\mathbf{I} \in \mathbb{R}^{n \times n}$ and")
    got = last(
        text
        + r"Then $$\mathbf{A}(\mathbf{I} + \mathbf{B}) = \mathbf{A} + \mathbf{A}\mathbf{B}$$"
        + "\n"
    )
    assert got.kind != "verified", got.message
    assert "identity" not in got.message
