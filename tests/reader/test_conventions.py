"""A document's conventions (reader/terms/conventions.py): front matter, LaTeX comments, prose and
formula cues, the `--conventions` settings; cues that disagree leave the convention undecided."""

from __future__ import annotations

import pytest

from symattn.reader.terms.conventions import ConventionError, parse_settings, read_conventions


@pytest.mark.parametrize(
    ("text", "value", "source"),
    [
        ("---\nsymattn:\n  vectors: row\n---\n# T\n", "row", "front matter, line 3"),
        ("---\ntitle: x\nsymattn:\n  vectors: column\n---\n", "column", "front matter, line 4"),
        ("% symattn: vectors=row\n\\section{A}\n", "row", "comment, line 1"),
        ("The vectors $q_i$ are row vectors.\n", "row", "prose, line 1"),
        ("x\nWe use column-vectors throughout.\n", "column", "prose, line 2"),
        ("这里 $q_i$ 是行向量。\n", "row", "prose, line 1"),
        ("这里 $q_i$ 是列向量。\n", "column", "prose, line 1"),
        ("$$a = \\mathbf q^\\top\\mathbf k$$\n", "column", "formulas, line 1"),
        ("$$a = \\mathbf q_i \\mathbf k_j^\\top$$\n", "row", "formulas, line 1"),
        ("$$a = q_ik_j^\\top$$\n", "row", "formulas, line 1"),
        ("$$a = q_{i}^\\top k_{j}$$\n", "column", "formulas, line 1"),
    ],
)
def test_a_convention_is_read_with_where_it_comes_from(text, value, source):
    got = read_conventions(text).vectors
    assert (got.value, got.source) == (value, source)


@pytest.mark.parametrize(
    "text",
    [
        "",  # nothing said
        "The rows of $Q$ are the queries.\n",  # no cue word
        "---\ntitle: rows\n---\n",  # front matter without a symattn block
        "$\\text{row vectors}$ only inside math\n",
    ],
)
def test_no_cue_leaves_the_convention_unstated(text):
    got = read_conventions(text)
    assert got.vectors.value == "" and got.summary() == ""


def test_cues_that_disagree_leave_it_undecided():
    got = read_conventions("Here row vectors.\n\nThere column vectors.\n").vectors
    assert got.value == "" and "line 1" in got.source and "line 3" in got.source
    mixed = read_conventions(
        "$\\mathbf q^\\top\\mathbf k$ and $\\mathbf q\\mathbf k^\\top$"
    ).vectors
    assert mixed.value == "" and mixed.source.startswith("formulas says")


def test_explicit_settings_win_over_cues():
    text = "% symattn: vectors=column\nThe queries are row vectors.\n"
    assert read_conventions(text).vectors.value == "column"
    assert read_conventions(text).vectors.explicit
    got = read_conventions(text, {"vectors": "row"}).vectors
    assert (got.value, got.source, got.explicit) == ("row", "--conventions", True)
    prose = read_conventions("Rows are row vectors; $\\mathbf q\\mathbf k^\\top$\n").vectors
    assert (prose.value, prose.explicit) == ("row", False)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("vector=row", r"unknown convention 'vector' \(known: vectors, matrices\)"),
        ("vectors=rows", r"vectors must be row or column, not 'rows'"),
        ("vectors", r"expected NAME=VALUE, got 'vectors'"),
    ],
)
def test_bad_settings_are_named(spec, message):
    with pytest.raises(ConventionError, match=r"^--conventions: " + message):
        parse_settings(spec)


def test_good_settings_parse():
    assert parse_settings("vectors=column") == {"vectors": "column"}
    assert parse_settings(" vectors : row ,") == {"vectors": "row"}
    assert parse_settings("") == {}


def test_a_bad_front_matter_setting_is_a_problem_at_its_line():
    got = read_conventions("---\nsymattn:\n  vectors: sideways\n---\n")
    assert got.vectors.value == ""
    assert got.problems == (
        (3, "front matter, line 3: vectors must be row or column, not 'sideways'"),
    )


@pytest.mark.parametrize(
    ("text", "value", "unsettled"),
    [
        ("$\\mathbf H\\in\\mathbb R^{n\\times d}$ hidden states\n", "H", ()),
        ("$H\\in\\mathbb{R}^{T \\times d}$\n", "H", ()),
        ("$\\mathbf H\\in\\mathbb R^{n\\times d}$ and $H=8$\n", "", ("H",)),
        (
            "$\\mathbf H\\in\\mathbb R^{n\\times d}$, $W_O\\in\\mathbb R^{Hd_v\\times d}$\n",
            "",
            ("H",),
        ),
        ("$W_O\\in\\mathbb R^{Hd_v\\times d}$ and $H = 8$\n", "", ()),
        ("$\\mathbf H_t\\in\\mathbb R^{n\\times d}$\n", "", ()),  # H_t is a name of its own
    ],
)
def test_which_letters_are_matrices(text, value, unsettled):
    got = read_conventions(text)
    assert (got.matrices.value, got.unsettled_matrices) == (value, unsettled)


def test_matrices_setting():
    assert parse_settings("matrices=H+M") == {"matrices": "H+M"}
    assert read_conventions("", {"matrices": "H"}).matrix_letters() == {"H"}
    with pytest.raises(ConventionError, match="matrices must be capital letters"):
        parse_settings("matrices=hidden")


def test_a_cue_beside_a_vector_declaration_wins_over_a_passing_mention():
    text = (
        "Keys $\\mathbf q_i, \\mathbf k_j\\in\\mathbb R^d$ (row vectors of Q and K).\n\n"
        "Each position gets a learned column vector.\n"
    )
    got = read_conventions(text).vectors
    assert (got.value, got.source) == ("row", "prose, line 1")
    apart = "Keys $\\mathbf q_i\\in\\mathbb R^d$.\n\nRow vectors here, a column vector there.\n"
    assert read_conventions(apart).vectors.value == ""


def test_a_bold_h_is_a_matrix_unless_h_is_a_size():
    got = read_conventions("the states $\\mathbf{H}^\\top$ of the encoder\n")
    assert (got.matrices.value, got.matrices.source) == ("H", "written bold, line 1")
    both = read_conventions("$\\mathbf H$ and $d = H d_v$\n")
    assert both.unsettled_matrices == ("H",) and "written bold" in both.matrices.source


def test_the_prose_outweighs_the_formulas_under_test():
    # the formulas are what is checked: they are never evidence against what the prose says
    text = "Each position has a column vector.\n\n$$a = \\mathbf q_i\\mathbf k_j^\\top$$\n"
    got = read_conventions(text).vectors
    assert (got.value, got.source) == ("column", "prose, line 1") and got.applies()
    alone = read_conventions("$$a = \\mathbf q_i\\mathbf k_j^\\top$$\n").vectors
    assert (alone.value, alone.source) == ("row", "formulas, line 1") and not alone.applies()
    agree = "Row vectors throughout.\n\n$$a = \\mathbf q_i\\mathbf k_j^\\top$$\n"
    assert read_conventions(agree).vectors.source == "prose, line 1"
