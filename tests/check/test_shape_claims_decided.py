"""Claims about shapes are stated by the reader and decided by the checker, never by the reader.

The reader hands `status == "shape"` with the two shapes; `decide` proves or refuses them.
"""

from __future__ import annotations

import dataclasses

import pytest
import sympy

from symattn.check.document import resolve_text
from symattn.check.verdicts import decide
from symattn.kernel.dims import H, d, d_k, d_v, n
from symattn.reader.claims.resolved import shape_claim
from symattn.reader.syntax.scanner import scan

_SPAN = scan("$Q\\in\\mathbb R^{n\\times d_k}$", kind="md")[0]


@pytest.mark.parametrize(
    "text",
    [
        "$Q=XW_Q$",  # a definition whose sides have the declared shape
        "$QK^T\\in\\mathbb R^{n\\times n}$",
        "$q_i\\in\\mathbb R^{1\\times d_k}$",
        "$\\sqrt{d_k}\\in\\mathbb R$",
    ],
)
def test_the_reader_states_shape_claims_without_deciding_them(text):
    (claim,) = [c for c in resolve_text(text) if getattr(c, "status", None) != "prose"]
    assert claim.status == "shape"
    assert claim.shapes is not None
    assert decide(claim, text.splitlines()).kind == "verified"


def test_the_checker_refuses_shapes_that_differ():
    claim = shape_claim(_SPAN, 0, len(_SPAN.body), (n, d_k), (n, d_v), "Q is n × d_k")
    result = decide(claim, [_SPAN.body])
    assert result.kind == "shape-error"
    assert "n × d_k, not n × d_v" in result.message


def test_the_checker_decides_under_the_sizes_in_force():
    claim = shape_claim(_SPAN, 0, len(_SPAN.body), (n, H * d_v), (n, d), "Z is n × d")
    assert decide(claim, [_SPAN.body]).kind == "shape-error"
    under = dataclasses.replace(claim, assumptions={"d_v": d / H})
    assert decide(under, [_SPAN.body]).kind == "verified"


def test_a_scalar_is_a_one_by_one_shape():
    one = (sympy.Integer(1), sympy.Integer(1))
    claim = shape_claim(_SPAN, 0, len(_SPAN.body), one, (n, sympy.Integer(1)), "x is a scalar")
    assert decide(claim, [_SPAN.body]).kind == "shape-error"
