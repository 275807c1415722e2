"""Readings found by labelled probes in styles the other tests do not write: digits grouped by
spaces, macros a Pandoc front matter defines, and relations the prose only supposes.
Each rule has a true use and a false (or honestly undecided) one."""

from __future__ import annotations

import pytest

from symattn.check import check_text


def claims(text: str) -> list[str]:
    got = check_text(text, "doc.md")
    return [r.kind for r in got if r.kind not in ("declaration", "not-a-claim")]


# ---- digits grouped by thousands with a space ------------------------------------------------


SPACES = [r"\,", "~", r"\ ", " ", "{\\,}", "\u2009", "\u202f", r"\thinspace ", r" \, "]


@pytest.mark.parametrize("sep", SPACES)
def test_digits_grouped_by_a_space_are_one_number(sep: str) -> None:
    number = sep.join(["1", "228", "800"])
    assert claims(f"$$3 \\times 640^2 = {number}$$") == ["verified"]
    wrong = sep.join(["1", "228", "080"])
    assert claims(f"$$3 \\times 640^2 = {wrong}$$") == ["false"]


def test_spaced_digits_with_a_decimal_part() -> None:
    assert claims(r"$$2\,469.5 \cdot 2 = 4939$$") == ["verified"]
    assert claims(r"$$2\,469.5 \cdot 2 = 4938$$") == ["false"]


def test_spaced_groups_need_three_digits_and_one_separator() -> None:
    # `12\,34` is no grouping: it keeps its old reading, whatever it is, and never one number
    assert claims(r"$$12\,34 = 1234$$") != ["verified"]
    assert claims(r"$$1\,234,567 = 1234567$$") != ["verified"]


def test_spaced_digits_inside_parentheses() -> None:
    assert claims(r"$$(1\,000 + 2) \cdot 3 = 3006$$") == ["verified"]
    assert claims(r"$$(1\,000 + 2) \cdot 3 = 3600$$") == ["false"]


# ---- macros in a Pandoc front matter ---------------------------------------------------------

PANDOC = (
    "---\ntitle: notes\nheader-includes: |\n  \\newcommand{\\Rs}{\\mathbb{R}}\n"
    "  \\newcommand{\\tp}{^{\\top}}\n---\n\n"
    "Let $A \\in \\Rs^{p \\times q}$ and $B \\in \\Rs^{r \\times q}$.\n\n"
)


def test_header_includes_define_macros() -> None:
    assert claims(PANDOC + "Then $A B\\tp \\in \\Rs^{p \\times r}$.\n") == ["verified"]
    assert claims(PANDOC + "Then $A B\\tp \\in \\Rs^{r \\times p}$.\n") == ["shape-error"]


def test_header_includes_as_a_list() -> None:
    head = PANDOC.replace("header-includes: |\n  ", "header-includes:\n  - ")
    head = head.replace("\n  \\newcommand{\\tp}", "\n  - \\newcommand{\\tp}")
    assert claims(head + "Then $(A B\\tp)\\tp = B A\\tp$.\n") == ["verified"]
    assert claims(head + "Then $(A B\\tp)\\tp = A\\tp B$.\n") == ["shape-error"]


# ---- a relation the prose only names as needed -----------------------------------------------

SIZES = "Let $P \\in \\mathbb{R}^{a \\times c}$ and $R \\in \\mathbb{R}^{b \\times c}$. "


@pytest.mark.parametrize("cue", ["would need", "would require"])
def test_a_relation_named_as_needed_is_not_in_force(cue: str) -> None:
    # on the old code `a = b` was assumed from here on, and the sum was verified
    text = SIZES + f"Stacking them {cue} $a = b$.\nSo $P + R \\in \\mathbb{{R}}^{{b \\times c}}$.\n"
    assert claims(text) == ["shape-error"]
    text = SIZES + f"Stacking them {cue} $a = b$.\nSo $P - P \\in \\mathbb{{R}}^{{a \\times c}}$.\n"
    assert claims(text) == ["verified"]


@pytest.mark.parametrize("cue", ["we need", "it requires"])
def test_a_relation_the_writer_imposes_makes_what_fails_without_it_undecided(cue: str) -> None:
    text = SIZES + f"For the sum {cue} $a = b$. So $P + R \\in \\mathbb{{R}}^{{b \\times c}}$.\n"
    got = [r for r in check_text(text, "doc.md") if r.kind not in ("declaration", "not-a-claim")]
    assert [r.kind for r in got] == ["undecided"]  # a shape error on the old code
    assert "condition the text names" in got[0].message


def test_a_claim_that_fails_anyway_stays_refuted_after_a_named_relation() -> None:
    text = SIZES + "For the sum we need $a = b$.\nSo $P R \\in \\mathbb{R}^{a \\times b}$, "
    text += "and $2 + 2 = 5$, and $P + R \\in \\mathbb{R}^{a \\times b}$.\n"
    assert claims(text) == ["shape-error", "false", "shape-error"]


def test_a_needed_relation_lasts_to_the_end_of_its_section() -> None:
    text = SIZES + "For the sum we need $a = b$.\n\n## Next\n\n"
    text += "Here $P + R \\in \\mathbb{R}^{a \\times c}$.\n"
    assert claims(text) == ["shape-error"]


# ---- conventions read through the document's macros ------------------------------------------

MACRO_H = r"""\documentclass{article}
\newcommand{\mat}[1]{\bm{#1}}
\newcommand{\dims}[2]{\mathbb{R}^{#1 \times #2}}
\begin{document}
Let $\mat{H} \in \dims{n}{d}$ and $\mat{W} \in \dims{d}{p}$.
Then $\mat{H}\mat{W} \in \mathbb{R}^{%s}$.
\end{document}
"""


def test_a_bold_matrix_written_through_a_macro_is_a_matrix() -> None:
    # `\dims` hides `\mathbb R^{n \times d}`: on the old code H stayed the head count, and
    # its declaration was "H is a scalar, not n × d"
    got = check_text(MACRO_H % r"n \times p", "doc.tex")
    assert [r.kind for r in got if r.kind not in ("not-a-claim",)] == [
        "declaration",
        "declaration",
        "verified",
    ]
    got = check_text(MACRO_H % r"p \times n", "doc.tex")
    assert [r.kind for r in got][-1] == "shape-error"


# ---- a fraction's arguments without braces ---------------------------------------------------


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        (r"\frac12 + \frac14 = \frac34", "verified"),  # `\frac12` was the number 12 after \frac
        (r"\tfrac14 \cdot 2 = \tfrac12", "verified"),
        (r"\frac n2 + \frac n2 = n", "verified"),
        (r"\frac1 23 = \frac32", "verified"),  # TeX: (1/2) 3
        (r"\frac12 = \frac13", "false"),
        (r"\dfrac34 \cdot 4 = 4", "false"),
        (r"\frac{12}{4} = 3", "verified"),
    ],
)
def test_a_fraction_takes_one_digit_per_argument(formula: str, kind: str) -> None:
    assert claims(f"$${formula}$$") == [kind]
