"""A document that writes `\\mathbf v\\mathbf k^\\top` and `\\mathbf k^\\top\\mathbf q` and states
their shapes (an outer product in R^{d×d}, an inner one in R) is no mixed document: typing may
settle its vectors. Necessary conditions in words ("we need") are named, not checked."""

from __future__ import annotations

from claim_helpers import kinds, results

from symattn.check import check_text
from symattn.reader.terms.conventions import shaped_reading

DOC = (
    r"Let $\mathbf{Q}, \mathbf{K}, \mathbf{V} \in \mathbb{R}^{n \times d}$." + "\n\n"
    r"$$\mathbf{v}_t\mathbf{k}_t^\top \in \mathbb{R}^{d\times d}$$" + "\n\n"
    r"$$\mathbf{k}_j^\top \mathbf{q}_t \in \mathbb{R}$$" + "\n\n"
)


def test_shapes_stated_for_both_products_tell_the_reading():
    assert shaped_reading(DOC) == "column"
    rows = r"$q k^\top \in \mathbb{R}$, $q^\top k \in \mathbb{R}$"
    assert shaped_reading(rows) == ""  # some of each: mixed
    assert shaped_reading(r"$\mathbf{q}^\top\mathbf{k}$") == ""  # no shape stated


def test_typing_settles_a_document_whose_products_agree():
    true = (
        r"$$\mathbf{v}_t(\mathbf{k}_t^\top\mathbf{q}_t)"
        r" = (\mathbf{v}_t\mathbf{k}_t^\top)\mathbf{q}_t$$"
    )
    decl = ""
    got = results(DOC + decl + true)[-1]
    assert got.kind == "verified" and "vectors read as columns" in got.message, got.message
    # a false claim in the same reading: false
    wrong = true.replace(
        r"(\mathbf{v}_t\mathbf{k}_t^\top)\mathbf{q}_t",
        r"(\mathbf{k}_t\mathbf{v}_t^\top)\mathbf{q}_t",
    )
    assert results(DOC + decl + wrong)[-1].kind == "false"


def test_a_claim_ill_typed_in_the_settled_reading_stays_undecided():
    # o_t of the chapter's O (d_v wide) against R^d: ill-typed in the reading, not an alarm
    odd = (
        r"$$\mathbf{o}_t = \sum_{j=1}^t (\mathbf{q}_t^\top\mathbf{k}_j)\mathbf{v}_j"
        r" \in \mathbb{R}^{d_v}$$"
    )
    assert "shape-error" not in kinds(DOC + odd)


def test_a_condition_the_text_needs_is_named_not_checked():
    need = (
        r"To retrieve exactly we need $$\mathbf{k}_i^\top \mathbf{k}_j = 0$$ for $$i \neq j$$."
        + "\n"
    )
    got = check_text(DOC + need, "doc.md")
    assert all(r.kind not in ("false", "shape-error") for r in got)
    assert any("a condition the text names (after 'we need')" in r.message for r in got)
