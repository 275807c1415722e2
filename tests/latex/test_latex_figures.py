"""The attention heatmap: files written, byte-stable, CJK font found or a clear warning."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import symattn.latex.figures as figures
from symattn.kernel.errors import ShapeError
from symattn.latex import png_is_blank
from symattn.latex.figures import FontWarning, attention_heatmap

TOKENS = ["患者", "服用", "华法林", "后", "出现"]
WEIGHTS = np.tril(np.ones((5, 5))) / np.arange(1, 6)[:, None]


def test_heatmap_writes_pdf_and_png(tmp_path: Path) -> None:
    pdf, png = attention_heatmap(WEIGHTS, TOKENS, TOKENS, tmp_path / "heat.v1", title="因果注意力")
    assert (pdf.name, png.name) == ("heat.v1.pdf", "heat.v1.png")
    assert pdf.read_bytes().startswith(b"%PDF") and not png_is_blank(png)


def test_heatmap_is_byte_stable(tmp_path: Path) -> None:
    first = attention_heatmap(WEIGHTS.tolist(), TOKENS, TOKENS, tmp_path / "a", lang="en")
    second = attention_heatmap(WEIGHTS.tolist(), TOKENS, TOKENS, tmp_path / "b", lang="en")
    for one, two in zip(first, second, strict=True):
        assert one.read_bytes() == two.read_bytes()


def test_noto_cjk_is_found() -> None:
    assert figures.find_cjk_family() in ("Noto Sans CJK SC", "Noto Sans CJK JP")


def test_no_cjk_font_warns_and_still_draws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(figures, "find_cjk_family", lambda: None)
    with pytest.warns(FontWarning, match="^no CJK font found"):
        _, png = attention_heatmap(WEIGHTS, TOKENS, TOKENS, tmp_path / "heat")
    assert png.exists()


def test_shape_mismatch(tmp_path: Path) -> None:
    with pytest.raises(
        ShapeError, match=r"^attention weights have shape 5 × 5 but there are 5 row labels and 4"
    ):
        attention_heatmap(WEIGHTS, TOKENS, TOKENS[:4], tmp_path / "heat")


def test_import_is_cheap() -> None:
    code = "import sys, symattn.latex.figures, symattn.latex; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
