"""`symattn shapes`: every step's shape, the first shape error (exit 1), bad input (exit 2)."""

from __future__ import annotations

import json

import pytest
from cli_helpers import cli, run_cli

from symattn.cli.shapes import shapes


def test_attention_steps():
    r = cli("shapes", "softmax(QK^T/sqrt(d_k))V")
    assert r.returncode == 0, r.stderr
    lines = [line.split() for line in r.stdout.splitlines()]
    table = {parts[0]: " ".join(parts[1:]) for parts in lines}
    assert table["K^T"] == "d_k × n"
    assert table["QK^T"] == "n × n"
    assert table["sqrt(d_k)"] == "scalar"
    assert table["softmax(QK^T/sqrt(d_k))"] == "n × n"
    assert table["softmax(QK^T/sqrt(d_k))V"] == "n × d_v"
    assert r.stdout.splitlines()[-1].startswith("softmax(QK^T/sqrt(d_k))V")


def test_latex_input_and_explicit_dims():
    r = cli(
        "shapes",
        r"\operatorname{softmax}\left(\frac{QK^T}{\sqrt{d_k}}\right)V",
        "--dims",
        "Q,K: 5 x 64; V: 5 x 32",
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-1].split()[-3:] == ["5", "×", "32"]


def test_shape_error_exits_1_with_caret():
    r = run_cli("shapes", "softmax(QK/sqrt(d_k))V")
    assert r.returncode == 1
    out = r.stdout.splitlines()
    assert "error[shape]: cannot multiply Q (n × d_k) by K (n × d_k)" in r.stdout
    caret = out.index("  softmax(QK/sqrt(d_k))V") + 1
    assert out[caret] == "          ^^"  # under "QK" in the user's text


def test_multi_head_residual_needs_the_declared_equality():
    expr = r"X + Concat(Z^{(1)},\ldots,Z^{(H)})W_O"
    ok = cli("shapes", expr)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    rows = {
        line.rsplit("  ", 1)[0].strip(): line.rsplit("  ", 1)[1] for line in ok.stdout.splitlines()
    }
    assert rows["Concat(Z^(1),...,Z^(H))"] == "n × H*d_v"
    assert rows["X + Concat(Z^(1),...,Z^(H))W_O"] == "n × d"
    bad = cli("shapes", expr, "--dims", "W_O: H*d_v x d_k")
    assert bad.returncode == 1
    assert "cannot add X (n × d) and" in bad.stdout
    fixed = cli("shapes", expr, "--dims", "W_O: H*d_v x d_k", "--assume", "d_k=d")
    assert fixed.returncode == 0, fixed.stdout


def test_equation_sides_must_agree():
    assert cli("shapes", "Z = AV").returncode == 0
    r = cli("shapes", "Z = QK^T")
    assert r.returncode == 1
    assert "the sides of '=' differ" in r.stdout


def test_json():
    r = cli("shapes", "QK^T", "--format", "json")
    data = json.loads(r.stdout)
    assert data["ok"] is True and data["error"] is None
    assert data["steps"][-1] == {"expr": "QK^T", "shape": ["n", "n"], "start": 0, "end": 4}
    bad = json.loads(cli("shapes", "QK", "--format", "json").stdout)
    assert bad["ok"] is False and bad["error_span"] == [0, 2]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["QW^T"], "unknown name 'W': declare it with --dims 'W: rows x cols'"),
        (["Q K^T +"], "1:8: unexpected end of formula"),
        (["QK^T", "--dims", "Q,K n x d_k"], "cannot read --dims entry 'Q,K n x d_k'"),
        (["QK^T", "--dims", "Q: 0 x d_k"], "a dimension must be a positive integer, not 0"),
        (["QK^T", "--assume", "d_k"], "cannot read --assume 'd_k'"),
        ([r"\operatorname{foo}(Q)"], "unknown operator 'foo'"),
    ],
)
def test_input_errors_exit_2_with_one_clear_line(args, message):
    # in-process: the same main() as the script; a subprocess test below covers one of these
    r = cli("shapes", *args)
    assert r.returncode == 2
    assert message in r.stderr
    assert r.stderr.startswith("symattn shapes: error: ")
    assert "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_colour_only_when_asked_and_not_with_no_color():
    forced = cli("shapes", "QK", "--color", "always")
    assert "\033[31merror[shape]\033[0m" in forced.stdout
    assert "\033[" not in cli("shapes", "QK").stdout  # not a terminal
    assert "\033[" not in cli("shapes", "QK", "--color", "auto", env={"NO_COLOR": ""}).stdout


# ---- in-process ----------------------------------------------------------------------


def test_steps_follow_the_written_order():
    r = shapes("XW_Q")
    assert [s.text for s in r.steps] == ["X", "W_Q", "XW_Q"]
    assert [(s.start, s.end) for s in r.steps] == [(0, 1), (1, 4), (0, 4)]


def test_unknown_name_is_one_line_on_stderr():
    r = cli("shapes", "QW^T")
    assert r.returncode == 2
    assert r.stderr == (
        "symattn shapes: error: unknown name 'W': declare it with --dims 'W: rows x cols'\n"
    )


def test_head_families_and_the_blocks_of_w_o():
    r = cli("shapes", r"\operatorname{softmax}(Q^{(h)}(K^{(h)})^T)V^{(h)} + Z^{(h)}W_O^{(h)}")
    steps = r.stdout.split("error[shape]")[0].splitlines()
    rows = {line.rsplit("  ", 1)[0].strip(): line.rsplit("  ", 1)[1] for line in steps}
    assert rows["W_O^(h)"] == "d_v × d"
    assert rows["Q^(h)K^(h)^T"] == "n × n"
    assert r.returncode == 1  # n × d_v plus n × d
    assert "cannot add" in r.stdout


def test_unknown_family_and_powers_are_input_errors():
    r = cli("shapes", "X^{(h)}")
    assert r.returncode == 2 and "unknown name 'X^{(h)}'" in r.stderr
    r = cli("shapes", "Q^{(h)}K^{(h)T}")  # head h of K, transposed, as TeX sets it
    assert r.returncode == 0 and "n × n" in r.stdout
    r = cli("shapes", "Q^{(h)}K^{(h)2}")
    assert r.returncode == 2 and "write ^T for a transpose" in r.stderr


def test_partial_products_are_steps_and_the_caret_ends_at_the_bad_factor():
    r = shapes("XW_QKW_V")
    assert [s.text for s in r.steps] == ["X", "W_Q", "XW_Q", "K"]
    assert r.error_span == (0, 5)  # "XW_QK": the product up to the factor that fails
