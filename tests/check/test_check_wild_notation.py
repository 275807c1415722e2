"""The notation of texts written elsewhere: bare operator words, fonts around scripted names,
`\\mathop`, `\\underset`, `\\textcolor`, grouped digits, runs of alignment marks, vectors whose
rows or columns the text leaves open, and equations that define their left side.
Each rule has a true and a false use."""

from __future__ import annotations

import pytest

from symattn.check import check_text

ATT = r"\frac{QK^T}{\sqrt{d_k}}"
#: Q, K, V declared: a wrong scale is then an error of the text, not a size of its own
QKV = r"Let $Q, K \in \mathbb{R}^{n\times d_k}$ and $V \in \mathbb{R}^{n\times d_v}$." + "\n\n"


def results(text: str):  # type: ignore[no-untyped-def]
    return [r for r in check_text(text, "doc.md") if r.kind not in ("declaration", "not-a-claim")]


def claims(text: str) -> list[str]:
    return [r.kind for r in results(text)]


# ---- operators written as bare words -------------------------------------------------------


def test_bare_softmax_and_attention_are_the_operators():
    assert claims(f"$$attention(Q,K,V) = softmax({ATT})V$$") == ["verified"]
    wrong = f"$$attention(Q,K,V) = softmax({ATT.replace('d_k', 'd_v')})V$$"
    assert claims(QKV + wrong) == ["false"]
    # with Q, K, V never declared, a size under the root is the text's own name (`d`)...
    own = f"$$attention(Q,K,V) = softmax({ATT.replace('d_k', 'd')})V$$"
    (r,) = results(own)
    assert r.kind == "undecided" and "never declares" in r.message
    # ...but d_v, which the text never says is anything else, is the values' width
    (r,) = results(wrong)
    assert r.kind == "false" and "names the text never declares" in r.message


@pytest.mark.parametrize(
    ("words", "kind"),
    [
        # the text writes the key width and the value width apart: the scale is the wrong one
        ("where $d_k$ is the width of the keys and $d_v$ that of the values.", "false"),
        # it says what they are: the two may be one size
        ("where $d_k = d_v = 64$.", "undecided"),
        # d_v is the values' width and nothing says the keys have it too
        ("where $d_v$ is the width of the values.", "false"),
    ],
)
def test_a_scale_by_the_value_width_in_a_text_that_names_both_widths(words, kind):
    wrong = f"$$attention(Q,K,V) = softmax({ATT.replace('d_k', 'd_v')})V$$\n\n{words}\n"
    assert claims(wrong)[0] == kind
    right = f"$$attention(Q,K,V) = softmax({ATT})V$$\n\n{words}\n"
    assert claims(right)[0] == "verified"


def test_a_bare_word_inside_a_subscript_stays_letters():
    # `d_{model}` is a size with a worded subscript, never an operator
    assert claims(r"$$X \in \mathbb{R}^{n \times d_{model}}$$ so $XW \in \mathbb{R}^{n}$") != []


def test_the_text_own_unscaled_attention_is_not_a_false_alarm():
    (r,) = results("$$attention(Q,K,V) = softmax(QK^T)V$$")
    assert r.kind == "undecided" and "its own attention" in r.message
    # with a square root, it claims the scaled form and a wrong scale is false
    assert claims(QKV + r"$$attention(Q,K,V) = softmax(QK^T/\sqrt{d_v})V$$") == ["false"]


def test_mathop_and_underset_softmax():
    good = r"$$\mathop{Attention}(Q, K, V) = \underset{seq}{\mathop{softmax}}\Bigg(" + ATT
    assert claims(good + r"\Bigg)V$$") == ["verified"]
    assert claims(QKV + good.replace("{d_k}", "{d_v}") + r"\Bigg)V$$") == ["false"]


# ---- fonts around a name with its scripts ---------------------------------------------------


@pytest.mark.parametrize("font", ["mathbf", "boldsymbol"])
def test_a_font_around_a_scripted_vector(font):
    decl = rf"Let $\{font}{{x_t}} \in \mathbb{{R}}^{{d}}$ be a column vector"
    decl += r" and $W \in \mathbb{R}^{d\times d}$. "
    assert claims(decl + rf"Then $W\{font}{{x_t}} \in \mathbb{{R}}^{{d}}$.") == ["verified"]
    assert claims(decl + rf"Then $W\{font}{{x_t}} \in \mathbb{{R}}^{{d \times d}}$.") == [
        "shape-error"
    ]


def test_a_font_around_a_greek_name_with_a_script():
    decl = r"Let $\mathbf{\beta_t} \in \mathbb{R}^{d}$ be a column vector. "
    assert claims(decl + r"Then $\mathbf{\beta_t}^\top\mathbf{\beta_t} \in \mathbb{R}$.") == [
        "verified"
    ]
    assert claims(decl + r"Then $\mathbf{\beta_t}\mathbf{\beta_t}^\top \in \mathbb{R}$.") == [
        "not-understood"
    ]


def test_mathrm_around_a_worded_name_is_one_name():
    (r,) = check_text(r"$$\mathrm{head_i} = \mathrm{Attention}(Q, K, V)$$", "doc.md")
    assert r.kind == "declaration" and "head_i" in r.message


# ---- colours, digits and alignment marks ----------------------------------------------------


def test_textcolor_keeps_its_content():
    assert claims(r"$$\textcolor{red}{2} + 3 = 5$$") == ["verified"]
    assert claims(r"$$\textcolor{red}{2} + 3 = 6$$") == ["false"]


def test_thousands_separators_make_one_number():
    assert claims("$$2^{34} = 17,179,869,184$$") == ["verified"]
    assert claims("$$2^{34} = 17,179,869,185$$") == ["false"]
    assert claims("$$2^{34} = 17{,}179{,}869{,}184$$") == ["verified"]


def test_a_run_of_alignment_marks_sets_formulas_apart():
    body = r"\begin{aligned} &&2 + 2 = 4 &&&& 3 \cdot 3 = %s \end{aligned}"
    assert claims(f"$${body % '9'}$$") == ["verified", "verified"]
    assert claims(f"$${body % '8'}$$") == ["verified", "false"]


# ---- rows or columns the text leaves open ----------------------------------------------------


def test_rows_of_undeclared_matrices_are_read_both_ways():
    # the text never declares K or Q: k_j may be a row of K or the text's own column vector
    (r,) = results(r"$$\mathbf{k}_j^\top \mathbf{q}_t = \mathbf{q}_t^\top \mathbf{k}_j$$")
    assert r.kind == "undecided" and "rows or columns" in r.message
    # false either way: still false
    assert claims(r"$$\mathbf{k}_j^\top \mathbf{q}_t = 2\,\mathbf{q}_t^\top \mathbf{k}_j$$") in (
        ["false"],
        ["undecided"],
    )


def test_declared_matrices_keep_the_chapter_rows():
    decl = r"Let $Q, K \in \mathbb{R}^{n\times d_k}$. "
    assert claims(decl + r"$$(QK^T)_{ij} = q_i k_j^T$$") == ["verified"]
    assert claims(decl + r"$$(QK^T)_{ij} = q_j k_i^T$$") == ["false"]


# ---- an equation that gives its left side a value ----------------------------------------------


def test_a_row_equation_of_a_matrix_without_value_defines_it():
    decl = r"Let $O, V \in \mathbb{R}^{n\times d}$ and $A \in \mathbb{R}^{n\times n}$. "
    (r,) = results(decl + r"$$o_i = \sum_{j=1}^{n} a_{ij} v_j$$")
    assert r.kind == "undecided" and "definition of the rows of O" in r.message
    # with O defined, the same equation is a claim, and a wrong one is false
    defined = r"Let $V \in \mathbb{R}^{n\times d}$, $A \in \mathbb{R}^{n\times n}$, $O = AV$. "
    assert claims(defined + r"$$o_i = \sum_{j=1}^{n} a_{ij} v_j$$")[-1] == "verified"
    assert claims(defined + r"$$o_i = \sum_{j=1}^{n} a_{ji} v_j$$")[-1] == "false"


# ---- LaTeX environments, typed-out dots and middle dots ------------------------------------------


@pytest.mark.parametrize("env", ["equation", "equation*", "align", "align*", "gather"])
def test_math_environments_are_read(env):
    assert claims(rf"$$\begin{{{env}}} 2 + 2 = 4 \end{{{env}}}$$") == ["verified"]
    assert claims(rf"$$\begin{{{env}}} 2 + 2 = 5 \end{{{env}}}$$") == ["false"]


def test_align_columns_continue_in_their_own_column():
    body = r"\begin{align} 2 + 2 &= 4 & 3 &= 1 + 2 \\ &= %s & &= 0 + 3 \end{align}"
    # the second row continues each column: 4 = 1 + 3, not 1 + 2 = 1 + 3
    assert set(claims(f"$${body % '1 + 3'}$$")) == {"verified"}
    assert "false" in claims(f"$${body % '1 + 4'}$$")
    # the same environment standing alone, or starred: the scanner takes `\begin` off and says
    # which environment the body stands in
    for doc in (body, body.replace("{align}", "{align*}")):
        assert set(claims(doc % "1 + 3")) == {"verified"}, doc
        assert "false" in claims(doc % "1 + 4"), doc


def test_typed_out_dots_and_middle_dot():
    assert claims("$$3 · 3 = 9$$") == ["verified"]
    assert claims("$$3 · 3 = 6$$") == ["false"]
    (r,) = check_text("$$x = (x_1, x_2, x_3...x_n)$$", "doc.md")
    assert r.kind == "declaration"  # a list with an ellipsis: a sequence named, no claim


# ---- names the text never declares, read as numbers ----------------------------------------------


def test_undeclared_letters_in_a_scalar_claim_are_numbers():
    (r,) = results(r"$$3hk\frac{k}{h} = 3k^2$$")
    assert r.kind == "verified" and "read as real numbers" in r.message
    (r,) = results(r"$$3hk\frac{k}{h} = 3k^3$$")
    assert r.kind == "false" and r.counterexample


def test_a_false_identity_beyond_rational_functions_is_false_at_a_certified_point():
    # an identity between functions of its names, false at positive integers (so for
    # positions too), certified by interval arithmetic
    (r,) = results(r"$$\sin(a+b) = \sin(a)\cos(b) - \cos(a)\sin(b)$$")
    assert r.kind == "false" and "a=1" in (r.counterexample or "")
    # a name on one side only is an unknown or a condition, not an identity: never false
    (r,) = results(r"$$\cos\theta = 1$$")
    assert r.kind == "undecided"
    # subscripted names may hide a relation (omega_i depends on i): never false
    (r,) = results(r"$$\omega_i p = \omega_i + p$$")
    assert r.kind == "undecided"


def test_a_trig_identity_is_not_a_definition_of_sin():
    (r,) = check_text(r"$$\sin(a+b) = \sin(a)\cos(b) + \cos(a)\sin(b)$$", "doc.md")
    assert r.kind != "declaration"
    assert "defines" not in r.message


def test_a_letter_next_to_a_matrix_is_not_read_as_a_number():
    # q_i is a row (of the chapter's Q): `x` may be anything, so nothing is decided
    assert claims(r"$$q_i = q_i + \tanh(x)$$") == ["undecided"]


def test_letters_applied_or_transposed_are_not_numbers():
    # `f(x+y) = f(x) + f(y)` is about a function f, never f times x + y
    assert claims(r"$$f(x+y) = f(x) + f(y)$$") != ["verified"]
    # a transpose marks vectors: p_m^T p_n is not a product of numbers
    assert claims(r"$$p_m^T p_n = p_n^T p_m$$") != ["verified"]


def test_trig_identities_are_checked():
    assert claims(r"$$2\cos a \cos b = \cos(a+b) + \cos(a-b)$$") == ["verified"]
    # false at m = n = theta = 1, certified by interval arithmetic
    assert claims(r"$$\cos m\theta \cos n\theta = \cos(m\theta + n\theta)$$") == ["false"]


# ---- notes under braces, words in capitals, sin and cos without parentheses --------------------


def test_underbrace_reads_what_is_under_it():
    assert claims(r"$$\underbrace{2 + 2}_{\text{four}} = 4$$") == ["verified"]
    assert claims(r"$$\underbrace{2 + 2}_{\text{four}} = 5$$") == ["false"]


def test_a_word_in_capitals_before_parentheses_is_a_function():
    (r,) = check_text(r"$$PE(pos, 2i) = \sin(pos/10000^{2i/d})$$", "doc.md")
    assert r.kind == "declaration" and "PE" in r.message
    # the chapter's matrices side by side stay a product, which must typecheck
    assert claims(r"$$QK(X) = 1$$") == ["shape-error"]


def test_sin_and_cos_without_parentheses_take_the_factors_after_them():
    assert claims(r"$$2\cos a \cos b = \cos(a+b) + \cos(a-b)$$") == ["verified"]
    assert claims(r"$$2\sin a \cos a = \sin(2a)$$") == ["verified"]
    assert claims(r"$$2\sin a \cos a = \sin(3a)$$") == ["false"]  # certified at a = 1


def test_a_word_in_capitals_with_an_index_is_a_name():
    (r,) = check_text(r"$$PE_{(pos,2i)} = \sin\left(\frac{pos}{10000^{2i/d}}\right)$$", "doc.md")
    assert r.kind == "declaration" and "PE_{(pos,2i)}" in r.message
    # the chapter's letters side by side stay a product: X times W_Q
    assert claims(r"Let $Q = XW_Q$. Then $$XW_Q = Q$$")[-1] == "verified"


def test_capitals_side_by_side_stay_a_product_before_a_script():
    text = r"and $Y\in\mathbb R^{n\times d}$, $W_o\in\mathbb R^{d\times d}$." + "\n\n"
    assert claims(text + r"$$Q = YW_oW_Q$$") == ["verified"]
    assert claims(text + r"$$Q = YW_o^TW_Q W_Q$$") == ["shape-error"]


def test_digits_in_a_subscript_or_a_list_are_never_joined():
    from symattn.reader.syntax.lexer import tokenize

    assert [t.value for t in tokenize("a_{1,234}")] == ["a", "_", "{", "1", ",", "234", "}"]
    assert [t.value for t in tokenize("f(1,234)")][2:5] == ["1", ",", "234"]


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        (r"\text{softmax}(z_i) = \frac{e^{z_i}}{\sum_{j=1}^{K} e^{z_j}}", "verified"),
        (r"\mathrm{softmax}(x_i) = \frac{\exp(x_i)}{\sum_j \exp(x_j)}", "verified"),
        # the sum's terms written with the free index: the softmax of a component stays unread
        (r"\text{softmax}(z_i) = \frac{e^{z_i}}{\sum_{j=1}^{K} e^{z_i}}", "not-verified"),
        (r"\text{softmax}(z_i) = \frac{e^{2 z_i}}{\sum_{j=1}^{K} e^{z_j}}", "not-verified"),
    ],
)
def test_the_softmax_written_of_a_component_is_that_component_of_the_softmax(formula, kind):
    (r,) = results(f"$${formula}$$")
    if kind == "verified":
        assert r.kind == "verified" and "component i of the softmax of the vector" in r.message
    else:
        assert r.kind != "verified", r.message


def test_a_function_named_by_a_word_in_capitals_is_the_text_s_own():
    # `\text{LN}` is layer norm, not the logarithm: its first equation defines it
    got = check_text("Then $\\text{LN}(x) = \\gamma x + \\beta$.\n", "doc.md")
    assert [r.kind for r in got] == ["declaration"], [r.message for r in got]
    assert "defines the function \\text{LN}(x)" in got[0].message
    assert claims("Then $\\ln(e^2) = 2$ and $\\ln(e^3) = 2$.\n") == ["verified", "false"]
