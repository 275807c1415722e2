"""`symattn check FILE...` through the command line: exit 0 / 1 (false claim) / 2 (missing file)."""

from __future__ import annotations

import json

from cli_helpers import cli, run_cli

GOOD = "Scores: $(QK^T)_{ij} = q_i\\cdot k_j$.\n"
BAD = "Line one.\n\nWrong: $(QK^T)_{ij} = q_j\\cdot k_i$.\n"


def test_a_true_document_exits_0(tmp_path):
    doc = tmp_path / "good.md"
    doc.write_text(GOOD, encoding="utf-8")
    r = cli("check", str(doc))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 verified" in r.stdout


def test_a_false_claim_exits_1_with_its_line(tmp_path):
    doc = tmp_path / "bad.md"
    doc.write_text(BAD, encoding="utf-8")
    r = run_cli("check", str(doc))
    assert r.returncode == 1
    assert f"{doc}:3:" in r.stdout and "false" in r.stdout
    assert "counterexample" in r.stdout


def test_a_missing_file_exits_2(tmp_path):
    r = cli("check", str(tmp_path / "nope.md"))
    assert r.returncode == 2
    assert "nope.md" in r.stderr and "Traceback" not in r.stderr


def test_json(tmp_path):
    doc = tmp_path / "bad.md"
    doc.write_text(BAD, encoding="utf-8")
    r = cli("check", str(doc), "--format", "json")
    assert r.returncode == 1
    data = json.loads(r.stdout)
    assert data["summary"]["false"] == 1


def test_check_needs_a_file_or_the_paths_of_its_settings(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = cli("check")
    assert r.returncode == 2
    assert "no FILE given and no paths in [tool.symattn]" in r.stderr


COMPONENTS = (
    "Let $Q \\in \\mathbb{R}^{n \\times d_k}$ and $K \\in \\mathbb{R}^{n \\times d_k}$.\n\n"
    "Rows: $(QK^T)_{ij} = q_i\\cdot k_j$.\n\n"
    "Components: $q \\cdot k = \\sum_{i=1}^{d_k} q_i k_i$ and "
    "$\\sum_i \\mathrm{softmax}(x)_i = 1$.\n"
)


def test_rows_of_a_matrix_beside_components_of_a_vector(tmp_path):
    doc = tmp_path / "components.md"
    doc.write_text(COMPONENTS, encoding="utf-8")
    r = cli("check", str(doc))
    assert r.returncode == 0, r.stdout
    assert "3 verified" in r.stdout and "0 false, 0 shape errors" in r.stdout
    # swapped indices in the rows of Q are still false at their line
    wrong = COMPONENTS.replace("q_i\\cdot k_j", "q_j\\cdot k_i")
    doc.write_text(wrong, encoding="utf-8")
    r = cli("check", str(doc))
    assert r.returncode == 1 and f"{doc}:3:" in r.stdout and "false" in r.stdout
