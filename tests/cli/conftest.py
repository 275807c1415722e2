"""Running the command line as a user would: `python -m symattn` in a subprocess (`run_cli`),
or the same entry point, `symattn.cli.main`, in-process with captured output (`cli`, faster)."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str


def _run_cli(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> Result:
    """`python -m symattn ARGS` in a subprocess (NO_COLOR set unless `env` says otherwise)."""
    full_env = {**os.environ, "NO_COLOR": "1", **(env or {})}
    r = subprocess.run(
        [sys.executable, "-m", "symattn", *args],
        capture_output=True,
        text=True,
        cwd=cwd or ROOT,
        env=full_env,
        timeout=120,
    )
    return Result(r.returncode, r.stdout, r.stderr)


@pytest.fixture
def run_cli():
    """`python -m symattn ARGS` in a subprocess, as a user types it."""
    return _run_cli


@pytest.fixture
def cli(capsys, monkeypatch):
    """`symattn ARGS` in-process: the exit code main() returns (or argparse's SystemExit)."""
    from symattn.cli import main

    def run(*args: str, env: dict[str, str] | None = None) -> Result:
        monkeypatch.setenv("NO_COLOR", "1")
        for key, value in (env or {}).items():
            monkeypatch.setenv(key, value)
        capsys.readouterr()
        try:
            code = main(list(args))
        except SystemExit as exc:  # --help, --version and argparse's usage errors
            code = exc.code if isinstance(exc.code, int) else 2
        out = capsys.readouterr()
        return Result(code, out.out, out.err)

    return run
