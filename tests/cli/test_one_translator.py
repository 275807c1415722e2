"""`symattn shapes`, `symattn prove` and `symattn check` agree on every formula of one table.

All three read a formula with the reader's one translator (`symattn.reader.terms.translator`),
so they must take the same decision: a well-typed expression has the same shape everywhere, a shape
error is a shape error everywhere, and an unknown name or unreadable LaTeX is refused by all
(an operator the text never declares is refused by `shapes` and read around, undecided, by
`prove` and `check`).
`prove` and `check` are given the claim `E \\in \\mathbb R^{rows \\times cols}` with the shape
the table expects (`check` reads it from a one-formula document); `shapes` is given `E`.
"""

from __future__ import annotations

import json

import pytest
from cli_helpers import cli

from symattn.check import check_file

CONCAT = r"\operatorname{Concat}(Z^{(1)},\ldots,Z^{(H)})"

#: (formula, expected): a shape `(rows, cols)` or "scalar" for a well-typed expression,
#: "shape" for an expression that does not typecheck, "refused" for what cannot be read.
TABLE: list[tuple[str, tuple[str, str] | str]] = [
    # well typed: products, transposes, scores, softmax
    ("XW_Q", ("n", "d_k")),
    ("QK^T", ("n", "n")),
    ("K^T", ("d_k", "n")),
    ("(XW_K)^T", ("d_k", "n")),
    ("2XW_Q", ("n", "d_k")),
    (r"QK^T/\sqrt{d_k}", ("n", "n")),
    (r"\frac{QK^T}{\sqrt{d_k}}", ("n", "n")),
    (r"\operatorname{softmax}(QK^T/\sqrt{d_k})", ("n", "n")),
    (r"\operatorname{softmax}\left(\frac{QK^T}{\sqrt{d_k}}\right)V", ("n", "d_v")),
    (r"\operatorname{mask}(QK^T)", ("n", "n")),
    ("AV", ("n", "d_v")),
    # rows, entries, dot products, sums
    ("q_i", ("1", "d_k")),
    ("q_i^T", ("d_k", "1")),
    ("(QK^T)_{ij}", "scalar"),
    (r"q_i\cdot k_j", "scalar"),
    (r"\sum_{r=1}^{d_k} Q_{ir}K_{jr}", "scalar"),
    (r"\sum_j a_{ij} v_j", ("1", "d_v")),
    # heads
    (CONCAT, ("n", "H*d_v")),
    (CONCAT + "W_O", ("n", "d")),
    ("X + " + CONCAT + "W_O", ("n", "d")),
    ("Z^{(h)}W_O^{(h)}", ("n", "d")),
    (r"\sum_{h=1}^{H} Z^{(h)}W_O^{(h)}", ("n", "d")),
    ("Q^{(h)}(K^{(h)})^T", ("n", "n")),
    ("X - XW_VW_O^{(1)}", ("n", "d")),
    # shape errors
    ("QK", "shape"),
    ("Q+V", "shape"),
    ("X + AV", "shape"),
    ("QK^TV^T", "shape"),
    (r"q_i\cdot v_j", "shape"),
    (r"\operatorname{softmax}(QK)", "shape"),
    (r"\frac{Q}{V}", "shape"),
    (r"\sqrt{Q}", "shape"),
    (r"\operatorname{softmax}(d_k)", "shape"),
    # refused: a Concat of two families, unknown names and operators, malformed LaTeX
    (r"\operatorname{Concat}(Z^{(1)},\ldots,W^{(H)})", "refused"),
    (r"\operatorname{Concat}(Z^{(1)},\ldots,W^{(H)})W_O", "refused"),
    ("QW^T", "refused"),
    ("BK^T", "refused"),
    ("X^{(h)}W_O", "refused"),
    (r"\operatorname{frob}(QK^T)", "refused"),
    (r"\operatorname{relu}(QK^T)", ("n", "n")),  # an activation keeps its argument's shape
    ("Q K^T +", "refused"),
    (r"\frac{Q}{", "refused"),
    ("(QK^T", "refused"),
]

#: unbalanced braces: LaTeX that would not compile is `malformed` (an error), not a warning
_MALFORMED = {r"\frac{Q}{"}

#: an operator the text never declares: `shapes` cannot give it a shape and
#: refuses it; `prove` and `check` read the rest of the claim around it and leave the claim
#: undecided (exit 1 for prove), never verified or false. Capitals (`QW^T`) stay refused by all.
_READ_AROUND = {r"\operatorname{frob}(QK^T)"}

#: the exit code of shapes and prove, and the kind check gives, for each expectation
OUTCOME = {"ok": (0, "verified"), "shape": (1, "shape-error"), "refused": (2, "not-understood")}


def _claim(formula: str, expected: tuple[str, str] | str) -> str:
    rows, cols = ("n", "n") if isinstance(expected, str) else expected
    if expected == "scalar":
        rows, cols = "1", "1"
    return rf"{formula} \in \mathbb R^{{{rows.replace('*', ' ')}\times {cols.replace('*', ' ')}}}"


def _what(expected: tuple[str, str] | str) -> str:
    return "ok" if expected == "scalar" or isinstance(expected, tuple) else expected


def test_the_table_is_large_and_covers_every_outcome():
    whats = [_what(e) for _, e in TABLE]
    assert len(TABLE) >= 25
    assert {w: whats.count(w) >= 5 for w in OUTCOME} == dict.fromkeys(OUTCOME, True)


@pytest.mark.parametrize(("formula", "expected"), TABLE)
def test_shapes(formula, expected):
    r = cli("shapes", formula, "--format", "json")
    assert r.returncode == OUTCOME[_what(expected)][0], r.stdout + r.stderr
    if r.returncode == 2:
        assert r.stderr.startswith("symattn shapes: error: ")
        return
    data = json.loads(r.stdout)
    if r.returncode == 1:
        assert data["ok"] is False and data["error"]
        return
    last = data["steps"][-1]
    assert (last["start"], last["end"]) == (0, len(formula))  # the whole expression
    assert last["shape"] == ("scalar" if expected == "scalar" else list(expected))


#: The document says its vectors are rows, as `prove` takes them for one formula: a document
#: that says nothing leaves `q_i` of an undeclared Q open (read both ways, see test_check_*).
ROWS = "---\nsymattn:\n  vectors: row\n---\n"


@pytest.mark.parametrize(("formula", "expected"), TABLE)
def test_prove(formula, expected):
    code, kind = OUTCOME[_what(expected)]
    kind = "malformed" if formula in _MALFORMED else kind
    code, kind = (1, "undecided") if formula in _READ_AROUND else (code, kind)
    r = cli("prove", _claim(formula, expected), "--format", "json")
    assert r.returncode == code, r.stdout + r.stderr
    kinds = [x["kind"] for x in json.loads(r.stdout)["results"]]
    assert kinds == [kind], kinds


@pytest.mark.parametrize(("formula", "expected"), TABLE)
def test_check(tmp_path, formula, expected):
    doc = tmp_path / "one.md"
    doc.write_text(f"{ROWS}# One formula\n\n$${_claim(formula, expected)}$$\n", encoding="utf-8")
    kinds = [r.kind for r in check_file(doc)]
    want = "malformed" if formula in _MALFORMED else OUTCOME[_what(expected)][1]
    want = "undecided" if formula in _READ_AROUND else want
    assert kinds == [want], [(r.kind, r.message) for r in check_file(doc)]


#: `q_i \in \mathbb R^{1 \times d_v}` declares a vector q_i of the document's own (the
#: conventional Q is not the document's): a declaration, not a claim about row i of Q
_DECLARES = {"q_i"}


@pytest.mark.parametrize(
    ("formula", "expected"),
    [(f, e) for f, e in TABLE if _what(e) == "ok" and e != "scalar" and f not in _DECLARES],
)
def test_a_wrong_shape_is_refused_by_prove_and_check(tmp_path, formula, expected):
    rows, cols = expected
    wrong = (rows, "d_v" if cols != "d_v" else "d_k")
    r = cli("prove", _claim(formula, wrong), "--format", "json")
    assert r.returncode == 1
    doc = tmp_path / "one.md"
    doc.write_text(f"{ROWS}$${_claim(formula, wrong)}$$\n", encoding="utf-8")
    assert [x.kind for x in check_file(doc)] == ["shape-error"]


def test_the_formulas_excepted_as_declarations_are_in_the_table():
    assert _DECLARES <= {formula for formula, _ in TABLE}
