"""Malformed input: a clear diagnostic (per span, or exit 2), never a traceback or a hang."""

from __future__ import annotations

import argparse
import contextlib
import io
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symattn.check import InputError, check_file, check_text
from symattn.cli import main
from symattn.cli.check import run


def run_check(*files: str, strict: bool = False, fmt: str = "text") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    args = argparse.Namespace(files=list(files), format=fmt, strict=strict, color="never")
    code = run(args, out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    "text,line,col,kind,fragment",
    [
        ("Unbalanced: $A=\\frac{QK^T}{\\sqrt{d_k}$ here", 1, 27, "malformed", "unbalanced '{'"),
        ("x\n\n$$Q=XW_Q \\foo$$\n", 3, 10, "not-understood", "unknown command \\foo"),
        ("Close: $(QK^T_{ij}=1$", 1, 9, "not-understood", "unbalanced '('"),
        ("$$Q = XW_Q\n\nnever closed", 1, 1, "malformed", "unterminated $$"),
        ("$$A=Q}$$", 1, 6, "malformed", "unbalanced '}'"),
        ("\\[ A = \\begin{bmatrix} 1 \\]", 1, 8, "malformed", "unbalanced \\begin{bmatrix}"),
    ],
)
def test_unreadable_formulas_are_per_span_diagnostics(text, line, col, kind, fragment):
    (r,) = check_text(text, "m.md")
    assert r.kind == kind
    assert (r.line, r.col) == (line, col)
    assert fragment in r.message


@pytest.mark.parametrize(
    "text,code,strict_code",
    [
        ("$$A=\\frac{Q}{V$$", 1, 1),  # malformed LaTeX: an error, always
        ("$$Q=XW_Q \\foo$$", 0, 1),  # not understood: a warning, an error only with --strict
        ("$$Q=XW_Q$$", 0, 0),
    ],
)
def test_malformed_fails_the_run_not_understood_only_with_strict(tmp_path, text, code, strict_code):
    f = tmp_path / "doc.md"
    f.write_text(text)
    got, out, _ = run_check(str(f))
    assert got == code
    assert run_check(str(f), strict=True)[0] == strict_code
    if "frac" in text:
        assert f"{f}:1:" in out and "malformed" in out


def test_a_100_kb_formula_is_refused_quickly():
    body = "+".join(["Q_{ir}K_{jr}"] * 8000)
    assert len(body) > 100_000
    start = time.perf_counter()
    (r,) = check_text(f"$${body}$$", "big.md")
    assert time.perf_counter() - start < 5
    assert r.kind == "not-understood" and "formula too long" in r.message


def test_a_long_valid_chain_is_checked_or_refused_without_hanging():
    body = "Q=" + "+".join(["XW_Q"] * 60)
    start = time.perf_counter()
    results = check_text(f"$${body}$$", "chain.md")
    assert time.perf_counter() - start < 30
    assert len(results) == 1 and results[0].kind in (
        "shape-error",
        "not-understood",
        "declaration",
        "verified",
    )


def test_binary_garbage_is_an_input_error(tmp_path):
    f = tmp_path / "garbage.md"
    f.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(InputError, match=r"not a text file"):
        check_file(f)
    code, out, err = run_check(str(f))
    assert code == 2 and "not a text file" in err and "Traceback" not in err


def test_invalid_utf8_is_an_input_error(tmp_path):
    f = tmp_path / "latin1.md"
    f.write_bytes("caf\xe9 $Q=XW_Q$".encode("latin-1"))
    code, _, err = run_check(str(f))
    assert code == 2 and "not UTF-8 text (bad byte at offset 3)" in err


def test_a_missing_file_and_a_directory_exit_2(tmp_path):
    code, out, err = run_check(str(tmp_path / "nope.md"))
    assert code == 2 and "nope.md: no such file" in err
    code, out, err = run_check(str(tmp_path))
    assert code == 2 and "no documents" in err  # an empty folder


def test_a_missing_file_does_not_hide_the_others(tmp_path):
    good = tmp_path / "good.md"
    good.write_text("$(QK^T)_{ij}=q_i\\cdot k_j$\n", encoding="utf-8")
    code, out, err = run_check(str(good), str(tmp_path / "nope.md"))
    assert code == 2 and "1 verified" in out and "no such file" in err


_TOKENS = st.sampled_from(
    [
        "Q",
        "K",
        "V",
        "A",
        "X",
        "W_Q",
        "^T",
        "_{ij}",
        "q_i",
        "\\cdot",
        "k_j",
        "=",
        "\\in",
        "\\mathbb R^{n\\times d_k}",
        "(",
        ")",
        "{",
        "}",
        "\\frac{",
        "\\sqrt{d_k}",
        "\\sum_j",
        "\\operatorname{softmax}",
        "\\foo",
        ",",
        "\\quad",
        "5",
        "\\times",
        "&",
        "\\\\",
        "$",
        "%",
        "é",
    ]
)


@settings(max_examples=40, deadline=None)
@given(st.lists(_TOKENS, max_size=14))
def test_token_soup_never_raises(tokens):
    text = "$" + "".join(tokens) + "$\n\n$$" + " ".join(tokens) + "$$\n"
    for r in check_text(text, "soup.md"):
        assert r.kind in (
            "verified",
            "false",
            "shape-error",
            "not-understood",
            "undecided",
            "declaration",
            "not-a-claim",
            "malformed",
        )
        assert r.line >= 1 and r.col >= 1


@settings(max_examples=25, deadline=None)
@given(st.text(max_size=200))
def test_arbitrary_text_never_raises(text):
    for r in check_text(text, "any.md"):
        assert r.message or r.kind in ("not-a-claim",)


def test_the_command_prints_no_traceback(tmp_path, monkeypatch):
    bad = tmp_path / "bad.md"
    bad.write_text("$$(QK^T)_{ij}=q_j\\cdot k_i$$\n\n$$A=\\foo$$\n", encoding="utf-8")
    monkeypatch.setenv("NO_COLOR", "1")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["check", str(bad), str(Path(bad).parent / "missing.md")])
    assert code == 2, err.getvalue()
    assert "Traceback" not in out.getvalue() + err.getvalue()
    assert (
        f"{bad}:1:3: false:" in out.getvalue() and f"{bad}:3:5: not-understood:" in out.getvalue()
    )
