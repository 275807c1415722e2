"""Capitals with one index that the text never declares as a matrix (`K_t`, `V_j`, `Q_t`), as
per-step and linear-attention texts write them: members of a family, with the shape the text
declares for them, or inferred from their uses (never row t of the chapter's K)."""

from __future__ import annotations

from claim_helpers import kinds, results

from symattn.check import check_text

COLUMNS = "---\nsymattn:\n  vectors: column\n---\n"
STEP = r"$$S_t = S_{t-1} + K_t^\top V_t$$" + "\n\n"


def messages(text: str) -> list[str]:
    return [r.message for r in check_text(text, "doc.md")]


def test_members_declared_as_rows_are_a_family_of_rows() -> None:
    text = r"Let $K_t \in \mathbb{R}^{1 \times d}$ and $V_t \in \mathbb{R}^{1 \times d}$." + "\n\n"
    text += STEP + r"$$(K_t^\top V_t)^\top = V_t^\top K_t$$" + "\n\n"
    text += r"$$(K_t^\top V_t)^\top = K_t^\top V_t$$" + "\n"
    got = results(text)
    assert [r.kind for r in got] == ["verified", "false"], [r.message for r in got]
    assert any("a family of vectors indexed by t" in m for m in messages(text))
    assert any("a family of d × d matrices" in m for m in messages(text))


def test_a_listed_family_in_rd_is_read_both_ways() -> None:
    text = r"Let $V_1, \ldots, V_N \in \mathbb{R}^d$ be the values." + "\n\n"
    text += r"$$V_1^\top V_2 = V_2^\top V_1$$" + "\n\n" + r"$$V_1 + V_2 = V_2 + V_1$$" + "\n"
    assert kinds(text) == ["undecided", "verified"]  # a scalar as columns, d × d as rows
    assert kinds(COLUMNS + text) == ["verified", "verified"]
    assert not any("ellipsis" in m for m in messages(text))


def test_a_listed_family_of_another_width_is_a_shape_error() -> None:
    text = COLUMNS + r"Let $V_1, \ldots, V_N \in \mathbb{R}^d$ and $W \in \mathbb{R}^{k \times k}$."
    text += "\n\n" + r"$$W V_1 = V_2$$" + "\n"
    assert kinds(text) == ["shape-error"]


def test_undeclared_step_members_get_inferred_shapes() -> None:
    text = STEP + r"$$(K_t^\top V_t)^\top = V_t^\top K_t$$" + "\n\n"
    text += r"$$Q_t (S_{t-1} + K_t^\top V_t) = Q_t S_{t-1} + Q_t K_t^\top V_t$$" + "\n"
    got = results(text)
    assert [r.kind for r in got] == ["verified", "verified"], [r.message for r in got]
    assert all("inferred" in r.message for r in got)
    assert not any("with 1 index" in m for m in messages(text))


def test_a_false_claim_about_inferred_members_is_never_false() -> None:
    text = STEP + r"$$(K_t^\top V_t)^\top = K_t^\top V_t$$" + "\n"
    assert kinds(text) == ["undecided"]


def test_a_mismatch_resting_on_inferred_shapes_is_undecided() -> None:
    text = r"$$Q_t K_t^\top = 1$$" + "\n\n" + r"$$K_t^\top Q_t = K_t$$" + "\n"
    assert "shape-error" not in kinds(text)
