"""Families of matrices the text never declares, only defines (`H_2 = H_1 W`, `H_1 = XW`): the
shape comes from the text's own definitions, a size they leave open is a size of its own, and a
mismatch that rests on it is undecided, never a shape error; a capital labelled by a word or a
number (`X_{pre}`, `W_1`) is a name of its own. Each rule has a true and a false use."""

from __future__ import annotations

from claim_helpers import kinds, results

from symattn.check import check_text

SIZES = r"Let $X \in \mathbb{R}^{n \times d}$ and $W \in \mathbb{R}^{d \times d}$." + "\n\n"


def declarations(text: str) -> list[str]:
    return [r.message for r in check_text(text, "doc.md") if r.kind == "declaration"]


# ---- the base case gives the family its shape -------------------------------------------------


def test_the_base_case_gives_the_family_its_shape():
    text = SIZES + "$$H_1 = X W$$\n\n$$H_2 = H_1 W$$\n\n"
    assert any("a family of n × d matrices" in m for m in declarations(text))
    assert kinds(text + r"$$H_2 \in \mathbb{R}^{n \times d}$$") == ["verified"]
    # a declaration against the text's own definitions is still a shape error
    assert kinds(text + r"$$H_2 \in \mathbb{R}^{d \times n}$$") == ["shape-error"]


def test_a_correct_text_with_a_base_case_gets_no_alarm():
    text = SIZES + "$$H_1 = X W$$\n\n$$H_2 = H_1 W$$\n\n$$H_2 = X W W$$"
    assert kinds(text) == ["undecided"]


# ---- a size the definition leaves open -----------------------------------------------------------


def test_a_size_the_definition_leaves_open_is_its_own():
    text = SIZES + "$$B_2 = B_1 W$$\n\n"
    assert any("a family of rows(B_•) × d matrices" in m for m in declarations(text))
    # the columns are fixed by W: the Gram matrix of a member is d × d whatever the rows
    assert kinds(text + r"$$B_2^T B_2 \in \mathbb{R}^{d \times d}$$") == ["verified"]
    assert kinds(text + r"$$B_2^T B_2 \in \mathbb{R}^{n \times n}$$") == ["shape-error"]


def test_a_mismatch_on_an_open_size_is_undecided():
    text = SIZES + "$$B_2 = B_1 W$$\n\n"
    for claim in (r"$$B_2 = X W$$", r"$$B_2 B_2^T \in \mathbb{R}^{n \times n}$$"):
        (r,) = results(text + claim)
        assert r.kind == "undecided" and "rows(B_•)" in r.message, r.message
        assert "leaves open" in r.message


def test_a_declaration_fixes_the_open_size():
    text = SIZES + "$$B_2 = B_1 W$$\n\n" + r"$$B_2 \in \mathbb{R}^{n \times d}$$" + "\n\n"
    assert any("gives rows(B_•) = n" in m for m in declarations(text))
    assert kinds(text + r"$$B_2 B_2^T \in \mathbb{R}^{n \times n}$$") == ["verified"]
    assert kinds(text + r"$$B_2 B_2^T \in \mathbb{R}^{d \times d}$$") == ["shape-error"]
    # a declaration against a size the definition fixed is a shape error
    wrong = SIZES + "$$B_2 = B_1 W$$\n\n" + r"$$B_3 \in \mathbb{R}^{n \times n}$$"
    assert kinds(wrong) == ["shape-error"]


# ---- names labelled by a word or a number ------------------------------------------------------

LABELLED = (
    r"Let $X_{pre} \in \mathbb{R}^{s \times h}$, $W_1 \in \mathbb{R}^{h \times 4h}$ and "
    r"$W_{2} \in \mathbb{R}^{4h \times h}$, $W_{KV} \in \mathbb{R}^{h \times r}$." + "\n\n"
)


def test_a_name_labelled_by_a_word_or_a_number_is_declared():
    assert all(m.startswith("declares") for m in declarations(LABELLED) if "X_" in m or "W_" in m)
    assert kinds(LABELLED + r"$$X_{pre} W_1 W_2 \in \mathbb{R}^{s \times h}$$") == ["verified"]
    assert kinds(LABELLED + r"$$X_{pre} W_{KV} \in \mathbb{R}^{s \times r}$$") == ["verified"]
    # a product the declared shapes do not allow is a shape error
    assert kinds(LABELLED + r"$$X_{pre} W_2 \in \mathbb{R}^{s \times h}$$") == ["shape-error"]


def test_identities_over_labelled_names_are_decided():
    true = r"$$(X_{pre} W_1)^T = W_1^T X_{pre}^T$$"
    assert kinds(LABELLED + true) == ["verified"]
    false = r"$$(X_{pre} W_1 W_2)^T = X_{pre}^T W_2^T W_1^T$$"
    assert kinds(LABELLED + false) == ["shape-error"]


def test_an_entry_is_not_a_labelled_name():
    # two index letters below a declared capital stay an entry (a scalar)
    text = r"Let $A \in \mathbb{R}^{n \times n}$." + "\n\n" + "$$A_{ij} = A_{ij}$$"
    assert kinds(text) == ["verified"]


# ---- names labelled by several capitals (`W^{DKV}`, `W_{KV}^D`) -------------------------------

LATENT = (
    r"Let $X \in \mathbb{R}^{n \times d}$, $W^{DKV} \in \mathbb{R}^{d \times d_c}$, "
    r"$W^{UK} \in \mathbb{R}^{d_c \times d_k}$ and $W_{KV}^D \in \mathbb{R}^{d \times d_c}$."
    + "\n\n"
)


def test_capitals_in_a_superscript_or_subscript_label_a_matrix():
    assert sum(m.startswith("declares W") for m in declarations(LATENT)) == 3
    assert kinds(LATENT + r"$$X W^{DKV} W^{UK} \in \mathbb{R}^{n \times d_k}$$") == ["verified"]
    assert kinds(LATENT + r"$$X W_{KV}^D W^{UK} \in \mathbb{R}^{n \times d_k}$$") == ["verified"]
    # the declared shapes still decide: W^{UK} cannot come first
    assert kinds(LATENT + r"$$X W^{UK} W^{DKV} \in \mathbb{R}^{n \times d_k}$$") == ["shape-error"]


def test_two_labels_are_two_matrices():
    same = r"$$(X W^{DKV})^T = (W^{DKV})^T X^T$$"
    assert kinds(LATENT + same) == ["verified"]
    # W^{DKV} and W^D_{KV} are two names: the sides differ
    assert kinds(LATENT + r"$$X W^{DKV} = X W_{KV}^D$$") == ["false"]


def test_undeclared_labelled_matrices_get_inferred_shapes():
    text = r"Let $X \in \mathbb{R}^{n \times d}$." + "\n\n" + "$$C = X W^{DKV}$$\n\n"
    (r,) = results(text + r"$$(X W^{DKV})^T = (W^{DKV})^T X^T$$")
    assert r.kind == "verified" and "W^{DKV}: d × cols(C) inferred" in r.message


def test_a_product_of_a_capital_and_a_number_is_still_a_power():
    text = r"Let $A \in \mathbb{R}^{n \times n}$." + "\n\n"
    assert kinds(text + r"$$A^{2} A = A A^{2}$$") in (["verified"], ["not-understood"])


def test_parentheses_around_a_shape_are_no_part_of_a_dim():
    text = r"Let $X \in \mathbb{R}^{n \times d}$, $W^{DQ} \in \mathbb{R}^{(d \times r)}$." + "\n\n"
    assert any("declares W^{DQ} as d × r" in m for m in declarations(text))
    assert kinds(text + r"$$X W^{DQ} \in \mathbb{R}^{(n \times r)}$$") == ["verified"]
    assert kinds(text + r"$$X W^{DQ} \in \mathbb{R}^{(n \times d)}$$") == ["shape-error"]


# ---- a recurrence and its base case, in either order -------------------------------------------


def test_a_recurrence_with_its_base_case_before_is_read():
    text = SIZES + "$$H_0 = X$$\n\n$$H_t = H_{t-1} W$$\n\n"
    assert kinds(text + "$$H_2 = X W W$$") == ["verified"]
    assert kinds(text + "$$H_2 = X W$$") == ["false"]


def test_a_base_case_after_the_recurrence_fixes_its_open_size():
    text = SIZES + "$$H_t = H_{t-1} W$$\n\n$$H_0 = X$$\n\n"
    assert kinds(text + "$$H_2 = X W W$$") == ["verified"]
    assert kinds(text + "$$H_2 = X W$$") == ["false"]
    assert kinds(text + r"$$H_2 \in \mathbb{R}^{n \times d}$$") == ["verified"]


def test_a_base_case_against_the_fixed_size_is_a_shape_error():
    text = SIZES + "$$H_t = H_{t-1} W$$\n\n" + "$$H_0 = X^T$$"
    # X^T has n columns where the step fixes d: an error whatever the open rows are
    (r,) = results(text)
    assert r.kind == "shape-error" and "has d columns" in r.message, r.message
    assert kinds(SIZES + "$$H_t = H_{t-1} W$$\n\n" + "$$H_0 = X W$$") == []
