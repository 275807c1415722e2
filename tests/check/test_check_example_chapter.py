"""The project's example chapter checks clean, from the CLI and through the pytest plugin."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from symattn.check import check_file, summary_counts

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "attention.md"


def test_every_claim_of_the_example_is_verified():
    counts = summary_counts(check_file(EXAMPLE))
    assert counts["verified"] >= 15
    for kind in ("false", "shape-error", "not-understood", "undecided"):
        assert counts[kind] == 0, (kind, counts)


@pytest.mark.slow  # two processes; the claims are checked in-process above
def test_cli_and_plugin_pass_on_the_example(tmp_path):
    cli = subprocess.run(
        [sys.executable, "-m", "symattn", "check", str(EXAMPLE)], capture_output=True, text=True
    )
    assert cli.returncode == 0, cli.stdout + cli.stderr
    plugin = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--symattn", str(EXAMPLE)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert plugin.returncode == 0, plugin.stdout + plugin.stderr
    assert " passed" in plugin.stdout and "failed" not in plugin.stdout
