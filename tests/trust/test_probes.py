"""The truth-labelled probes (`benchmarks/probes/`): documents written the way others write
about attention, each claim marked true or false by hand. No true claim may be called false or
a shape error, and no false claim may be verified; the decided share is a figure, not a test."""

from __future__ import annotations

import functools
import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "probes.py"
DOCS = sorted((ROOT / "benchmarks" / "probes").glob("*.*"))


@functools.cache
def _probes_module():
    spec = importlib.util.spec_from_file_location("probes_bench", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("probes_bench", module)
    spec.loader.exec_module(module)
    return module


@functools.cache
def _probes(doc: Path) -> tuple:
    """Each probe of a document with its outcome, checked once for every test that reads it."""
    return tuple(_probes_module().probes(str(doc)))


def test_there_are_probes_with_both_labels():
    labels = [p.truth for doc in DOCS for p in _probes(doc)]
    assert len(DOCS) >= 10 and labels.count(True) >= 50 and labels.count(False) >= 15


@pytest.mark.parametrize("doc", DOCS, ids=[d.name for d in DOCS])
def test_no_false_alarm_and_no_false_accept(doc):
    wrong = [p for p in _probes(doc) if p.outcome in ("false alarm", "false accept")]
    assert not wrong, "\n".join(f"line {p.line}: {p.outcome}: {p.source} {p.kinds}" for p in wrong)


def test_a_notebook_probe_is_read_from_its_markdown_cells(tmp_path):
    bench = _probes_module()
    cell = {"cell_type": "markdown", "metadata": {}}
    nb = {
        "cells": [
            {"cell_type": "code", "metadata": {}, "source": "x = 1", "outputs": []},
            {**cell, "source": ["Let $Q \\in \\mathbb{R}^{n \\times d_k}$.\n"]},
            {**cell, "source": ["Then $QQ^\\top \\in \\mathbb{R}^{n \\times n}$<!--T-->\n"]},
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    doc = tmp_path / "n.ipynb"
    doc.write_text(json.dumps(nb), encoding="utf-8")
    (probe,) = bench.probes(str(doc))
    assert probe.truth and probe.kinds == ("verified",) and probe.outcome == "right"
