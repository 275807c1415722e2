"""Notation settings: read from [tool.symattn] or a dict, checked, and what they change in print."""

from __future__ import annotations

import pytest

from symattn.kernel.attention import multi_head, single_head
from symattn.kernel.errors import SymattnError
from symattn.latex.printer import latex
from symattn.settings import Notation, SettingsError, load, notation, pyproject_for


def test_defaults_print_as_before():
    s = single_head()
    style = Notation().style()
    assert latex(s.weights, **style) == latex(s.weights)
    assert Notation().describe() == "notation: defaults"


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        ({"transpose": "top"}, r"\operatorname{softmax}\left(\frac{QK^{\top}}{\sqrt{d_k}}\right)"),
        ({"transpose": "T"}, r"\operatorname{softmax}\left(\frac{QK^{T}}{\sqrt{d_k}}\right)"),
        (
            {"operators": {"softmax": r"\mathrm{softmax}"}},
            r"\mathrm{softmax}\left(\frac{QK^{\mathsf T}}{\sqrt{d_k}}\right)",
        ),
        (
            {"names": {"K": "M"}},
            r"\operatorname{softmax}\left(\frac{QM^{\mathsf T}}{\sqrt{d_k}}\right)",
        ),
    ],
)
def test_a_setting_changes_the_printed_latex(setting, expected):
    style = notation(setting, "test").style()
    assert latex(single_head().weights, **style) == expected


def test_the_concat_operator_and_a_matrix_name():
    setting = {"operators": {"concat": r"\mathrm{concat}"}, "names": {"W_O": "W^O"}}
    style = notation(setting, "t").style()
    assert latex(multi_head().output, **style) == r"\mathrm{concat}(Z^{(1)},\ldots,Z^{(H)})W^O"


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ({"transpos": "top"}, r"^here: unknown setting 'transpos'; did you mean 'transpose'\? "),
        ({"colour": 1}, r"^here: unknown setting 'colour' \(known: transpose, names, operators"),
        ({"transpose": "dagger"}, r"^here: transpose = 'dagger'; use one of mathsf, top, T$"),
        ({"lang": "fr"}, r"^here: lang = 'fr'; use one of zh, en, all$"),
        ({"names": ["r", "s"]}, r"^here: names must be a table of strings"),
        ({"operators": {"exp": "E"}}, r"^here: unknown operator 'exp' \(known: softmax, concat\)"),
    ],
)
def test_a_bad_setting_is_refused_with_where_it_was_read(setting, message):
    with pytest.raises(SettingsError, match=message) as exc:
        notation(setting, "here")
    assert isinstance(exc.value, SymattnError)


def test_the_nearest_pyproject_is_read(tmp_path):
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    (tmp_path / "pyproject.toml").write_text('[tool.symattn]\ntranspose = "top"\nlang = "zh"\n')
    assert pyproject_for(deep) == tmp_path / "pyproject.toml"
    got = load(deep / "notes.py")
    assert (got.transpose, got.lang) == ("top", "zh")
    assert (
        got.describe()
        == f"notation: transpose=top, lang=zh ({tmp_path / 'pyproject.toml'} [tool.symattn])"
    )
    (deep / "pyproject.toml").write_text('[project]\nname = "x"\n')  # nearer, without settings
    assert load(deep) == Notation()


def test_a_broken_pyproject_is_an_error(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.symattn\n")
    with pytest.raises(SettingsError, match=r"pyproject.toml: not valid TOML"):
        load(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool]\nsymattn = "top"\n')
    with pytest.raises(SettingsError, match=r"\[tool.symattn\] must be a table"):
        load(tmp_path)


def test_a_changed_pyproject_is_read_again(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.symattn]\ntranspose = "top"\n')
    assert load(tmp_path).transpose == "top"
    (tmp_path / "pyproject.toml").write_text('[tool.symattn]\ntranspose = "T"\n')
    assert load(tmp_path).transpose == "T"
