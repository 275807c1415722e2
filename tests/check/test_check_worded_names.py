"""Names with a worded subscript (`X_{norm}`, `K_{cache}`, `q_{total}`) are names of their own,
not entries with four indices; and a matrix the text defines by a value the checker does not
read (`X_{norm} = \\mathrm{RMSNorm}(X)`) may still be reasoned about as any matrix of its shape:
an identity for every such matrix is verified, one that fails for some is undecided."""

from __future__ import annotations

from claim_helpers import kinds, results

HEAD = (
    "Let $X\\in\\mathbb R^{n\\times d}$ and $W_Q, W_K \\in\\mathbb R^{d\\times d_k}$.\n\n"
    "$$X_{norm} = \\mathrm{RMSNorm}(X)$$\n\n"
    "$$Q = X_{norm} W_Q, \\quad K = X_{norm} W_K$$\n\n"
)


def test_a_worded_subscript_names_a_matrix() -> None:
    got = results(HEAD)
    assert [r.kind for r in got] == ["verified", "verified"]
    assert all("definition of" in r.message for r in got)


def test_an_identity_for_every_value_of_a_defined_matrix_is_verified() -> None:
    (r,) = results(HEAD + "$$QK^T = X_{norm}W_QW_K^TX_{norm}^T$$")[2:]
    assert r.kind == "verified"
    assert "for every value of X_{norm}" in r.message


def test_a_failure_for_some_value_is_undecided_naming_why() -> None:
    (r,) = results(HEAD + "$$QK^T = X_{norm}W_KW_Q^TX_{norm}^T$$")[2:]
    assert r.kind == "undecided"
    assert "value of X_{norm}" in r.message
    # the same claim with X declared instead is refuted: only the unread value holds it back
    plain = "Let $X\\in\\mathbb R^{n\\times d}$ and $W_Q, W_K \\in\\mathbb R^{d\\times d_k}$.\n\n"
    plain += "$$Q = X W_Q, \\quad K = X W_K$$\n\n"
    assert kinds(plain + "$$QK^T = XW_KW_Q^TX^T$$")[2:] == ["false"]


def test_index_letters_without_a_word_stay_indices() -> None:
    # `S_{ijk}`: three indices, no word (no vowel but i); not a name of its own
    assert kinds("Let $S\\in\\mathbb R^{n\\times n}$.\n\n$$S_{ijk} = S_{ijk}$$") == [
        "not-understood"
    ]
