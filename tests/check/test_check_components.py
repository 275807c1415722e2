"""A vector known by its components in a formula that uses the vector itself (`q \\cdot k =
\\sum_i q_i k_i`, `\\|x\\|^2 = \\sum_i x_i^2`, `softmax(x)_i`): each cue with a true and a false
use, undeclared and declared, and the rows of a matrix read as before where no cue is given."""

from __future__ import annotations

import pytest
from claim_helpers import kinds, results


@pytest.mark.parametrize(
    "formula",
    [
        r"q \cdot k = \sum_{i=1}^{d} q_i k_i",  # a dot product of two bare letters
        r"\langle q, k\rangle = \sum_{i=1}^{d} q_i k_i",  # an inner product
        r"q^\top k = \sum_{i} q_i k_i",  # a transpose; the sum runs over the length
        r"q \cdot k = \sum_{i} k_i q_i",
        r"\|x\|^2 = \sum_i x_i^2",  # a norm
        r"\|x\|^2 = \sum_{i=1}^{m} x_i x_i",
    ],
)
def test_a_bare_vector_beside_its_components(formula: str) -> None:
    (r,) = results(f"$${formula}$$")
    assert r.kind == "verified"
    assert "entries inferred from line 1" in r.message


@pytest.mark.parametrize(
    "formula",
    [
        r"q \cdot k = \sum_{i} q_i k_i + 1",
        r"\|x\|^2 = \sum_i x_i",  # a dropped square
        r"\|x\|^2 = 2\sum_{i=1}^{m} x_i x_i",
        r"q^\top k = \sum_{i} q_i k_i q_i",
    ],
)
def test_a_false_claim_about_components_is_false(formula: str) -> None:
    assert kinds(f"$${formula}$$") == ["false"]


def test_the_bound_of_the_sum_sets_the_length_and_the_dot_product_shares_it() -> None:
    (r,) = results(r"$$q \cdot k = \sum_{i=1}^{d_k} q_i k_i$$")
    assert r.kind == "verified" and "k, q: d_k entries" in r.message
    # two bounds for one vector: no length is guessed, the components are not read
    two = r"$$q \cdot k = \sum_{i=1}^{d} q_i k_i + \sum_{i=1}^{n} q_i k_i$$"
    assert kinds(two) != ["false"] and "entries inferred" not in results(two)[0].message


def test_a_claim_that_may_say_what_a_vector_is_stays_undecided() -> None:
    # k only on the left: the formula may be a condition on k, not an identity
    (r,) = results(r"$$q \cdot k = \sum_{i=1}^{d} q_i q_i$$")
    assert r.kind == "undecided" and "one side only" in r.message


SOFTMAX = r"\mathrm{softmax}(x)_i = \frac{e^{x_i}}{\sum_j e^{x_j}}"


@pytest.mark.parametrize(
    "formula",
    [
        SOFTMAX,
        # a bold vector, its entries plain
        r"\mathrm{softmax}(\mathbf z)_j = \frac{e^{z_j}}{\sum_k e^{z_k}}",
        r"\mathrm{softmax}(\mathbf z)_j = \frac{\exp(z_j)}{\sum_{k} \exp(z_k)}",
        r"\sum_i \mathrm{softmax}(x)_i = 1",
        r"\mathrm{softmax}(x)_i = \mathrm{softmax}(x)_i",
    ],
)
def test_the_softmax_of_a_vector(formula: str) -> None:
    assert kinds(f"$${formula}$$") == ["verified"]


@pytest.mark.parametrize(
    "formula",
    [
        r"\mathrm{softmax}(x)_i = \frac{e^{x_i}}{\sum_j x_j}",  # a missing exp below
        r"\mathrm{softmax}(x)_i = \frac{x_i}{\sum_j e^{x_j}}",  # a missing exp above
        r"\mathrm{softmax}(x)_i = \frac{e^{x_i}}{1 + \sum_j e^{x_j}}",
    ],
)
def test_a_wrong_softmax_of_a_vector_is_false(formula: str) -> None:
    (r,) = results(f"$${formula}$$")
    assert r.kind == "false", r.message


def test_a_softmax_summing_to_another_value_is_false_for_every_vector() -> None:
    # x on one side only, but the sides differ by a number whatever x is: no condition on x
    (r,) = results(r"$$\sum_i \mathrm{softmax}(x)_i = 0$$")
    assert r.kind == "false" and "differ by 1 for every value" in r.message
    assert kinds(r"$$\sum_i \mathrm{softmax}(x)_i = 2$$") == ["false"]
    # x on both sides: an identity, false where it fails
    assert kinds(r"$$\sum_i x_i^2 = \|x\|^2 + 1$$") == ["false"]
    # a condition some vectors meet (k on one side only) stays undecided
    assert kinds(r"$$q \cdot k = \sum_{i=1}^{d} q_i q_i$$") == ["undecided"]


DECLARED = r"Let $x \in \mathbb{R}^{d}$ and $q, k \in \mathbb{R}^{d_k}$." + "\n\n"


def test_declared_vectors_keep_their_length() -> None:
    assert kinds(DECLARED + r"$$\sum_i \mathrm{softmax}(x)_i = 1$$") == ["verified"]
    assert kinds(DECLARED + f"$${SOFTMAX}$$") == ["verified"]
    # the declared length decides the bound: d_k - 1 is an error of the text
    assert kinds(DECLARED + r"$$q \cdot k = \sum_{i=1}^{d_k} q_i k_i$$") == ["verified"]
    assert kinds(DECLARED + r"$$q \cdot k = \sum_{i=1}^{d_k - 1} q_i k_i$$") == ["false"]


def test_the_softmax_of_a_declared_column_runs_over_its_entries() -> None:
    column = "Every vector is a column vector.\n\n" + DECLARED
    assert kinds(column + r"$$\sum_i \mathrm{softmax}(x)_i = 1$$") == ["verified"]
    assert kinds(column + r"$$\mathrm{softmax}(x)_1 = 1$$") != ["verified"]


def test_rows_of_a_matrix_without_a_bare_vector_are_read_as_before() -> None:
    doc = r"Let $Q, K \in \mathbb{R}^{n \times d_k}$." + "\n\n"
    assert kinds(doc + r"$$(QK^T)_{ij} = q_i \cdot k_j$$") == ["verified"]
    assert kinds(doc + r"$$(QK^T)_{ij} = q_j \cdot k_i$$") == ["false"]
    # a row product with no vector of its own is still the chapter's row of Q
    (r,) = results(doc + r"$$(QK^T)_{ij} = q_i k_j^T$$")
    assert r.kind == "verified" and "entries inferred" not in r.message


def test_components_beside_a_declared_matrix_of_the_same_letter() -> None:
    doc = r"Let $Q \in \mathbb{R}^{n \times d_k}$ and $K \in \mathbb{R}^{m \times d_k}$." + "\n\n"
    # the sum runs to the vectors' length: components, not rows of Q and K
    good = r"$$q \cdot k = \sum_{i=1}^{d_k} q_i k_i$$"
    assert kinds(doc + good) == ["verified"]
    # without bounds, which of the two the letter means is not said: never a shape error
    assert kinds(doc + r"$$q \cdot k = \sum_{i} q_i k_i$$") == ["not-understood"]


def test_a_family_of_vectors_is_not_read_as_components() -> None:
    # no bare v: v_j is the j-th vector of a family, as before
    text = r"$$z = \sum_j \alpha_j v_j$$"
    assert all("entries inferred" not in r.message for r in results(text))


def test_e_of_the_texts_own_is_not_eulers_number() -> None:
    doc = r"Let $e \in \mathbb{R}^{n \times n}$." + "\n\n"
    assert kinds(doc + f"$${SOFTMAX}$$") != ["verified"]


def test_e_to_an_imaginary_power_is_not_read_as_a_real_exponential() -> None:
    euler = r"$$e^{i m\theta} = \cos(m\theta) + i\sin(m\theta)$$"
    assert kinds(euler) != ["false"]


def test_an_index_outside_a_sum_is_no_cue() -> None:
    # `h_t` beside a bare h, with no sum over t: the t-th vector of a family, maybe
    (r,) = results(r"$$h^\top h_t = h_t^\top h$$")
    assert "entries inferred" not in r.message


_NORM = "# Norm\n\nLet $x\\in\\mathbb{R}^d$ and $\\mu = \\tfrac1d\\sum_{i=1}^d x_i$.\n\n"


def test_a_component_reading_from_an_earlier_section_makes_no_shape_error() -> None:
    # `x_i` is component i of the x of a norm section; in the cache section the text means
    # row i of X, so the kernel's shape error rests on a reading, not on the text
    text = _NORM + "# Cache\n\nThey store $k_i = x_iW_K$ and $v_j = x_jW_V$.\n"
    got = [r for r in results(text) if r.line == 7]
    assert [r.kind for r in got] == ["undecided", "undecided"]
    assert all("entry i of the vector x" in r.message for r in got)
    assert all("earlier section" in r.message for r in got)


def test_components_from_an_earlier_section_still_decide_what_typechecks() -> None:
    text = _NORM + "# Later\n\n$\\|x\\|^2 = \\sum_{i=1}^d x_i^2$, $\\|x\\|^2 = \\sum_{i=1}^d x_i$\n"
    assert [r.kind for r in results(text) if r.line == 7] == ["verified", "false"]


def test_a_component_reading_in_its_own_section_stays_a_shape_error() -> None:
    text = "Let $x\\in\\mathbb{R}^d$ and $\\mu = \\tfrac1d\\sum_{i=1}^d x_i$; so $k_i = x_iW_K$.\n"
    assert [r.kind for r in results(text) if r.kind == "shape-error"] == ["shape-error"]


#: A bold vector and its plain components, with the softmax over a sum up to n.
BOLD = (
    r"\text{{softmax}}(\mathbf{{x}})_i = "
    r"\frac{{\exp(x_{top})}}{{\sum_{{j=1}}^{{{bound}}}\exp(x_j)}}"
)


@pytest.mark.parametrize(
    ("top", "bound", "kind"),
    [("i", "n", "verified"), ("j", "n", "false"), ("i", "n-1", "undecided")],
)
def test_a_bold_vector_takes_the_length_its_sum_gives(top: str, bound: str, kind: str) -> None:
    # the vector is used elsewhere too, where nothing fixes its length
    text = (
        "$$\\mathbf{x}^\\top \\mathbf{x} \\ge 0$$\n\n$$"
        + BOLD.format(top=top, bound=bound)
        + "$$\n"
    )
    got = [r for r in results(text) if "softmax" in r.source]
    assert [r.kind for r in got] == [kind], [r.message for r in got]
    if kind == "verified":
        assert "x: n entries inferred from line 3" in got[0].message, got[0].message


def test_an_entrywise_exponential_of_a_matrix_is_named_as_not_read() -> None:
    (r,) = results("$$\\exp(QK^T) = \\exp(QK^T)$$")
    assert r.kind == "not-understood"
    assert "entrywise exponential of a matrix" in r.message and "n × n" in r.message, r.message
