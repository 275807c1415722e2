"""`\\sum_i` without bounds: its range follows from the vectors it indexes, or it is refused."""

from __future__ import annotations

import pytest

from symattn.check import check_text

_PLAIN = "Let $u, w \\in \\mathbb{R}^m$.\n\n$${}$$\n"
_BOLD = "Let $\\mathbf{u}, \\mathbf{w} \\in \\mathbb{R}^m$.\n\n$${}$$\n"


def _claim(text: str):
    (r,) = [r for r in check_text(text, "u.md") if r.kind != "declaration"]
    return r


def test_unbounded_sum_over_declared_vectors_verifies_the_true_dot_product():
    r = _claim(_PLAIN.replace("{}", r"u^T w = \sum_i u_i w_i"))
    assert r.kind == "verified", r.message


def test_unbounded_sum_over_declared_vectors_refutes_a_wrong_dot_product():
    r = _claim(_PLAIN.replace("{}", r"u^T w = \sum_i u_i u_i"))
    assert r.kind == "false", r.message


def test_plain_entries_of_a_bold_vector_verify_the_true_dot_product():
    # `u_i` for an entry of a declared `\mathbf{u}` (the text has no plain u): read so, and
    # the verdict names the reading
    r = _claim(_BOLD.replace("{}", r"\mathbf{u}^T\mathbf{w} = \sum_i u_i w_i"))
    assert r.kind == "verified", r.message
    assert "u_i as an entry of the vector \\mathbf{u}" in r.message, r.message


@pytest.mark.parametrize("rhs", [r"\sum_i u_i u_i", r"2\sum_i u_i w_i", r"\sum_i u_i w_{i+1}"])
def test_plain_entries_of_a_bold_vector_never_accept_a_wrong_claim(rhs):
    # false on that reading; as the reading is a guess, undecided naming it, never an alarm
    r = _claim(_BOLD.replace("{}", rf"\mathbf{{u}}^T\mathbf{{w}} = {rhs}"))
    assert r.kind == "undecided", r.message
    assert "u_i as an entry of the vector" in r.message, r.message


_SHIFT = "Let $a \\in \\mathbb{R}^m$ and $b \\in \\mathbb{R}$.\n\n$${}$$\n"


def test_unbounded_sum_of_a_shifted_exponential_factors_out_the_shift():
    r = _claim(_SHIFT.replace("{}", r"\sum_i \exp(a_i + b) = \exp(b) \sum_i \exp(a_i)"))
    assert r.kind == "verified", r.message


def test_unbounded_sum_of_a_shifted_exponential_never_accepts_an_added_shift():
    # false for most b; b is a scalar of the text, so it is refuted or undecided, never verified
    r = _claim(_SHIFT.replace("{}", r"\sum_i \exp(a_i + b) = \exp(b) + \sum_i \exp(a_i)"))
    assert r.kind in ("false", "undecided"), r.message
    assert r.kind == "false" or "false if read as a claim" in r.message, r.message


def test_a_sum_without_an_index_is_refused_not_decided():
    # `\sum \exp(a)`: no letter says what runs, so nothing is decided about it.
    r = _claim(_SHIFT.replace("{}", r"\sum_i \exp(a_i + b) = \exp(b) \sum \exp(a)"))
    assert r.kind == "not-understood" and "index letter" in r.message, r.message
