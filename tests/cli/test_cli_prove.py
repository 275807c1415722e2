"""`symattn prove`: one claim, exit 0 (verified) / 1 (false or shape error) / 2 (input error)."""

from __future__ import annotations

import json

import pytest
from cli_helpers import cli, run_cli

from symattn.latex.build import compile_pdf
from symattn.testing import require_tex


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


@pytest.mark.parametrize(
    ("formula", "dims", "assume"),
    [
        # equal at n = 2 and n = 3 only: plans above the claim's constants see n = 4
        (r"\sum_{j=1}^{n}\operatorname{softmax}(S)_{ij}=(n-2)(n-3)+1", "S: n x n", []),
        # d_k = d/8 with d = 8 only would make the scale 1 and the sides agree
        (r"\frac{QK^T}{\sqrt{d_k}}=QK^T", "Q,K: n x d_k", ["--assume", "d_k=d/8"]),
    ],
)
def test_prove_a_coincidence_of_small_sizes_is_never_verified(formula, dims, assume):
    r = cli("prove", formula, "--dims", dims, *assume)
    assert r.returncode == 1, r.stdout
    assert "verified" not in r.stdout
    assert "false" in r.stdout and "counterexample: at sizes" in r.stdout


@pytest.mark.parametrize(
    "formula",
    [
        r"\sum_{j=1}^{n}(\operatorname{softmax}(S)_{ij}+1)=1+n",
        r"\sum_{j=1}^{n}\sum_{k=1}^{n}(\operatorname{softmax}(S)_{ij}+1)=n+n^{2}",
    ],
)
def test_prove_true_claims_with_sizes_as_coefficients_are_verified(formula):
    r = cli("prove", formula, "--dims", "S: n x n")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "verified" in r.stdout


@pytest.mark.parametrize(
    ("assume", "message"),
    [
        (["n=2", "n=1"], "contradictory assumptions: --assume gives n=2 and n=1"),
        (["n=2", "d=n/4"], "contradictory assumptions: d = n/4 makes d = 1/2"),
        (["d_k=d/8", "d=4"], "contradictory assumptions: d_k = d/8 makes d_k = 1/2"),
    ],
)
def test_prove_contradictory_assumptions_are_an_input_error(assume, message):
    args = [a for x in assume for a in ("--assume", x)]
    r = cli("prove", "S^T=S", "--dims", "S: n x n", *args)
    assert r.returncode == 2, r.stdout + r.stderr
    assert message in r.stderr
    assert "verified" not in r.stdout and "Traceback" not in r.stderr


def test_prove_reads_vectors_as_columns_when_told():
    claim = r"q_i^\top k_j = q_i\cdot k_j"
    rows = cli("prove", claim, "--dims", "Q,K: n x d_k")
    assert rows.returncode == 1 and "shape-error" in rows.stdout
    cols = cli("prove", claim, "--dims", "Q,K: n x d_k", "--conventions", "vectors=column")
    assert cols.returncode == 0, cols.stdout + cols.stderr
    assert "verified: proved for all sizes" in cols.stdout
    wrong = cli("prove", r"q_i^\top k_j = (QK^T)_{ji}", "--conventions", "vectors=column")
    assert wrong.returncode == 1 and "counterexample" in wrong.stdout
    outer = cli("prove", r"q_i k_j^\top = q_i\cdot k_j", "--conventions", "vectors=column")
    assert outer.returncode == 1 and "shape-error" in outer.stdout


def test_prove_bad_conventions_is_an_input_error():
    r = cli("prove", r"q_i\cdot k_j = q_i\cdot k_j", "--conventions", "vectors=col")
    assert r.returncode == 2
    assert "--conventions: vectors must be row or column, not 'col'" in r.stderr


def test_prove_takes_the_projects_convention(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text('[tool.symattn]\nvectors = "column"\n')
    monkeypatch.chdir(tmp_path)
    claim = r"q_i^\top k_j = q_i\cdot k_j"
    assert cli("prove", claim).returncode == 0
    assert cli("prove", claim, "--conventions", "vectors=row").returncode == 1


def test_explicit_sizes_of_conventional_names_bind_the_conventional_dims():
    claim = r"\frac{QK^T}{\sqrt{d_k}} = QK^T"
    one = cli("prove", claim, "--dims", "Q,K: 3 x 1")  # d_k = 1: true
    assert one.returncode == 0, one.stdout + one.stderr
    two = cli("prove", claim, "--dims", "Q,K: 3 x 2")
    assert two.returncode == 1 and "counterexample" in two.stdout
    # n = 3 from Q binds V's rows too
    r = cli("prove", r"(QK^TV)_{11} = \sum_{j=1}^{n} (QK^T)_{1j}V_{j1}", "--dims", "Q,K: 3 x 1")
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_dim_written_d_over_h_is_evaluated_only_where_it_is_whole():
    true = cli("prove", r"(QK^T)_{ij} = q_i\cdot k_j", "--dims", "Q,K: n x d/H")
    assert true.returncode == 0, true.stdout + true.stderr
    false = cli("prove", r"(QK^T)_{ij} = q_j\cdot k_i", "--dims", r"Q,K: n \times d/H")
    assert false.returncode == 1 and "counterexample: at sizes H=2, d=4" in false.stdout


def test_prove_explain_names_a_rule_at_each_step():
    r = cli("prove", r"(QK^T)_{ij}=q_i\cdot k_j", "--dims", "Q,K: n x d_k", "--explain")
    assert r.returncode == 0, r.stdout + r.stderr
    steps = [line for line in r.stdout.splitlines() if line.lstrip().startswith("= ")]
    assert len(steps) >= 2
    assert "[mul_apply:" in steps[0] and "[transpose_apply:" in steps[1]
    assert "[dot_def:" in steps[2]


def test_prove_explain_false_claim_names_the_step_where_the_sides_part():
    r = run_cli("prove", r"(QK^T)_{ij}=q_j\cdot k_i", "--dims", "Q,K: n x d_k", "--explain")
    assert r.returncode == 1
    parting = [line for line in r.stdout.splitlines() if line.lstrip().startswith("≠ ")]
    assert len(parting) == 1 and "the two sides part here" in parting[0]
    assert "(= 0 at the counterexample)" in parting[0]
    assert "agree for 2 steps and part at step 3" in r.stdout
    assert r.stdout.count("counterexample: at sizes") == 1


def test_prove_explain_json_adds_the_explanation_and_keeps_the_schema():
    plain = json.loads(cli("prove", r"(QK^T)_{ij}=q_j\cdot k_i", "--format", "json").stdout)
    r = cli("prove", r"(QK^T)_{ij}=q_j\cdot k_i", "--format", "json", "--explain")
    data = json.loads(r.stdout)
    (before,), (after,) = plain["results"], data["results"]
    assert set(before) < set(after) and set(after) - set(before) == {"explanation"}
    assert all(after[k] == v for k, v in before.items())
    (expl,) = after["explanation"]
    assert expl["parted_at"] == 3 and expl["steps"][2]["status"] == "false"


def test_prove_latex_needs_explain():
    r = run_cli("prove", r"(QK^T)_{ij}=q_i\cdot k_j", "--format", "latex")
    assert r.returncode == 2 and "--format latex needs --explain" in r.stderr


_TRUE, _FALSE = r"(QK^T)_{ij}=q_i\cdot k_j", r"(QK^T)_{ij}=q_j\cdot k_i"


# each compile is a TeX run: the working loop compiles one true claim in Chinese; the false claim
# and the other language run with the slow tests
@pytest.mark.parametrize(
    ("claim", "lang"),
    [
        (_TRUE, "zh"),
        pytest.param(_FALSE, "en", marks=pytest.mark.slow),
        pytest.param(_TRUE, "en", marks=pytest.mark.slow),
        pytest.param(_FALSE, "zh", marks=pytest.mark.slow),
    ],
)
def test_prove_explain_latex_compiles(tmp_path, lang, claim):
    require_tex()
    args = ("prove", claim, "--dims", "Q,K: n x d_k", "--explain", "--format", "latex")
    r = run_cli(*args, "--lang", lang)
    assert "\\begin{align*}" in r.stdout and "\\texttt{mul\\_apply}" in r.stdout
    tex = tmp_path / f"explain.{lang}.tex"
    tex.write_text(r.stdout, encoding="utf-8")
    pdf = compile_pdf(tex)
    log = tex.with_suffix(".log").read_text(encoding="utf-8", errors="replace")
    assert pdf.stat().st_size > 0
    assert "Missing character" not in log and "Overfull" not in log


@pytest.mark.parametrize(
    ("formula", "code", "kind"),
    [
        (
            r"Y = XW, \quad \frac{\partial L}{\partial W} = X^T \frac{\partial L}{\partial Y}",
            0,
            "verified",
        ),
        (r"Y = XW, \quad \nabla_W L = 2 X^T \nabla_Y L", 1, "false"),
        (r"Y = XW, \quad W^\nabla = X^T Y^\nabla", 0, "verified"),
        # Y never given: read as a matrix of any shape, and the gradient rests on how it is made
        (r"\frac{\partial L}{\partial W} = X^T \frac{\partial L}{\partial Y}", 1, "undecided"),
    ],
)
def test_prove_a_gradient_with_how_the_output_is_computed(formula, code, kind):
    r = cli("prove", formula, "--dims", "X: n x d; W: d x m")
    assert r.returncode == code, r.stdout + r.stderr
    assert f": {kind}:" in r.stdout


def test_dims_that_declare_one_name_twice_are_an_error(capsys):
    from symattn.cli import main

    code = main(["prove", "Q K^T = Q K^T", "--dims", "Q: n x d_k; Q: m x d_k"])
    err = capsys.readouterr().err
    assert code == 2 and "--dims declares Q twice: n x d_k and m x d_k" in err
    assert main(["prove", "Q K^T = Q K^T", "--dims", "Q: n x d_k; Q,K: n x d_k"]) == 0
