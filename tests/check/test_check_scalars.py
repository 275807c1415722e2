"""Scalar mathematics around attention: functions of real numbers (`\\sin`, `\\cos`, `\\tanh`,
`\\exp`, `e^{x}`, `\\log`, `\\max`), numbers written as in code (`*`, `17,179,869,184`), and
matrices of numbers written out. Each notation has a true and a false use."""

from __future__ import annotations

import time

import pytest
from claim_helpers import kinds, results

TRUE_AND_FALSE = [
    # trigonometric addition, functions written without parentheses
    (r"\sin(a+b) = \sin a\cos b + \cos a\sin b", r"\sin(a+b) = \sin a\cos b - \cos a\sin b"),
    (r"\cos(a+b) = \cos a \cos b - \sin a \sin b", r"\cos(a+b) = \cos a \cos b + \sin a \sin b"),
    # a power of a function
    (r"\sin^2 x = 1 - \cos^2 x", r"\sin^2 x = 1 + \cos^2 x"),
    # `\cos m\theta`: the product is the argument
    (r"\cos 2\theta = \cos^2\theta - \sin^2\theta", r"\cos 2\theta = \cos^2\theta + \sin^2\theta"),
    # Euler's number raised to a power, `\exp`, `\text{exp}`
    (r"e^{a}e^{b} = e^{a+b}", r"e^{a}e^{b} = e^{ab}"),
    (r"\exp(a)\exp(b) = \exp(a+b)", r"\exp(a)\exp(b) = \exp(a)+\exp(b)"),
    (
        r"\text{exp } w \cdot \text{exp } v = \text{exp}(w+v)",
        r"\text{exp } w \cdot \text{exp } v = \text{exp}(wv)",
    ),
    (r"\log(e^{a}) = a", r"\log(e^{a}) = 2a"),
    (
        r"\tanh(x) = \frac{e^{x}-e^{-x}}{e^{x}+e^{-x}}",
        r"\tanh(x) = \frac{e^{x}+e^{-x}}{e^{x}-e^{-x}}",
    ),
    (r"\max(a, b) + \min(a, b) = a + b", r"\max(a, b) - \min(a, b) = a - b"),
    # numbers: '*' as in code, grouped digits, \cdot between numbers
    (r"0.6 * 10 + 0.4 * 5 + 0 * 2 = 8", r"0.6 * 10 + 0.4 * 5 + 0 * 2 = 9"),
    (r"2^{34} = 17,179,869,184", r"2^{34} = 17,179,869,185"),
    (r"0.6 \cdot 10 = 6", r"0.6 \cdot 10 = 7"),
    # a rotation written out, times a vector written out
    (
        r"\begin{pmatrix}\cos m\theta & -\sin m\theta \\ \sin m\theta & \cos m\theta"
        r"\end{pmatrix}\begin{pmatrix} a \\ b\end{pmatrix} = \begin{pmatrix} a\cos m\theta"
        r" - b\sin m\theta \\ a\sin m\theta + b\cos m\theta\end{pmatrix}",
        r"\begin{pmatrix}\cos m\theta & -\sin m\theta \\ \sin m\theta & \cos m\theta"
        r"\end{pmatrix}\begin{pmatrix} a \\ b\end{pmatrix} = \begin{pmatrix} a\cos m\theta"
        r" + b\sin m\theta \\ a\sin m\theta + b\cos m\theta\end{pmatrix}",
    ),
    (
        r"\begin{bmatrix} \cos(\delta \omega) & \sin(\delta \omega) \\ -\sin(\delta \omega) &"
        r" \cos(\delta \omega) \end{bmatrix} \begin{bmatrix} \sin(p \omega) \\ \cos(p\omega)"
        r" \end{bmatrix} = \begin{bmatrix} \sin((p+\delta)\omega) \\ \cos((p+\delta)\omega)"
        r" \end{bmatrix}",
        r"\begin{bmatrix} \cos(\delta \omega) & \sin(\delta \omega) \\ \sin(\delta \omega) &"
        r" \cos(\delta \omega) \end{bmatrix} \begin{bmatrix} \sin(p \omega) \\ \cos(p\omega)"
        r" \end{bmatrix} = \begin{bmatrix} \sin((p+\delta)\omega) \\ \cos((p+\delta)\omega)"
        r" \end{bmatrix}",
    ),
    # a family member's number times a group, beside the same number times p
    (
        r"\sin(\omega_i(p + k)) = \sin(\omega_i p)\cos(\omega_i k)"
        r" + \cos(\omega_i p)\sin(\omega_i k)",
        r"\sin(\omega_i(p + k)) = \sin(\omega_i p)\cos(\omega_i k)"
        r" - \cos(\omega_i p)\sin(\omega_i k)",
    ),
]


@pytest.mark.parametrize(("true", "false"), TRUE_AND_FALSE)
def test_each_notation_has_a_true_and_a_false_use(true, false):
    assert kinds(f"$${true}$$") == ["verified"], true
    (r,) = results(f"$${false}$$")
    assert r.kind == "false", (false, r.message)
    assert r.counterexample, false


def test_the_verdict_says_which_names_are_read_as_numbers_and_where_defined():
    (r,) = results(r"$$\tan(x)^{2} + 1 = \frac{1}{\cos(x)^{2}}$$")
    assert r.kind == "verified"
    assert "x read as real numbers" in r.message and "where both sides are defined" in r.message


def test_a_counterexample_shows_its_values():
    (r,) = results(r"$$\sin(a+b) = \sin a\cos b - \cos a\sin b$$")
    assert "a=1, b=1" in (r.counterexample or "")
    assert "interval arithmetic" in (r.counterexample or "")


def test_true_for_positive_values_only_is_undecided_with_the_reason():
    (r,) = results(r"$$\log(xy) = \log x + \log y$$")
    assert r.kind == "undecided" and "positive x, y" in r.message
    (r,) = results(r"$$\sqrt{x^2} = x$$")
    assert r.kind == "undecided" and "positive x" in r.message


def test_a_function_followed_by_more_factors_reads_two_ways():
    # `\cos (m-n)\theta` is cos((m-n)θ) in the texts on rotary embeddings, cos(m-n)·θ by the
    # letter: decided only when both readings agree
    (r,) = results(r"$$\cos (m-n)\theta = \cos m\theta \cos n\theta + \sin m\theta \sin n\theta$$")
    assert r.kind == "undecided" and "reads two ways" in r.message
    (r,) = results(r"$$\cos (a)b = \cos (a) b$$")
    assert r.kind == "verified"


@pytest.mark.parametrize(
    "text",
    [
        r"$$u_2 = -\sin(\omega_i k)$$",  # a solution for the unknown u_2
        r"$$u_1\sin(\omega_i p) + v_1\cos(\omega_i p) = \cos(\omega_i k)\sin(\omega_i p)$$",
        r"$$\cos\theta = 1$$",  # a condition on theta
        r"$$value = 0.6 * 10 + 0.4 * 5$$",  # a word, not v·a·l·u·e
        r"$$\sin(\omega_i) = \sin(\omega_j)$$",  # members of one family may be equal
        r"$$f(x) = \sin(x) + 1$$",  # a function of the text's
    ],
)
def test_equations_that_solve_define_or_condition_are_never_false(text):
    assert "false" not in kinds(text), text


def test_a_star_between_matrices_is_not_read():
    text = r"Let $Q, K \in \mathbb{R}^{n\times n}$." + "\n\n$$Q * K = QK$$"
    (r,) = results(text)
    assert r.kind == "not-understood" and "'*'" in r.message


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        (r"$$10^{10^{10}} + x = x + 10^{10^{10}}$$", "not-understood"),
        (r"$$e^{e^{e^{e^{e^{x}}}}} = e^{e^{e^{e^{e^{x}}}}} + 1$$", "undecided"),
        (r"$$(x+y)^{400} = x^{400} + y^{400}$$", "false"),
        (
            "$$" + r"\sin(" * 40 + "x" + ")" * 40 + " = " + r"\sin(" * 40 + "x" + ")" * 40 + "$$",
            "verified",
        ),
    ],
)
def test_hostile_scalar_claims_are_answered_quickly(text, kind):
    start = time.process_time()
    (r,) = results(text)
    assert r.kind == kind, r.message
    assert time.process_time() - start < 20


def test_a_huge_number_is_named_in_the_message():
    (r,) = results(r"$$10^{10^{10}} = 1$$")
    assert "more than 10000 digits" in r.message


@pytest.mark.parametrize(
    ("true", "false"),
    [
        (
            r"\frac{e^{2}}{e^{1}+e^{2}+e^{3}} \approx 0.245",
            r"\frac{e^{2}}{e^{1}+e^{2}+e^{3}} \approx 0.35",
        ),
        (r"\frac{1}{\sqrt{8}} \approx 0.354", r"\frac{1}{\sqrt{8}} \approx 0.454"),
        (r"\pi \approx 3.14", r"\pi \approx 3.5"),
    ],
)
def test_an_approximation_between_numbers_holds_to_its_last_digit(true, false):
    (r,) = results(f"$${true}$$")
    assert r.kind == "verified" and "last digit" in r.message
    (r,) = results(f"$${false}$$")
    assert r.kind == "false" and "they differ by" in r.message


def test_a_coarse_rounding_or_an_open_name_is_not_an_error():
    # 0.26 for 0.2447: off by more than one unit of its last digit, but by less than 10%
    assert kinds(r"$$\frac{e^{2}}{e^{1}+e^{2}+e^{3}} \approx 0.26$$") == ["undecided"]
    assert kinds(r"$$2^{10} \approx 1000$$") == ["undecided"]
    assert kinds(r"$$a \approx 0.5$$") == ["undecided"]
