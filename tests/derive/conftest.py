"""Fixtures for `symattn derive`: the sections are checked once per session and reused."""

from __future__ import annotations

import argparse
import io

import pytest

from symattn.cli import derive
from symattn.testing import require_tex


@pytest.fixture
def tex() -> None:
    require_tex()


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
