"""The own corpus's manifest and script: every entry complete, a missing folder a clear error."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _module():  # the benchmarks are scripts, not a package
    spec = importlib.util.spec_from_file_location("own_corpus", ROOT / "benchmarks/own_corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["own_corpus"] = module
    spec.loader.exec_module(module)
    return module


def test_the_manifest_is_wide_and_complete() -> None:
    docs = _module().load()
    assert len(docs) >= 25 and len({d.repo for d in docs}) >= 15
    assert {d.language for d in docs} == {"en", "zh"}
    assert {"markdown", "kramdown", "latex", "notebook"} <= {d.dialect for d in docs}
    assert all(len(d.commit) == 40 for d in docs)
    assert len({(d.repo, d.path) for d in docs}) == len(docs)


def test_an_entry_without_a_field_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "corpus.toml"
    bad.write_text('[[document]]\nrepo = "a/b"\npath = "x.md"\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"^corpus.toml: document 1 has no commit, licence"):
        _module().load(bad)


def test_a_missing_folder_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    own = _module()
    assert own.main(["reach", str(tmp_path / "nowhere")]) == 2
    assert "no such folder" in capsys.readouterr().err
    assert own.main(["planted", str(tmp_path)]) == 2
    assert "holds none of the" in capsys.readouterr().err


def test_copies_are_found_under_owner_plus_name(tmp_path: Path) -> None:
    own = _module()
    docs = own.load()
    first = docs[0].local(tmp_path)
    first.parent.mkdir(parents=True)
    first.write_text("x", encoding="utf-8")
    found, missing = own.present(docs, tmp_path)
    assert found == [str(first)] and len(missing) == len(docs) - 1
    assert first.relative_to(tmp_path).parts[0] == docs[0].repo.replace("/", "+")


@pytest.mark.parametrize(
    ("formula", "planted"),
    [
        (r"z = \sum_{j=1}^{n} a_j", r"z = \sum_{j=1}^{n-1} a_j"),
        (r"z = \sum_{j=1}^n a_j", r"z = \sum_{j=1}^{n-1} a_j"),
        # a bound with an index is made one less whole, never split inside its subscript
        (r"q \cdot k = \sum_{i=1}^{d_k} q_ik_i", r"q \cdot k = \sum_{i=1}^{d_k-1} q_ik_i"),
    ],
)
def test_the_planted_bound_is_the_whole_bound(formula: str, planted: str) -> None:
    spec = importlib.util.spec_from_file_location("planted", ROOT / "benchmarks/planted.py")
    assert spec is not None and spec.loader is not None
    plants = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plants)
    assert list(plants.PLANTS["bound n-1 for n"](formula)) == [planted]


def test_the_second_set_is_apart_from_the_first() -> None:
    own = _module()
    first = {d.repo for d in own.load()}
    second = own.load(ROOT / "benchmarks/heldout.toml")
    assert len(second) >= 15 and not first & {d.repo for d in second}
    assert all(len(d.commit) == 40 for d in second)


def test_no_manifest_names_a_repository_kept_for_the_independent_measurement() -> None:
    own = _module()
    for manifest in ("corpus.toml", "heldout.toml"):
        repos = {d.repo for d in own.load(ROOT / "benchmarks" / manifest)}
        assert not repos & own.RESERVED, manifest


def test_a_missing_manifest_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    own = _module()
    assert own.main(["list", "--manifest", str(tmp_path / "none.toml")]) == 2
    assert "no such manifest" in capsys.readouterr().err
    broken = tmp_path / "broken.toml"
    broken.write_text("[[document]\n", encoding="utf-8")
    assert own.main(["list", "--manifest", str(broken)]) == 2
    assert "error:" in capsys.readouterr().err
