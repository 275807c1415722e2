"""Adversarial cases: a reader that reads more must not multiply false verdicts, and the
messages of small defects say what went wrong in the user's notation."""

from __future__ import annotations

import pytest

from symattn.check import check_text


def kinds(text: str) -> list[tuple[str, str]]:
    return [(r.kind, r.message) for r in check_text(text, "a.md")]


# ---- a worked example whose shapes are not the chapter's -----------------------------------


def test_grouped_keys_do_not_make_the_query_projection_a_shape_error():
    # the chapter's W_Q and W_K share d_k; a text with fewer key heads does not
    text = (
        "The keys use $W_K \\in \\mathbb{R}^{512 \\times 128}$ and the queries "
        "$W_Q \\in \\mathbb{R}^{512 \\times 512}$.\n\n"
        "With $X \\in \\mathbb{R}^{L \\times 512}$ we get "
        "$X W_Q \\in \\mathbb{R}^{L \\times 512}$, $X W_K \\in \\mathbb{R}^{L \\times 128}$ "
        "and not $X W_K \\in \\mathbb{R}^{L \\times 512}$.\n"
    )
    got = kinds(text)
    assert [k for k, _ in got] == [
        "declaration",
        "declaration",
        "declaration",
        "verified",
        "verified",
        "shape-error",
    ], got
    assert "not the chapter's d × d_k" in got[1][1] and "read from W_K" in got[1][1]
    assert "L for the chapter's n" in got[2][1]


def test_a_size_the_text_gave_still_pins_a_conventional_shape():
    # n = 5 is the text's own value: a 7-row Q in the same example stays a shape error
    got = kinds("$n=5$ and $Q\\in\\mathbb R^{7\\times64}$\n")
    assert got[1][0] == "shape-error" and "needs n = 7, but n = 5" in got[1][1]


# ---- a name that is both a size and Euler's e ----------------------------------------------


def test_e_as_a_size_and_as_eulers_number():
    head = "Here $X \\in \\mathbb{R}^{n\\times e}$ and $e = 16$.\n\n"
    true = "$\\operatorname{softmax}(S)_{ij} = \\frac{e^{S_{ij}}}{\\sum_{k=1}^{n} e^{S_{ik}}}$\n"
    false = "$\\operatorname{softmax}(S)_{ij} = \\frac{e^{S_{ij}}}{\\sum_{k=1}^{n} e^{S_{kj}}}$\n"
    assert kinds(head + true)[-1][0] == "verified"
    assert kinds(head + false)[-1][0] == "false"
    # with a number for an exponent, e is the size
    assert kinds(head + "$e^2 = 256$\n")[-1][0] == "verified"
    assert kinds(head + "$e^2 = 265$\n")[-1][0] == "false"


def test_an_entry_as_the_power_of_a_size_is_no_internal_error():
    got = kinds("$X \\in \\mathbb{R}^{n\\times e}$ and $n^{X_{ij}} = \\exp(X_{ij})$\n")
    assert got[-1][0] == "not-understood" and "raised to an entry's power" in got[-1][1]
    got = kinds("$X \\in \\mathbb{R}^{n\\times e}$ and $e^{X_{ij}} = \\exp(X_{ij})$\n")
    assert got[-1][0] == "verified"


# ---- messages -------------------------------------------------------------------------------


def test_division_by_zero_says_so():
    (r,) = check_text("$\\frac{1}{0}=1$", "z.md")
    assert r.kind == "shape-error" and r.message == "division by zero: 1/0"
    assert "zoo" not in r.message
    (r,) = check_text("$\\frac{6}{3}=2$", "z.md")
    assert r.kind == "verified"


def test_a_second_value_for_a_size_is_said():
    got = kinds("Let $n=3$ and $n=4$.\n")
    assert "a second value: n = 3 before" in got[1][1]
    got = kinds("Let $n=3$ and $n=3$.\n")
    assert "second value" not in got[1][1]
    got = kinds("Let $m=3$ and $m=4$.\n")
    assert "m = 3 at line 1: two values for m" in got[1][1]


def test_undecided_is_not_said_twice():
    got = check_text("Take $d = n_h d_h = 4096$.\n", "u.md")
    assert any(r.kind == "undecided" for r in got)
    assert not any(r.message.startswith("undecided: ") for r in got if r.kind == "undecided")


def test_an_inequality_between_free_sizes_is_not_verified():
    text = "Let $K \\in \\mathbb{R}^{m \\times d_k}$. In general $m \\ne n$.\n"
    assert kinds(text)[-1][0] == "undecided"
    assert kinds("$n^2 \\ne n$")[-1][0] == "undecided"  # equal at n = 1
    assert kinds("$2n \\ne n$")[-1][0] == "verified"  # never equal
    assert kinds("$2n \\ne 2n$")[-1][0] == "false"


# ---- a condition holds for its sentence -----------------------------------------------------

_CROSS = (
    "Let $Q \\in \\mathbb{R}^{n \\times d_k}$, $K \\in \\mathbb{R}^{m \\times d_k}$ and "
    "$V \\in \\mathbb{R}^{m \\times d_v}$.\n\n"
)


def test_a_condition_with_when_or_if_does_not_verify_later_sentences():
    text = _CROSS + (
        "- When $d_k = d_v$, the product is defined: $QV^T \\in \\mathbb{R}^{n \\times m}$.\n"
        "- If $n = m$, the scores are square: $QK^T \\in \\mathbb{R}^{n \\times n}$.\n"
        "- In general $\\mathrm{softmax}(QK^T)V \\in \\mathbb{R}^{m \\times d_v}$.\n"
        "- And $\\mathrm{softmax}(QK^T)V \\in \\mathbb{R}^{n \\times d_v}$.\n"
    )
    got = [k for k, _ in kinds(text)]
    want = ["declaration", "verified", "declaration", "verified", "undecided", "verified"]
    assert got[3:] == want


def test_a_condition_in_chinese_holds_for_its_sentence():
    text = _CROSS + (
        "当 $d_k = d_v$ 时，$K^T V \\in \\mathbb{R}^{d_k \\times d_k}$。"
        "此外 $V^T V \\in \\mathbb{R}^{d_k \\times d_k}$。\n"
    )
    got = kinds(text)
    assert got[4][0] == "verified" and got[5][0] == "undecided", got


# ---- an approximation is a rounding or a cut, not any number within one unit ---------------


def test_an_approximation_off_the_rounding_is_not_verified():
    assert kinds("$\\frac{1}{3} \\approx 0.33$")[0][0] == "verified"  # rounded
    assert kinds("$e^{1} \\approx 2.71$")[0][0] == "verified"  # cut
    got = kinds("$\\frac{1}{3} \\approx 0.4$")  # within 0.1, but 1/3 is 0.3 at that digit
    assert got[0][0] == "undecided" and "neither the value rounded nor cut" in got[0][1]
    assert kinds("$\\sqrt{2} \\approx 1.5$")[0][0] == "undecided"
    assert kinds("$\\sqrt{2} \\approx 1.7$")[0][0] == "false"


# ---- a number in a shape claim against a size without a value here --------------------------


def test_a_shape_with_a_size_given_in_an_earlier_example_is_not_an_error():
    text = (
        "Take $Z^{(h)} \\in \\mathbb{R}^{n \\times d_v}$; one head has $d_v = 64$.\n\n"
        "## Heads\n\n"
        "With $H = 8$, "
        "$\\mathrm{Concat}(Z^{(1)}, \\ldots, Z^{(H)}) \\in \\mathbb{R}^{n \\times 512}$ "
        "and not $\\mathrm{Concat}(Z^{(1)}, \\ldots, Z^{(H)}) \\in \\mathbb{R}^{n \\times 500}$.\n"
    )
    got = kinds(text)
    assert got[-2][0] == "undecided" and "only if d_v = 64" in got[-2][1], got
    assert got[-1][0] == "shape-error"  # 8 d_v = 500 has no whole solution
    # a row against a column stays a shape error
    text = "Let $q \\in \\mathbb{R}^{1 \\times d}$. Then $q^T \\in \\mathbb{R}^{1 \\times d}$.\n"
    assert kinds(text)[-1][0] == "shape-error"


# ---- a sentence that speaks of a mask, about a matrix defined without one -------------------


def test_a_mask_in_the_words_makes_a_false_about_an_unmasked_softmax_undecided():
    head = "Let $Q, K \\in \\mathbb{R}^{n \\times d}$ and $A = \\mathrm{softmax}(QK^T)$.\n\n"
    got = kinds(head + "With a causal mask, $A_{ij} = 0$ for $j > i$.\n")
    assert got[-2][0] == "undecided" and "without a mask" in got[-2][1], got
    # without the words it is false (A has no mask); with them even a slip is undecided
    assert kinds(head + "Then $A_{ij} = 0$ for $j > i$.\n")[-2][0] == "false"
    assert kinds(head + "With a causal mask, $\\sum_{j=1}^{n} A_{ij} = 2$.\n")[-1][0] == "undecided"
    assert (
        kinds(head + "Each row sums to one, $\\sum_{j=1}^{n} A_{ij} = 1$.\n")[-1][0] == "verified"
    )


def test_a_premise_after_a_formula_or_after_for_does_not_make_later_claims_errors():
    text = _CROSS + (
        "We get $QV^T \\in \\mathbb{R}^{n \\times m}$ when $d_k = d_v$. "
        "Then $K^T V \\in \\mathbb{R}^{d_k \\times d_k}$.\n\n"
        "For $n = m$ the scores are square, $QK^T \\in \\mathbb{R}^{n \\times n}$. "
        "Also $K Q^T \\in \\mathbb{R}^{m \\times m}$.\n"
    )
    got = [k for k, _ in kinds(text)]
    want = ["verified", "declaration", "undecided", "declaration", "verified", "undecided"]
    assert got[3:] == want


# ---- a known function of matrices is no new function the text defines ------------------------


def test_a_trace_identity_is_a_claim_not_the_definition_of_a_function_tr():
    decl = "Let $A \\in \\mathbb{R}^{n\\times m}$ and $B \\in \\mathbb{R}^{m\\times n}$.\n\n"
    for claim, kind in (
        # A is n x m: its trace is no value
        ("\\operatorname{tr}(AB)=\\operatorname{tr}(A)\\operatorname{tr}(B)", "shape-error"),
        ("\\operatorname{tr}(AB)=\\operatorname{tr}(BA)", "verified"),
    ):
        got = kinds(decl + f"$${claim}$$\n")
        assert got[-1][0] == kind, got
        assert not any("defines the function" in m for _, m in got), got
    # a function of the text's own, with its parameter, is still its definition
    got = kinds("$$f(x)=x^2+1$$\n\nThen $$f(x)-1=x^2$$\n")
    assert "defines the function" in got[0][1], got


@pytest.mark.parametrize(
    ("claim", "kind"),
    [
        (r"\max(3, 5) = 5", "verified"),
        (r"\max(3, 5) = 3", "false"),
        (r"\min(768, 64) = 64", "verified"),
        (r"\lfloor 512/2 \rfloor - 1 = 255", "verified"),
        (r"\lfloor 513/2 \rfloor = 257", "false"),
        (r"\lceil 1000/64 \rceil = 16", "verified"),
        (r"\lceil 1000/64 \rceil = 15", "false"),
    ],
)
def test_max_min_floor_and_ceiling_of_numbers_are_claims(claim, kind):
    # they were read as definitions of new functions named max, min, lceil
    got = kinds(f"$${claim}$$\n")
    assert [k for k, _ in got] == [kind], got
