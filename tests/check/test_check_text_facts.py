"""What a text states that is not an identity: counts at the sizes of a worked example that has
closed, equations that only particular sizes satisfy, properties of matrices the text gives no
value, and a matrix defined by cases in words ("otherwise", 否则, a condition before the case).
Each rule with the verdict it must keep (false stays false where no size or matrix saves it)."""

from __future__ import annotations

import pytest

from symattn.check import check_formula, check_text


def kinds(text: str) -> list[str]:
    return [
        r.kind for r in check_text(text, "t.md") if r.kind not in ("not-a-claim", "declaration")
    ]


def last(text: str):
    return [r for r in check_text(text, "t.md") if r.kind not in ("not-a-claim", "declaration")][-1]


EXAMPLE = "Take $d = 256$. The projection $W \\in \\mathbb{R}^{d \\times d}$ then has "


def test_a_count_after_a_symbolic_declaration_uses_the_example_values():
    r = last(EXAMPLE + "$d^2 = 65536$ entries.\n")
    assert r.kind == "verified" and "d = 256" in r.message and r.status == "checked"


def test_a_wrong_count_there_is_false_with_the_values_as_counterexample():
    r = last(EXAMPLE + "$d^2 = 65535$ entries.\n")
    assert r.kind == "false" and "d = 256" in (r.counterexample or "")


def test_an_equation_that_one_size_satisfies_is_undecided_without_its_value():
    r = last("A sequence has $n^2 = 1048576$ scores.\n")
    assert r.kind == "undecided" and "n = 1024" in r.message


@pytest.mark.parametrize("claim", ["d^2 = 65537", "n^2 = 2", "4d^2 = 131074"])
def test_an_equation_no_positive_size_satisfies_stays_false(claim):
    assert last(f"Here ${claim}$.\n").kind == "false"


def test_a_formula_on_its_own_is_an_identity_for_all_sizes():
    assert check_formula("d^2 = 65536", "W: d x d")[0].kind == "false"


DECLARED = "Let $S \\in \\mathbb{R}^{n\\times n}$ and $A \\in \\mathbb{R}^{n\\times n}$. "


def test_a_property_of_a_matrix_with_no_value_is_undecided():
    r = last(DECLARED + "Its rows sum to one, $\\sum_{j=1}^n A_{ij} = 1$.\n")
    assert r.kind == "undecided" and "property of A" in r.message


def test_a_claim_whose_value_does_not_depend_on_the_matrix_stays_false():
    r = last(DECLARED + "$\\sum_{j=1}^{n}\\operatorname{softmax}(S)_{ij}=(n-2)(n-3)+1$.\n")
    assert r.kind == "false"


def test_an_identity_between_matrices_with_no_value_stays_false():
    assert last(DECLARED + "$(S^T)_{ij} = S_{ij}$.\n").kind == "false"


def test_a_property_typed_to_prove_is_an_identity():
    assert check_formula("\\sum_{j=1}^n A_{ij} = 1", "A: n x n")[0].kind == "false"


@pytest.mark.parametrize(
    "cases",
    [
        "$M_{ij} = 0$ if $j \\le i$ and $M_{ij} = -\\infty$ otherwise.",
        "Set $M_{ij}=-\\infty$ if $j>i$, and $M_{ij}=0$ otherwise.",
        "当 $j>i$ 时 $M_{ij}=-\\infty$，否则 $M_{ij}=0$。",
    ],
)
def test_a_mask_defined_by_cases_in_words(cases):
    text = f"{DECLARED}{cases}\n\nThen $\\operatorname{{softmax}}(S+M)_{{ij}} = 0$ for $j > i$.\n"
    assert kinds(text)[-1] == "verified"


def test_a_declared_mask_defined_by_cases_in_words():
    text = (
        "Let $S, M \\in \\mathbb{R}^{n\\times n}$, with $M_{ij} = 0$ if $j \\le i$ and "
        "$M_{ij} = -\\infty$ otherwise.\n\n$P_{1j} = \\operatorname{softmax}(S)_{1j}$ fails, "
        "while $\\operatorname{softmax}(S+M)_{11} = 1$.\n"
    )
    assert kinds(text)[-1] == "verified"


def test_cases_that_are_not_the_causal_mask_are_not_read_as_it():
    text = (
        f"{DECLARED}$M_{{ij}} = 0$ if $j \\ge i$ and $M_{{ij}} = -\\infty$ otherwise.\n\n"
        "Then $\\operatorname{softmax}(S+M)_{ij} = 0$ for $j > i$.\n"
    )
    assert kinds(text)[-1] != "verified"


def masked(cases: str) -> str:
    return (
        "Let $Q,K \\in \\mathbb{R}^{n\\times d_k}$ and $M \\in \\mathbb{R}^{n\\times n}$ with "
        + cases
        + ". Let $A=\\operatorname{softmax}(QK^\\top/\\sqrt{d_k}+M)$.\n\n"
    )


@pytest.mark.parametrize(
    "cases, claim",
    [
        # a mask that keeps the diagonal and above
        ("$M_{ij}=0$ for $j\\ge i$ and $M_{ij}=-\\infty$ for $j<i$", "$A_{ij}=0$ for $j<i$"),
        # a sliding window: the condition of the first case is two relations
        ("$M_{ij}=0$ if $i-w<j\\le i$ and $M_{ij}=-\\infty$ otherwise", "$A_{ij}=0$ for $j>i$"),
        # entries by a formula of the indices, then the softmax written out
        (
            "$M_{ij}=-|i-j|$",
            "$A_{ij}=\\frac{\\exp(q_i\\cdot k_j/\\sqrt{d_k}-|i-j|)}"
            "{\\sum_{l=1}^{n}\\exp(q_i\\cdot k_l/\\sqrt{d_k}-|i-l|)}$",
        ),
    ],
)
def test_a_matrix_whose_entries_the_text_defines_is_not_taken_free_when_used_whole(cases, claim):
    # true claims about A = softmax(S + M): M is no free matrix, so no counterexample of one
    got = kinds(masked(cases) + f"Then {claim}.\n")
    assert got[-1] == "undecided", got


def test_a_mask_the_checker_does_not_read_keeps_no_verdict_for_every_real_matrix():
    # strictly below the diagonal: row 1 is masked out entirely (0/0), so a row sum of 1,
    # true for every real M, is not verified for this one
    strict = masked("$M_{ij}=0$ if $j<i$ and $M_{ij}=-\\infty$ otherwise")
    got = last(strict + "Then $\\sum_{j=1}^{n} A_{ij}=1$.\n")
    assert got.kind == "undecided" and "-∞" in got.message
    # a 0/1 mask has real entries: what holds for every real matrix holds for it
    ones = masked("$M_{ij}=1$ if $j<i$ and $M_{ij}=0$ otherwise")
    assert kinds(ones + "Then $\\sum_{j=1}^{n} A_{ij}=1$.\n")[-1] == "verified"
    assert kinds(ones + "Then $\\sum_{j=1}^{n} A_{ij}=2$.\n")[-1] != "verified"


def test_a_multiplicative_mask_defined_by_cases_is_an_entry_not_a_size():
    # `L_{ij}=1` of a declared L is a case of its definition, not a size L_{ij} bound to 1
    text = (
        "Let $A \\in \\mathbb{R}^{n\\times n}$ and $L \\in \\mathbb{R}^{n\\times n}$ with "
        "$L_{ij}=1$ if $j\\le i$ and $L_{ij}=0$ otherwise.\n\n"
    )
    assert "worked example" not in " ".join(r.message for r in check_text(text, "t.md"))
    assert kinds(text + "Then $(L\\odot A)_{ij}=0$ for $j>i$.\n")[-1] == "undecided"
    assert kinds(text + "Then $L\\odot A=A\\odot L$.\n")[-1] == "verified"
    assert kinds(text + "Then $L\\odot A=A\\odot L^\\top$.\n")[-1] != "verified"


@pytest.mark.parametrize(
    "cases", ["$W_{ij}=1$ for all $i, j$", "$W_{ij}=1$ if $j\\le i$ and $W_{ij}=0$ otherwise"]
)
def test_a_non_square_matrix_whose_entries_the_text_sets_is_defined_as_a_square_one(cases):
    # W is n × d: its entries set to numbers are cases of its definition, as for a square one
    text = f"Let $A, W \\in \\mathbb{{R}}^{{n\\times d}}$ with {cases}.\n\n"
    said = " ".join(r.message for r in check_text(text, "t.md"))
    assert "a case of the definition of W" in said and "worked example" not in said
    # true of this W, false of a free one: no counterexample of a W the text did not mean
    ones = last(text + "Then $W\\mathbf 1_d = d\\,\\mathbf 1_n$.\n")
    assert ones.kind == "undecided" and "defines the entries of W" in ones.message
    assert kinds(text + "Then $W\\odot A=A\\odot W$.\n")[-1] == "verified"
    assert kinds(text + "Then $W\\odot A=A\\odot W+W$.\n")[-1] == "undecided"
    assert kinds(text + "Then $W\\odot A=A\\odot W^\\top$.\n")[-1] == "shape-error"


@pytest.mark.parametrize("value", ["\\frac{1}{d}", "1/d", "-1", "\\frac{1}{\\sqrt{d}}"])
def test_entries_set_to_a_number_of_sizes_are_a_case_of_the_definition(value):
    # uniform weights W_{ij} = 1/d: rows summing to 1 is true of this W, false of a free one
    text = f"Let $X, W \\in \\mathbb{{R}}^{{n\\times d}}$ with $W_{{ij}} = {value}$.\n\n"
    said = " ".join(r.message for r in check_text(text, "t.md"))
    assert "a case of the definition of W" in said
    rows = last(text + "Then $W\\mathbf 1_d = \\mathbf 1_n$.\n")
    assert rows.kind == "undecided" and "defines the entries of W" in rows.message
    assert kinds(text + "Then $W\\odot X=X\\odot W$.\n")[-1] == "verified"
    assert kinds(text + "Then $W\\mathbf 1_n = \\mathbf 1_n$.\n")[-1] == "shape-error"


def test_a_non_square_matrix_is_never_the_causal_mask():
    text = (
        "Let $W \\in \\mathbb{R}^{n\\times d}$ with $W_{ij}=0$ if $j\\le i$ and "
        "$W_{ij}=-\\infty$ otherwise.\n\n"
    )
    said = " ".join(r.message for r in check_text(text, "t.md"))
    assert "causal mask" not in said and "a case of the definition of W" in said


def test_a_matrix_whose_entries_the_text_defines_keeps_the_verdicts_it_can_give():
    text = masked("$M_{ij}=-|i-j|$")
    # true for every M: verified; an entry the claim writes reads the definition
    assert kinds(text + "Then $\\sum_{j=1}^{n} A_{ij}=1$.\n")[-1] == "verified"
    assert kinds(text + "Then $M_{12}=1$.\n")[-1] == "false"
    assert kinds(text + "Then $M_{12}=-1$.\n")[-1] == "verified"
    # the causal mask is read as the mask: a wrong claim about it stays false
    causal = masked("$M_{ij}=0$ if $j\\le i$ and $M_{ij}=-\\infty$ otherwise")
    assert kinds(causal + "Then $A_{ij}=0$ for $j<i$.\n")[-1] == "false"
    assert kinds(causal + "Then $A_{ij}=0$ for $j>i$.\n")[-1] == "verified"


def test_a_condition_after_zai_qualifies_the_claim_before_it():
    mask = "当 $j>i$ 时 $M_{ij}=-\\infty$，否则 $M_{ij}=0$。\n\n"
    text = DECLARED + mask + "于是 $\\operatorname{softmax}(S+M)_{ij}=0$ 在 $j>i$ 的位置成立。\n"
    assert kinds(text)[-1] == "verified"


MAPS = (
    "Write $\\phi(Q), \\phi(K) \\in \\mathbb{R}^{n \\times r}$ and "
    "$V \\in \\mathbb{R}^{n \\times d_v}$. "
)


def test_the_text_gives_its_feature_map_a_width():
    rs = check_text(MAPS + "Then $\\phi(K)^\\top V \\in \\mathbb{R}^{r \\times d_v}$.\n", "t.md")
    assert [r.kind for r in rs][:2] == ["declaration", "declaration"]
    assert "r features" in rs[0].message
    assert rs[-1].kind == "verified"


def test_a_wrong_shape_with_that_width_is_not_verified():
    r = last(MAPS + "Then $\\phi(K)^\\top V \\in \\mathbb{R}^{n \\times d_v}$.\n")
    assert r.kind == "shape-error"


@pytest.mark.parametrize("claim", ["4d^2 + 4d^2 = 8d^2", "2d = d + d"])
def test_a_relation_between_sizes_that_always_holds_is_verified(claim):
    assert last(f"So ${claim}$.\n").kind == "verified"


def test_a_relation_that_follows_from_the_relations_in_force_is_verified():
    assert last("Let $d_v = d/H$. Then $Hd_v = d$.\n").kind == "verified"


def test_the_index_of_a_sum_is_its_own_in_the_summand():
    assert last("So $\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}$.\n").kind == "verified"
    assert last("So $\\sum_{i=1}^{n} i = \\frac{n(n-1)}{2}$.\n").kind == "false"


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Let $d_{model}=512$ and $h=8$, so $d_{model}/h=64$.\n", "verified"),
        ("Let $d_{model}=512$ and $h=8$, so $d_{model}/h=32$.\n", "false"),
        ("Let $d_{\\text{ff}}=2048$, so $d_{\\text{ff}}/4 = 512$.\n", "verified"),
        ("We use $g = 2$ groups and $d = 512$, so $d/g = 256$.\n", "verified"),
    ],
)
def test_sizes_named_by_a_word_or_a_dividing_letter_take_values(text, kind):
    assert last(text).kind == kind


def test_a_letter_the_text_uses_as_a_head_index_is_not_made_a_size():
    text = "Let $Z^{(h)} \\in \\mathbb{R}^{n \\times d_v}$ and $d/h = 64$; for $h = 2$ ...\n"
    results = check_text(text, "t.md")
    assert not any("worked example: h = 2" in r.message for r in results)


X_ = "Let $X \\in \\mathbb{R}^{n\\times d}$.\n\n"


@pytest.mark.parametrize(
    ("sentence", "kind"),
    [
        (
            "Also $(XA)B = X(AB)$ for any $A \\in \\mathbb{R}^{d \\times d}$ and "
            "$B \\in \\mathbb{R}^{d \\times t}$.",
            "verified",
        ),
        (
            "So $XC \\in \\mathbb{R}^{n\\times d_v}$ where $C \\in \\mathbb{R}^{d\\times d_v}$.",
            "verified",
        ),
        (
            "So $XC \\in \\mathbb{R}^{n\\times d}$ where $C \\in \\mathbb{R}^{d\\times d_v}$.",
            "shape-error",
        ),
        (
            "于是 $XC \\in \\mathbb{R}^{n\\times d_v}$，其中 $C \\in \\mathbb{R}^{d\\times d_v}$。",
            "verified",
        ),
    ],
)
def test_a_declaration_after_where_in_the_same_sentence_applies(sentence, kind):
    results = [r for r in check_text(X_ + sentence + "\n", "t.md") if r.kind != "declaration"]
    assert results[0].kind == kind


def test_a_declaration_in_the_next_sentence_does_not_apply_before_it():
    text = (
        X_ + "So $XC \\in \\mathbb{R}^{n\\times d_v}$. Where $C \\in \\mathbb{R}^{d\\times d_v}$.\n"
    )
    results = [r for r in check_text(text, "t.md") if r.kind != "declaration"]
    assert results[0].kind != "verified"


@pytest.mark.parametrize(("total", "kind"), [("1", "verified"), ("0", "false")])
def test_a_bounded_sum_of_a_softmax_gives_the_vector_its_length(total, kind):
    assert (
        last(
            f"Its entries add up: $\\sum_{{i=1}}^{{n}} \\mathrm{{softmax}}(x)_i = {total}$.\n"
        ).kind
        == kind
    )


ZH = "设 $d_{model}=512$，头数 $h=8$，则 $d_k=d_{model}/h=512/8=64$。\n\n"
LATER = "投影 $W \\in \\mathbb{R}^{d_{model}\\times d_k}$。共有 "


def test_a_chain_through_a_word_size_binds_each_size():
    rs = [r for r in check_text(ZH, "t.md") if r.kind not in ("declaration", "not-a-claim")]
    assert [r.kind for r in rs] == ["verified"] * 3


@pytest.mark.parametrize(
    ("count", "kind"),
    [
        ("3 h d_{model} d_k = 3 d_{model}^2", "verified"),
        ("3 h d_{model} d_k = 3 d_{model}^2 / h", "false"),
    ],
)
def test_a_product_of_sizes_after_the_example_closed_is_checked_at_its_values(count, kind):
    assert last(ZH + LATER + f"${count}$ 个参数。\n").kind == kind


def test_a_letter_divided_by_another_is_a_size_too():
    text = "若有 $h=8$ 个查询头而只有 $g=2$ 组键值头，则 $h/g=4$。\n"
    assert last(text).kind == "verified"


@pytest.mark.parametrize(
    ("right", "kind"),
    [("(x^{(1)}_m)^2 + (x^{(2)}_m)^2", "verified"), ("(x^{(1)}_m)^2", "undecided")],
)
def test_labelled_features_are_numbers_in_a_scalar_claim(right, kind):
    left = (
        "(x^{(1)}_m \\cos m\\theta - x^{(2)}_m \\sin m\\theta)^2"
        " + (x^{(2)}_m \\cos m\\theta + x^{(1)}_m \\sin m\\theta)^2"
    )
    assert last(f"Then ${left} = {right}$.\n").kind == kind


@pytest.mark.parametrize("bound", ["d_k+1", "d-1", "2d-1"])
def test_a_bound_off_a_size_gives_no_length_to_the_vectors(bound):
    assert last(f"So $q \\cdot k = \\sum_{{i=1}}^{{{bound}}} q_i k_i$.\n").kind == "undecided"
