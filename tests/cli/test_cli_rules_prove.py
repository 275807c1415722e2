"""`symattn rules` (list, search, JSON, verdicts) and `symattn prove` (one claim, exit 0/1/2)."""

from __future__ import annotations

import json

import pytest
from cli_helpers import cli, run_cli

from symattn.kernel import rules


def test_search_shows_statement_verdict_and_witnesses():
    r = cli("rules", "mul_transpose_apply_dot")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["mul_transpose_apply_dot", "proved", "[symbolic+exact+numeric]"]
    assert lines[1].strip() == "(QK^T)_{ij} = q_i·k_j"
    assert lines[2].strip() == "an entry of QK^T is a dot product of rows"


def test_search_needs_every_word():
    r = cli("rules", "--no-check", "softmax", "mask")
    names = [line.split()[0] for line in r.stdout.splitlines() if not line.startswith(" ")]
    assert names and all("mask" in n for n in names)
    assert "softmax_apply" not in names


def test_condition_is_shown():
    r = cli("rules", "softmax_mask_apply_of_gt")
    assert "(when j > i)" in r.stdout


def test_json_lists_every_rule_without_checking():
    r = cli("rules", "--no-check", "--format", "json")
    data = json.loads(r.stdout)
    assert [row["name"] for row in data] == list(rules.registry())
    assert all(set(row) >= {"name", "statement", "description", "assuming"} for row in data)
    assert "status" not in data[0]


def test_json_with_verdicts_and_chinese():
    r = cli("rules", "softmax_rowsum", "--format", "json", "--lang", "zh")
    (row,) = json.loads(r.stdout)
    assert row["status"] == "proved"
    assert row["witnesses"] == ["symbolic", "exact", "numeric"]
    assert row["description"] == "softmax 每一行之和为 1"


def test_no_match_is_an_empty_answer():
    r = cli("rules", "--no-check", "nosuchword", "--format", "json")
    assert r.returncode == 0
    assert json.loads(r.stdout) == []
    assert "no rule matches 'nosuchword'" in r.stderr


# ---- prove (needs symattn.check) --------------------------------------------------------


def test_prove_true_claim():
    r = cli("prove", r"(QK^T)_{ij} = q_i\cdot k_j", "--dims", "Q,K: n x d_k")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "verified: proved for all sizes [symbolic" in r.stdout


def test_prove_false_claim_exits_1_with_counterexample():
    r = run_cli("prove", r"(QK^T)_{ij} = q_j\cdot k_i", "--dims", "Q,K: n x d_k")
    assert r.returncode == 1
    assert "false" in r.stdout and "counterexample: at sizes" in r.stdout
    assert r.stderr == "symattn prove: the claim is false\n"


def test_prove_json():
    r = cli("prove", r"(AV)_{iu} = \sum_{j=1}^{n} a_{ij}V_{ju}", "--format", "json")
    data = json.loads(r.stdout)
    assert r.returncode == 0 and data["ok"] is True and data["exit_code"] == 0
    (claim,) = data["results"]
    assert claim["status"] == "proved" and claim["kind"] == "verified"


def test_prove_shape_error_exits_1():
    r = cli("prove", "B = QK^T", "--dims", "B: n x d")
    assert r.returncode == 1
    assert "shape-error" in r.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([r"\foo = 1"], "symattn prove: the formula could not be read"),
        (["Q"], "symattn prove: error: no claim to prove in 'Q'"),
        (["Q = K", "--dims", "Q: n x"], "symattn prove: error: cannot read --dims entry 'Q: n x'"),
    ],
)
def test_prove_input_errors_exit_2(args, message):
    r = cli("prove", *args)
    assert r.returncode == 2
    assert message in r.stderr
    assert "Traceback" not in r.stderr


def test_prove_assume_declares_a_dim_equality():
    assert cli("prove", "X + Z = Z + X").returncode == 1  # cols d and d_v differ
    r = cli("prove", "X + Z = Z + X", "--assume", "d_v=d")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "verified" in r.stdout
