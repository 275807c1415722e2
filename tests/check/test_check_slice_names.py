"""A capital with a range below it (`K_{1:t}`): the rows a cache holds, one name the text
declares, not an index (the colon was read as a name of unknown shape). A lower-case run
(`x_{1:t}`, rows of X) is `test_check_families.py`'s."""

from __future__ import annotations

from claim_helpers import kinds, results

CACHE = (
    "The query is $q_t \\in \\mathbb{R}^{1\\times d}$ and the cache holds "
    "$K_{1:t} \\in \\mathbb{R}^{t\\times d}$ and $V_{1:t} \\in \\mathbb{R}^{t\\times d}$.\n\n"
)


def test_a_declared_slice_name_reads_its_shape():
    assert kinds(CACHE + "$$q_t K_{1:t}^T \\in \\mathbb{R}^{1\\times t}$$\n") == ["verified"]
    assert kinds(CACHE + "$$q_t K_{1:t}^T \\in \\mathbb{R}^{1\\times d}$$\n") == ["shape-error"]


def test_a_product_with_a_slice_name_must_conform():
    (r,) = results(CACHE + "$$K_{1:t} V_{1:t} \\in \\mathbb{R}^{t\\times d}$$\n")
    assert r.kind == "shape-error"
    assert "K_{1:t}" in r.message


def test_an_identity_over_slice_names_is_decided():
    text = CACHE + "$$(q_t K_{1:t}^T)^T = K_{1:t} q_t^T$$\n"
    assert kinds(text) == ["verified"]
    assert kinds(CACHE + "$$(q_t K_{1:t}^T)^T = K_{1:t}^T q_t$$\n") == ["shape-error"]
    assert kinds(CACHE + "$$(q_t K_{1:t}^T)^T = 2K_{1:t} q_t^T$$\n") == ["false"]


def test_two_ranges_are_two_names():
    text = (
        CACHE
        + "Also $K_{1:s} \\in \\mathbb{R}^{s\\times d}$.\n\n"
        + "$$K_{1:t} + K_{1:s} = K_{1:s} + K_{1:t}$$\n"
    )
    assert kinds(text)[-1] == "shape-error"
