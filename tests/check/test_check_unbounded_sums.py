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


@pytest.mark.parametrize("rhs", [r"\sum_i u_i w_i", r"\sum_i u_i u_i"])
def test_plain_entries_of_bold_vectors_are_never_an_alarm(rhs):
    # `u_i` for an entry of a declared `\mathbf{u}` is a convention the text does not state:
    # the sum's range is not known, so neither the true nor the wrong claim is decided.
    r = _claim(_BOLD.replace("{}", rf"\mathbf{{u}}^T\mathbf{{w}} = {rhs}"))
    assert r.kind not in ("false", "shape-error", "verified"), r.message
    assert "ranges over" in r.message
