"""Where derivations come from: bundled chapters, manifests, scripts loaded by path, run alone."""

from __future__ import annotations

import doctest
import os
import subprocess
import sys
from pathlib import Path

import pytest

from symattn.derive import sources
from symattn.derive.blocks import DerivationError, Section, shown
from symattn.derive.sources import (
    ScriptError,
    SourceError,
    bundled,
    bundled_root,
    chapter,
    load_script,
    section_of,
    titled,
    unit_for,
)

ROOT = Path(__file__).resolve().parents[2]
CH06 = ROOT / "derivations" / "ch06"


def test_the_checkout_bundles_chapter_6_in_reading_order():
    assert bundled_root() == ROOT / "derivations"
    (ch,) = [u for u in bundled() if u.name == "chapter6"]
    assert [p.stem for p in ch.scripts] == ["sec61", "sec62", "sec63", "sec64", "sec65", "beyond"]
    assert (ch.number, ch.dims) == ("6", "n, d, d_k, d_v, H")
    assert ch.title is not None and ch.title("en").startswith("Chapter 6 derivations")


def test_an_installed_package_uses_its_own_copy(tmp_path, monkeypatch):
    packaged = tmp_path / "_chapters"
    (packaged / "ch09").mkdir(parents=True)
    (packaged / "ch09" / "a.py").write_text("DERIVATIONS = []\n")
    (packaged / "ch09" / "chapter.toml").write_text('output = "nine"\nsections = ["a"]\n')
    monkeypatch.setattr(sources, "PACKAGED", packaged)
    assert bundled_root() == packaged
    assert [u.name for u in bundled()] == ["nine"]
    monkeypatch.setattr(sources, "PACKAGED", tmp_path / "absent")
    assert bundled_root() == ROOT / "derivations"


def test_no_bundled_chapters_is_an_error(tmp_path, monkeypatch):
    monkeypatch.setattr(sources, "PACKAGED", tmp_path)
    with pytest.raises(SourceError, match=r"^no bundled chapters found in "):
        bundled()


@pytest.mark.parametrize("stem", ["sec61", "sec62", "sec63", "sec64", "sec65", "beyond"])
def test_each_section_script_keeps_its_doctests(stem):
    module = load_script(CH06 / f"{stem}.py")
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 1 and result.failed == 0


def test_a_script_is_loaded_once_per_version(tmp_path):
    script = tmp_path / "one.py"
    script.write_text("VALUE = 1\nDERIVATIONS = []\n")
    assert load_script(script) is load_script(script)
    script.write_text("VALUE = 22\nDERIVATIONS = []\n")
    os.utime(script, ns=(1, 10**18))  # a new version even within the clock's resolution
    assert load_script(script).VALUE == 22


def test_section_scripts_run_on_their_own():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(CH06 / "sec63.py")], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("6.3 score entry:\n    (QK^T)_{ij}\n")
    assert "6.3: 5 derivations, 9 steps checked (5 for all sizes" in done.stdout


def test_a_failed_claim_points_at_its_line(tmp_path):
    script = tmp_path / "shapes.py"
    script.write_text(
        "from symattn import MatSym, n, d_k\n"
        "from symattn.derive import Builder, Text\n"
        "def content(on_check=None):\n"
        '    b = Builder("s", Text("形状", "Shapes"), on_check)\n'
        '    Q = MatSym("Q", n, d_k)\n'
        '    b.shapes([("QQ^T", Q @ Q.T, (n, d_k))])\n'
        "    return b.section()\n"
    )
    with pytest.raises(DerivationError, match=r"s: QQ\^T has shape n × n, expected n × d_k") as exc:
        section_of(script)
    assert exc.value.site == (str(script), 6)
    assert str(exc.value).startswith(f"{script}:6: s: QQ^T has shape")


def test_an_error_inside_a_helper_is_placed_in_the_script(tmp_path):
    script = tmp_path / "broken.py"
    script.write_text(
        "from symattn import MatSym, n, d_k\n"
        "def content(on_check=None):\n"
        '    Q = MatSym("Q", n, d_k)\n'
        "    return Q @ Q\n"
    )
    with pytest.raises(ScriptError, match=rf"^{script}:4: cannot multiply Q"):
        section_of(script)


def test_a_lone_script_titles_its_document(tmp_path):
    script = tmp_path / "t.py"
    script.write_text('TITLE = {"zh": "标题", "en": "Title"}\nDERIVATIONS = []\n')
    unit = unit_for(script)
    assert unit.title is None
    got = titled(unit, [section_of(script)])
    assert got.title is not None and (got.title("zh"), got.title("en")) == ("标题", "Title")
    script.write_text("TITLE = 3\nDERIVATIONS = []\n")
    os.utime(script, ns=(1, 2 * 10**18))
    with pytest.raises(SourceError, match=r"t.py: TITLE must be a string, \(zh, en\)"):
        section_of(script)


def test_derivations_must_be_derivations(tmp_path):
    script = tmp_path / "d.py"
    script.write_text("DERIVATIONS = [1, 2]\n")
    with pytest.raises(SourceError, match=r"d.py: DERIVATIONS must be a list of Derivation"):
        section_of(script)


def test_a_chapter_manifest_is_read(tmp_path):
    (tmp_path / "x.py").write_text("DERIVATIONS = []\n")
    (tmp_path / "chapter.toml").write_text('title = ["甲", "A"]\nsections = ["x"]\n')
    unit = chapter(tmp_path)
    assert unit.name == tmp_path.name and unit.number is None and unit.title is not None
    assert unit.title("zh") == "甲"
    assert isinstance(unit.sections()[0], Section)
    with pytest.raises(SourceError, match=r"a derivation is a Python script \(\.py\)"):
        unit_for(tmp_path / "chapter.toml")


def test_paths_are_shown_as_typed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert shown(str(tmp_path / "notes" / "a.py")) == "notes/a.py"
    assert shown("/elsewhere/a.py") == "/elsewhere/a.py"
    assert shown("rel/a.py") == "rel/a.py"
