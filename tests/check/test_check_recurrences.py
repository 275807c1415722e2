"""A family defined by a recurrence and a base case, read by the checker: claims about S_t are
decided by induction on t (true ones proved, false ones refuted at an explicit t)."""

from __future__ import annotations

import pytest
from claim_helpers import results

from symattn.check import check_text

ROWS = (
    "---\nsymattn:\n  vectors: row\n---\n"
    r"Let $K \in \mathbb{R}^{n\times d_k}$ and $V \in \mathbb{R}^{n\times d_v}$." + "\n\n"
)
BASE = r"The state starts at $S_0 = 0$." + "\n\n"
STEP = r"It is updated by $S_t = S_{t-1} + k_t^\top v_t$." + "\n\n"


def one(text: str):
    (r,) = results(text)
    return r


@pytest.mark.parametrize("order", ["base first", "step first"])
def test_the_closed_form_is_proved_by_induction(order: str) -> None:
    head = ROWS + (BASE + STEP if order == "base first" else STEP + BASE)
    r = one(head + r"Then $S_t = \sum_{j=1}^{t} k_j^\top v_j$.")
    assert r.kind == "verified", r.message
    assert "proved by induction on t" in r.message
    decl = [x.message for x in check_text(head, "doc.md") if x.kind == "declaration"]
    assert any("a recurrence, read" in m for m in decl)


def test_false_variants_are_refuted_with_a_counterexample() -> None:
    early = one(ROWS + BASE + STEP + r"Then $S_t = \sum_{j=1}^{t-1} k_j^\top v_j$.")
    assert early.kind == "false" and early.message.startswith("refuted at t = 1")
    assert early.counterexample
    dropped = one(ROWS + BASE + STEP + r"So $S_3 = k_1^\top v_1 + k_3^\top v_3$.")
    assert dropped.kind == "false" and dropped.counterexample


def test_a_member_at_a_number_is_written_out() -> None:
    r = one(ROWS + BASE + STEP + r"So $S_2 = k_1^\top v_1 + k_2^\top v_2$.")
    assert r.kind == "verified", r.message


def test_without_a_base_case_the_value_is_not_read() -> None:
    r = one(ROWS + STEP + r"So $S_2 = k_1^\top v_1$.")
    assert r.kind == "undecided", r.message  # S_0 is not given: never false


def test_a_base_case_of_another_shape_is_a_shape_error() -> None:
    kinds = [x.kind for x in check_text(ROWS + STEP + r"Let $S_0 = K$." + "\n", "doc.md")]
    assert "shape-error" in kinds


def test_a_declared_family_takes_its_base_case_and_recurrence() -> None:
    declared = ROWS + r"The state is $S_t \in \mathbb{R}^{d_k\times d_v}$." + "\n\n"
    got = results(declared + BASE + STEP + r"Then $S_t = \sum_{j=1}^{t} k_j^\top v_1$.")
    assert [r.kind for r in got] == ["verified", "false"]  # the definition, then the claim
    assert got[1].message.startswith("refuted at t = 2")
