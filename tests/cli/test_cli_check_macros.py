"""`symattn check --macros FILE` and `[tool.symattn] macros`: macros a site defines outside its
documents (KaTeX/MathJax), applied before each document's own, which win."""

from __future__ import annotations

import json

import pytest
from cli_helpers import cli

DOC = "Let $$Q \\in \\RR^{n \\times d_k}$$ and $$\\vect{q}_i = q_i$$.\n"
WRONG = "Let $$Q, K \\in \\RR^{n \\times d_k}$$. Then $$(QK^T)_{ij} = \\vect{q}_j \\cdot k_i$$.\n"


@pytest.fixture
def site(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "doc.md").write_text(DOC, encoding="utf-8")
    (tmp_path / "wrong.md").write_text(WRONG, encoding="utf-8")
    return tmp_path


def test_without_the_site_macros_they_are_read_by_use_and_named(site):
    r = cli("check", "doc.md")
    assert "undefined \\RR as the real numbers" in r.stdout
    r = cli("check", "wrong.md")
    assert r.returncode == 0 and "undecided" in r.stdout  # a false claim resting on a guess


@pytest.mark.parametrize(
    ("name", "body"),
    [
        ("macros.tex", "\\gdef\\RR{\\mathbb{R}}\n\\newcommand{\\vect}[1]{\\mathbf{#1}}\n"),
        ("macros.json", '{"\\\\RR": "\\\\mathbb{R}", "\\\\vect": "\\\\mathbf{#1}"}'),
        ("macros.yaml", '"\\\\RR": "\\\\mathbb{R}"\n"\\\\vect": ["\\\\mathbf{#1}", 1]\n'),
        (
            "layout.html",
            '<script>MathJax = {tex: {macros: {RR: "\\\\mathbb{R}", '
            'vect: ["\\\\mathbf{#1}", 1]}}};</script>',
        ),
    ],
)
def test_a_macros_file_is_applied(site, name, body):
    (site / name).write_text(body, encoding="utf-8")
    r = cli("check", "doc.md", "--macros", name)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "unknown command" not in r.stdout
    assert "1 verified" in r.stdout and "1 declarations" in r.stdout


def test_a_false_claim_behind_site_macros_fails_the_run(site):
    (site / "m.tex").write_text("\\gdef\\RR{\\mathbb{R}}\\gdef\\vect#1{\\mathbf{#1}}", "utf-8")
    r = cli("check", "wrong.md", "--macros", "m.tex")
    assert r.returncode == 1 and "false" in r.stdout


def test_the_documents_own_macro_wins(site):
    (site / "m.tex").write_text("\\gdef\\RR{\\mathbb{Z}}\\gdef\\vect#1{\\mathbf{#1}}", "utf-8")
    own = "$$\\newcommand{\\RR}{\\mathbb{R}}$$\n" + DOC
    (site / "own.md").write_text(own, encoding="utf-8")
    r = cli("check", "own.md", "--macros", "m.tex")
    assert "declares Q as n × d_k" in r.stdout, r.stdout


def test_pyproject_macros(site):
    (site / "m.json").write_text('{"\\\\RR": "\\\\mathbb{R}", "\\\\vect": "\\\\mathbf{#1}"}')
    (site / "pyproject.toml").write_text('[tool.symattn]\nmacros = ["m.json"]\n', "utf-8")
    r = cli("check", "doc.md")
    assert r.returncode == 0 and "1 verified" in r.stdout, r.stdout + r.stderr


@pytest.mark.parametrize(
    ("name", "body", "said"),
    [
        ("none.tex", None, "macros file not found"),
        ("bad.json", "{not json", "not valid JSON"),
        ("list.json", "[1, 2]", "a JSON object of macros is expected"),
        ("bad.yaml", "just words\n", "not a macro"),
    ],
)
def test_a_bad_macros_file_is_an_input_error(site, name, body, said):
    if body is not None:
        (site / name).write_text(body, encoding="utf-8")
    r = cli("check", "doc.md", "--macros", name)
    assert r.returncode == 2
    assert name in r.stderr and said in r.stderr
    assert "Traceback" not in r.stderr


def test_a_macros_setting_that_is_not_a_list(site):
    (site / "pyproject.toml").write_text('[tool.symattn]\nmacros = "m.tex"\n', "utf-8")
    r = cli("check", "doc.md")
    assert r.returncode == 2 and "macros must be a list" in r.stderr


@pytest.fixture
def jekyll(tmp_path, monkeypatch):
    """A Jekyll site whose layout defines the macros its posts use."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "_config.yml").write_text("title: notes\n", encoding="utf-8")
    (tmp_path / "_layouts").mkdir()
    (tmp_path / "_layouts" / "custom.html").write_text(
        "$$\\gdef \\RR {\\mathbb{R}}$$\n$$\\gdef \\vect #1 {\\mathbf{#1}}$$\n", encoding="utf-8"
    )
    (tmp_path / "_posts").mkdir()
    (tmp_path / "_posts" / "doc.md").write_text(DOC, encoding="utf-8")
    return tmp_path


def test_the_sites_macros_are_found_and_said(jekyll):
    r = cli("check", "_posts/doc.md")
    assert r.returncode == 0 and "unknown command" not in r.stdout, r.stdout
    assert r.stdout.rstrip().endswith("; macros: _layouts/custom.html (2)"), r.stdout


def test_no_site_macros(jekyll):
    r = cli("check", "_posts/doc.md", "--no-site-macros")
    assert "undefined \\RR" in r.stdout and "macros:" not in r.stdout


def test_the_sites_macros_in_json(jekyll):
    r = cli("check", "_posts/doc.md", "--format", "json")
    [entry] = json.loads(r.stdout)["files"]
    assert entry["macros"]["sources"] == [{"file": "_layouts/custom.html", "macros": 2}]
    assert entry["macros"]["warnings"] == [] and entry["summary"]["verified"] == 1


def test_given_macros_files_are_said_after_the_sites(jekyll):
    (jekyll / "more.tex").write_text("\\gdef\\RR{\\mathbb{R}}", encoding="utf-8")
    r = cli("check", "_posts/doc.md", "--macros", "more.tex")
    assert "; macros: _layouts/custom.html (2), more.tex (1)" in r.stdout, r.stdout


def test_a_site_file_that_does_not_parse_is_a_warning_not_an_error(jekyll):
    (jekyll / "_config.yml").write_text('katex:\n  macros: {"\\\\RR": f()}\n', encoding="utf-8")
    r = cli("check", "_posts/doc.md")
    assert r.returncode == 0, r.stdout + r.stderr
    assert 'warning: _config.yml:2: "\\\\RR": f() is not a string' in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
    j = json.loads(cli("check", "_posts/doc.md", "--format", "json").stdout)
    assert j["files"][0]["macros"]["warnings"] == [
        '_config.yml:2: "\\\\RR": f() is not a string or [body, arguments]'
    ]


def test_a_sites_warning_is_said_once_for_all_its_documents(jekyll):
    (jekyll / "_config.yml").write_text('katex:\n  macros: {"\\\\RR": f()}\n', encoding="utf-8")
    (jekyll / "_posts" / "two.md").write_text(DOC, encoding="utf-8")
    r = cli("check", "_posts", "--format", "github")
    assert r.stderr.count("warning: _config.yml:2:") == 1, r.stderr
