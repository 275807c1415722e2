"""Bad input never ends in a traceback: any token soup gives exit 0, 1 or 2 and a clean message."""

from __future__ import annotations

import contextlib
import io

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


def _run(*args: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse
            code = exc.code if isinstance(exc.code, int) else 2
    return code, err.getvalue()


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expr=soup)
def test_shapes_never_raises(expr):
    code, err = _run("shapes", expr, "--format", "json")
    assert code in (0, 1, 2)
    if code == 2:
        assert err.startswith("symattn shapes: error: ") or err.startswith("usage:")


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expr=soup)
def test_prove_never_raises(expr):
    code, err = _run("prove", expr)
    assert code in (0, 1, 2)
    assert "Traceback" not in err


@settings(max_examples=30, deadline=None)
@given(spec=st.text(alphabet="QKVn d_kx:;,*/()0123456789 ×", max_size=24))
def test_dims_option_never_raises(spec):
    code, err = _run("shapes", "QK^T", "--dims", spec)
    assert code in (0, 1, 2)
    if code == 2:
        assert err.startswith("symattn shapes: error: ")
