"""`\\mathrm{softmax}(z_i)` with z a vector is entry i of the softmax of z, named in the verdict;
of a row of a matrix it is the row's softmax; of an entry of a matrix, that entry of the softmax
of its rows, named in the verdict."""

from __future__ import annotations

from claim_helpers import kinds, results

VEC = r"Let $z \in \mathbb{R}^{n}$ be a column vector." + "\n\n"


def test_the_softmax_of_an_entry_of_a_vector_is_an_entry_of_its_softmax():
    got = results(VEC + r"$$\text{softmax}(z_i) = \frac{\exp(z_i)}{\sum_j \exp(z_j)}$$")
    assert [r.kind for r in got] == ["verified"]
    assert "as softmax(z)_i" in got[0].message, got[0].message
    assert kinds(VEC + r"$$\sum_i \text{softmax}(z_i) = 1$$") == ["verified"]
    # false in that reading: never verified, and not false, since it rests on the reading
    bad = results(VEC + r"$$\text{softmax}(z_i) = \exp(z_i)$$")
    assert [r.kind for r in bad] == ["undecided"]
    assert "as softmax(z)_i" in bad[0].message, bad[0].message


MAT = r"Let $S \in \mathbb{R}^{n\times n}$." + "\n\n"


def test_the_softmax_of_a_row_or_an_entry_of_a_matrix():
    row = r"$$\text{softmax}(s_i)_j = \frac{\exp(S_{ij})}{\sum_k \exp(S_{ik})}$$"
    assert kinds(MAT + row) == ["verified"]
    assert kinds(MAT + r"$$\text{softmax}(s_i)_j = \exp(S_{ij})$$") == ["false"]
    # of an entry: that entry of the rows' softmax; false in that reading is undecided
    entry = r"$$\text{softmax}(S_{ij}) = \frac{\exp(S_{ij})}{\sum_{k=1}^{n} \exp(S_{ik})}$$"
    (r,) = results(MAT + entry)
    assert r.kind == "verified" and "as softmax(S)_{ij}" in r.message, r.message
    assert kinds(MAT + entry.replace("S_{ik}", "S_{ki}")) == ["undecided"]
    assert kinds(MAT + r"$$\text{softmax}(S_{ij}) = \exp(S_{ij})$$") == ["undecided"]
