"""`reader.terms.inference`: shapes for undeclared names, and the verdicts read with them."""

from __future__ import annotations

import pytest

from symattn.check import check_text
from symattn.kernel.dims import d, d_k
from symattn.reader.syntax.scanner import scan
from symattn.reader.terms.inference import Unifier, infer_spans
from symattn.reader.terms.unify import Clash

COLUMNS = "---\nsymattn:\n  vectors: column\n---\n"


def _claims(text: str) -> list:
    return [r for r in check_text(text, "t.md") if r.kind not in ("declaration", "prose")]


def _only(text: str):
    got = _claims(text)
    assert len(got) == 1, [(r.kind, r.message) for r in got]
    return got[0]


# ---- the unifier ----------------------------------------------------------------------------


def test_unifier_joins_variables_and_binds_sizes() -> None:
    u = Unifier()
    a, b, c = u.fresh("a"), u.fresh("b"), u.fresh("c")
    u.unify(a, b)
    u.unify(c, d_k)
    assert u.value(a) == u.value(b) != u.value(c)
    u.unify(b, c)
    assert u.value(a) == d_k


def test_unifier_refuses_two_sizes_and_restores() -> None:
    u = Unifier()
    a = u.fresh("a")
    snap = u.snapshot()
    u.unify(a, d)
    with pytest.raises(Clash):
        u.unify(a, d_k)
    u.restore(snap)
    u.unify(a, d_k)
    assert u.value(a) == d_k


def test_fresh_dims_are_named_after_the_name() -> None:
    got = infer_spans(scan(r"$\mathbf M \mathbf N = \mathbf P$", kind="md"))
    assert str(got.names["M"].shape[0]) == "rows(M)"
    assert got.names["M"].shape[1] == got.names["N"].shape[0]
    assert got.names["P"].shape == (got.names["M"].shape[0], got.names["N"].shape[1])


# ---- each convention: a true use verified with "inferred", a false one with a counterexample --

TRUE_FALSE = [
    # a matrix product fixes the inner dim
    ("$$(M N)^T = N^T M^T$$", "$$(M N)^T = M^T N^T$$"),
    # `+` makes equal shapes
    (
        COLUMNS
        + r"$$\mathbf U \mathbf x + \mathbf P \mathbf x = (\mathbf U + \mathbf P)\mathbf x$$",
        COLUMNS
        + r"$$\mathbf U \mathbf x + \mathbf P \mathbf x = (\mathbf U - \mathbf P)\mathbf x$$",
    ),
    # softmax keeps its argument's shape
    (
        r"$$\mathrm{softmax}(M) (N P) = (\mathrm{softmax}(M) N) P$$",
        r"$$\mathrm{softmax}(M) N = N \mathrm{softmax}(M)$$",
    ),
    # `\sqrt{p}` names a size
    (
        r"$$\frac{M^T N}{\sqrt{p}} = \frac{1}{\sqrt{p}} M^T N$$",
        r"$$\frac{M^T N}{\sqrt{p}} = \frac{1}{p} M^T N$$",
    ),
    # `\in \mathbb R^{a\times b}` anywhere fixes a shape, also after the formula ("where ...")
    (
        COLUMNS + r"$$\mathbf W_q (\mathbf x + \mathbf y) = \mathbf W_q \mathbf x + "
        r"\mathbf W_q \mathbf y$$"
        "\n\nwhere $\\mathbf W_q \\in \\mathbb R^{h\\times d}$.",
        COLUMNS + r"$$\mathbf W_q (\mathbf x + \mathbf y) = \mathbf W_q \mathbf x + "
        r"2 \mathbf W_q \mathbf y$$"
        "\n\nwhere $\\mathbf W_q \\in \\mathbb R^{h\\times d}$.",
    ),
    # `q^T k`, `q \cdot k` and `\langle q, k\rangle` make vectors of one length
    (
        COLUMNS + r"$$\langle \mathbf q, \mathbf k\rangle = \mathbf k^\top \mathbf q$$",
        COLUMNS + r"$$\langle \mathbf q, \mathbf k\rangle = 2\,\mathbf k^\top \mathbf q$$",
    ),
    (
        COLUMNS + r"$$\mathbf q \cdot (\mathbf k + \mathbf v) = \mathbf q^\top \mathbf k + "
        r"\mathbf q^\top \mathbf v$$",
        COLUMNS + r"$$\mathbf q \cdot (\mathbf k + \mathbf v) = \mathbf q^\top \mathbf k + "
        r"\mathbf k^\top \mathbf v$$",
    ),
    # Attention(Q, K, V) takes its standard arguments
    (
        r"$$\mathrm{Attention}(X W_a, X W_b, X W_c) M = \mathrm{Attention}(X W_a, X W_b, "
        r"X W_c M)$$",
        r"$$\mathrm{Attention}(X W_a, X W_b, X W_c) M = \mathrm{Attention}(X W_a, X W_c, "
        r"X W_b M)$$",
    ),
]


@pytest.mark.parametrize(("true", "false"), TRUE_FALSE)
def test_a_convention_decides_a_true_and_a_false_use(true: str, false: str) -> None:
    good = _claims(true)
    assert [r.kind for r in good] == ["verified"], [(r.kind, r.message) for r in good]
    assert "inferred from line" in good[0].message or "declared at line" in good[0].message
    bad = _claims(false)
    assert [r.kind for r in bad] == ["false"], [(r.kind, r.message) for r in bad]
    assert bad[0].counterexample
    assert "inferred from line" in bad[0].message or "declared at line" in bad[0].message


def test_the_verdict_names_the_shapes_and_where_they_come_from() -> None:
    text = "$Q\\in\\mathbb R^{n\\times d_k}$\n\n$$(Q M)^T = M^T Q^T$$\n\n$$Q M K^T = Q (M K^T)$$\n"
    got = _claims(text)
    assert [r.kind for r in got] == ["verified", "verified"]
    assert "with M: d_k × d_k inferred from lines 3, 5" in got[0].message


def test_a_name_on_one_side_only_may_be_defined_there() -> None:
    got = _only("$Q\\in\\mathbb R^{n\\times d_k}$\n\n$$Q M = K$$\n")
    assert got.kind == "undecided"
    assert "M (not declared by the text) is on one side only" in got.message


def test_proved_at_symbolic_sizes_never_at_a_guessed_one() -> None:
    got = _only("$$(M N)^T = N^T M^T$$")
    assert "proved" in got.message and "symbolic" in got.message
    assert "rows(M)" in got.message  # a fresh size, for every value


def test_a_shape_claim_about_its_own_inference_is_not_decided() -> None:
    alone = _only(r"$$\mathbf M \mathbf N \in \mathbb R^{n\times d}$$")
    assert alone.kind == "not-understood"  # nothing but the claim: nothing is inferred
    text = (
        r"$$(\mathbf M \mathbf N)^T = \mathbf N^T \mathbf M^T$$"
        "\n\n"
        r"$$\mathbf M \mathbf N \in \mathbb R^{n\times d}$$"
    )
    got = _claims(text)
    assert [r.kind for r in got] == ["verified", "undecided"]
    assert "inferred from this formula" in got[1].message


def test_a_shape_claim_checked_against_shapes_inferred_elsewhere() -> None:
    text = (
        "$$Y = X M$$\n\n$$M \\in \\mathbb R^{d\\times d_k}$$\n\n"
        "$$X M N \\in \\mathbb R^{n\\times p}$$\n"
    )
    kinds = [r.kind for r in _claims(text)]
    assert "false" not in kinds and "shape-error" not in kinds


# ---- conflicts: in one formula a shape error naming both places; across formulas undecided ---


def test_a_formula_no_shape_makes_typecheck_is_a_shape_error_naming_both_places() -> None:
    text = "$Q\\in\\mathbb R^{n\\times d_k}$ is given.\n\n$$Q M + M = Q$$\n"
    got = _only(text)
    assert got.kind == "shape-error"
    assert "no shape of M" in got.message
    assert "Q M (line 3, column 3) and M (line 3, column 9)" in got.message
    assert "sizes n and d_k" in got.message


def test_two_formulas_that_disagree_leave_the_name_undecided() -> None:
    text = (
        "$Q\\in\\mathbb R^{n\\times d_k}$, $X\\in\\mathbb R^{n\\times d}$.\n\n"
        "$$Q M = K$$\n\n$$X M = X$$\n\n$$(M X^T)^T = X M^T$$\n"
    )
    got = _claims(text)
    assert [r.kind for r in got if r.kind in ("false", "shape-error")] == []
    last = got[-1]
    assert last.kind in ("undecided", "not-understood")
    assert "M at line 5 and line 3" in last.message


def test_a_letter_reused_as_a_number_is_not_a_vector() -> None:
    text = "$$\\sum_{k=1}^{n} k = \\frac{n(n+1)}{2}$$\n\n$$\\mathbf k^\\top \\mathbf q = q$$\n"
    kinds = [r.kind for r in _claims(text)]
    assert "false" not in kinds and "shape-error" not in kinds


# ---- orientation not settled: both readings must agree ---------------------------------------


def test_vectors_whose_orientation_is_not_settled_are_read_both_ways() -> None:
    got = _only(
        r"$$\mathbf W (\mathbf x + \mathbf y) = \mathbf W \mathbf x + \mathbf W \mathbf y$$"
    )
    assert got.kind == "undecided"
    assert "rows or columns" in got.message


def test_both_readings_agree_a_verdict_stands() -> None:
    got = _only(r"$$\mathbf a + \mathbf b = \mathbf b + \mathbf a$$")
    assert got.kind == "verified" and "inferred" in got.message


# ---- what is never inferred --------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "$$Q_1 K_1 = K_1 Q_1$$",  # members of a family: Q_1, K_1
        "$$k_i q = q k_i$$",  # plain lower-case letters may be numbers (unless transposed)
    ],
)
def test_families_and_plain_letters_are_not_inferred(text: str) -> None:
    got = infer_spans(scan(text, kind="md"))
    assert not got.names


def test_a_name_used_once_like_a_known_one_is_read_as_any_matrix_with_the_slip_named() -> None:
    # true for every matrix W_o, so for the text's W_O too; the verdict still names the slip
    got = _only(r"$$(Q W_o)^T = W_o^T Q^T$$")
    assert got.kind == "verified" and "did you mean W_O" in got.message
    assert "W_o read as a matrix of any shape" in got.message
    wrong = _only(r"$$(Q W_o)^T = W_o Q^T$$")  # a transpose dropped: not false, W_o may be W_O
    assert wrong.kind == "undecided" and "did you mean W_O" in wrong.message
    twice = _claims(r"$$(Q W_o)^T = W_o^T Q^T$$" + "\n\n" + r"$$Q W_o = Q (W_o)$$")
    assert "inferred from lines 1, 3" in twice[0].message


def test_a_plain_capital_with_no_matrix_use_may_be_a_number() -> None:
    assert not infer_spans(scan("$$N M = M N$$", kind="md")).names
    assert set(infer_spans(scan("$$N M^T = M^T N$$", kind="md")).names) == {"M", "N"}


def test_the_text_s_declaration_against_the_chapter_s_convention_is_undecided() -> None:
    text = (
        "$$Q W^Q_i (K W^K_i)^T = Q W^Q_i (W^K_i)^T K^T$$\n\n"
        "$$(Q W^Q_i)^T = (W^Q_i)^T Q^T$$\n\n"
        "where $W^Q_i, W^K_i \\in \\mathbb R^{d_{model}\\times d_k}$.\n"
    )
    got = _claims(text)
    assert [r.kind for r in got] == ["undecided", "undecided"]
    assert "never declares K, Q" in got[0].message
    once = _only(text.split("\n\n", 1)[1])  # one formula: its declaration comes after it
    assert once.kind == "undecided" and "declared at line 3" in once.message
    planted = _only("$$(AV)^T = A^T V^T$$\n")  # the formula alone: the error stands
    assert planted.kind == "shape-error"


def test_the_chapter_conventions_are_kept() -> None:
    got = infer_spans(scan("$$Q W = K$$", kind="md"))
    assert set(got.names) == {"W"}
    assert got.names["W"].shape == (d_k, d_k)


def test_two_columns_side_by_side_are_a_shape_error_in_one_formula() -> None:
    text = COLUMNS + r"$$\langle \mathbf q, \mathbf k \rangle = \mathbf k \mathbf q$$"
    got = _only(text)
    assert got.kind == "shape-error"
    assert "k (line 5, column 42) and \\mathbf q (line 5, column 52) multiply two column" in (
        got.message
    )
    unsettled = _only(r"$$\langle \mathbf q, \mathbf k \rangle = \mathbf k \mathbf q$$")
    assert unsettled.kind != "shape-error"  # rows or columns not settled: no verdict on it


# ---- a list of names in the prose -----------------------------------------------------------

WEIGHTS = (
    "$X\\in\\mathbb R^{n\\times d}$.\n\n"
    "$$X W^K = K$$\n\n$$X W^V = V$$\n\n"
    "The weights $W^Q, W^K W^V$ are learned.\n\n"
)


def test_a_list_of_names_with_a_comma_left_out_is_no_product() -> None:
    # `W^Q, W^K W^V` lists three weights: W^K W^V there is no product (which would need
    # W^K to have d columns), so the uses agree and the shapes are inferred
    got = _claims(WEIGHTS + "$$(X W^K)^T = (W^K)^T X^T$$\n")[-1]
    assert got.kind == "verified", got.message
    assert "inferred from" in got.message and "disagree" not in got.message
    # the same claim with a dropped transpose is still false
    bad = _claims(WEIGHTS + "$$(X W^K)^T = W^K X^T$$\n")[-1]
    assert bad.kind != "verified", bad.message


def test_uses_that_really_disagree_are_named_at_both_places() -> None:
    # W^K has d rows (line 3) and n rows (line 9): no shape is inferred, both lines are named
    text = WEIGHTS + "$$X^T W^K = X^T$$\n\n$$(X W^K)^T = (W^K)^T X^T$$\n"
    last = _claims(text)[-1]
    assert last.kind in ("undecided", "not-understood")
    assert "W^K at line 9 and line 3" in last.message and "disagree" in last.message


# ---- names used only to define another: inferred, the definition names a value ---------------

DEFINED = "$X \\in \\mathbb R^{n\\times d}$.\n\n$$Q = X W^Q, \\quad K = X W^K$$\n\n"


def test_a_definition_by_undeclared_weights_is_a_declaration_with_their_shapes() -> None:
    got = [r for r in check_text(DEFINED, "t.md") if r.source.startswith(("Q =", "K ="))]
    assert [r.kind for r in got] == ["declaration", "declaration"], [r.message for r in got]
    assert "W^Q: d × d_k inferred from line 3" in got[0].message.replace("W^K, ", "")


@pytest.mark.parametrize(
    ("claim", "kind"),
    [
        ("$$(Q K^T)^T = X W^K (W^Q)^T X^T$$", "verified"),
        ("$$(Q K^T)^T = X W^Q (W^K)^T X^T$$", "false"),  # the order of the product swapped
    ],
)
def test_a_later_claim_is_decided_with_the_weights_the_definition_inferred(
    claim: str, kind: str
) -> None:
    got = _claims(DEFINED + claim + "\n")[-1]
    assert got.kind == kind, got.message
    assert "inferred from line" in got.message


def test_a_dropped_transpose_against_the_definition_leaves_the_weights_contested() -> None:
    # W^K is d × d_k by its definition, d_k × ... here: the text may reuse the letter
    got = _claims(DEFINED + "$$Q K^T = X W^Q W^K X^T$$\n")[-1]
    assert got.kind in ("undecided", "not-understood")
    assert "W^K at line 5 and line 3" in got.message and "disagree" in got.message


def test_a_claim_true_only_for_the_text_s_weights_is_not_false() -> None:
    # Q K^T = X X^T holds only if W^Q (W^K)^T = I: the weights are on one side only
    got = _claims(DEFINED + "$$Q K^T = X X^T$$\n")[-1]
    assert got.kind == "undecided" and "one side only" in got.message


def test_a_definition_by_inferred_weights_does_not_confirm_the_chapter_s_shapes() -> None:
    # `Q = XW^Q` typechecks whatever X is (W^Q adapts): X's conventional shape is still a
    # guess against the text's own W_V
    text = "$$Q = X W^Q$$\n\n$W_V \\in \\mathbb R^{m\\times m}$\n\n$$V = X W_V$$\n"
    got = _claims(text)[-1]
    assert got.kind == "undecided" and "conventional shapes of X" in got.message


# ---- families the text writes with an index and never declares: R_m, R_n -------------------

ROTATIONS = COLUMNS + "$q, k \\in \\mathbb R^{d}$\n\n"


@pytest.mark.parametrize("prefix", [ROTATIONS, COLUMNS])  # declared vectors, or plain letters
def test_members_of_an_undeclared_family_are_unrelated_matrices_of_one_shape(prefix: str) -> None:
    true = _claims(prefix + "$$(R_m q)^\\top (R_n k) = q^\\top R_m^\\top R_n k$$\n")[-1]
    assert true.kind == "verified", true.message
    assert "R_•" in true.message and "inferred from line" in true.message
    # true of rotations too, but not of every family: undecided, never false
    swapped = _claims(prefix + "$$(R_m q)^\\top (R_n k) = q^\\top R_n^\\top R_m k$$\n")[-1]
    assert swapped.kind == "undecided", swapped.message
    assert "family the text never declares" in swapped.message


def test_a_dropped_transpose_on_a_member_is_not_verified() -> None:
    got = _claims(ROTATIONS + "$$(R_m q)^\\top (R_n k) = q^\\top R_m R_n k$$\n")[-1]
    assert got.kind in ("undecided", "shape-error", "false"), got.message
    assert got.kind != "verified"


def test_a_family_the_text_defines_is_not_inferred() -> None:
    text = "$$R_m = \\begin{bmatrix} 1 & m \\\\ 0 & 1 \\end{bmatrix}$$\n\n"
    text += "$$R_m^T R_n = R_n^T R_m$$\n"
    assert not infer_spans(scan(text, kind="md")).families


def test_a_plain_letter_is_a_vector_only_where_the_text_transposes_it() -> None:
    found = infer_spans(scan("$$(R_m q)^T (R_n k) = q^T R_m^T R_n k$$", kind="md"))
    assert {"q", "k"} <= set(found.names)
    # k an index elsewhere (`k_i`, `\sum_k`): a letter of another kind, never a vector
    text = "$$(R_m q)^T (R_n k) = q^T R_m^T R_n k$$\n\n$$\\sum_k a_k = 1$$\n"
    assert "k" not in infer_spans(scan(text, kind="md")).names
