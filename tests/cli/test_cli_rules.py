"""`symattn rules`: list, search, JSON, verdicts."""

from __future__ import annotations

import json

from cli_helpers import cli

from symattn.kernel import lemmas, rules


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
    lemma_names = [x.name for x in lemmas.LEMMAS]
    assert [row["name"] for row in data] == list(rules.registry()) + lemma_names
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


def test_the_facts_an_induction_rests_on_are_named():
    r = cli("rules", "--no-check", "maximum")
    lines = r.stdout.splitlines()
    assert r.returncode == 0, r.stderr
    heads = [line.split()[:2] for line in lines if not line.startswith(" ")]
    assert ["max_append", "rewrite"] in heads and ["exp_max_finite", "assumed"] in heads
    r = cli("rules", "--no-check", "sum_last_term", "--format", "json")
    (row,) = json.loads(r.stdout)
    assert row["kind"] == "rewrite" and row["statement"].startswith("sum_{j=lo}^{t} f_j")
