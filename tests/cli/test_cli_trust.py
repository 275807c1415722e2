"""Verdicts of `symattn prove` and `symattn check` that can be trusted.

Each known way a front end could accept a false claim is a test of the public entry point
(`symattn.cli.main`, in-process, or `python -m symattn` in a subprocess). Truth is decided here
by hand: every false claim below is false at any sizes that satisfy the stated assumptions.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import cli, run_cli

QK = "Q,K: n x d_k"
WRONG_ENTRY = r"(QK^T)_{ij}=q_j\cdot k_i"
WRONG_SOFTMAX = r"\operatorname{softmax}(2S)=\operatorname{softmax}(S)"


def _doc(tmp_path: Path, text: str) -> str:
    p = tmp_path / "doc.md"
    p.write_text(text, encoding="utf-8")
    return str(p)


def _check_json(path: str) -> tuple[int, list[dict]]:
    r = cli("check", path, "--format", "json")
    return r.returncode, json.loads(r.stdout)["files"][0]["results"]


def _claim(results: list[dict], source: str) -> dict:
    (hit,) = [x for x in results if x["source"].replace(" ", "") == source.replace(" ", "")]
    return hit


# ---- (4) orientation is part of the shape ---------------------------------------------------


@pytest.mark.parametrize(
    "formula",
    [
        r"q_i^\top k_j=k_jq_i^\top",  # d_k x d_k = 1 x 1
        r"q_i^\top q_i = q_iq_i^\top",
        r"q_i^T k_j = q_i\cdot k_j",  # a d_k x d_k matrix is not a scalar
        r"(QK^T)_{ij} = q_i^\top k_j",
    ],
)
def test_mixed_orientations_are_shape_errors(formula):
    r = cli("prove", formula, "--dims", QK)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "shape-error" in r.stdout and "d_k × d_k" in r.stdout, r.stdout


@pytest.mark.parametrize(
    "formula",
    [
        r"q_i k_j^\top = q_i\cdot k_j",  # a 1 x 1 product may stand for a scalar
        r"(QK^T)_{ij} = q_ik_j^\top",
        r"k_jq_i^\top = q_i k_j^\top",
    ],
)
def test_one_by_one_products_still_prove(formula):
    r = cli("prove", formula, "--dims", QK)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "verified: proved for all sizes" in r.stdout


def test_dot_of_a_row_and_a_column_is_a_shape_error():
    r = cli("prove", r"q_i\cdot k_j^\top = q_i\cdot k_j", "--dims", QK)
    assert r.returncode == 1
    assert "a row and a column" in r.stdout


def test_orientation_in_a_document(tmp_path):
    path = _doc(
        tmp_path,
        "$Q,K\\in\\mathbb R^{n\\times d_k}$\n\n$$q_i^\\top k_j=k_jq_i^\\top$$\n\n"
        "$$(QK^T)_{ij}=q_ik_j^\\top$$\n",
    )
    code, results = _check_json(path)
    assert code == 1
    assert _claim(results, r"q_i^\top k_j=k_jq_i^\top")["kind"] == "shape-error"
    # the document's own formulas pull both ways (q_i^T k_j reads columns, q_i k_j^T rows), so it
    # does not settle its vectors: read both ways, a true claim is verified or undecided, never
    # an alarm
    assert _claim(results, r"(QK^T)_{ij}=q_ik_j^\top")["kind"] in ("verified", "undecided")


def test_declared_orientation_of_rows(tmp_path):
    """`q_i\\in\\mathbb R^{1\\times d_k}` is the row convention (checked), `k_j\\in\\mathbb R^{d_k}`
    says the document writes k_j as a column: then q_ik_j is the 1 x 1 product, q_i^T k_j^T the
    d_k x d_k one. Neither declaration makes q_i or k_j a new matrix unrelated to Q and K."""
    path = _doc(
        tmp_path,
        "$Q,K\\in\\mathbb R^{n\\times d_k}$, rows $q_i\\in\\mathbb R^{1\\times d_k}$ and "
        "columns $k_j\\in\\mathbb R^{d_k}$.\n\n"
        "$$(QK^T)_{ij}=q_ik_j$$\n\n$$(QK^T)_{ij}=q_i\\cdot k_j^\\top$$\n\n"
        "$$q_ik_j=k_j^\\top q_i^\\top$$\n\n$$q_i^\\top k_j^\\top = q_ik_j$$\n\n"
        "$$(QK^T)_{ij}=q_jk_i$$\n",
    )
    code, results = _check_json(path)
    assert code == 1, results
    kinds = {r["source"]: r["kind"] for r in results}
    assert kinds["q_i\\in\\mathbb R^{1\\times d_k}"] == "verified"
    assert kinds["k_j\\in\\mathbb R^{d_k}"] == "declaration"
    assert kinds["(QK^T)_{ij}=q_ik_j"] == "verified"
    assert kinds["(QK^T)_{ij}=q_i\\cdot k_j^\\top"] == "verified"
    assert kinds["q_ik_j=k_j^\\top q_i^\\top"] == "verified"
    assert kinds["q_i^\\top k_j^\\top = q_ik_j"] == "shape-error"
    assert kinds["(QK^T)_{ij}=q_jk_i"] == "false"


def test_a_row_declared_with_the_wrong_length_is_a_shape_error(tmp_path):
    path = _doc(tmp_path, "$Q\\in\\mathbb R^{n\\times d_k}$ and $q_i\\in\\mathbb R^{n}$\n")
    code, results = _check_json(path)
    assert code == 1
    assert results[-1]["kind"] == "shape-error" and "row i of Q" in results[-1]["message"]


# ---- (7) the checker uses the API's safety net: alarms and internal errors exit 2 -------------


def test_check_decides_with_every_witness(tmp_path):
    path = _doc(tmp_path, "$$(QK^T)_{ij}=q_i\\cdot k_j$$\n")
    code, results = _check_json(path)
    assert code == 0
    assert results[0]["witnesses"] == ["symbolic", "exact", "numeric"]


def _planted(monkeypatch, exc: BaseException) -> None:
    import symattn.check.verdicts

    def broken(*args, **kwargs):
        raise exc

    monkeypatch.setattr(symattn.check.verdicts, "prove_equal", broken)  # check's and prove's


def test_soundness_alarm_in_check_is_an_error_with_position(tmp_path, monkeypatch):
    from symattn.kernel.errors import SoundnessAlarm

    _planted(monkeypatch, SoundnessAlarm("symbolic says equal, exact says different"))
    path = _doc(tmp_path, "Scores.\n\n$$(QK^T)_{ij}=q_i\\cdot k_j$$\n")
    r = cli("check", path)
    assert r.returncode == 2, r.stdout
    first = r.stdout.splitlines()[0]
    assert first.startswith(f"{path}:3:3: error: soundness alarm"), first
    assert "(QK^T)_{ij}=q_i\\cdot k_j" in first
    assert "not understood" not in first
    code, results = _check_json(path)
    assert code == 2
    assert results[0]["kind"] == "error" and results[0]["status"] == "soundness_alarm"
    assert (results[0]["line"], results[0]["col"]) == (3, 3)


def test_internal_error_in_check_is_an_error_with_position(tmp_path, monkeypatch):
    _planted(monkeypatch, AttributeError("'int' object has no attribute 'is_Integer'"))
    path = _doc(tmp_path, "$$(QK^T)_{ij}=q_j\\cdot k_i$$\n")
    r = cli("check", path)
    assert r.returncode == 2, r.stdout
    assert r.stdout.startswith(f"{path}:1:3: error: internal error in the kernel")
    assert "AttributeError" in r.stdout and "(QK^T)_{ij}=q_j\\cdot k_i" in r.stdout
    code, results = _check_json(path)
    assert code == 2 and results[0]["status"] == "internal_error"


def test_strict_does_not_turn_an_error_into_exit_1(tmp_path, monkeypatch):
    _planted(monkeypatch, TypeError("planted"))
    path = _doc(tmp_path, "$$(QK^T)_{ij}=q_i\\cdot k_j$$\n")
    assert cli("check", path, "--strict").returncode == 2


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_soundness_alarm_in_prove_exits_2(monkeypatch, fmt):
    from symattn.kernel.errors import SoundnessAlarm

    _planted(monkeypatch, SoundnessAlarm("planted"))
    r = cli("prove", r"(QK^T)_{ij}=q_i\cdot k_j", "--dims", QK, "--format", fmt)
    assert r.returncode == 2
    if fmt == "json":
        data = json.loads(r.stdout)
        assert data["exit_code"] == 2 and data["results"][0]["kind"] == "error"
    else:
        assert "error: soundness alarm" in r.stdout


def test_a_real_witness_contradiction_raises_the_alarm_through_check(tmp_path, monkeypatch):
    """Not a planted exception: the exact witness is made to disagree with a symbolic proof."""
    import symattn.kernel.proof
    from symattn.kernel.witness.evidence import WitnessResult

    monkeypatch.setattr(
        symattn.kernel.proof, "exact", lambda *a, **k: WitnessResult(False, "planted difference")
    )
    monkeypatch.setattr(
        symattn.kernel.proof, "numeric_check", lambda *a, **k: WitnessResult(None, "not run")
    )
    symattn.kernel.proof.forget()  # verdicts are remembered: it may have been decided before
    path = _doc(tmp_path, "$$(QK^T)_{ij}=q_i\\cdot k_j$$\n")
    r = cli("check", path)
    assert r.returncode == 2, r.stdout
    assert "error: soundness alarm" in r.stdout


# ---- (1) after a size relation, false claims are still rejected --------------------------------


@pytest.mark.parametrize("formula", [WRONG_ENTRY, WRONG_SOFTMAX])
def test_false_claims_after_assume_d_v(formula):
    r = cli("prove", formula, "--dims", f"{QK}; S: n x n", "--assume", "d_v=d/H")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "false" in r.stdout


@pytest.mark.parametrize("formula", [WRONG_ENTRY, WRONG_SOFTMAX])
def test_false_claims_after_a_document_relation(tmp_path, formula):
    path = _doc(
        tmp_path,
        "$S\\in\\mathbb R^{n\\times n}$\n\nHeads: $d_v=d/H$.\n\n$$" + formula + "$$\n",
    )
    code, results = _check_json(path)
    assert code == 1, results
    assert _claim(results, formula)["kind"] == "false"


# ---- (2) relations with a size on the right: no crash, false claims rejected -------------------


def test_assume_dim_equal_to_dim_then_false_claim():
    r = cli("prove", WRONG_ENTRY, "--dims", QK, "--assume", "d_k=d_v")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "false" in r.stdout


def test_assume_dim_equal_to_dim_then_true_claim():
    r = cli("prove", "X + Z = Z + X", "--assume", "d_v=d")
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize(
    "relation",
    [
        "$d_k=d_v=64$",
        "$d_k=d_v=d/H=64$",
        "$$H=8,\\quad d=512,\\quad d_k=d/H$$",
        "$H=8$, $d=512$ and $d_k=d_v=d/H=64$",
    ],
)
def test_relations_in_a_worked_example_then_false_claim(tmp_path, relation):
    path = _doc(
        tmp_path,
        "# Example\n\n" + relation + "\n\n$$(QK^T)_{ij}=q_j\\cdot k_i$$\n\n"
        "$$(QK^T)_{ij}=q_i\\cdot k_j$$\n",
    )
    code, results = _check_json(path)
    assert code == 1, results
    kinds = [r["kind"] for r in results]
    assert "error" not in kinds and "not-understood" not in kinds, results
    assert _claim(results, WRONG_ENTRY)["kind"] == "false"
    assert _claim(results, r"(QK^T)_{ij}=q_i\cdot k_j")["kind"] == "verified"
    relations = [r for r in results if r["line"] == 3]
    assert relations and all(r["kind"] in ("declaration", "verified") for r in relations), results


def test_worked_example_binds_the_sizes(tmp_path):
    path = _doc(
        tmp_path,
        "# Example\n\n$$H=8,\\quad d=512,\\quad d_k=d/H$$\n\n"
        "$$Q\\in\\mathbb R^{n\\times 64}$$\n\n$$W_Q\\in\\mathbb R^{512\\times 64}$$\n\n"
        "$$W_K\\in\\mathbb R^{512\\times 32}$$\n",
    )
    code, results = _check_json(path)
    assert code == 1, results
    assert [r["kind"] for r in results] == ["declaration"] * 5 + ["shape-error"], results
    assert "d_k = 64" in results[2]["message"], results[2]


def test_a_wrong_number_in_a_chain_is_rejected(tmp_path):
    path = _doc(tmp_path, "# Example\n\n$$H=8,\\quad d=512,\\quad d/H=32$$\n")
    code, results = _check_json(path)
    assert code == 1, results
    assert results[-1]["kind"] == "false"


def test_a_known_value_next_to_a_bound_size_is_checked(tmp_path):
    path = _doc(tmp_path, "# Example\n\n$$H=8,\\quad d=512$$\n\n$$d/H=d_k=32$$\n")
    code, results = _check_json(path)
    assert code == 1, results
    assert _claim(results, "d/H=d_k")["kind"] == "false"


def test_a_relation_contradicting_a_binding_is_a_shape_error(tmp_path):
    path = _doc(tmp_path, "$d_v=d/H$\n\n# Example\n\n$$H=8,\\quad d=512,\\quad d_v=32$$\n")
    code, results = _check_json(path)
    assert code == 1, results
    assert results[-1]["kind"] == "shape-error" and "64" in results[-1]["message"]


def test_check_relation_crash_reproducer_subprocess(tmp_path):
    """A relation between sizes before a false claim, end to end, in a fresh interpreter."""
    path = _doc(tmp_path, "$d_k=d_v=64$\n\n$$(QK^T)_{ij}=q_j\\cdot k_i$$\n")
    r = run_cli("check", path)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "false" in r.stdout and "Traceback" not in r.stderr


# ---- (8) hypotheses in both directions ---------------------------------------------------------

MASKED = (
    "$$A=\\operatorname{softmax}\\left(\\operatorname{mask}"
    "\\left(\\frac{QK^T}{\\sqrt{d_k}}\\right)\\right)$$\n\n"
)


@pytest.mark.parametrize(
    "condition",
    ["j>i", "i<j", "j\\gt i", "i\\lt j", "j\\ge i+1", "j\\geq i+1", "i+1\\le j", "i+1\\leq j"],
)
def test_hypotheses_in_both_directions(tmp_path, condition):
    path = _doc(tmp_path, MASKED + "$$a_{ij}=0 \\text{ for } " + condition + "$$\n")
    code, results = _check_json(path)
    assert code == 0, results
    claim = _claim(results, "a_{ij}=0")
    assert claim["kind"] == "verified", claim


@pytest.mark.parametrize("condition", ["j>i", "i<j", "j \\ge i+1"])
def test_hypothesis_in_the_next_inline_formula(tmp_path, condition):
    path = _doc(tmp_path, MASKED + "Under the mask $a_{ij}=0$ for $" + condition + "$.\n")
    code, results = _check_json(path)
    assert code == 0, results
    assert _claim(results, "a_{ij}=0")["kind"] == "verified"


@pytest.mark.parametrize("condition", ["i>j", "j<i", "i \\ge j"])
def test_a_wrong_hypothesis_is_not_enough(tmp_path, condition):
    path = _doc(tmp_path, MASKED + "$$a_{ij}=0 \\text{ for } " + condition + "$$\n")
    code, results = _check_json(path)
    assert code == 1, results
    assert _claim(results, "a_{ij}=0")["kind"] == "false"


@pytest.mark.parametrize(
    "formula",
    [
        "a_{ij}=0 \\quad (j>i)",
        "a_{ij}=0,\\quad i<j",
        "a_{ij}=0 \\text{ if } j\\geq i+1",
        "a_{ij}=0,\\quad 1\\le i<j",
    ],
)
def test_hypothesis_written_in_other_ways(tmp_path, formula):
    path = _doc(tmp_path, MASKED + "$$" + formula + "$$\n")
    code, results = _check_json(path)
    assert code == 0, results
    assert _claim(results, "a_{ij}=0")["kind"] == "verified"


def test_a_condition_qualifies_only_claims_with_its_indices_free(tmp_path):
    """`j` is bound in the sum: `j > i` says nothing about it, and is not passed to the kernel."""
    from symattn.check import resolve_text

    text = MASKED + "$$\\sum_{j=1}^{n} a_{ij} = 1, \\quad a_{ij}=0 \\text{ for } j>i$$\n"
    claims = [c for c in resolve_text(text, "doc.md") if c.status == "pending"]
    assert [len(c.hypotheses) for c in claims] == [0, 1]
    code, results = _check_json(_doc(tmp_path, text))
    assert code == 0, results
    assert [r["kind"] for r in results if r["status"] != "declared"] == ["verified"] * 3


def test_a_condition_joined_to_nothing_is_said(tmp_path):
    path = _doc(tmp_path, MASKED + "$a_{ij}=0$ and $j>i$\n")
    code, results = _check_json(path)
    assert code == 1, results  # the claim alone is false, and the condition says why
    assert _claim(results, "a_{ij}=0")["kind"] == "false"
    cond = _claim(results, "j>i")
    assert cond["kind"] == "not-understood" and "not joined to a claim" in cond["message"]


def test_hypothesis_with_prove():
    r = cli(
        "prove",
        r"(\operatorname{softmax}(\operatorname{mask}(QK^T)))_{ij} = 0 \text{ for } i < j",
        "--dims",
        QK,
    )
    assert r.returncode == 0, r.stdout + r.stderr


# ---- every checked verdict states its evidence -------------------------------------------


REVERSED_SUM = r"\sum_{j=1}^{n} S_{ij} = \sum_{j=1}^{n} S_{i,n+1-j}"  # true; not proved by renaming


def test_a_checked_verdict_states_the_sizes_and_points_it_rests_on():
    r = cli("prove", REVERSED_SUM, "--dims", "S: n x n")
    assert r.returncode == 0, r.stdout
    assert "checked at explicit sizes only (n=2; n=3)" in r.stdout
    assert "exactly by full expansion at n=2: all 2 index points" in r.stdout
    assert "in float64 at n=3: all 3 index points" in r.stdout


def test_a_checked_verdict_under_a_relation_rests_on_sizes_that_satisfy_it():
    r = cli("prove", REVERSED_SUM, "--dims", "S: n x n", "--assume", "n=d/H")
    assert r.returncode == 0, r.stdout
    sizes = r.stdout.split("checked at explicit sizes only (")[1].split(")")[0]
    for plan in sizes.split("; "):
        values = dict(kv.split("=") for kv in plan.split(", "))
        assert int(values["d"]) % int(values["H"]) == 0, plan
    assert "all " in r.stdout and "index points" in r.stdout
