"""Positional encodings: a declared matrix's entries defined by a formula of their indices, a
sequence's value, and a function defined by cases of an index's parity. Definitions claim
nothing; claims that write such an entry read its value. True and false uses of each."""

from __future__ import annotations

import pytest
from claim_helpers import kinds, results

from symattn.check import check_text

ENTRIES = (
    r"Let $\mathbf{P} \in \mathbb{R}^{n \times d}$ be the positional embedding matrix, whose"
    " entries are\n\n"
    r"$$\begin{aligned} p_{i, 2j} &= \sin\left(\frac{i}{10000^{2j/d}}\right),\\"
    r"p_{i, 2j+1} &= \cos\left(\frac{i}{10000^{2j/d}}\right).\end{aligned}$$"
    "\n\n"
    r"Denoting $\omega_j = 1/10000^{2j/d}$, for any fixed offset $\delta$:"
    "\n\n"
)
ROTATION = (
    r"$$\begin{bmatrix} \cos(\delta \omega_j) & \sin(\delta \omega_j) \\ "
    r"-\sin(\delta \omega_j) & \cos(\delta \omega_j) \end{bmatrix}"
    r"\begin{bmatrix} p_{i, 2j} \\ p_{i, 2j+1} \end{bmatrix}"
    r" = \begin{bmatrix} p_{i+\delta, 2j} \\ p_{i+\delta, 2j+1} \end{bmatrix}$$"
)


def _declarations(text: str) -> list[str]:
    return [r.message for r in check_text(text, "doc.md") if r.kind == "declaration"]


def test_entries_by_parity_are_definitions_and_the_rotation_holds_with_them():
    text = ENTRIES + ROTATION
    defined = _declarations(text)
    assert sum("defines the entries p_{i, 2j" in m for m in defined) == 2, defined
    (r,) = results(text)
    assert r.kind == "verified", r.message
    assert "p_{i, 2j} as defined at line 3" in r.message
    assert "\\omega_j as defined at line 5" in r.message


@pytest.mark.parametrize(
    "old, new",
    [
        (r"\\ -\sin(\delta \omega_j)", r"\\ \sin(\delta \omega_j)"),  # a sign flipped
        (r"p_{i+\delta, 2j} \\", r"p_{i+\delta, 2j+1} \\"),  # 2j+1 for 2j
        (r"= \begin{bmatrix} p_{i+\delta", r"= \begin{bmatrix} p_{i+2\delta"),  # another offset
    ],
)
def test_a_wrong_rotation_is_false(old, new):
    wrong = ROTATION.replace(old, new)
    assert wrong != ROTATION
    assert kinds(ENTRIES + wrong) == ["false"]


@pytest.mark.parametrize(
    "old, new",
    [
        (r"p_{i, 2j+1} &= \cos", r"p_{i, 2j+1} &= \sin"),  # \sin for \cos
        (r"$\omega_j = 1/10000^{2j/d}$", r"$\omega_j = 1/10000^{2j/(2d)}$"),  # a wrong exponent
    ],
)
def test_a_wrong_definition_makes_the_rotation_false(old, new):
    text = ENTRIES.replace(old, new)
    assert text != ENTRIES
    assert kinds(text + ROTATION) == ["false"]


def test_an_entry_of_unknown_parity_is_not_read_as_either_case():
    text = ENTRIES + r"$$p_{i, k} = \sin\left(\frac{i}{10000^{k/d}}\right)$$"
    assert kinds(text) == ["undecided"]


def test_an_entry_defined_twice_is_a_claim_the_second_time():
    text = ENTRIES + r"$$p_{i, 2j} = \cos\left(\frac{i}{10000^{2j/d}}\right)$$"
    (r,) = results(text)  # a claim, read with the first definition: never verified
    assert r.kind in ("false", "undecided") and "as defined at line 3" in r.message
    again = ENTRIES + r"$$p_{i, 2j} = \sin\left(\frac{i}{10000^{2j/d}}\right)$$"
    assert kinds(again) == ["verified"]


def test_a_matrix_with_a_value_is_never_given_entries_by_an_equation():
    text = (
        r"Let $\mathbf{X} \in \mathbb{R}^{n \times d}$ and $\mathbf{P} = \mathbf{X}$."
        "\n\n"
        r"$$p_{i, 2j} = \sin\left(\frac{i}{10000^{2j/d}}\right)$$"
    )
    assert not any("defines the entries" in m for m in _declarations(text))


def test_a_declared_matrix_name_is_never_read_as_a_scalar():
    text = (
        r"Let $Q \in \mathbb{R}^{n \times d}$."
        "\n\n"
        r"$$Q \begin{bmatrix} \cos\theta \\ \sin\theta \end{bmatrix} = "
        r"\begin{bmatrix} \cos\theta \\ \sin\theta \end{bmatrix}$$"
    )
    assert "verified" not in kinds(text) and "false" not in kinds(text)


@pytest.mark.parametrize(
    "first, second",
    [
        (
            r"PE(pos, 2i) = sin(pos/10000^{2i/d_{model}})",
            r"PE(pos, 2i+1) = cos(pos/10000^{2i/d_{model}})",
        ),
        (
            r"PE_{(pos,2i)} = \sin\left(\frac{pos}{10000^{2i/d_{model}}}\right)",
            r"PE_{(pos,2i+1)} = \cos\left(\frac{pos}{10000^{2i/d_{model}}}\right)",
        ),
        (
            r"P E_{(p o s, 2 i)} =\sin \left(p o s / 10000^{2 i / d_{\mathrm{model}}}\right)",
            r"P E_{(p o s, 2 i+1)} =\cos \left(p o s / 10000^{2 i / d_{\mathrm{model}}}\right)",
        ),
        (r"E(p, 2i) = \sin(p / 10000^{2i / d})", r"E(p, 2i+1) = \cos(p / 10000^{2i / d})"),
        (r"P_{i,2j}=sin(i/10000^{2j/d})", r"P_{i,2j+1}=cos(i/10000^{2j/d})"),
        (
            r"PE(pos, 2i) = sin( pos / 10000^{(2i / d_{model})})",
            r"PE(pos, 2i+1) = cos( pos / 10000^{(2i / d_{model})})",
        ),
    ],
)
def test_the_cases_of_a_sinusoidal_encoding_are_definitions(first, second):
    text = f"$${first}$$\n\n$${second}$$\n"
    defined = _declarations(text)
    assert len(defined) == 2 and all("parity of an index: a scalar" in m for m in defined)
    assert kinds(text) == []


def test_a_case_written_twice_is_a_claim_the_second_time():
    first = r"PE(pos, 2i) = sin(pos/10000^{2i/d_{model}})"
    text = f"$${first}$$\n\n$${first.replace('sin', 'cos')}$$\n"
    assert len(_declarations(text)) == 1
    assert len(results(text)) == 1


def test_a_number_to_a_parenthesised_power_is_a_power():
    assert kinds(r"$$10000^{(2)} = 10^8$$") == ["verified"]
    assert kinds(r"$$10000^{(2)} = 10^7$$") == ["false"]


ROTATIONS = (
    r"$$R_m = \begin{pmatrix} \cos m\theta & -\sin m\theta \\ \sin m\theta & \cos m\theta"
    r" \end{pmatrix}$$"
    "\n\n"
)


@pytest.mark.parametrize(
    "claim",
    [r"R_m^\top R_n = R_{n-m}", r"R_m R_n = R_{m+n}", r"R_m^\top R_m = I", r"R_m R_n = R_n R_m"],
)
def test_members_of_a_family_written_out_are_multiplied_entry_by_entry(claim):
    (r,) = results(ROTATIONS + f"Then ${claim}$.")
    assert r.kind == "verified", r.message
    assert "\\theta read as real numbers" in r.message and "R_m as defined at line 1" in r.message


@pytest.mark.parametrize(
    "claim",
    [
        r"R_m^\top R_n = R_{m-n}",
        r"R_m R_n = R_{m-n}",
        r"R_m^\top R_m = 2I",
        r"R_m R_n = R_n^\top R_m",
    ],
)
def test_a_wrong_claim_about_rotations_is_never_verified_and_names_the_guess(claim):
    (r,) = results(ROTATIONS + f"Then ${claim}$.")
    assert r.kind == "undecided" and "\\theta is not declared by the text" in r.message


def test_a_sign_flipped_in_the_family_makes_its_claims_fail():
    flipped = ROTATIONS.replace(r"-\sin m\theta", r"\sin m\theta")
    (r,) = results(flipped + r"Then $R_m^\top R_m = I$.")
    assert r.kind == "undecided" and "claim fails" in r.message


def test_a_vector_beside_the_family_keeps_the_claim_as_before():
    text = (
        ROTATIONS + r"Let $q \in \mathbb{R}^{2}$. Then $(R_m q)^\top (R_n q) = q^\top R_{n-m} q$."
    )
    assert "verified" not in kinds(text) and "false" not in kinds(text)


ROTATION_OF = (
    r"$$R(\theta) = \begin{pmatrix} \cos\theta & -\sin\theta \\ \sin\theta & \cos\theta"
    r" \end{pmatrix}$$"
    "\n\n"
)


@pytest.mark.parametrize(
    "claim, kind",
    [
        (r"R(\alpha)R(\beta) = R(\alpha + \beta)", "verified"),
        (r"R(\theta)^\top R(\theta) = I", "verified"),
        (r"R(\alpha)R(\beta) = R(\alpha - \beta)", "undecided"),
        (r"R(\theta) R(\theta) = I", "undecided"),
    ],
)
def test_a_function_written_out_is_read_at_its_arguments(claim, kind):
    text = ROTATION_OF + f"Then ${claim}$."
    assert any("defines the function R(\\theta)" in m for m in _declarations(text))
    (r,) = results(text)
    assert r.kind == kind, r.message
    assert "R(·) as defined at line 1" in r.message


def test_undeclared_vectors_beside_rotations_are_columns_of_their_size():
    true = r"(R(m\theta) q)^\top (R(n\theta) k) = q^\top R((n-m)\theta) k"
    (r,) = results(ROTATION_OF + f"Then ${true}$.")
    assert r.kind == "verified" and "k, q read as columns of 2 real numbers" in r.message
    wrong = r"(R(m\theta) q)^\top (R(n\theta) k) = q^\top R((m+n)\theta) k"
    (r,) = results(ROTATION_OF + f"Then ${wrong}$.")
    assert r.kind == "undecided"


def test_a_declared_vector_is_never_read_as_a_column_of_the_rotations_size():
    text = (
        ROTATION_OF
        + r"Let $q \in \mathbb{R}^{d}$ and $k \in \mathbb{R}^{d}$."
        + "\n\n"
        + r"Then $(R(\theta) q)^\top (R(\theta) k) = q^\top k$."
    )
    assert "verified" not in kinds(text) and "false" not in kinds(text)


def test_entries_defined_under_one_declaration_are_not_read_under_another():
    text = (
        ENTRIES
        + "## Another matrix\n\n"
        + r"Let $\mathbf{P} \in \mathbb{R}^{n \times d}$ be any matrix."
        + "\n\n"
        + r"$$p_{i, 2j} = \sin\left(\frac{i}{10000^{2j/d}}\right)$$"
    )
    assert "verified" not in kinds(text) and "false" not in kinds(text)


def test_a_sequence_defined_inside_a_worked_example_keeps_its_value_unread():
    text = (
        "Take $d = 4$.\n\n"
        + r"$$\omega_j = 1/10000^{2j/d}$$"
        + "\n\n"
        + r"Then $\omega_1 = 1/100$."
    )
    assert kinds(text) == ["undecided"]


def test_a_sequence_defined_by_its_index_is_read_where_a_claim_writes_it():
    text = (
        r"$$\omega_j = 1/10000^{2j/d}$$"
        + "\n\n"
        + r"Then $\omega_0 = 1$ and $\omega_j\omega_1 = \omega_{j+1}$."
    )
    assert kinds(text) == ["verified", "verified"]
    wrong = r"$$\omega_j = 1/10000^{2j/d}$$" + "\n\n" + r"Then $\omega_j\omega_j = \omega_{j+1}$."
    assert "verified" not in kinds(wrong)


CASES = (
    r"Let $d$ be even. The encoding is"
    "\n\n"
    r"$$PE(p, i) = \begin{cases} \sin(p / 10000^{i/d}) & i \text{ even} \\ "
    r"\cos(p / 10000^{(i-1)/d}) & i \text{ odd} \end{cases}$$"
    "\n\n"
)


@pytest.mark.parametrize(
    "claim, kind",
    [
        (r"$PE(p, 2k) = \sin(p / 10000^{2k/d})$", "verified"),
        (r"$PE(p, 2k+1) = \cos(p / 10000^{2k/d})$", "verified"),
        (r"$PE(p, 2k+1) = \sin(p / 10000^{2k/d})$", "false"),
        (r"$PE(0, 2k+1) = 1$", "verified"),
        (r"$PE(0, 2k+1) = 0$", "false"),
        (r"$PE(p, k) = \sin(p / 10000^{k/d})$", "undecided"),  # k's parity is not known
    ],
)
def test_a_function_by_cases_of_parity_is_read_at_each_parity(claim, kind):
    defined = _declarations(CASES + claim)
    assert any("defined by cases of the parity of i: a scalar" in m for m in defined), defined
    assert kinds(CASES + claim) == [kind]


@pytest.mark.parametrize(
    "even, odd",
    [
        (r"\text{if } i \text{ is even}", r"\text{if } i \text{ is odd}"),
        (r"i \bmod 2 = 0", r"\text{otherwise}"),
        (r"i \equiv 1 \pmod 2", r"i \equiv 0 \pmod 2"),  # odd first: the values swap
        (r"i \text{ 为偶数}", r"i \text{ 为奇数}"),
    ],
)
def test_the_ways_texts_write_parity(even, odd):
    first, second = ("1", "-1") if "equiv 1" not in even else ("-1", "1")
    text = (
        rf"$$u(i) = \begin{{cases}} {first} & {even} \\ {second} & {odd} \end{{cases}}$$"
        "\n\n"
        r"So $u(2k) + u(2k+1) = 0$ and $u(2k) = 1$ and wrongly $u(2k+1) = 1$."
    )
    assert kinds(text) == ["verified", "verified", "false"]


def test_cases_of_other_conditions_are_no_parity():
    text = (
        r"$$g(i) = \begin{cases} 1 & i > 0 \\ -1 & i \le 0 \end{cases}$$"
        "\n\n"
        r"So $g(2k) = 1$."
    )
    assert not any("parity" in m for m in _declarations(text))
    assert "verified" not in kinds(text) and "false" not in kinds(text)


def test_a_real_argument_fits_no_parity():
    text = CASES.replace("Let $d$ be even.", r"Let $d$ be even and $t \in \mathbb{R}$.")
    assert kinds(text + r"$PE(p, 2t) = \sin(p / 10000^{2t/d})$") not in (["verified"], ["false"])
