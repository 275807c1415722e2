"""`symattn check` on a book: with no FILE it checks the `paths` of `[tool.symattn]`, leaving
out what `exclude` names; exit codes as for files."""

from __future__ import annotations

import pytest
from cli_helpers import cli

RIGHT = "Right $(QK^T)_{ij}=q_i\\cdot k_j$.\n"
WRONG = "Let $Q,K\\in\\mathbb{R}^{n\\times d_k}$. Wrong $(QK^T)_{ij}=q_j\\cdot k_i$.\n"


@pytest.fixture
def book(tmp_path, monkeypatch):
    (tmp_path / "chapters" / "drafts").mkdir(parents=True)
    (tmp_path / "notes").mkdir()
    (tmp_path / "chapters" / "one.md").write_text(RIGHT, encoding="utf-8")
    (tmp_path / "chapters" / "drafts" / "wip.md").write_text(WRONG, encoding="utf-8")
    (tmp_path / "notes" / "n.md").write_text(RIGHT, encoding="utf-8")
    (tmp_path / "notes" / "skip.txt").write_text(WRONG, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def settings(book, body: str) -> None:
    (book / "pyproject.toml").write_text("[tool.symattn]\n" + body, encoding="utf-8")


def test_no_file_checks_the_paths_without_the_excluded(book):
    settings(book, 'paths = ["chapters", "notes/*.md"]\nexclude = ["chapters/drafts/**"]\n')
    r = cli("check")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "chapters/one.md:" in r.stdout and "notes/n.md:" in r.stdout
    assert "wip.md" not in r.stdout and "total (2 files)" in r.stdout


def test_without_exclude_the_draft_fails_the_run(book):
    settings(book, 'paths = ["chapters"]\n')
    r = cli("check")
    assert r.returncode == 1 and "wip.md:1:" in r.stdout


def test_a_file_named_on_the_command_line_is_checked_even_if_excluded(book):
    settings(book, 'paths = ["chapters"]\nexclude = ["chapters/drafts/**"]\n')
    r = cli("check", "chapters/drafts/wip.md")
    assert r.returncode == 1
    r = cli("check", "chapters")
    assert r.returncode == 0 and "wip.md" not in r.stdout


def test_excludes_run_from_the_settings_folder_when_checking_a_subfolder(book, monkeypatch):
    settings(book, 'paths = ["chapters"]\nexclude = ["chapters/drafts/*.md"]\n')
    monkeypatch.chdir(book / "chapters")
    r = cli("check")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "one.md" in r.stdout and "wip.md" not in r.stdout


@pytest.mark.parametrize(
    "body, message",
    [
        ("", "no FILE given and no paths in [tool.symattn]"),
        ('paths = "chapters"\n', "paths must be a list of strings"),
        ("exclude = [1]\n", "exclude must be a list of strings"),
    ],
)
def test_no_paths_or_bad_ones_are_an_input_error(book, body, message):
    settings(book, body)
    r = cli("check")
    assert r.returncode == 2 and message in r.stderr
