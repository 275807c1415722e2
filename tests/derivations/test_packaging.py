"""The wheel ships the bundled chapters (derivations/ as symattn/_chapters) and every package."""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]


def test_the_package_list_names_every_package_and_the_chapters():
    found = {
        ".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "symattn").rglob("__init__.py")
    }
    assert set(CONFIG["packages"]) == found | {"symattn._chapters"}
    assert CONFIG["package-dir"] == {"symattn._chapters": "derivations"}
    assert set(CONFIG["package-data"]["symattn._chapters"]) == {"*/*.py", "*/*.toml"}


def test_every_chapter_folder_has_a_manifest_and_only_flat_scripts():
    for folder in (ROOT / "derivations").iterdir():
        if folder.is_dir() and folder.name != "__pycache__":
            assert (folder / "chapter.toml").is_file(), folder
            assert not [p for p in folder.rglob("*.py") if p.parent != folder], folder


@pytest.mark.slow
def test_an_installed_wheel_builds_the_chapter_outside_the_repo(tmp_path):
    """pip wheel + a fresh venv (deps from this interpreter's site-packages), run elsewhere."""
    src = tmp_path / "src"  # a copy: building writes build/ and *.egg-info beside the sources
    for name in ("symattn", "derivations"):
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    wheels = tmp_path / "wheels"
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(src), "-w", str(wheels), "--no-deps", "-q"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    if built.returncode != 0 and "No matching distribution found for setuptools" in built.stderr:
        pytest.skip("no index to fetch the build backend (setuptools>=68) from")
    assert built.returncode == 0, built.stderr
    (wheel,) = wheels.glob("symattn-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for stem in ("chapter.toml", "sec61.py", "beyond.py"):
        assert f"symattn/_chapters/ch06/{stem}" in names
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    target = venv / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
    )
    deps = sysconfig.get_paths()["purelib"]
    env = {"PYTHONPATH": f"{target}:{deps}", "PATH": "/usr/bin:/bin"}
    code = (
        "import sys, symattn; from symattn.cli import main;"
        "print(symattn.__file__, file=sys.stderr);"
        "sys.exit(main(['derive', '--out', 'out', '--no-pdf', '--lang', 'en']))"
    )
    run = subprocess.run(
        [str(venv / "bin" / "python"), "-c", code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert run.returncode == 0, run.stderr
    assert str(target / "symattn" / "__init__.py") in run.stderr
    assert "_chapters/ch06/sec61.py" in run.stderr
    mine = (tmp_path / "out" / "chapter6.en.tex").read_text(encoding="utf-8")
    assert r"\renewcommand{\thesection}{6.\arabic{section}}" in mine
    assert "derivations: 48 (" in run.stdout
    assert (tmp_path / "out" / "chapter8.en.tex").is_file()
