"""The reals written in another font than `\\mathbb`: `\\mathrm R^n`, `\\boldsymbol{R}^k`, a bare
`R^{n\\times d}` right after `\\in`. They declare shapes as `\\mathbb R` does; an R elsewhere is
still a name. Each reading has a true and a false use."""

from __future__ import annotations

import pytest
from claim_helpers import kinds

from symattn.check import check_text


@pytest.mark.parametrize(
    "reals", [r"\mathrm R", r"\mathrm{R}", r"\boldsymbol{R}", r"\bm R", r"\mathsf{R}", "R"]
)
def test_the_reals_in_any_font_declare(reals: str) -> None:
    head = f"Let $Q\\in {reals}^{{n\\times d}}$ and $K\\in {reals}^{{n\\times d}}$.\n\n"
    declared = [r for r in check_text(head, "doc.md") if r.kind == "declaration"]
    assert [r.message.split(":")[0] for r in declared] == [
        "declares Q as n × d",
        "declares K as n × d",
    ]
    assert kinds(head + "$$(QK^T)^T = KQ^T$$") == ["verified"]
    assert kinds(head + "$$(QK^T)^T = QK^T$$") == ["false"]
    # the declared shapes are used: Q^T K is d × d, not n × n
    assert kinds(head + f"$$Q^TK \\in {reals}^{{d\\times d}}$$") == ["verified"]
    assert kinds(head + f"$$Q^TK \\in {reals}^{{n\\times n}}$$") == ["shape-error"]


def test_an_r_that_is_not_after_in_stays_a_name() -> None:
    # a rotation R_m applied to q: R is a matrix of the text, never the reals
    text = (
        r"Let $R, M \in \mathbb{R}^{d\times d}$ and $q \in \mathbb{R}^{d}$ be a column."
        "\n\n$$(RM)^T = M^TR^T$$\n\n$$(RM)^T = R^TM^T$$"
    )
    assert kinds(text) == ["verified", "false"]
    # a power of R outside a declaration is not the reals (powers of matrices are not checked)
    assert kinds(text + "\n\n$$R^2 = RR$$") == ["verified", "false", "not-understood"]
