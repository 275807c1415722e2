"""Context: a condition qualifies only the claim it follows; a size relation after
"when" qualifies only its claim; hypotheses (suppose / assume / 假设) are premises of the claims
of their section (relations, substitutions) and never make a claim false; a redefinition
updates what follows. Each rule with a true and a false variant."""

from __future__ import annotations

import pytest

from symattn.check import check_text

MASKED = "# A\n\n$$A=\\operatorname{softmax}(\\operatorname{mask}(QK^T/\\sqrt{d_k}))$$\n\n"


def results(text: str):
    return [r for r in check_text(text, "p.md") if r.kind != "not-a-claim"]


def test_a_condition_after_a_claim_does_not_leak_to_later_claims():
    rs = results(MASKED + "$a_{ij}=0$ for $j>i$.\n\n$$a_{ij}=0$$\n")
    assert [r.kind for r in rs] == ["verified", "verified", "declaration", "false"]


CONCAT = "$$X+\\operatorname{Concat}(Z^{(1)},\\ldots,Z^{(H)})$$"


def test_when_qualifies_only_the_claim_before_it():
    rs = results(f"# B\n\n{CONCAT} when $Hd_v=d$.\n\n{CONCAT}\n")
    # the later display is not read under the condition; that it fails only without it is
    # said, not called an error of the text
    assert [r.kind for r in rs] == ["declaration", "undecided"]
    assert "a premise of the formula before it only" in rs[0].message
    assert rs[1].line == 5 and "not assumed" in rs[1].message


def test_without_when_the_display_is_a_shape_error():
    rs = results(f"# B\n\n{CONCAT}\n")
    assert [r.kind for r in rs] == ["shape-error"]


def test_a_relation_stated_plainly_still_holds_from_there_on():
    rs = results(f"# B\n\nWe take $Hd_v=d$.\n\n{CONCAT}\n")
    assert [r.kind for r in rs] == ["declaration"]


SUPPOSE = "# C\n\n{cue} $d_k = d_v$.\n\n$$Q + V = {rhs}$$\n"


def test_a_supposed_size_relation_holds_in_its_section():
    rs = results(SUPPOSE.format(cue="Suppose", rhs="V + Q"))
    assert [r.kind for r in rs] == ["declaration", "verified"]
    assert "until the section ends" in rs[0].message
    wrong = results(SUPPOSE.format(cue="Suppose", rhs="V + V"))
    assert [r.kind for r in wrong] == ["declaration", "false"]


def test_a_supposed_relation_ends_with_its_section():
    text = "# C\n\nAssume $d_k = d_v$.\n\n$$Q + V = V + Q$$\n\n# D\n\n$$Q + V = V + Q$$\n"
    rs = results(text)
    assert [r.kind for r in rs] == ["declaration", "verified", "shape-error"]


HYP = "# E\n\nLet $d_k=d_v$. {cue} $\\mathbf k_i=\\mathbf v_i$ for all $i$. Then\n\n$${claim}$$\n"


def test_a_hypothesis_is_a_substitution_in_later_claims():
    for cue in ("Suppose", "Assume that", "假设"):
        rs = results(HYP.format(cue=cue, claim="(QK^T)_{ij} = q_i\\cdot v_j"))
        assert [r.kind for r in rs][-1] == "verified", (cue, rs[-1].message)
        assert "given \\mathbf k_i=\\mathbf v_i" in rs[-1].message


def test_a_wrong_claim_under_a_hypothesis_is_still_false():
    rs = results(HYP.format(cue="Suppose", claim="(QK^T)_{ij} = q_j\\cdot v_i"))
    assert rs[-1].kind == "false"


def test_without_the_hypothesis_the_claim_is_false():
    text = "# E\n\nLet $d_k=d_v$.\n\n$$(QK^T)_{ij} = q_i\\cdot v_j$$\n"
    assert results(text)[-1].kind == "false"


def test_a_hypothesis_the_checker_cannot_use_makes_false_undecided():
    text = "# F\n\nSuppose $QK^T = VV^T$. Then\n\n$$QK^TX = VV^TX$$\n"
    r = results(text)[-1]
    assert r.kind == "undecided" and "supposes 'QK^T = VV^T'" in r.message
    true = "# F\n\nSuppose $QK^T = VV^T$. Then\n\n$$QK^TX = Q(K^TX)$$\n"
    assert results(true)[-1].kind == "verified"


def test_a_redefinition_updates_later_claims():
    text = (
        "# G\n\n$Q = XW_Q$ and $W'\\in\\mathbb R^{d\\times d_k}$.\n\n"
        "Now let $Q = XW'$.\n\n$$(QK^T)_{ij} = (XW'K^T)_{ij}$$\n"
    )
    rs = results(text)
    assert "redefines Q = XW'" in rs[2].message and rs[2].kind == "declaration"
    assert rs[-1].kind == "verified", rs[-1].message
    wrong = text.replace("(XW'K^T)_{ij}$$", "(XW_QK^T)_{ij}$$")
    assert results(wrong)[-1].kind == "false"


def test_without_let_a_second_definition_may_be_a_variant():
    # without a cue word, `Q = XW'` after `Q = XW_Q` either states an identity or gives Q
    # another value (texts that present variants do so): false, it is undecided, saying why
    text = "# G\n\n$Q = XW_Q$ and $W'\\in\\mathbb R^{d\\times d_k}$.\n\n$$Q = XW'$$\n"
    r = results(text)[-1]
    assert r.kind == "undecided" and "another value here (a variant)" in r.message
    same = "# G\n\n$Q = XW_Q$.\n\n$$Q^T = W_Q^TX^T$$\n"
    assert results(same)[-1].kind == "verified"


def test_a_relation_stated_before_a_hypothesis_outlives_the_section():
    text = (
        "# C\n\nWe take $d_k = d_v$. Suppose $d = H d_v$.\n\n$$Q + V = V + Q$$\n\n"
        "# D\n\n$$Q + V = V + Q$$\n\n$$X + \\operatorname{Concat}(Z^{(1)},\\ldots,Z^{(H)})$$\n"
    )
    rs = results(text)
    assert [r.kind for r in rs] == [
        "declaration",
        "declaration",
        "verified",
        "verified",
        "shape-error",
    ]


def test_a_substituted_name_with_a_definition_never_makes_false():
    text = (
        "# E\n\nLet $d_k=d_v$. $K = XW_K$. Suppose $\\mathbf k_i=\\mathbf v_i$ for all $i$. "
        "Then\n\n$$(QK^T)_{ij} = {rhs}$$\n"
    )
    r = results(text.replace("{rhs}", "q_j\\cdot v_i"))[-1]
    assert r.kind == "undecided" and "cannot use" in r.message
    assert results(text.replace("{rhs}", "q_i\\cdot v_j"))[-1].kind == "verified"


def test_an_unused_hypothesis_reaches_through_definitions():
    text = "# F\n\n$B = QK^T$. Suppose $QK^T = VV^T$. Then\n\n$$BX = VV^TX$$\n"
    assert results(text)[-1].kind == "undecided"
    other = "# F\n\n$B = QK^T$. Suppose $AS = SA$. Then\n\n$$BX = VV^TX$$\n"
    assert results(other)[-1].kind == "false"  # the hypothesis is not about B's names


def test_when_before_a_definition_reads_it_once():
    text = "# H\n\n$$(QK^T)_{ij}=q_i\\cdot k_j$$ when $S = QK^T$.\n"
    rs = results(text)
    assert rs[0].kind == "verified"
    assert rs[1].message.startswith(("definition of S", "defines S")), rs[1].message


# ---- conditions in words: a sentence that opens with if / suppose / set / omitting ----------

SCORE = (
    "# I\n\n$$A=\\operatorname{softmax}(QK^T/\\sqrt{d_k})$$\n\n"
    "{lead} we can write the score as:\n\n$$a_{{ij}} = {rhs}$$\n"
)


def score(lead: str, rhs: str = "q_i\\cdot k_j") -> str:
    return SCORE.replace("{lead}", lead).replace("{{", "{").replace("}}", "}").replace("{rhs}", rhs)


def test_a_condition_in_words_makes_false_undecided():
    r = results(score("If we drop the normalization and the scaling,"))[-1]
    assert r.kind == "undecided" and "supposes 'If we drop the normalization" in r.message


def test_a_condition_in_words_keeps_verified():
    rhs = "\\operatorname{softmax}(QK^T/\\sqrt{d_k})_{ij}"
    assert results(score("If we drop nothing,", rhs))[-1].kind == "verified"


def test_without_a_condition_in_words_false_stays_false():
    assert results(score("In the chapter's notation"))[-1].kind == "false"


OMITTED = (
    "# O\n\n$X, P \\in \\mathbb R^{n\\times d}$, $W \\in \\mathbb R^{d\\times d_k}$.\n\n"
    "{lead} we can write:\n\n$$(x_i + p_i)W (x_j W)^T = {rhs}$$\n"
)
ALGEBRA = "x_iWW^Tx_j^T + p_iWW^Tx_j^T"
DROPPED = "x_iWW^Tx_j^T"  # the p_i term left out
SWAPPED = "p_iWW^Tx_j^T + x_iWW^Tx_i^T"  # x_j written x_i
OMITS = "If omitting the scalar $1/\\sqrt{d_k}$ and the softmax,"


@pytest.mark.parametrize(
    ("lead", "rhs", "kind"),
    [
        # what is omitted is written in the sentence and is not in the claim: a step of algebra
        (OMITS, ALGEBRA, "verified"),
        (OMITS, SWAPPED, "false"),
        ("Ignoring the scale $\\sqrt{d_k}$,", "x_iWW^Tx_j^T + p_iWW^Tx_i^T", "false"),
        # what is omitted is in the claim, or only said in words: it may be an approximation
        ("If omitting the terms in $p_i$,", DROPPED, "undecided"),
        ("If omitting the cross terms,", DROPPED, "undecided"),
        ("If we drop the scaling,", DROPPED, "undecided"),
    ],
)
def test_an_omission_shields_only_the_claims_that_can_hold_what_it_omits(lead, rhs, kind):
    text = OMITTED.replace("{lead}", lead).replace("{rhs}", rhs)
    r = results(text)[-1]
    assert r.kind == kind, r.message


def test_set_in_a_list_item_is_a_condition_in_words():
    text = "# J\n\n- (c) Set $Q = K$ (so that $q_j = 2k_j$), to share keys.\n"
    r = results(text)[-1]
    assert r.kind == "undecided", r.message
    plain = "# J\n\n- (c) We have $Q = K$ and $q_j = 2k_j$.\n"
    assert results(plain)[-1].kind == "false"


def test_an_ill_typed_supposition_is_not_an_alarm():
    own = "# K\n\n$K\\in\\mathbb R^{n\\times d_k}$, $V\\in\\mathbb R^{n\\times d_v}$.\n\n"
    text = own + "Suppose that the keys are given and that $\\mathbf k_i = \\mathbf v_i$.\n"
    r = results(text)[-1]
    assert r.kind == "not-understood" and r.message.startswith("a supposition (")
    stated = own + "The keys are given and $\\mathbf k_i = \\mathbf v_i$.\n"
    assert results(stated)[-1].kind == "shape-error"


def test_keys_named_after_inputs_define_k():
    text = (
        "# L\n\nFor regression, $\\mathbf{k}_i = \\mathbf{x}_i$ are vectors.\n\n"
        "$$(KW_Q)_{ij} = (XW_Q)_{ij}$$\n"
    )
    rs = results(text)
    assert rs[0].kind == "declaration" and rs[0].message.startswith("defines K = X")
    assert rs[-1].kind == "verified", rs[-1].message
    # K declared without a value: `k_i = x_i` gives its rows a value, no identity to refute
    own = "# L\n\n$K\\in\\mathbb R^{n\\times d}$ and $\\mathbf{k}_i = \\mathbf{x}_i$.\n"
    assert results(own)[-1].kind == "undecided"


def test_an_if_hypothesis_is_not_a_substitution():
    # "if" may qualify what precedes it: never a substitution, so never verified by one
    r = results(HYP.format(cue="If", claim="(QK^T)_{ij} = q_i\\cdot v_j"))[-1]
    assert r.kind == "undecided" and "cannot use" in r.message
    true = results(HYP.format(cue="If", claim="(QK^T)_{ij} = q_i\\cdot k_j"))[-1]
    assert true.kind == "verified" and "given" not in true.message


def test_unsettled_vectors_in_a_not_equal_are_undecided():
    text = (
        "Let $\\mathbf Q, \\mathbf K\\in\\mathbb R^{L\\times d_k}$ and "
        "$\\mathbf q_i, \\mathbf k_i \\in \\mathbb R^{d_k}$.\n\n"
        "$$\\mathbf q_i \\ne \\mathbf k_i$$\n"
    )
    r = check_text(text, "n.md")[-1]
    assert r.kind == "undecided" and r.message.startswith("undecided (convention)")
    rows = check_text(text.replace("$.\n\n", "$ (row vectors).\n\n"), "n.md")[-1]
    assert rows.kind == "verified" and rows.status == "checked"


def test_a_redefinition_reaches_what_was_defined_from_it():
    text = (
        "# G\n\n$Q = XW_Q$, $A = \\operatorname{softmax}(QK^T/\\sqrt{d_k})$ and "
        "$W'\\in\\mathbb R^{d\\times d_k}$.\n\nNow let $Q = XW'$.\n\n"
        "$$A = \\operatorname{softmax}({rhs}K^T/\\sqrt{d_k})$$\n"
    )
    assert results(text.replace("{rhs}", "XW'"))[-1].kind == "verified"
    # the old value: false for the redefined Q, or A given another value (a variant)
    old = results(text.replace("{rhs}", "XW_Q"))[-1]
    assert old.kind == "undecided" and "a variant" in old.message


def test_without_loss_of_generality_is_not_a_condition():
    assert results(score("Without loss of generality"))[-1].kind == "false"


# ---- a supposed k_i = v_i makes the sizes equal too -----------------------------------------

SUPPOSED = (
    "# E\n\nLet $Q,K\\in\\mathbb R^{{n\\times d_k}}$ and $V\\in\\mathbb R^{{n\\times d_v}}$.\n\n"
    "{cue} $k_i=v_i$ for all $i$. Then $${claim}$$\n\n# F\n\n$$QK^T = QV^T$$\n"
)


@pytest.mark.parametrize("cue", ["Suppose", "Suppose that", "Assume", "假设"])
def test_a_supposed_k_equal_to_v_makes_d_k_equal_to_d_v(cue):
    rs = results(SUPPOSED.format(cue=cue, claim="QK^T = QV^T"))
    assert [r.kind for r in rs][-2:] == ["verified", "shape-error"], [r.message for r in rs]
    assert "given k_i=v_i" in rs[-2].message  # and it ends with its section
    wrong = results(SUPPOSED.format(cue=cue, claim="(QK^T)_{ij} = q_j\\cdot v_i"))
    assert wrong[-2].kind == "false" and wrong[-2].counterexample
    # d_v = d_k, not d_v = n: V's columns still are not n
    bad = results(SUPPOSED.format(cue=cue, claim="QK^T = QK^T + V"))
    assert bad[-2].kind == "shape-error"


DECLARED = "Let $X \\in \\mathbb{R}^{n \\times d}$ and $W \\in \\mathbb{R}^{d \\times d_v}$.\n\n"


@pytest.mark.parametrize(
    "words",
    [
        "This holds only if $d_k=d_v$.",
        "It is wrong unless $d_k=d_v$.",
        "这只在 $d_k=d_v$ 时成立。",
        "这是错的，除非 $d_k=d_v$。",
        "That is true if and only when $d_k=d_v$.",
    ],
)
def test_a_necessary_condition_in_words_is_never_assumed(words):
    rs = results(DECLARED + words + "\n\nSo $XW \\in \\mathbb{R}^{n \\times d_k}$.\n")
    relation = [r for r in rs if "d_k=d_v" in r.source]
    assert relation and "not assumed" in relation[0].message
    assert rs[-1].kind == "shape-error"


def test_a_relation_the_text_takes_holds_after_it():
    rs = results(DECLARED + "We take $d_k=d_v$.\n\nSo $XW \\in \\mathbb{R}^{n \\times d_k}$.\n")
    assert rs[-1].kind == "verified"


def test_an_html_comment_between_a_claim_and_its_condition_is_not_prose():
    rs = results(f"# B\n\n{CONCAT}<!-- note --> when $Hd_v=d$.\n\n{CONCAT}\n")
    assert [r.kind for r in rs] == ["declaration", "undecided"]
    assert "a premise of the formula before it only" in rs[0].message


def test_an_identity_named_as_a_condition_is_neither_used_nor_checked():
    text = (
        "Let $X \\in \\mathbb{R}^{n \\times d}$ and $W_Q, W_K \\in \\mathbb{R}^{d \\times d_k}$, "
        "$Q = XW_Q$, $K = XW_K$ and $S = QK^T$.\n\n"
        "只有当 $W_Q=W_K$ 时才有 $S^{\\top}=S$。\n\n"
        "In general $S^{\\top}=S$ fails.\n"
    )
    rs = results(text)
    cond = [r for r in rs if r.source == "W_Q=W_K"]
    assert cond and cond[0].kind == "declaration" and "not checked" in cond[0].message
    after = [r for r in rs if r.source == "S^{\\top}=S"]
    assert [r.kind for r in after] == ["undecided", "false"]
