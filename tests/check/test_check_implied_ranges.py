"""A sum without bounds whose body does not read whole (`\\sum_i \\beta_{ti} v_i` with beta
undeclared): the range is taken from the parts that read (v_i, row i of V), so the claim
names what it lacks instead of its range; where the whole body reads, the range is decided."""

from __future__ import annotations

from claim_helpers import results

TEXT = (
    r"Let $V \in \mathbb{R}^{n\times d_v}$ and $A \in \mathbb{R}^{n \times n}$, $Z = AV$." + "\n\n"
)


def test_a_sum_over_an_undeclared_weight_names_the_weight() -> None:
    r = results(TEXT + r"So $o_t = \sum_i \beta_{ti} v_i$.")[-1]
    assert r.kind == "undecided" and "beta" in r.message, r.message
    assert "ranges over" not in r.message


def test_a_sum_whose_body_reads_is_decided_over_its_axes() -> None:
    true = results(TEXT + r"So $z_t = \sum_i a_{ti} v_i$.")[-1]
    assert true.kind == "verified" and "i = 1..n" in true.message
    false = results(TEXT + r"So $z_t = \sum_i a_{it} v_i$.")[-1]
    assert false.kind == "false"
