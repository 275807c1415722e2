"""Which slashes a formula leaves open, and its other reading (golden strings)."""

from __future__ import annotations

import pytest

from symattn.reader.claims.precedence import other_reading
from symattn.reader.syntax import ast
from symattn.reader.syntax.parse import parse_formula

OPEN = [
    ("1/2x = y", "1/2x as 1/(2x), or as (1/2)x", "(1 / 2 \\cdot x)"),
    (
        "6/2 \\cdot 3 = y",
        "6/2 \\cdot 3 as (6/2) \\cdot 3, or as 6/(2 \\cdot 3)",
        "(6 / (2 \\cdot 3))",
    ),
    ("a/b \\times c = y", "a/b \\times c as (a/b) \\times c, or as a/(b \\times c)", None),
    ("u/2vw = y", "u/2vw as u/(2vw), or as (u/2)vw", "(u / 2 \\cdot (* v w))"),
    ("8/4(1+1) = y", "8/4(1+1) as 8/(4(1+1)), or as (8/4)(1+1)", None),
]


@pytest.mark.parametrize("body, readings, dumped", OPEN)
def test_an_open_slash_and_its_other_reading(body, readings, dumped):
    reach = other_reading(parse_formula(body).items[0], body)
    assert reach is not None and reach.readings == readings and reach.sites == 1
    if dumped is not None:
        assert ast.dump(reach.claim.subjects[0]) == dumped


@pytest.mark.parametrize(
    "body",
    [
        "a/b = y",
        "a/b/c = y",
        "ab/c = y",
        "a \\cdot b/c = y",
        "2/3 \\cdot 2/3 = y",  # a product of fractions
        "QK^T/\\sqrt{d_k} = y",
        "\\partial L/\\partial W = y",  # a derivative
        "dy/dx = y",
        "W \\in \\mathbb{R}^{d/h \\times d}",  # a shape
    ],
)
def test_a_closed_slash_has_no_other_reading(body):
    assert other_reading(parse_formula(body).items[0], body) is None


def test_two_open_slashes_are_counted():
    body = "1/2x + 1/3y = z"
    reach = other_reading(parse_formula(body).items[0], body)
    assert reach is not None and reach.sites == 2
