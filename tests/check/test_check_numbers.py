"""Names the text never declares but shows to be numbers (a denominator, a root, a shape's dim,
the prose's "batch size B"): cost claims over them are decided, a true and a false form each."""

from __future__ import annotations

import pytest
from claim_helpers import results

from symattn.check import check_text

#: (document, true claim, false claim): each document gives the names' evidence first.
CASES = [
    (
        "Here $S$ and $T$ are lengths.\n\n",
        r"\frac{4BSTD}{4BSD + 4BTD} = \frac{ST}{S+T}",
        r"\frac{4BSTD}{4BSD + 4BTD} = \frac{S}{S+T}",
    ),
    (
        "Let the cost be $\\frac{x}{W_\\text{ici}}$ per byte.\n\n",
        r"\frac{2BD}{W_\text{ici}} + \frac{2BD}{W_\text{ici}} = \frac{4BD}{W_\text{ici}}",
        r"\frac{2BD}{W_\text{ici}} + \frac{2BD}{W_\text{ici}} = \frac{2BD}{W_\text{ici}}",
    ),
    (
        "The batch size $B$ and the model width $D$.\n\n",
        r"BD + DB = 2BD",
        r"BD + DB = 3BD",
    ),
    (
        "其中批大小为 $B$，维度为 $K$。\n\n",
        r"4BSKGH / (4BHK(G+S)) = SG/(G+S)",
        r"4BSKGH / (4BHK(G+S)) = SK/(G+S)",
    ),
    (
        "The number of groups is $G$, with $\\sqrt{N}$ chips each.\n\n",
        r"\frac{\sqrt{128} G}{\sqrt{N}} \cdot \sqrt{N} = 8\sqrt{2} G",
        r"\frac{\sqrt{128} G}{\sqrt{N}} \cdot \sqrt{N} = 8 G",
    ),
]


def _claim(text: str, needle: str) -> list[object]:
    return [r for r in results(text) if r.source.strip() == needle]


@pytest.mark.parametrize(("prose", "true", "false"), CASES)
def test_numbers_true_and_false(prose: str, true: str, false: str) -> None:
    good = _claim(f"{prose}Then $${true}$$ holds.\n", true)
    assert [r.kind for r in good] == ["verified"], good
    assert "as numbers (" in good[0].message, good[0].message
    bad = _claim(f"{prose}Then $${false}$$ holds.\n", false)
    assert [r.kind for r in bad] == ["false"], bad
    assert "as numbers (" in bad[0].message


def test_the_verdict_names_the_evidence_and_its_line() -> None:
    text = (
        "Here $S$ and $T$ are lengths.\n\nThen $$\\frac{4BSTD}{4BSD + 4BTD} = \\frac{ST}{S+T}$$.\n"
    )
    (r,) = results(text)
    assert "S: called a size by the text at line 1" in r.message
    assert "B: a denominator at line 3" in r.message


def test_a_false_count_gives_the_point() -> None:
    text = "The batch size $B$ and the model width $D$.\n\n$$BD + DB = 3BD$$\n"
    (r,) = results(text)
    assert r.kind == "false"
    assert "B=" in str(r.counterexample) and "D=" in str(r.counterexample), r


def test_undeclared_matrices_are_never_numbers() -> None:
    for claim in (r"AB = BA", r"MN = NM", r"M^T N = N^T M"):
        got = results(f"Then $${claim}$$.\n")
        assert "verified" not in [r.kind for r in got], got


def test_a_transposed_name_is_no_number() -> None:
    # N is a denominator once, and transposed elsewhere: read as neither
    text = "Cost $$\\frac{x}{N}$$ and $$M^T N^T = (NM)^T$$ and $$NM + MN = 2NM$$.\n"
    got = [r for r in results(text) if r.source.strip() == "NM + MN = 2NM"]
    assert [r.kind for r in got] != ["verified"], got
    assert not any("as numbers" in r.message for r in got), got


def test_contested_names_are_undecided_naming_both_places() -> None:
    text = "The batch size $B$.\n\n$$B^T$$\n\n$$2B + 2B = 4B$$\n"
    got = [r for r in results(text) if r.source.strip() == "2B + 2B = 4B"]
    assert [r.kind for r in got] == ["undecided"], got
    assert "line 1" in got[0].message and "line 3" in got[0].message
    assert "as a number and as a matrix" in got[0].message


def test_a_definition_is_never_false() -> None:
    text = "The batch size $B$ and width $D$.\n\n$$F = 4D$$ and $$T_\\text{math} = 4BDF/(NC)$$\n"
    assert "false" not in [r.kind for r in results(text)]


def test_a_declared_matrix_keeps_its_declaration() -> None:
    text = (
        "Let $B \\in \\mathbb R^{n \\times n}$ and $D \\in \\mathbb R^{n \\times n}$, and "
        "$\\frac{x}{B}$.\n\n$$BD + DB = 2BD$$\n"
    )
    got = [r for r in results(text) if r.source.strip() == "BD + DB = 2BD"]
    assert got and not any("as numbers" in r.message for r in got), got
    assert "verified" not in [r.kind for r in got]


def test_an_order_of_factors_needs_the_evidence() -> None:
    claim = r"B \times T \times D = BDT"
    (r,) = results(f"Cost: $${claim}$$ in total.\n")
    assert r.kind == "undecided" and "n × n matrices" in r.message, r
    text = f"The batch size $B$, the length $T$ and the width $D$.\n\nCost: $${claim}$$.\n"
    (r,) = results(text)
    assert r.kind == "verified", r


DEFINED = (
    "The batch size $B$, the width $D$ and hidden width $F$.\n\n"
    "We take $F = 4D$ and $T_\\text{math} = 4BDF / (NC)$.\n\n"
)


def test_a_definition_introducing_a_name_defines_it() -> None:
    got = check_text(DEFINED, "doc.md")
    defined = [r for r in got if r.kind == "declaration" and "a number" in r.message]
    assert [r.source.strip() for r in defined] == ["F = 4D", "T_\\text{math} = 4BDF / (NC)"]


@pytest.mark.parametrize(
    ("claim", "kind"),
    [
        (r"T_\text{math} \cdot NC = 4BDF", "verified"),
        (r"T_\text{math} \cdot NC = 16BD^2", "verified"),
        (r"\frac{F}{D} = 4", "verified"),
        (r"T_\text{math} \cdot NC = 4BD", "false"),
        (r"\frac{F}{D} = 3", "false"),
    ],
)
def test_later_claims_read_the_definitions(claim: str, kind: str) -> None:
    got = [r for r in results(f"{DEFINED}So $${claim}$$.\n") if r.source.strip() == claim]
    assert [r.kind for r in got] == [kind], got
    assert "as the text defines" in got[0].message


def test_a_claim_that_holds_with_an_earlier_value_is_not_false() -> None:
    # D is given two values: `2D = 8192` fails with the last one and holds with the first
    text = "The width $D$.\n\n$$D = 4096$$ here and $$D = 8192$$ there, so $$2D = 8192$$.\n"
    got = results(text)
    assert [r.kind for r in got] == ["undecided"], got
    assert "D = 4096, a value it gave before" in got[0].message


#: A count's letters given values (`T=1024`), and new values later: each holds to the next.
VALUES = (
    "A sequence length $T=1024$ and a width $D = 1600$.\n\n"
    "The projections cost $3 \\times (2T D^2) = {first}$ FLOPs.\n\n"
    "## A longer context\n\nNow $T = 2048$: $2TD^2 = {second}$.\n"
)


@pytest.mark.parametrize(
    ("first", "second", "kinds"),
    [
        ("15,728,640,000", "10,485,760,000", ["verified", "verified"]),
        ("15,728,640,001", "10,485,760,000", ["false", "verified"]),
        # the second count holds at the first value of T: which one the text means is not said
        ("15,728,640,000", "5,242,880,000", ["verified", "undecided"]),
        ("15,728,640,000", "5,242,880,001", ["verified", "false"]),
    ],
)
def test_each_value_holds_until_the_next(first: str, second: str, kinds: list[str]) -> None:
    text = VALUES.replace("{first}", first).replace("{second}", second)
    got = [r for r in check_text(text, "t.md") if r.kind not in ("declaration", "not-a-claim")]
    assert [r.kind for r in got] == kinds, [r.message for r in got]
    decided = [r for r in got if r.kind in ("verified", "false")]
    assert all("T = " in r.message and "as the text defines" in r.message for r in decided)
    declared = [r.message for r in check_text(text, "t.md") if r.kind == "declaration"]
    assert any("gives T the value 2048 from here on (it was 1024" in m for m in declared)


def test_a_count_before_any_value_is_not_read_with_one() -> None:
    text = "The cost is $2TD = 2048$ for now.\n\nLater $T = 1024$ and $D = 1$.\n"
    got = [r for r in check_text(text, "t.md") if r.source.strip() == "2TD = 2048"]
    assert [r.kind for r in got] == ["undecided"], [r.message for r in got]


def test_a_relation_about_names_in_use_is_no_definition() -> None:
    # S and T are used before `S = T`: a case the text considers, not a definition of S
    text = (
        "Lengths $S$ and $T$: $$\\frac{2ST}{S+T} = \\frac{2ST}{T+S}$$ and if $$S = T$$ then "
        "$$\\frac{2ST}{S+T} = S$$.\n"
    )
    got = results(text)
    assert "false" not in [r.kind for r in got], got


@pytest.mark.parametrize(
    ("claim", "kind"),
    [
        (r"2^{34} \approx 1.7 \times 10^{10}", "verified"),
        (r"1503238553600 \approx 1.5\times10^{12}", "verified"),
        (r"2^{-10} \approx 9.8 \times 10^{-4}", "verified"),
        (r"2^{34} \approx 2.7 \times 10^{10}", "false"),
        (r"2^{34} \approx 1.7 \times 10^{11}", "false"),
    ],
)
def test_approx_in_scientific_notation(claim: str, kind: str) -> None:
    got = results(f"So $${claim}$$.\n")
    assert [r.kind for r in got] == [kind], got
    assert "within one unit of the last digit" in got[0].message


def test_a_rounded_figure_is_never_false() -> None:
    # 1.5 x 10^12 rounds 1,503,238,553,600; 1.50 x 10^12 too; 1.503 x 10^12 too
    for written in ("1.5", "1.50", "1.503", "2"):
        got = results(f"So $$1503238553600 \\approx {written} \\times 10^{{12}}$$.\n")
        assert [r.kind for r in got] == ["verified"], (written, got)


def test_a_word_in_a_subscript_names_a_letter() -> None:
    claim = r"2 \cdot n_{layers} \cdot d_{model}^2 = 2 n_{layers} d_{model} d_{model}"
    got = results(f"Params: $${claim}$$.\n")
    assert [r.kind for r in got] == ["verified"], got
    wrong = claim.replace("= 2 n", "= 3 n")
    assert "verified" not in [r.kind for r in results(f"Params: $${wrong}$$.\n")]


def test_a_new_letter_defined_by_an_equation_with_number_capitals_is_a_definition() -> None:
    # C is a number (C = 10000); θ_i's first equation defines it, it claims nothing
    text = "Let $C = 10000$.\n\nThen $\\theta_i = C^{-2i/d}$.\n"
    got = [r for r in check_text(text, "t.md") if r.line == 3]
    assert [r.kind for r in got] == ["declaration"], [r.message for r in got]
    assert "defines the sequence \\theta_i" in got[0].message
    # a row of a matrix the text declares is claimed about, not defined
    rows = "Let $Q \\in \\mathbb R^{n\\times d}$ and $C = 10000$.\n\nThen $q_i = C q_i$.\n"
    kinds = [r.kind for r in check_text(rows, "t.md") if r.line == 3]
    assert kinds and "declaration" not in kinds, kinds


@pytest.mark.parametrize("dots", ["\\ldots", "...", "\\cdots"])
@pytest.mark.parametrize(("value", "kinds"), [("64", ["verified", "verified"]), ("60", ["false"])])
def test_a_letter_a_width_is_divided_by_is_a_count_with_the_value_the_text_gives(
    value, kinds, dots
):
    # `h = 8` names the number of heads, not a position (`\text{head}_h` ends a list, it
    # indexes nothing): d_k = d_{model}/h is then checked
    heads = f"Heads $\\mathrm{{head_1}}, {dots}, \\mathrm{{head_h}}$ are concatenated.\n\n"
    text = heads + f"With $d_{{model}} = 512$ and $h = 8$ we get $d_k = d_{{model}}/h = {value}$.\n"
    got = [r for r in check_text(text, "t.md") if r.kind not in ("declaration", "not-a-claim")]
    assert [r.kind for r in got][: len(kinds)] == kinds, [r.message for r in got]
    assert "h = 8" in got[-1].message


def test_an_equation_of_sizes_that_holds_at_some_sizes_may_be_a_condition() -> None:
    # `P^2 = P` of a projection P: as sizes it holds at P = 1, so it is no error of a count
    got = [r for r in check_text("Then $P^2 = P$.\n", "t.md") if r.line == 1]
    assert [r.kind for r in got] == ["undecided"], [r.message for r in got]
    assert "equal at P = 1" in got[0].message
    # a count that fails at every size is still false
    slip = [r.kind for r in check_text("Then $2BTD + 2BTD = 5BTD$.\n", "t.md")]
    assert "false" in slip, slip


@pytest.mark.parametrize(
    ("right", "kind"),
    [(r"12 \times 32 \times 4096^2", "verified"), (r"12 \times 32 \times 4096", "false")],
)
def test_the_letters_of_a_count_take_the_values_the_text_gives(right: str, kind: str) -> None:
    # `12lh^2` is a count (a number times letters): `l = 32` and `h = 4096` are a worked example
    text = (
        "每层参数量为 $12h^2 + 13h$。\n\n"
        rf"当 $l = 32$，$h = 4096$ 时，参数量为 $12lh^2 = {right}$。" + "\n"
    )
    got = [r for r in check_text(text, "t.md") if r.kind not in ("declaration", "not-a-claim")]
    assert [r.kind for r in got] == [kind], [r.message for r in got]
    assert "l = 32, h = 4096" in got[0].message
