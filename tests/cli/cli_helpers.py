"""Running the command line as a user would: `python -m symattn` in a subprocess (`run_cli`),
or the same entry point, `symattn.cli.main`, in-process with captured output (`cli`, faster).

A plain module, not a conftest.py: several conftest.py files clash under --doctest-modules.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str


def run_cli(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> Result:
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


@contextlib.contextmanager
def _environ(values: dict[str, str]) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def cli(*args: str, env: dict[str, str] | None = None) -> Result:
    """`symattn ARGS` in-process: the exit code main() returns (or argparse's SystemExit)."""
    from symattn.cli import main

    out, err = io.StringIO(), io.StringIO()
    with (
        _environ({"NO_COLOR": "1", **(env or {})}),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        try:
            code = main(list(args))
        except SystemExit as exc:  # --help, --version and argparse's usage errors
            code = exc.code if isinstance(exc.code, int) else 2
    return Result(code, out.getvalue(), err.getvalue())
