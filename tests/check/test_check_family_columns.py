"""A feature map of a vector read as a column (`\\phi(k_t)` is a column of features, never a
row of features per entry), and a family whose shape came from reading the text's vectors as
columns: a shape error that rests on that reading is undecided, never an error."""

from __future__ import annotations

from claim_helpers import kinds, results

from symattn.check import check_text

COLUMNS = "---\nsymattn:\n  vectors: column\n---\n"
KV = r"Let $K \in \mathbb{R}^{n\times d_k}$ and $V \in \mathbb{R}^{n\times d_v}$." + "\n\n"


def test_the_feature_map_of_a_column_is_a_column_of_features() -> None:
    # the outer product of two features: true, once phi(k_1) is a column of D_phi features
    true = COLUMNS + KV + r"So $(\phi(k_1) v_1^T)^T = v_1 \phi(k_1)^T$." + "\n"
    assert kinds(true) == ["verified"]
    # a slip (v_2 for v_1) is never verified; false for an arbitrary map, undecided for the
    # text's own one (the project's reading of an unnamed feature map)
    false = COLUMNS + KV + r"So $(\phi(k_1) v_1^T)^T = v_2 \phi(k_1)^T$." + "\n"
    assert kinds(false) == ["undecided"]
    # a dropped transpose stays ill-typed
    bad = COLUMNS + KV + r"So $\phi(k_1) v_1 = v_1 \phi(k_1)^T$." + "\n"
    assert kinds(bad) != ["verified"]


def test_a_recurrence_with_a_feature_map_defines_its_family() -> None:
    text = COLUMNS + KV + r"It is updated by $S_t = S_{t-1} + \phi(k_t) v_t^T$." + "\n"
    decl = [r.message for r in check_text(text, "doc.md") if r.kind == "declaration"]
    assert any("a family of D_phi × d_v matrices" in m for m in decl), decl
    assert kinds(text + r"So $S_t^T \phi(q_t) \in \mathbb{R}^{d_v}$." + "\n") == ["verified"]
    assert kinds(text + r"So $S_t \phi(q_t) \in \mathbb{R}^{d_v}$." + "\n") == ["shape-error"]


UNSETTLED = (
    r"The gate $g_t = x_t W_g$ is a row." + "\n\n"
    r"The state is updated by $S_t = S_{t-1} + k_t v_t^T$." + "\n\n"
)


def test_a_family_read_with_columns_leaves_its_shape_errors_undecided() -> None:
    # the family's shape rests on v_t k_t^T read as an outer product: the text's vectors are
    # columns there, rows elsewhere, so an ill-typed use is undecided, naming the family
    (r,) = results(UNSETTLED + r"The prediction is $\hat{v}_t = S_{t-1}^T k_t$." + "\n")
    assert r.kind == "undecided" and "S_•" in r.message, r.message


def test_a_family_of_a_settled_reading_keeps_its_shape_errors() -> None:
    settled = COLUMNS + KV + r"The state is updated by $S_t = S_{t-1} + k_t v_t^T$." + "\n\n"
    assert kinds(settled + r"So $S_{t-1}^T k_t \in \mathbb{R}^{d_v}$." + "\n") == ["verified"]
    assert kinds(settled + r"So $S_{t-1} k_t \in \mathbb{R}^{d_v}$." + "\n") == ["shape-error"]
