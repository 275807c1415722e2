"""The one reader of `--dims` and `--assume`, shared by `check`, `prove` and `shapes`."""

from __future__ import annotations

import pytest

from symattn.kernel.errors import ParseError
from symattn.reader.claims.declarations import (
    conventional_sizes,
    parse_assume,
    parse_dim,
    parse_dims,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("n", "n"),
        ("d_k", "d_k"),
        ("d_{k}", "d_k"),
        ("64", "64"),
        ("H*d_v", "H*d_v"),
        ("H d_v", "H*d_v"),
        ("d/H", "d/H"),
        ("2*(n)", "2*n"),
    ],
)
def test_parse_dim(text, expected):
    assert str(parse_dim(text)) == expected


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("Q,K: n x d_k", {"Q": ("n", "d_k", False), "K": ("n", "d_k", False)}),
        ("W_O: H*d_v x d; X: 5 x 64", {"W_O": ("H*d_v", "d", False), "X": ("5", "64", False)}),
        ("Z^(h): n × d_v", {"Z^{(h)}": ("n", "d_v", True)}),
        (r"Z^{(h)}: n × d_v; W_{O}: H d_v \times d", {
            "Z^{(h)}": ("n", "d_v", True), "W_O": ("H*d_v", "d", False)}),
        ("", {}),
    ],
)  # fmt: skip
def test_parse_dims(spec, expected):
    got = {k: (str(v.rows), str(v.cols), v.family) for k, v in parse_dims(spec).items()}
    assert got == expected


def test_a_family_is_keyed_apart_from_the_matrix():
    table = parse_dims("Z^{(h)}: n x d_v")
    assert "Z" not in table and table["Z^{(h)}"].name == "Z"


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ("Q n x d", r"^cannot read --dims entry 'Q n x d': write 'Q,K: n x d_k'"),
        ("Q: n", r"^cannot read --dims entry 'Q: n'"),
        ("Q: n x 0", r"a dimension must be a positive integer, not 0"),
        ("__import__('os'): n x d", r"^cannot read the name .* write a matrix name"),
        ("Q: n x d+1", r"^cannot read the dim 'd\+1' at '\+1'"),
    ],
)
def test_parse_dims_errors(spec, match):
    with pytest.raises(ParseError, match=match):
        parse_dims(spec)


def test_parse_assume():
    assert {k: str(v) for k, v in parse_assume(["d_k=d/H", "n = 5"]).items()} == {
        "d_k": "d/H",
        "n": "5",
    }
    with pytest.raises(ParseError, match=r"^cannot read --assume 'd_k'"):
        parse_assume(["d_k"])


@pytest.mark.parametrize(
    ("spec", "assume", "expected"),
    [
        ("Q,K: 3 x 1", {}, {"n": 3, "d_k": 1}),
        ("Q,K: n x 1; V: n x 4", {}, {"d_k": 1, "d_v": 4}),
        ("Q: 3 x 1; V: 4 x 2", {}, {"d_k": 1, "d_v": 2}),  # n given two values: not bound
        ("A: 2 x 3", {}, {}),
        ("W_O: 8 x 4", {}, {"d": 4}),  # H·d_v is not one size
        ("Q,K: 3 x 1", {"d_k": parse_dim("d/H")}, {"n": 3}),  # --assume speaks of d_k
        ("B: 3 x 1", {}, {}),  # not a conventional name
    ],
)
def test_numbers_given_to_conventional_names_bind_their_sizes(spec, assume, expected):
    got = conventional_sizes(parse_dims(spec), assume)
    assert {k: int(v) for k, v in got.items()} == expected
