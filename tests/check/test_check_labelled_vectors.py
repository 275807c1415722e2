"""A number above a vector written as one name (`h_t^1`, `q^0`) labels a new vector (a layer,
a step), never a power: claims with it name it as undeclared, while a power of a 1 × 1 product
or of a matrix stays refused as a power."""

from __future__ import annotations

from claim_helpers import results

TEXT = r"Let $H \in \mathbb{R}^{n\times d}$ and $W \in \mathbb{R}^{d\times d}$." + "\n\n"


def test_a_number_above_a_vector_labels_a_new_one() -> None:
    (r,) = results(TEXT + r"So $h_t^1 + h_t = h_t + h_t$.")
    assert r.kind == "undecided" and "h_t^1 is not declared" in r.message, r.message


def test_powers_of_matrices_and_products_stay_powers() -> None:
    (square,) = results(TEXT + r"So $W^2 = W W$.")
    assert square.kind == "not-understood" and "powers of matrices" in square.message
    (dot,) = results(TEXT + r"So $(h_1 h_2^T)^2 = (h_1 h_2^T)(h_1 h_2^T)$.")
    assert "h_1^" not in dot.message and dot.kind != "false"
