"""Diagnostics, JSON schema, colour, exit codes and check_formula (--dims: tests/reader)."""

from __future__ import annotations

import argparse
import io
import json

import pytest

from symattn.check import check_formula, check_text, format_diagnostic
from symattn.cli.check import add_arguments, run

DOC = (
    "# Scores\n\n"
    "Entries: $(QK^T)_{ij}=q_i\\cdot k_j$ and the mistake\n\n"
    "$$(QK^T)_{ij}=q_j\\cdot k_i$$\n\n"
    "Unknown: $B=QM$.\n"
)


def _run(tmp_path, *extra: str, text: str = DOC) -> tuple[int, str, str]:
    f = tmp_path / "doc.md"
    f.write_text(text, encoding="utf-8")
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args([str(f), *extra])
    out, err = io.StringIO(), io.StringIO()
    return run(args, out, err), out.getvalue(), err.getvalue()


def test_diagnostic_has_location_kind_source_line_and_caret():
    r = check_text(DOC, "doc.md")[1]
    text = format_diagnostic(r)
    lines = text.splitlines()
    assert lines[0].startswith("doc.md:5:3: false: ")
    assert lines[1] == "  $$(QK^T)_{ij}=q_j\\cdot k_i$$"
    assert lines[2] == "    ^" + "~" * (len("(QK^T)_{ij}=q_j\\cdot k_i") - 1)
    assert lines[3].startswith("  counterexample: at sizes")


def test_caret_points_at_the_unknown_symbol():
    r = check_text(DOC, "doc.md")[2]
    assert r.kind == "not-understood" and (r.line, r.col) == (7, 14)
    assert format_diagnostic(r).splitlines()[2] == "  " + " " * 13 + "^"


def test_text_output_summary_and_exit_code(tmp_path):
    code, out, _ = _run(tmp_path)
    assert code == 1
    assert out.rstrip().endswith(
        "1 verified (1 proved, 0 checked), 1 false, 0 shape errors, 1 not understood, "
        "0 undecided; 0 declarations, 0 not a claim"
    )
    # the checker decides with every witness, like the API (a witness that disagrees is an alarm)
    assert "verified: proved for all sizes [symbolic+exact+numeric]" in out


def test_strict_fails_on_not_understood(tmp_path):
    text = "$(QK^T)_{ij}=q_i\\cdot k_j$ and $B=QM$\n"
    assert _run(tmp_path, text=text)[0] == 0
    assert _run(tmp_path, "--strict", text=text)[0] == 1


def test_json_schema(tmp_path):
    code, out, _ = _run(tmp_path, "--format", "json")
    assert code == 1
    doc = json.loads(out)
    assert doc["schema"] == "symattn-check/1"
    (f,) = doc["files"]
    first = f["results"][0]
    assert set(first) == {
        "file",
        "line",
        "col",
        "end",
        "kind",
        "status",
        "witnesses",
        "message",
        "counterexample",
        "source",
    }
    assert first["kind"] == "verified" and first["status"] == "proved"
    assert first["witnesses"] == ["symbolic", "exact", "numeric"]
    assert first["end"] == {"line": 3, "col": 35}
    assert f["results"][1]["counterexample"].startswith("at sizes")
    assert doc["summary"]["false"] == 1 and doc["summary"]["verified"] == 1


@pytest.mark.parametrize("mode,painted", [("always", True), ("never", False), ("auto", False)])
def test_colour_only_when_asked_or_on_a_terminal(tmp_path, mode, painted):
    _, out, _ = _run(tmp_path, "--color", mode)
    assert ("\x1b[" in out) is painted


def test_check_formula_with_dims():
    (r,) = check_formula(r"(QK^T)_{ij} = q_i\cdot k_j", "Q,K: n x d_k")
    assert r.kind == "verified" and r.file == "<formula>"
    (r,) = check_formula(r"QK^T \in \mathbb R^{n\times n}", "Q: n x d_k; K: m x d_k")
    assert r.kind == "shape-error" and "cols m vs n" in r.message
    (r,) = check_formula(r"B W_O", "B: n x H*d_v")
    assert r.kind == "not-a-claim"
    (r,) = check_formula(r"O = B W_O", "B: n x H d_v; O: n x d")
    assert r.kind == "verified"


def test_a_scalar_compared_with_a_matrix_is_a_shape_error():
    (r,) = check_text("$$d=X$$", "s.md")
    assert r.kind == "shape-error" and "cannot compare a scalar with a matrix" in r.message
