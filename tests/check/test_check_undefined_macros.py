"""Commands a text uses without defining them (its site's macro file left behind): each reading
by use verifies a true claim with the reading named, and never makes a false claim or a shape
error of the text; a macro the document defines wins over every reading."""

from __future__ import annotations

import pytest

from symattn.check import check_text
from symattn.reader.syntax.undefined import read_undefined

DECL = r"Let $Q,K\in\mathbb R^{n\times d_k}$ and $q\in\mathbb R^{d_k}$." + "\n\n"
SUM = r"\sum_{r=1}^{d_k}"
RC = r"\rc{i}\gc{j}"


def results(text: str) -> list[tuple[str, str]]:
    return [
        (r.kind, r.message)
        for r in check_text(DECL + text, "undefined.md")
        if r.kind not in ("declaration", "not-a-claim")
    ]


@pytest.mark.parametrize(
    ("formula", "kind", "named"),
    [
        # a wrapper of a name: a font or a colour (`\vect{x}`, `\rc{i}`)
        (rf"(\vect{{Q}}\vect{{K}}^T)_{{ij}} = {SUM} Q_{{ir}}K_{{jr}}", "verified", r"\vect{..}"),
        (rf"(\vect{{Q}}\vect{{K}}^T)_{{ij}} = {SUM} Q_{{ir}}K_{{ir}}", "undecided", r"\vect{..}"),
        (
            rf"(QK^T)_{{\rc{{i}}\gc{{j}}}} = {SUM} Q_{{\rc{{i}}r}}K_{{\gc{{j}}r}}",
            "verified",
            r"\rc",
        ),
        (
            rf"(QK^T)_{{\rc{{i}}\gc{{j}}}} = {SUM} Q_{{\gc{{j}}r}}K_{{\gc{{j}}r}}",
            "undecided",
            r"\gc",
        ),
        # a one-letter command where a name stands is that letter (`\x`, `\W`)
        (rf"(\Q\K^T)_{{ij}} = {SUM} Q_{{ir}}K_{{jr}}", "verified", r"\Q as the letter Q"),
        (rf"(\Q\K^T)_{{ij}} = {SUM} Q_{{ir}}K_{{ir}}", "undecided", r"\K as the letter K"),
        # a one-letter command that ends formulas, and nothing else, is punctuation (`\p`)
        (rf"(QK^T)_{{ij}} = {SUM} Q_{{ir}}K_{{jr}} \p", "verified", "punctuation"),
        (rf"(QK^T)_{{ij}} = {SUM} Q_{{jr}}K_{{jr}} \p", "undecided", "punctuation"),
        # commands with a customary meaning get it, named
        (rf"(QK^\T)_{{ij}} = {SUM} Q_{{ir}}K_{{jr}}", "verified", "as the transpose"),
        (rf"(QK^\T)_{{ij}} = {SUM} Q_{{ir}}K_{{ir}}", "undecided", "as the transpose"),
        (rf"\norm{{q}}^2 = {SUM} q_r^2", "verified", r"\norm{..} as the norm"),
        (rf"\norm{{q}}^2 = {SUM} q_r", "undecided", r"\norm{..} as the norm"),
        (r"\sum_{j=1}^n \softmax(QK^T)_{ij} = 1", "verified", r"\softmax as softmax"),
        (r"\sum_{j=1}^n \softmax(QK^T)_{ij} = 2", "undecided", r"\softmax as softmax"),
    ],
)
def test_a_reading_by_use_is_named_and_never_an_alarm(formula: str, kind: str, named: str) -> None:
    stop = r" $a \p$" if r"\p" in formula else ""  # the text ends formulas so twice
    got = results(f"$${formula}$$" + stop)
    assert [k for k, _ in got] == [kind], got
    assert named in got[0][1]
    if kind == "undecided":
        assert "the text does not define" in got[0][1]


def test_the_same_claims_written_plainly_are_decided() -> None:
    # the controls of the table: without the undefined commands the false ones are false
    got = results(rf"$$(QK^T)_{{ij}} = {SUM} Q_{{ir}}K_{{ir}}$$ $$\|q\|^2 = {SUM} q_r$$")
    assert [k for k, _ in got] == ["false", "false"]
    assert not any("undefined" in m for _, m in got)


def test_a_guess_never_makes_a_shape_error() -> None:
    got = results(r"$$\vect{Q}\vect{Q} = Q$$ $$\Q\Q = Q$$")
    assert [k for k, _ in got] == ["undecided", "undecided"]
    assert all("cannot multiply Q" in m for _, m in got)


def test_a_macro_the_document_defines_wins() -> None:
    text = r"$\newcommand{\vect}[1]{\mathbf{#1}}$" + "\n\n"
    got = results(text + rf"$$(\vect{{Q}}\vect{{K}}^T)_{{ij}} = {SUM} Q_{{ir}}K_{{ir}}$$")
    assert got == [("false", "the two sides differ")]


def test_a_name_read_through_a_guess_elsewhere_is_not_an_alarm() -> None:
    # `\vect{Q}` declared or defined in another formula may mean another object than Q
    got = results(rf"$\vect{{Q}}$ $$(QK^T)_{{ij}} = {SUM} Q_{{ir}}K_{{ir}}$$")
    assert [k for k, _ in got] == ["undecided"]
    assert r"\vect{..}" in got[0][1]


@pytest.mark.parametrize(
    "formula",
    [
        r"(QK^T)_{ij} = \ref{eq} \sum_r Q_{ir}K_{jr}",  # a reference is not a font
        r"\vect{Q + K} = Q + K",  # a sum is not a name
        r"\act{Q K^T} = Q \act{K^T}",  # a function's macro around a product is not a font
        r"\foo = Q",  # an undefined word with no argument, not at the end
    ],
)
def test_what_no_use_explains_stays_not_understood(formula: str) -> None:
    got = results(f"$${formula}$$")
    assert [k for k, _ in got] == ["not-understood"], got
    assert "unknown command" in got[0][1]


def test_a_trailing_command_used_as_a_name_elsewhere_is_that_name() -> None:
    got = results(rf"$\x_1$ $$(QK^T)_{{ij}} = {SUM} Q_{{ir}}K_{{jr}} \x$$")
    assert [k for k, _ in got] == ["undecided"], got  # times x, which the text never declares
    assert "as the letter x" in got[0][1]
    assert "punctuation" not in got[0][1]


@pytest.mark.parametrize("iff", [r"\iff", r"\Leftrightarrow", r"\Longleftrightarrow"])
def test_each_side_of_an_equivalence_is_read_on_its_own(iff: str) -> None:
    left = rf"(QK^T)_{{ij}} = {SUM} Q_{{ir}}K_{{jr}}"
    got = results(rf"$${left} {iff} (KQ^T)_{{ji}} = {SUM} Q_{{ir}}K_{{jr}}$$")
    assert [k for k, _ in got] == ["verified", "verified"], got
    assert all("equivalence itself is not decided" in m for _, m in got)
    got = results(rf"$${left} {iff} (KQ^T)_{{ij}} = {SUM} Q_{{ir}}K_{{jr}}$$")
    assert [k for k, _ in got] == ["verified", "undecided"], got  # never the text's error


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        (rf"\lVert q \rVert^2 = {SUM} q_r^2", "verified"),
        (rf"\left\lVert q \right\rVert^2 = {SUM} q_r", "false"),
    ],
)
def test_standard_commands_that_render_as_known_ones_are_read_exactly(formula, kind) -> None:
    # amsmath's \lVert .. \rVert is \| .. \|: nothing is guessed, a false claim is false
    got = results(f"$${formula}$$")
    assert [k for k, _ in got] == [kind], got
    assert "undefined" not in got[0][1]


def test_a_script_letter_stays_apart_from_the_plain_one() -> None:
    # \mathscr{L} (a loss) is read as \mathcal{L}, never as the length L
    text = r"Let $\mathcal{L} \in \mathbb R$ and $L = 3$. $$\mathscr{L} = L$$"
    got = [(r.kind, r.message) for r in check_text(text, "s.md") if r.source == r"\mathcal{L} = L"]
    assert got and got[0][0] != "verified", got
    assert r"\mathscr{..}" in got[0][1]


@pytest.mark.parametrize(
    ("second", "kind"), [("(QK^T)_{ji}", "verified"), ("(QK^T)_{ij}", "false")]
)
def test_a_note_in_a_size_switch_closes_an_aligned_row(second: str, kind: str) -> None:
    rows = (
        rf"(QK^T)_{{ij}} &= {SUM} Q_{{ir}}K_{{jr}} & \small{{\text{{; the scores }}S}} \\"
        rf"{second} &= {SUM} Q_{{jr}}K_{{ir}} & \small{{\text{{; transposed}}}}"
    )
    got = results(rf"$$\begin{{aligned}} {rows} \end{{aligned}}$$")
    assert [k for k, _ in got] == ["verified", kind], got


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        (r"|\vec{a}|^2 = \vec a \cdot \vec a", "verified"),
        (r"|\vec a|^2 = \vec a \cdot \vec b", "undecided"),
    ],
)
def test_bars_around_an_arrowed_vector_are_its_length(formula: str, kind: str) -> None:
    text = r"Let $\vec a, \vec b \in \mathbb{R}^{d}$." + "\n\n" + f"$${formula}$$"
    got = [(r.kind, r.message) for r in check_text(text, "v.md") if r.kind != "declaration"]
    assert [k for k, _ in got] == [kind], got
    assert r"|\vec{..}| as the length of the vector" in got[0][1]


def test_a_command_right_after_a_row_break_is_read() -> None:
    text = r"a \\\vect{x} \\y"
    body, origin, guesses = read_undefined(text, range(len(text) + 1))
    assert body == r"a \\x \\y"  # `\\y` is a row break and y, never a command
    assert [g.name for g in guesses] == ["vect"] and len(origin) == len(body) + 1


def test_arithmetic_on_numbers_alone_beside_an_equivalence_stays_false() -> None:
    # the side means the same whatever the equivalence says: 128 (3/4)^2 is 72
    got = results(r"$$N > 72 \iff N > 128 \cdot \left(\frac{3}{4}\right)^2 = 81$$")
    assert "false" in [k for k, _ in got], got
    got = results(r"$$N > 72 \iff N > 128 \cdot \left(\frac{3}{4}\right)^2 = 72$$")
    assert "false" not in [k for k, _ in got], got
