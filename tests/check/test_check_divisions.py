"""Division by a matrix: by a 1 × 1 product (`x / (q^T k)`) it is division by its one entry; by a
column with a row for each row of the numerator (linear attention's normaliser) it is not read,
never a shape error; by any other matrix, a shape error."""

from __future__ import annotations

from claim_helpers import kinds, results

VECS = r"Let $q, k \in \mathbb{R}^{d\times 1}$ and $X \in \mathbb{R}^{n\times d}$." + "\n\n"


def test_a_one_by_one_divisor_is_its_entry():
    assert kinds(VECS + r"$$\frac{2 q^Tk}{q^Tk} = 2$$") == ["verified"]
    assert kinds(VECS + r"$$\frac{2 q^Tk}{q^Tk} = 1$$") == ["false"]


def test_a_row_normaliser_is_not_read_and_no_shape_error():
    text = (
        r"Let $Q, K, V \in \mathbb{R}^{N \times d}$ and $\phi$ a feature map." + "\n\n"
        r"$$O = \frac{\phi(Q)(\phi(K)^T V)}{\phi(Q)(\phi(K)^T \mathbf{1}_N)}$$" + "\n"
    )
    (r,) = results(text)
    assert r.kind == "not-understood" and "divided by the entry" in r.message, r.message


def test_a_divisor_of_any_other_shape_is_a_shape_error():
    assert kinds(VECS + r"$$\frac{X}{X} = 1$$") == ["shape-error"]
