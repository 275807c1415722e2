"""The repository's pre-commit hook: its entry, run as pre-commit runs it (the entry's words, then
the staged files of the types it names), fails on a staged false formula and passes a true one."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml", reason="pyyaml (a test extra) is missing")

ROOT = Path(__file__).resolve().parents[2]
#: pre-commit's file types (identify's tags) for the suffixes symattn reads.
TAGS = {".md": "markdown", ".tex": "tex", ".ipynb": "jupyter"}


def hook() -> dict:
    (entry,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    return entry


def staged(repo: Path) -> list[str]:
    out = subprocess.run(
        ["git", "diff", "--cached", "--name-only"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [name for name in out.split() if TAGS.get(Path(name).suffix) in hook()["types_or"]]


def run_hook(repo: Path) -> subprocess.CompletedProcess:
    words = shlex.split(hook()["entry"])
    assert words[0] == "symattn"  # the console script; here the same entry point via -m
    cmd = [sys.executable, "-m", "symattn", *words[1:], *staged(repo)]
    return subprocess.run(cmd, cwd=repo, capture_output=True, text=True, timeout=120)


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path):
    git(tmp_path, "init", "-q")
    (tmp_path / "README.txt").write_text("not a document symattn reads\n")
    return tmp_path


def test_the_hook_is_declared_for_the_documents_symattn_reads():
    h = hook()
    assert h["id"] == "symattn-check" and h["language"] == "python"
    assert set(h["types_or"]) == set(TAGS.values())


def test_a_staged_false_formula_fails_the_commit(repo):
    (repo / "ch.md").write_text("Wrong: $(QK^T)_{ij} = q_j\\cdot k_i$.\n", encoding="utf-8")
    git(repo, "add", "ch.md", "README.txt")
    assert staged(repo) == ["ch.md"]
    r = run_hook(repo)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "ch.md:1:" in r.stdout and "false" in r.stdout


@pytest.mark.slow  # a git repository and a commit; the false formula's commit runs in the fast loop
def test_a_staged_true_formula_passes(repo):
    (repo / "ch.md").write_text("Right: $(QK^T)_{ij} = q_i\\cdot k_j$.\n", encoding="utf-8")
    git(repo, "add", "ch.md")
    r = run_hook(repo)
    assert r.returncode == 0, r.stdout + r.stderr
