"""`symattn check FOLDER` and `symattn check 'GLOB'`: every document under it, same exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import cli

from symattn.cli.check import documents

GOOD = "Scores: $(QK^T)_{ij} = q_i\\cdot k_j$.\n"
BAD = "Wrong: $(QK^T)_{ij} = q_j\\cdot k_i$.\n"


def tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_a_folder_checks_every_document_under_it(tmp_path: Path) -> None:
    tree(
        tmp_path,
        {
            "a.md": GOOD,
            "sub/b.markdown": GOOD,
            "sub/c.tex": "\\[(QK^T)_{ij} = q_i\\cdot k_j\\]\n",
            "sub/deep/d.ipynb": json.dumps(
                {"cells": [{"cell_type": "markdown", "source": GOOD}], "nbformat": 4}
            ),
            "notes.txt": BAD,
            ".git/e.md": BAD,
            "sub/.ipynb_checkpoints/d-checkpoint.ipynb": "{}",
        },
    )
    r = cli("check", str(tmp_path), "--format", "json")
    assert r.returncode == 0, r.stdout
    doc = json.loads(r.stdout)
    names = [Path(f["file"]).relative_to(tmp_path).as_posix() for f in doc["files"]]
    assert names == ["a.md", "sub/b.markdown", "sub/c.tex", "sub/deep/d.ipynb"]
    assert doc["summary"]["verified"] == 4
    assert [f["dialect"]["name"] for f in doc["files"]] == [
        "markdown",
        "markdown",
        "latex",
        "notebook",
    ]


def test_a_false_claim_in_a_folder_still_exits_1(tmp_path: Path) -> None:
    tree(tmp_path, {"a.md": GOOD, "b/c.md": BAD})
    r = cli("check", str(tmp_path))
    assert r.returncode == 1
    assert "total (2 files)" in r.stdout and "c.md:1:" in r.stdout


def test_a_glob_checks_the_files_it_matches(tmp_path: Path) -> None:
    tree(tmp_path, {"a.md": GOOD, "b.md": GOOD, "c.tex": BAD})
    r = cli("check", str(tmp_path / "*.md"))
    assert r.returncode == 0 and "total (2 files)" in r.stdout


def test_a_glob_or_folder_with_no_document_exits_2(tmp_path: Path) -> None:
    tree(tmp_path, {"x/readme.txt": GOOD})
    r = cli("check", str(tmp_path / "x"))
    assert r.returncode == 2 and "no documents" in r.stderr
    r = cli("check", str(tmp_path / "*.md"))
    assert r.returncode == 2 and "no file matches" in r.stderr


def test_a_file_named_twice_is_checked_once(tmp_path: Path) -> None:
    tree(tmp_path, {"a.md": GOOD})
    names, problems = documents([str(tmp_path / "a.md"), str(tmp_path)])
    assert names == [str(tmp_path / "a.md")] and problems == []


def test_the_summary_says_which_dialect_was_read(tmp_path: Path) -> None:
    tree(tmp_path, {"post.md": "---\nlayout: post\n---\n" + GOOD})
    r = cli("check", str(tmp_path / "post.md"))
    assert "read as kramdown (Jekyll): front matter sets a layout" in r.stdout


def test_plain_markdown_is_not_said_but_the_json_has_it(tmp_path: Path) -> None:
    tree(tmp_path, {"a.md": GOOD, "b.md": "See \\\\(x\\\\).\n" + GOOD})
    r = cli("check", str(tmp_path / "a.md"), str(tmp_path / "b.md"))
    [a_line] = [x for x in r.stdout.splitlines() if x.startswith(f"{tmp_path / 'a.md'}: ")]
    [b_line] = [x for x in r.stdout.splitlines() if x.startswith(f"{tmp_path / 'b.md'}: ")]
    assert "read as" not in a_line
    assert "read as Markdown (CommonMark/pandoc), with Markdown-escaped" in b_line
    doc = json.loads(cli("check", str(tmp_path / "a.md"), "--format", "json").stdout)
    assert doc["files"][0]["dialect"]["name"] == "markdown"
