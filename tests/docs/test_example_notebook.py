"""docs/example.ipynb runs top to bottom in a real Jupyter kernel, and renders what it promises."""

from __future__ import annotations

from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parents[2] / "docs" / "example.ipynb"


@pytest.fixture(scope="module")
def executed():
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    client = nbclient.NotebookClient(
        nb,
        timeout=180,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    )
    client.execute()  # raises CellExecutionError on the first failing cell
    return nb


def _outputs(nb, mime):
    return [
        o["data"][mime]
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
        if mime in o.get("data", {})
    ]


def test_committed_without_outputs():
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")


@pytest.mark.slow  # executes the notebook in a Jupyter kernel
def test_runs_without_errors(executed):
    errors = [
        o
        for c in executed.cells
        if c.cell_type == "code"
        for o in c.outputs
        if o.output_type == "error"
    ]
    assert errors == []


@pytest.mark.slow  # executes the notebook in a Jupyter kernel
def test_expressions_render_as_textbook_latex(executed):
    latex = _outputs(executed, "text/latex")
    assert r"$\sum_{r=1}^{d_k} Q_{ir}K_{jr}$" in latex
    assert any(r"\begin{align*}" in x and "(dot\\_def)" in x for x in latex)


@pytest.mark.slow  # executes the notebook in a Jupyter kernel
def test_verdicts_show_witness_badges_and_the_counterexample(executed):
    html = _outputs(executed, "text/html")
    proved = [h for h in html if "symattn-verdict" in h and ">proved<" in h]
    false = [h for h in html if "symattn-verdict" in h and ">false<" in h]
    assert proved and all(w in proved[0] for w in (">symbolic<", ">exact<", ">numeric<"))
    assert false and "counterexample" in false[0]
    assert any("symattn-proof" in h and "for all sizes" in h for h in html)


@pytest.mark.slow  # executes the notebook in a Jupyter kernel
def test_heatmap_is_drawn(executed):
    assert _outputs(executed, "image/png")
