"""Conventions per document, never guessed silently. Vectors declared in R^{d} are rows
or columns as the document says (prose, front matter, a LaTeX comment, `--conventions`, its
formulas); where it never says, a formula that depends on it is undecided (convention)."""

from __future__ import annotations

import json

import pytest

from symattn.check import check_text
from symattn.cli import main
from symattn.reader.terms.conventions import read_conventions

# A text in the notation of blog posts that write their vectors as rows (own words).
ROWS = (
    "Let $\\mathbf Q, \\mathbf K\\in\\mathbb R^{L\\times d_k}$ be the queries and keys.\n"
    "{cue}The vectors $\\mathbf q_i, \\mathbf k_i \\in \\mathbb R^{{d_k}}$ are the $i$-th rows.\n"
    "\n"
    "$$(\\mathbf Q\\mathbf K^\\top)_{{ij}} = {rhs}$$\n"
)


def doc(cue: str = "", rhs: str = "\\mathbf q_i \\mathbf k_j^\\top") -> str:
    return ROWS.replace("{cue}", cue).replace("{{", "{").replace("}}", "}").replace("{rhs}", rhs)


def last(text: str, conventions: dict[str, str] | None = None):
    return check_text(text, "v.md", conventions)[-1]


@pytest.mark.parametrize(
    "cue",
    [
        "They are row vectors. ",
        "这些是行向量。",
        "% symattn: vectors=row\n",
    ],
)
def test_row_vectors_stated_by_the_text_are_rows(cue):
    r = last(doc(cue))
    assert (r.kind, r.status) == ("verified", "proved"), r.message


def test_row_vectors_from_front_matter_and_option():
    front = "---\nsymattn:\n  vectors: row\n---\n" + doc()
    assert last(front).kind == "verified"
    assert last(doc(), {"vectors": "row"}).kind == "verified"


def test_a_wrong_claim_under_the_row_convention_is_false():
    r = last(doc("They are row vectors. ", "\\mathbf q_j \\mathbf k_i^\\top"))
    assert r.kind == "false" and r.counterexample


def test_column_vectors_stated_make_the_row_formula_a_shape_error():
    r = last(doc("They are column vectors. "))
    assert r.kind == "shape-error" and "d_k × d_k" in r.message
    ok = last(doc("They are column vectors. ", "\\mathbf q_i^\\top \\mathbf k_j"))
    assert ok.kind == "verified"


def test_never_stated_is_undecided_convention_not_an_error():
    # `\,` keeps the formula from being itself a cue (`q k^T` is a row cue, tested above)
    r = last(doc(rhs="\\mathbf q_i\\,\\mathbf k_j^\\top"))
    assert r.kind == "undecided" and r.message.startswith("undecided (convention)")
    assert "typechecks only with them as rows" in r.message


def test_never_stated_but_true_both_ways_is_verified():
    r = last(doc(rhs="\\mathbf q_i \\cdot \\mathbf k_j"))
    assert (r.kind, r.status) == ("verified", "proved"), r.message
    bad = last(doc(rhs="\\mathbf q_j \\cdot \\mathbf k_i"))
    assert bad.kind == "false"


def test_never_stated_and_ill_typed_both_ways_stays_a_shape_error():
    r = last(doc(rhs="\\mathbf q_i + \\mathbf Q"))
    assert r.kind == "shape-error"


def test_conflicting_cues_are_undecided():
    text = doc("They are row vectors (and the columns of W column vectors). ")
    r = last(text)
    assert r.kind == "undecided" and "row vectors at line 2 and column vectors at line 2" in (
        r.message
    )


def test_a_bare_vector_follows_the_convention():
    text = (
        "Let $\\mathbf q, \\mathbf k\\in\\mathbb R^{d}$ be row vectors.\n\n"
        "$$\\mathbf q\\mathbf k^\\top = \\mathbf q\\cdot\\mathbf k$$\n"
    )
    assert last(text).kind == "verified"
    cols = text.replace("row vectors", "column vectors")
    assert last(cols).kind == "shape-error"


def test_summary_line_and_json_show_the_convention(tmp_path, capsys):
    f = tmp_path / "v.md"
    f.write_text(doc("They are row vectors. "), encoding="utf-8")
    assert main(["check", str(f)]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("; conventions: vectors=row (prose, line 2)")
    assert main(["check", str(f), "--conventions", "vectors=column"]) == 1
    out = capsys.readouterr().out
    assert out.rstrip().endswith("; conventions: vectors=column (--conventions)")
    assert main(["check", str(f), "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)["files"][0]["conventions"]
    assert got == {
        "vectors": {"value": "row", "source": "prose, line 2", "explicit": False},
        "matrices": {"value": None, "source": "not stated", "explicit": False},
    }


def test_no_convention_no_summary_suffix(tmp_path, capsys):
    f = tmp_path / "p.md"
    f.write_text("$Q=XW_Q$\n", encoding="utf-8")
    assert main(["check", str(f)]) == 0
    assert "conventions" not in capsys.readouterr().out


def test_bad_conventions_option_is_a_usage_error(tmp_path, capsys):
    f = tmp_path / "p.md"
    f.write_text("$Q=XW_Q$\n", encoding="utf-8")
    assert main(["check", str(f), "--conventions", "vectors=diagonal"]) == 2
    assert "--conventions: vectors must be row or column, not 'diagonal'" in capsys.readouterr().err


def test_bad_front_matter_setting_fails_at_its_line():
    rs = check_text("---\nsymattn:\n  vectors: sideways\n---\n$Q=XW_Q$\n", "f.md")
    assert (rs[0].kind, rs[0].line) == ("malformed", 3)
    assert rs[0].message.startswith("bad convention: front matter, line 3: vectors must be")


def test_the_formulas_themselves_are_a_cue():
    # `\mathbf q_i\mathbf k_j^\top` is an inner product only of rows: the text's own usage
    r = last(doc())
    assert r.kind == "verified", r.message
    col = last(doc(rhs="\\mathbf q_i^\\top\\mathbf k_j"))  # an inner product only of columns
    assert col.kind == "verified", col.message


# ---- which letters are matrices: `H` for hidden states, where the chapter has heads ---------

HIDDEN = (
    "Let $\\mathbf H\\in\\mathbb R^{n\\times d}$ be the hidden states and "
    "$\\mathbf Q = \\mathbf H\\mathbf W_Q$.\n\n"
    "$$(\\mathbf Q\\mathbf K^\\top)_{ij} = {rhs}$$\n"
)


def hidden(rhs: str = "(\\mathbf H\\mathbf W_Q\\mathbf K^\\top)_{ij}") -> str:
    return HIDDEN.replace("{rhs}", rhs)


def test_h_declared_as_a_matrix_is_a_matrix():
    rs = check_text(hidden(), "h.md")
    assert [r.kind for r in rs] == ["declaration", "verified", "verified"], [r.message for r in rs]
    assert "n × d_k" in rs[1].message
    wrong = check_text(hidden("(\\mathbf H\\mathbf W_K\\mathbf K^\\top)_{ij}"), "h.md")
    assert wrong[-1].kind == "false"


def test_h_as_a_matrix_and_a_size_is_undecided():
    rs = check_text(hidden() + "\nWith $H = 8$ heads.\n", "h.md")
    assert [r.kind for r in rs] == ["undecided", "undecided", "undecided", "declaration"]
    assert "declared as a matrix at line 1 and used as a size at line 5" in rs[0].message


def test_h_as_a_size_stays_a_size():
    rs = check_text("$W_O\\in\\mathbb R^{Hd_v\\times d}$ and $H = 8$.\n", "s.md")
    assert [r.message for r in rs] == ["declares W_O as H*d_v × d", "worked example: H = 8"]


def test_matrices_setting_and_summary(tmp_path, capsys):
    f = tmp_path / "h.md"
    f.write_text(hidden() + "\nWith $H = 8$ heads.\n", encoding="utf-8")
    assert main(["check", str(f), "--conventions", "matrices=H"]) == 0
    out = capsys.readouterr().out
    assert "matrices=H (--conventions)" in out and "2 verified" in out
    assert "H is a matrix but the right side is a scalar" in out  # `H = 8` is not a size
    assert main(["check", str(f), "--conventions", "matrices=h"]) == 2
    assert "matrices must be capital letters" in capsys.readouterr().err


def test_a_latex_document_sets_its_convention_in_a_comment(tmp_path, capsys):
    body = (
        "\\documentclass{article}\n% symattn: vectors=row\n\\begin{document}\n"
        "Let $Q, K\\in\\mathbb R^{n\\times d_k}$ and $q_i, k_i\\in\\mathbb R^{d_k}$.\n"
        "\\begin{equation}(QK^\\top)_{ij} = q_i\\,k_j^\\top\\end{equation}\n\\end{document}\n"
    )
    f = tmp_path / "c.tex"
    f.write_text(body, encoding="utf-8")
    assert main(["check", str(f)]) == 0
    out = capsys.readouterr().out
    assert "conventions: vectors=row (comment, line 2)" in out
    assert "3 verified" in out  # the two vectors' shapes, then the claim
    f.write_text(body.replace("vectors=row", "vectors=column"), encoding="utf-8")
    assert main(["check", str(f)]) == 1


def test_an_inferred_convention_leaves_undeclared_vectors_as_rows():
    # the formula is its own only cue: it must not make itself well typed
    r = last("# A\n\n$X\\in\\mathbb R^{5\\times 7}$\n\n$$(XX^T)_{ij}=x_j^{\\top}x_i$$\n")
    assert r.kind == "shape-error"
    chapter = last("# A\n\n$$(QK^\\top)_{ij} = q_ik_j^\\top$$\n")
    assert chapter.kind == "verified"


def test_a_projects_pyproject_sets_the_vectors_below_the_documents_own_word(tmp_path, capsys):
    """`[tool.symattn] vectors = "row"` (the notation setting shared with derive) is the
    project's default: it settles a document that says nothing, loses to its front matter, and
    `--conventions` wins over both."""
    (tmp_path / "pyproject.toml").write_text('[tool.symattn]\nvectors = "row"\n', "utf-8")
    f = tmp_path / "notes" / "v.md"
    f.parent.mkdir()
    f.write_text(doc(rhs="\\mathbf q_i\\,\\mathbf k_j^\\top"), encoding="utf-8")  # no cue
    assert main(["check", str(f)]) == 0
    out = capsys.readouterr().out
    assert "verified: proved for all sizes" in out and "0 undecided" in out
    assert out.rstrip().endswith(
        f"; conventions: vectors=row ({tmp_path}/pyproject.toml [tool.symattn])"
    )
    f.write_text("---\nsymattn:\n  vectors: column\n---\n" + f.read_text("utf-8"), "utf-8")
    assert main(["check", str(f)]) == 1  # the document's own word: columns, a shape error
    assert "vectors=column (front matter, line 3)" in capsys.readouterr().out
    assert main(["check", str(f), "--conventions", "vectors=row"]) == 0
    capsys.readouterr()


def test_a_bad_project_setting_is_an_input_error(tmp_path, capsys):
    (tmp_path / "pyproject.toml").write_text('[tool.symattn]\nvectors = "rows"\n', "utf-8")
    f = tmp_path / "v.md"
    f.write_text("$Q=XW_Q$\n", encoding="utf-8")
    assert main(["check", str(f)]) == 2
    assert "vectors = 'rows'; use row or column" in capsys.readouterr().err


# ---- a convention stated in the prose is applied, and the formulas never outvote it ---------

COLUMNS = (
    "# Scores\n\nEvery vector is a column vector.\n\n"
    "Let $Q,K\\in\\mathbb R^{n\\times d_k}$. Then $(QK^\\top)_{ij} = {rhs}$.\n"
)


def columns(rhs: str) -> str:
    return COLUMNS.replace("{rhs}", rhs)


def test_column_vectors_in_the_prose_are_columns_of_the_conventional_names():
    ok = last(columns("q_i^\\top k_j"))
    assert (ok.kind, ok.status) == ("verified", "proved"), ok.message
    wrong = last(columns("q_j^\\top k_i"))
    assert wrong.kind == "false" and wrong.counterexample
    rows = last(columns("q_i k_j^\\top"))  # an outer product of two columns: d_k × d_k
    assert rows.kind == "shape-error" and "d_k × d_k" in rows.message


def test_the_formulas_under_test_do_not_outvote_the_prose():
    text = columns("q_i k_j^\\top") + "\nAlso $q_i k_j^\\top = q_i\\cdot k_j$.\n"
    r = last(text)
    assert r.kind == "shape-error", r.message


def test_a_row_convention_inferred_from_formulas_alone_is_shown_not_applied():
    found = read_conventions("Then $q_i^\\top k_j = 1$ holds.")
    assert found.vectors.value == "column" and not found.vectors.applies()
    assert read_conventions("Every vector is a column vector.").vectors.applies()
