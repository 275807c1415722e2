"""A document that never says whether its vectors are rows or columns is read the one way under
which every formula typechecks, when its formulas settle it; mixed or silent documents stay
undecided (convention), and a reading the text states is never outvoted by its formulas."""

from __future__ import annotations

from symattn.check import check_text

DECLS = (
    "# Notes\n\n"
    "Let $x \\in \\mathbb R^{d}$ and $y \\in \\mathbb R^{d}$ be vectors and "
    "$A \\in \\mathbb R^{d \\times d}$.\n\n"
)
# a bilinear form written with column vectors, then the same with row vectors (own snippets)
COLUMNS = {
    "scalar": "The form is $x^\\top A y \\in \\mathbb R$.\n\n",
    "true": "Then $x^\\top A y = \\sum_{i=1}^{d} \\sum_{j=1}^{d} x_i A_{ij} y_j$.\n\n",
    "false": "But $x^\\top A y = \\sum_{i=1}^{d} x_i A_{ii} y_i$.\n\n",
}
ROWS = {
    "scalar": "The form is $x A y^\\top \\in \\mathbb R$.\n\n",
    "true": "Then $x A y^\\top = \\sum_{i=1}^{d} \\sum_{j=1}^{d} x_i A_{ij} y_j$.\n\n",
    "false": "But $x A y^\\top = \\sum_{i=1}^{d} \\sum_{j=1}^{d} x_j A_{ij} y_i$.\n\n",
}


def claims(text: str):
    return [r for r in check_text(text, "n.md") if r.kind != "declaration"]


def test_columns_settled_by_typing_decide_true_and_false_claims():
    out = claims(DECLS + "".join(COLUMNS.values()))
    assert [r.kind for r in out] == ["verified", "verified", "false"]
    for r in out:
        assert "vectors read as columns: the only reading under which every formula" in r.message
    # each verdict cites the other formulas that settle it, never itself
    assert [r.message.split("(")[-1].rstrip(")") for r in out] == [
        "lines 7, 9",
        "lines 5, 9",
        "lines 5, 7",
    ]
    assert out[2].counterexample  # false under the settled reading, with a counterexample


def test_rows_settled_by_typing_decide_true_and_false_claims():
    out = claims(DECLS + "".join(ROWS.values()))
    assert [r.kind for r in out] == ["verified", "verified", "false"]
    assert all("vectors read as rows: the only reading" in r.message for r in out)
    assert out[2].counterexample


def test_a_mixed_document_stays_undecided():
    # one formula typechecks only with columns, another only with rows
    out = claims(DECLS + COLUMNS["true"] + ROWS["false"])
    assert [r.kind for r in out] == ["undecided", "undecided"]
    assert all("undecided (convention)" in r.message for r in out)
    assert not any("the only reading" in r.message for r in out)


def test_inner_products_written_both_ways_keep_the_document_mixed():
    # `x y^T` and `x^T y` (inner products of rows, of columns), and a formula typed only as
    # columns: the document writes both conventions
    both = "$$(x y^\\top)^\\top = y x^\\top$$\n\n$$x^\\top y = y^\\top x$$\n\n"
    out = claims(DECLS + both + COLUMNS["true"])
    assert out[-1].kind == "undecided"
    assert not any("the only reading" in r.message for r in out)


def test_a_definition_typed_only_the_other_way_keeps_the_document_mixed():
    # the definition is read once (not both ways), so only reading the document again shows it
    out = claims(DECLS + COLUMNS["scalar"] + COLUMNS["true"] + "Let $$Z = x A$$\n")
    assert [r.kind for r in out] == ["undecided", "undecided", "undecided"]
    assert not any("the only reading" in r.message for r in out)


def test_a_formula_is_never_its_own_evidence():
    out = claims(DECLS + COLUMNS["false"])
    assert [r.kind for r in out] == ["undecided"]
    assert "typechecks only with them as columns" in out[0].message


def test_formulas_that_type_both_ways_settle_nothing():
    out = claims(DECLS + "We have $$(x^\\top)^\\top = x$$\n\nand $$(x^\\top)^\\top = y$$\n")
    assert not any("the only reading" in r.message for r in out)
    assert [r.kind for r in out] == ["verified", "false"]  # both readings agree


def test_the_prose_is_never_outvoted_by_the_formulas():
    text = DECLS.replace("be vectors", "be row vectors") + "".join(COLUMNS.values())
    out = claims(text)
    assert not any("the only reading" in r.message for r in out)
    assert "verified" not in [r.kind for r in out]
