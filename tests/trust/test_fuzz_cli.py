"""Fuzzing the command line: any token soup gives an answer whose exit code matches it (0 ok,
1 a shape error or false claim, 2 unreadable input), never a traceback.
"""

from __future__ import annotations

import contextlib
import io
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symattn.cli import main

TOKENS = [
    "Q", "K", "V", "X", "A", "Z", "W_Q", "W_O", "^T", "^{(h)}", "^{(1)}", "_{ij}", "_i", "q_i",
    "k_j", r"\cdot", "+", "-", "/", "=", "(", ")", "{", "}", "softmax(", "sqrt(", r"\sqrt{d_k}",
    r"\frac{", "}{", "d_k", "n", "2", r"\sum_{r=1}^{d_k}", "Q_{ir}", r"\ldots", ",", "Concat(",
    "mask(", r"\operatorname{softmax}", r"\in", " ", "a_{ij}", r"\left(", r"\right)", "x^", "!",
]  # fmt: skip

soup = st.lists(st.sampled_from(TOKENS), min_size=1, max_size=8).map("".join)


def _run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


def _shapes_exit_code_matches_its_output(code: int, out: str, err: str) -> None:
    """0: a JSON answer that is ok; 1: a JSON answer with the shape error; 2: one error line."""
    if code == 2:
        assert out == "" and err.startswith(("symattn shapes: error: ", "usage:")), err
        return
    data = json.loads(out)
    assert code == (0 if data["ok"] else 1), (code, data)
    assert (data["error"] is None) is data["ok"], data


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expr=soup)
def test_shapes_never_raises(expr):
    _shapes_exit_code_matches_its_output(*_run("shapes", expr, "--format", "json"))


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expr=soup)
def test_prove_never_raises(expr):
    code, out, err = _run("prove", expr, "--format", "json")
    assert "Traceback" not in err
    if not out:  # argparse refused the arguments before any formula was read
        assert code == 2 and err.startswith("usage:"), err
        return
    data = json.loads(out)
    assert data["exit_code"] == code and code in (0, 1, 2), (code, data)
    assert data["ok"] is (code == 0), data


@settings(max_examples=30, deadline=None)
@given(spec=st.text(alphabet="QKVn d_kx:;,*/()0123456789 ×", max_size=24))
def test_dims_option_never_raises(spec):
    code, out, err = _run("shapes", "QK^T", "--dims", spec, "--format", "json")
    _shapes_exit_code_matches_its_output(code, out, err)
    if code == 2:
        assert err.startswith("symattn shapes: error: "), err
