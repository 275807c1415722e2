"""Fixtures for `symattn derive`: the sections are checked once per session and reused."""

from __future__ import annotations

import argparse
import io
import os
import shutil

import pytest

from symattn import derive
from symattn.latex import install_hint, tex_engine_available


def require_tex_or_skip() -> None:
    """Skip without TeX, except under SYMATTN_REQUIRE_TEX=1 (CI), where a missing engine fails."""
    if tex_engine_available() and shutil.which("pdftoppm") is not None:
        return
    reason = f"no TeX engine (latexmk, xelatex, pdftoppm); {install_hint()}"
    if os.environ.get("SYMATTN_REQUIRE_TEX") == "1":
        pytest.fail(f"SYMATTN_REQUIRE_TEX=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture
def tex() -> None:
    require_tex_or_skip()


@pytest.fixture(scope="session")
def checked():
    """(sections, progress text) from checking every derivation once."""
    err = io.StringIO()
    secs = derive._check_all(err)
    assert secs is not None, err.getvalue()
    return secs, err.getvalue()


def derive_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    derive.add_arguments(parser)
    return parser.parse_args(list(argv))


def run_derive(checked, *argv: str) -> tuple[int, str, str]:
    """Run the command on the already-checked sections; (exit code, stdout, stderr)."""
    secs, _ = checked
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(derive, "_check_all", lambda _err: secs)
        code = derive.run(derive_args(*argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()
