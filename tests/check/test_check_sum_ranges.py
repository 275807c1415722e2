"""Sum ranges written in other ways: over two letters at once, over a written-out set of
integers, between two inequalities; a sum over a set the text names is refused by name."""

from __future__ import annotations

import pytest

from symattn.check import check_text

_TEXT = "Let $a, b \\in \\mathbb{R}^m$ and $G \\in \\mathbb{R}^{m \\times p}$.\n\n$${}$$\n"


def _claim(formula: str):
    (r,) = [r for r in check_text(_TEXT.replace("{}", formula), "s.md") if r.kind != "declaration"]
    return r


_FULL = r"\sum_{i=1}^{m}\sum_{j=1}^{p} G_{ij}"


@pytest.mark.parametrize("sub", ["kl", "k,l", "k, l"])
def test_a_sum_over_two_letters_is_the_double_sum(sub):
    r = _claim(rf"\sum_{{{sub}}} G_{{kl}} = {_FULL}")
    assert r.kind == "verified", r.message


@pytest.mark.parametrize("sub", ["kl", "k,l"])
def test_a_sum_over_two_letters_refutes_a_wrong_total(sub):
    r = _claim(rf"\sum_{{{sub}}} G_{{kl}} = \sum_{{i=1}}^{{m}}\sum_{{j=1}}^{{p-1}} G_{{ij}}")
    assert r.kind == "false", r.message


def test_two_letters_from_one_written_bound_share_both_bounds():
    lhs = r"\sum_{i,j=1}^{m} a_i b_j"
    assert _claim(rf"{lhs} = \sum_{{i=1}}^{{m}} a_i \sum_{{j=1}}^{{m}} b_j").kind == "verified"
    assert _claim(rf"{lhs} = \sum_{{i=1}}^{{m}} a_i b_i").kind == "false"


@pytest.mark.parametrize(
    "sub",
    [
        r"i \in \{1, \ldots, m\}",
        r"i \in \{1, 2, \ldots, m\}",
        r"i \in 1 \ldots m",
        r"i \in [1, \ldots, m]",
        r"i = 1, \ldots, m",
        r"1 \le i \le m",
        r"1 \leq i \leq m",
    ],
)
def test_a_range_written_as_a_set_or_between_inequalities_runs_from_1_to_m(sub):
    assert _claim(rf"a^T b = \sum_{{{sub}}} a_i b_i").kind == "verified"
    r = _claim(rf"a^T b = \sum_{{{sub}}} a_i a_i")
    assert r.kind == "false", r.message


def test_a_strict_inequality_leaves_out_its_end():
    assert _claim(r"a^T b = \sum_{0 \le i < m} a_{i+1} b_{i+1}").kind == "verified"
    assert _claim(r"a^T b = \sum_{1 \le i < m} a_i b_i").kind == "false"


def test_an_upper_bound_without_a_lower_one_is_read_from_1():
    # the bound written is the range, not the length the summand suggests
    assert _claim(r"\sum_{j}^{m} a_j = \sum_{j=1}^{m} a_j").kind == "verified"
    assert _claim(r"\sum_{j}^{m-1} a_j = \sum_{j=1}^{m} a_j").kind == "false"


def test_a_set_that_skips_is_not_read_as_a_run():
    r = _claim(r"a^T b = \sum_{i \in \{1, 3, \ldots, m\}} a_i b_i")
    assert r.kind == "not-understood", r.message
    assert "cannot read the set" in r.message


@pytest.mark.parametrize(("sub", "name"), [(r"x \in D", "D"), (r"x \in B_t", "B_..")])
def test_a_sum_over_a_named_set_is_refused_naming_it(sub, name):
    r = _claim(rf"L = \sum_{{{sub}}} a_1")
    assert r.kind == "not-understood", r.message
    assert f"\\sum_{{x \\in {name}}} runs over a set the text names" in r.message


def test_a_sum_over_all_but_one_letter_is_refused_with_what_it_leaves_out():
    r = _claim(r"L = \sum_{i \ne 1} a_i")
    assert r.kind == "not-understood", r.message
    assert "every i but one" in r.message


# ---- sums without bounds: the verdict names the range read --------------------------------


def test_an_unbounded_sum_over_a_matrix_axis_names_the_range_it_was_read_as():
    r = _claim(r"\sum_i G_{ij} = \sum_{i=1}^{m} G_{ij}")
    assert r.kind == "verified", r.message
    assert r"\sum_i read as i = 1..m, the size of every axis it indexes" in r.message
    r = _claim(r"\sum_i G_{ij} = \sum_{i=1}^{m-1} G_{ij}")
    assert r.kind == "false", r.message  # forced by G's rows: decided
    assert r"\sum_i read as i = 1..m" in r.message


def test_an_unbounded_sum_over_vectors_names_their_length():
    r = _claim(r"a^T b = \sum_i a_i b_i")
    assert r.kind == "verified" and r"\sum_i read as i = 1..m, the length of" in r.message


def test_a_false_claim_resting_on_the_conventional_range_of_a_letter_is_undecided():
    # nothing in the summand is indexed by j: the range is the chapter's convention (n
    # positions), which the text never states; true at that range, false at another
    r = _claim(r"\sum_j a_1 = n a_1")
    assert r.kind == "verified" and "the chapter's convention for j" in r.message, r.message
    r = _claim(r"\sum_j a_1 = m a_1")
    assert r.kind == "undecided", r.message
    assert r"\sum_j read as j = 1..n, the chapter's convention for j" in r.message
    assert "may mean another range" in r.message


def test_a_summand_of_no_index_is_undecided_not_false_when_the_range_is_a_convention():
    # `\sum_k e^{z_j}` (the index of the sum missing from its term): k's range is a guess
    formula = r"\mathrm{softmax}(\mathbf z)_j = \frac{e^{z_j}}{\sum_k e^{z_j}}"
    (r,) = [r for r in check_text(f"$${formula}$$\n", "s.md") if r.kind != "declaration"]
    assert r.kind == "undecided" and "the chapter's convention for k" in r.message, r.message


# ---- a lower bound only: the upper one is the end of what the letter indexes ---------------


def test_a_sum_from_a_lower_bound_runs_to_the_end_of_the_vectors():
    r = _claim(r"\sum_{j \ge 2} a_j = \sum_{j=2}^{m} a_j")
    assert r.kind == "verified" and r"\sum_j read as j up to m" in r.message, r.message
    assert _claim(r"\sum_{j > 1} a_j = \sum_{j=1}^{m} a_j").kind == "false"


_SQUARE = "Let $S \\in \\mathbb{R}^{m \\times m}$.\n\n$${}$$\n"


def _square(formula: str):
    results = check_text(_SQUARE.replace("{}", formula), "s.md")
    (r,) = [r for r in results if r.kind != "declaration"]
    return r


def test_a_sum_from_a_lower_bound_runs_to_the_end_of_the_axis_it_indexes():
    rhs = r"\sum_{j=i+1}^{m} S_{ij}"
    r = _square(rf"\sum_{{j > i}} S_{{ij}} = {rhs}")
    assert r.kind == "verified" and r"\sum_j read as j up to m" in r.message, r.message
    r = _square(rf"\sum_{{j \ge i}} S_{{ij}} = {rhs}")
    assert r.kind == "false", r.message


def test_a_lower_bound_over_nothing_indexed_still_needs_an_upper_bound():
    # no axis says where j stops, and a convention is not taken for the end of a written range
    r = _claim(r"\sum_{j=2} a_1 = a_1")
    assert r.kind == "not-understood" and "needs an upper bound" in r.message, r.message


def test_two_letters_over_one_set():
    lhs = r"\sum_{i,j \in [m]} a_i b_j"
    assert _claim(rf"{lhs} = \sum_{{i=1}}^{{m}} a_i \sum_{{j=1}}^{{m}} b_j").kind == "verified"
    assert _claim(rf"{lhs} = \sum_{{i=1}}^{{m}} a_i b_i").kind == "false"
    r = _claim(r"L = \sum_{i,j \in K} a_i b_j")
    assert r.kind == "not-understood" and r"\sum_{i \in K} runs over a set" in r.message


_RUNNING = "# R\n\nFor numbers $w_1, \\ldots, w_n$ and positions $i$ and $t$:\n\n$${}$$\n"
_COLUMN = "# R\n\nVectors are columns. Let $x \\in \\mathbb{R}^{n}$.\n\n$${}$$\n"


def _last(text: str, formula: str):
    return check_text(text.replace("{}", formula), "r.md")[-1]


def test_a_range_reversed_only_for_some_free_indices_is_no_shape_error():
    # i + 1 .. t runs upward where i <= t, as the text means; reversed only where t < i
    r = _last(_RUNNING, r"\sum_{j=i}^{t} w_j = w_i + \sum_{j=i+1}^{t} w_j")
    assert r.kind == "undecided" and "reversed where t < i" in r.message, r.message
    assert _last(_COLUMN, r"\sum_{j=1}^{n} x_j = x_1 + \sum_{j=2}^{n} x_j").kind == "verified"
    assert _last(_COLUMN, r"\sum_{j=1}^{n} x_j = \sum_{j=2}^{n} x_j").kind == "false"


def test_a_range_reversed_at_every_size_is_still_a_shape_error():
    r = _last(_COLUMN, r"\sum_{j=n+2}^{n} x_j = x_1")
    assert r.kind == "shape-error" and "reversed" in r.message, r.message
