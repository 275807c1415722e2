"""A document's site macros: found from the site's root in each generator's known places, read
as data, the document's own definitions over them, and a file that does not parse a warning."""

from __future__ import annotations

from pathlib import Path

import pytest

from symattn.check import check_file
from symattn.check.sites import MAX_BYTES, MAX_FILES, SiteFinder, site_root

#: A document that reads only with a `\vect` (bold, one argument) and an `\RR` (the reals).
DOC = "Let $Q, K \\in \\RR^{n \\times d_k}$.\n\nThen $(QK^T)_{ij} = \\vect{q}_i \\cdot k_j$.\n"
WRONG = "Let $Q, K \\in \\RR^{n \\times d_k}$.\n\nThen $(QK^T)_{ij} = \\vect{q}_j \\cdot k_i$.\n"

JS_MACROS = '{"\\\\RR": "\\\\mathbb{R}", "\\\\vect": ["\\\\mathbf{#1}", 1]}'


def write(root: Path, files: dict[str, str]) -> None:
    for name, body in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")


def kinds(path: Path, **kw: bool) -> list[str]:
    return [r.kind for r in check_file(path, **kw) if r.kind not in ("declaration", "not-a-claim")]


#: One made-up site per generator: its files, and where the document sits in it.
SITES = {
    "jekyll layout": (
        {
            "_config.yml": "title: notes\nmarkdown: kramdown\n",
            "_layouts/custom.html": (
                '<div style="display:none;">\n  $$\\gdef \\vect #1 {\\boldsymbol{#1}}$$\n'
                "  $$\\gdef \\RR {\\mathbb{R}} $$\n</div>\n{{ content }}\n"
            ),
        },
        "_posts/2020-01-01-attention.md",
        ["_layouts/custom.html"],
    ),
    "jekyll kramdown options": (
        {
            "_config.yml": (
                "kramdown:\n  math_engine: katex\n  math_engine_opts:\n    macros:\n"
                '      "\\\\RR": "\\\\mathbb{R}"\n      "\\\\vect": ["\\\\mathbf{#1}", 1]\n'
            )
        },
        "_posts/a.md",
        ["_config.yml"],
    ),
    "jekyll include script": (
        {
            ".git/HEAD": "ref: refs/heads/main\n",
            "_includes/mathjax.html": (
                "<script>\nwindow.MathJax = {\n  tex: {\n    // the book's notation\n"
                '    macros: {RR: "\\\\mathbb{R}", vect: ["\\\\mathbf{#1}", 1]}\n  }\n};\n'
                "</script>\n"
            ),
        },
        "posts/a.md",
        ["_includes/mathjax.html"],
    ),
    "mkdocs extra_javascript": (
        {
            "mkdocs.yml": (
                "site_name: notes\nextra_javascript:\n  - javascripts/katex.js\n"
                "  - https://unpkg.com/katex@0/dist/katex.min.js\n"
            ),
            "docs/javascripts/katex.js": (
                "document$.subscribe(() => { renderMathInElement(document.body, {\n  macros: "
                + JS_MACROS
                + "\n}) })\n"
            ),
        },
        "docs/attention.md",
        ["docs/javascripts/katex.js"],
    ),
    "docusaurus": (
        {
            "docusaurus.config.js": (
                "const katex = require('rehype-katex');\nconst macros = "
                + JS_MACROS
                + ";\nmodule.exports = {presets: [['classic', {docs: {rehypePlugins: "
                "[[katex, {strict: false, macros}]]}}]]};\n"
            )
        },
        "docs/attention.md",
        ["docusaurus.config.js"],
    ),
    "vuepress": (
        {
            "docs/.vuepress/config.js": (
                "module.exports = {markdown: {extendMarkdown: md => {\n"
                "  md.use(require('markdown-it-katex'), {macros: " + JS_MACROS + "})\n}}}\n"
            )
        },
        "docs/guide/attention.md",
        [".vuepress/config.js"],
    ),
    "quarto include-in-header": (
        {
            "_quarto.yml": (
                "project:\n  type: book\nformat:\n  html:\n    include-in-header:\n"
                "      - _macros.html\n"
            ),
            "_macros.html": (
                "<script>MathJax = {tex: {macros: {RR: '\\\\mathbb{R}', "
                "vect: ['\\\\mathbf{#1}', 1]}}};</script>\n"
            ),
        },
        "chapters/attention.md",
        ["_macros.html"],
    ),
    "hugo partial": (
        {
            "hugo.toml": "baseURL = 'https://example.org/'\n",
            "layouts/partials/math.html": (
                '<script type="math/tex">\\newcommand{\\RR}{\\mathbb{R}}'
                "\\newcommand{\\vect}[1]{\\mathbf{#1}}</script>\n"
            ),
        },
        "content/posts/attention.md",
        ["layouts/partials/math.html"],
    ),
    "mdbook katex": (
        {
            "book.toml": '[book]\ntitle = "notes"\n\n[preprocessor.katex]\nmacros = "macros.txt"\n',
            "macros.txt": "\\RR:\\mathbb{R}\n\\vect:\\mathbf{#1}\n",
        },
        "src/attention.md",
        ["macros.txt"],
    ),
    "sphinx mathjax3_config": (
        {
            "conf.py": (
                "project = 'notes'\nmathjax3_config = {\n    'tex': {'macros': {\n"
                "        'RR': r'\\mathbb{R}',\n        'vect': [r'\\mathbf{#1}', 1],\n    }},\n}\n"
            )
        },
        "attention.md",
        ["conf.py"],
    ),
    "jupyter book": (
        {
            "_config.yml": (
                "title: notes\nsphinx:\n  config:\n    mathjax3_config:\n      tex:\n"
                '        macros:\n          "RR": "\\\\mathbb{R}"\n'
                '          "vect": ["\\\\mathbf{#1}", 1]\n'
            )
        },
        "chapters/attention.md",
        ["_config.yml"],
    ),
}


@pytest.mark.parametrize("generator", list(SITES))
def test_each_generators_macros_are_found(tmp_path: Path, generator: str) -> None:
    files, doc, sources = SITES[generator]
    write(tmp_path, files)
    path = tmp_path / doc
    write(path.parent, {path.name: DOC})
    alone = [r.message for r in check_file(path, site_macros=False) if r.kind == "verified"]
    assert all("undefined \\vect" in m for m in alone)  # without them: read by use, named
    assert kinds(path) == ["verified"]
    found = SiteFinder().find(path)
    assert [s.file for s in found.sources] == sources and not found.warnings
    assert found.summary().startswith(f"macros: {sources[0]} (")


@pytest.mark.parametrize("generator", ["jekyll layout", "sphinx mathjax3_config"])
def test_a_false_claim_behind_site_macros_is_false(tmp_path: Path, generator: str) -> None:
    files, doc, _ = SITES[generator]
    write(tmp_path, {**files, doc: WRONG})
    assert kinds(tmp_path / doc) == ["false"]


def test_the_documents_own_definition_wins(tmp_path: Path) -> None:
    files, doc, _ = SITES["jekyll layout"]
    own = "$$\\gdef\\vect#1{#1^T}$$\n\n" + DOC  # q_i^T . k_j: not the same claim
    write(tmp_path, {**files, doc: own})
    assert kinds(tmp_path / doc) != ["verified"]


def test_the_root_is_the_nearest_marked_folder(tmp_path: Path) -> None:
    """A repository whose site lives in docs/: the site's root is docs/, and a layout of the
    repository's root (another site) is not read."""
    write(
        tmp_path,
        {
            ".git/HEAD": "ref: refs/heads/main\n",
            "_layouts/other.html": "$$\\gdef\\RR{\\mathbb{Z}}$$",
            "docs/_config.yml": "title: notes\n",
            "docs/_layouts/custom.html": "$$\\gdef\\RR{\\mathbb{R}}\\gdef\\vect#1{\\mathbf{#1}}$$",
            "docs/en/week1/a.md": DOC,
        },
    )
    path = tmp_path / "docs/en/week1/a.md"
    assert site_root(path) == (tmp_path / "docs").resolve()
    assert [s.file for s in SiteFinder().find(path).sources] == ["_layouts/custom.html"]
    assert kinds(path) == ["verified"]


def test_no_marked_folder_no_site_macros(tmp_path: Path) -> None:
    write(
        tmp_path, {"notes/_layouts/custom.html": "$$\\gdef\\RR{\\mathbb{R}}$$", "notes/a.md": DOC}
    )
    found = SiteFinder().find(tmp_path / "notes/a.md")
    assert found.root is None and not found.macros


def test_a_definition_outside_math_or_a_script_is_page_text(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "_config.yml": "title: notes\n",
            "_layouts/post.html": "<p>Write \\gdef\\RR{\\mathbb{R}} in a math block.</p>\n",
        },
    )
    assert not SiteFinder().find(tmp_path / "a.md").macros


BAD_YAML = 'katex:\n  macros:\n    "\\\\RR": "\\\\mathbb{R}"\n    f:\n      - x\n'


@pytest.mark.parametrize(
    ("files", "said"),
    [
        (
            {"_config.yml": BAD_YAML},
            '_config.yml:4: f: a macro is "body" or ["body", arguments]',
        ),
        ({"conf.py": "mathjax3_config = {\n"}, "conf.py:1: not valid Python"),
        (
            {"conf.py": "import os\nmathjax3_config = dict(tex=os.environ)\n"},
            "conf.py:2: mathjax3_config is computed, not read",
        ),
        (
            {"_config.yml": "t: 1\n", "_includes/m.html": "$$\\gdef\\RR#1.{#1}$$\n"},
            "_includes/m.html:1: \\gdef not read",
        ),
        (
            {
                "_config.yml": "t: 1\n",
                "_includes/m.html": "<script>katex = {macros: {f: g()}}</script>",
            },
            "_includes/m.html:1: f: g() is not a string",
        ),
        ({"book.toml": "[book\n"}, "book.toml: not valid TOML"),
    ],
)
def test_a_file_that_does_not_parse_is_a_warning(tmp_path: Path, files, said) -> None:
    write(tmp_path, {**files, "a.md": DOC})
    found = SiteFinder().find(tmp_path / "a.md")
    assert any(w.startswith(said) for w in found.warnings), found.warnings
    assert kinds(tmp_path / "a.md")  # never a crash


def test_a_large_file_is_skipped_with_a_warning(tmp_path: Path) -> None:
    big = "$$\\gdef\\RR{\\mathbb{R}}$$\n" + "x" * MAX_BYTES
    write(tmp_path, {"_config.yml": "t: 1\n", "_includes/katex.html": big})
    found = SiteFinder().find(tmp_path / "a.md")
    assert not found.macros
    assert found.warnings == (f"_includes/katex.html: not read (larger than {MAX_BYTES} bytes)",)


def test_a_non_utf8_file_is_a_warning(tmp_path: Path) -> None:
    write(tmp_path, {"_config.yml": "t: 1\n"})
    (tmp_path / "_layouts").mkdir()
    (tmp_path / "_layouts" / "x.html").write_bytes(b"$$\\gdef\\RR{\xff}$$")
    found = SiteFinder().find(tmp_path / "a.md")
    assert found.warnings == ("_layouts/x.html: not read (not UTF-8 text)",)


LATEX_DOC = (
    "Let $Q, K \\in \\RR^{n \\times d_k}$.\n\nThen $(QK^T)_{ij} = \\vect{q}_i \\cdot k_j$.\n"
)


@pytest.mark.parametrize(
    ("files", "doc", "sources"),
    [
        (
            {
                "notation.sty": "\\newcommand{\\RR}{\\mathbb{R}}\n"
                "\\newcommand{\\vect}[1]{\\mathbf{#1}}\n",
                "notes.tex": "\\documentclass{article}\n\\usepackage{amsmath,notation}\n"
                "\\begin{document}\n" + LATEX_DOC + "\\end{document}\n",
            },
            "notes.tex",
            ["notation.sty"],
        ),
        (
            {
                "defs.tex": "\\def\\RR{\\mathbb{R}}\n\\input{vectors}\n",
                "vectors.tex": "\\newcommand{\\vect}[1]{\\mathbf{#1}}\n",
                "notes.tex": "\\documentclass{article}\n\\input{defs}\n\\begin{document}\n"
                + LATEX_DOC
                + "\\end{document}\n",
            },
            "notes.tex",
            ["vectors.tex", "defs.tex"],
        ),
        (
            {
                "main.tex": "\\documentclass{article}\n\\newcommand{\\RR}{\\mathbb{R}}\n"
                "\\newcommand{\\vect}[1]{\\mathbf{#1}}\n\\begin{document}\n"
                "\\newcommand{\\RR}{\\mathbb{Z}}\n\\input{attention}\n\\end{document}\n",
                "attention.tex": "\\section{Attention}\n" + LATEX_DOC,
            },
            "attention.tex",
            ["main.tex"],
        ),
        (
            {
                "book/main.tex": "\\documentclass{book}\n\\usepackage{subfiles}\n"
                "\\newcommand{\\RR}{\\mathbb{R}}\\newcommand{\\vect}[1]{\\mathbf{#1}}\n"
                "\\begin{document}\\subfile{ch/attention}\\end{document}\n",
                "book/ch/attention.tex": "\\documentclass[../main.tex]{subfiles}\n"
                "\\begin{document}\n" + LATEX_DOC + "\\end{document}\n",
            },
            "book/ch/attention.tex",
            ["book/main.tex"],
        ),
    ],
)
def test_a_latex_documents_local_files(tmp_path: Path, files, doc, sources) -> None:
    write(tmp_path, {".git/HEAD": "ref\n", **files})
    path = tmp_path / doc
    assert kinds(path) == ["verified"]
    found = SiteFinder().find(path, path.read_text("utf-8"))
    assert [s.file for s in found.sources] == sources


def test_a_package_outside_the_folder_is_not_looked_for(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "amsmath.sty": "\\newcommand{\\RR}{\\mathbb{Z}}",  # outside the site's root
            "site/.git/HEAD": "ref\n",
            "site/notes.tex": "\\documentclass{article}\\usepackage{../amsmath}\n",
        },
    )
    path = tmp_path / "site/notes.tex"
    assert not SiteFinder().find(path, path.read_text("utf-8")).macros


def test_a_site_with_too_many_layouts_reads_a_bounded_number(tmp_path: Path) -> None:
    files = {f"_includes/p{k:03}.html": "$$\\gdef\\RR{\\mathbb{R}}$$" for k in range(MAX_FILES + 5)}
    write(tmp_path, {"_config.yml": "t: 1\n", **files})
    found = SiteFinder().find(tmp_path / "a.md")
    assert len(found.sources) == MAX_FILES - 1  # _config.yml is read first and gives none
    [warning] = found.warnings
    assert warning.startswith(f"6 more files not read (at most {MAX_FILES} a site)")


def test_a_folder_that_cannot_be_looked_at_is_a_warning(tmp_path: Path, monkeypatch) -> None:
    def refuse(self, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "exists", refuse)
    found = SiteFinder().find(tmp_path / "a.md")
    assert not found.macros
    assert found.warnings[0].endswith("the site's macros not read (Permission denied)")
