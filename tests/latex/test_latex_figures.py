"""The attention heatmap: files written, byte-stable, CJK font found or a clear warning; what it
takes (arrays, exact matrices, kernel matrices), its language, and a title that overlaps nothing.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sympy

import symattn.latex.figures as figures
from symattn.kernel.arrays import evaluate
from symattn.kernel.attention import single_head
from symattn.kernel.errors import ShapeError, SymattnError
from symattn.kernel.witness.numeric import InputError
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


def test_noto_cjk_is_found(noto_cjk) -> None:
    assert figures.find_cjk_family() in ("Noto Sans CJK SC", "Noto Sans CJK JP")


# In a fresh matplotlib configuration: build the font cache, strip every CJK font from it (as a
# cache made before fonts-noto-cjk was installed), then draw Chinese labels with a new process.
STALE_CACHE = r"""
import glob, json, os, subprocess, sys
subprocess.run([sys.executable, "-c", "import matplotlib.font_manager"], check=True)
(path,) = glob.glob(os.path.join(os.environ["MPLCONFIGDIR"], "fontlist-*.json"))
with open(path, encoding="utf-8") as f:
    cache = json.load(f)
cache["ttflist"] = [e for e in cache["ttflist"] if "CJK" not in e["name"] + e["fname"]]
with open(path, "w", encoding="utf-8") as f:
    json.dump(cache, f)
"""

DRAW = r"""
import sys, warnings
import numpy as np
from matplotlib import font_manager
from matplotlib.font_manager import FontProperties, fontManager
from matplotlib.ft2font import FT2Font
import symattn.latex.figures as figures

assert not [e for e in fontManager.ttflist if "CJK" in e.name], "the cache is not stale"
text = "".join(sys.argv[1:])
with warnings.catch_warnings():
    warnings.simplefilter("error")  # a FontWarning or a missing glyph fails
    fig = figures.heatmap_figure(np.eye(2), ["患者", "服用"], ["华法林", "后"], lang="zh")
family = figures.find_cjk_family()
font = FT2Font(font_manager.findfont(FontProperties(family=family), fallback_to_default=False))
missing = [ch for ch in text if font.get_char_index(ord(ch)) == 0]
print(family, "missing:", "".join(missing))
"""


@pytest.mark.slow
def test_noto_cjk_is_found_with_a_stale_font_cache(noto_cjk, tmp_path: Path) -> None:
    env = {**os.environ, "MPLCONFIGDIR": str(tmp_path)}
    subprocess.run([sys.executable, "-c", STALE_CACHE], env=env, check=True)
    labels = "".join(TOKENS) + "".join(figures._AXIS_LABELS["zh"])
    out = subprocess.run(
        [sys.executable, "-c", DRAW, labels], env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split(" missing:")[0] in ("Noto Sans CJK SC", "Noto Sans CJK JP")
    assert out.stdout.strip().endswith("missing:"), out.stdout  # every label has its glyphs


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


# ---- what the heatmap takes, its language, its layout ---------------------------------------


class Tensorish:
    """What a torch tensor looks like to numpy: only `__array__`."""

    def __init__(self, a: np.ndarray) -> None:
        self.a = a

    def __array__(self, dtype: object = None, copy: object = None) -> np.ndarray:
        return self.a if dtype is None else self.a.astype(dtype)


EXACT = sympy.Matrix(5, 5, lambda i, j: sympy.Rational(1, i + 1) if j <= i else 0)


def _kernel_weights() -> tuple[object, dict[str, np.ndarray]]:
    s = single_head(causal=True)
    q = np.random.default_rng(0).standard_normal((5, 3))
    return s.weights, {"Q": q, "K": q}


@pytest.mark.parametrize(
    "given",
    [
        pytest.param(lambda: (WEIGHTS, {}), id="ndarray"),
        pytest.param(lambda: (WEIGHTS.tolist(), {}), id="lists"),
        pytest.param(lambda: (Tensorish(WEIGHTS.astype(np.float32)), {}), id="__array__"),
        pytest.param(lambda: (EXACT, {}), id="exact Matrix"),
    ],
)
def test_heatmap_takes_array_likes_and_exact_matrices(given) -> None:
    weights, _ = given()
    fig = figures.heatmap_figure(weights, TOKENS, TOKENS)
    image = fig.axes[0].get_images()[0].get_array()
    assert np.allclose(image, WEIGHTS, atol=1e-7)


def test_heatmap_evaluates_a_kernel_matrix_on_inputs(tmp_path: Path) -> None:
    weights, inputs = _kernel_weights()
    fig = figures.heatmap_figure(weights, TOKENS, TOKENS, inputs=inputs)
    shown = fig.axes[0].get_images()[0].get_array()
    assert np.allclose(shown, evaluate(weights, inputs)) and np.all(np.triu(shown, 1) == 0)
    pdf, _ = attention_heatmap(weights, TOKENS, TOKENS, tmp_path / "k", inputs=inputs)
    assert pdf.exists()
    with pytest.raises(SymattnError, match=r"^the weights .* are a kernel matrix: pass inputs="):
        figures.heatmap_figure(weights, TOKENS, TOKENS)


BAD_WEIGHTS = [
    (
        sympy.Matrix([[sympy.Symbol("x")]]),
        SymattnError,
        r"^entry \(1, 1\) of the weights is x, not",
    ),
    (np.full((1, 1), 1j), InputError, r"^the weight matrix has dtype complex128"),
    (np.full((1, 1), np.nan), InputError, r"^the weight matrix has a non-finite entry nan"),
]


@pytest.mark.parametrize(("weights", "error", "message"), BAD_WEIGHTS)
def test_heatmap_refuses_what_is_not_a_real_matrix(weights, error, message) -> None:
    with pytest.raises(error, match=message):
        figures.heatmap_figure(weights, ["a"], ["a"])


def test_labels_are_english_unless_chinese_is_asked() -> None:
    en = figures.heatmap_figure(WEIGHTS, TOKENS, TOKENS).axes[0]
    assert (en.get_xlabel(), en.get_ylabel()) == ("key token", "query token")
    zh = figures.heatmap_figure(WEIGHTS, TOKENS, TOKENS, lang="zh").axes[0]
    assert (zh.get_xlabel(), zh.get_ylabel()) == ("键（被关注的词元）", "查询（关注者）")
    with pytest.raises(SymattnError, match=r"^unknown figure language 'fr'"):
        figures.heatmap_figure(WEIGHTS, TOKENS, TOKENS, lang="fr")  # type: ignore[arg-type]


def _title_overlaps(fig) -> list[str]:
    """What the title's box meets when drawn: the plot, a tick label, an axis label."""
    from matplotlib.text import Text

    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    (title,) = [t for t in fig.findobj(Text) if t.get_text() == fig.get_suptitle()]
    box = title.get_window_extent(renderer)
    others = {"the figure's edge": None}
    axes = fig.axes[0]
    others |= {"the plot": axes.get_window_extent(renderer)}
    others |= {
        f"tick {t.get_text()}": t.get_window_extent(renderer) for t in axes.get_xticklabels()
    }
    others |= {
        f"tick {t.get_text()}": t.get_window_extent(renderer) for t in axes.get_yticklabels()
    }
    others |= {"x label": axes.xaxis.label.get_window_extent(renderer)}
    others |= {"colour bar": fig.axes[1].get_window_extent(renderer)}
    found = [name for name, other in others.items() if other is not None and box.overlaps(other)]
    if not fig.bbox.contains(box.x0, box.y0) or not fig.bbox.contains(box.x1, box.y1):
        found.append("the figure's edge")
    return found


# tall plots reach the bottom edge, wide ones the sides; the square ones run with the slow tests
# (the tall and the wide one, in both languages, are the working loop's)
SHAPES = [
    pytest.param(5, 5, "zh", marks=pytest.mark.slow),
    (8, 3, "en"),
    (3, 8, "zh"),
    pytest.param(10, 10, "en", marks=pytest.mark.slow),
]


@pytest.mark.parametrize(("rows", "cols", "lang"), SHAPES)
def test_title_overlaps_nothing(rows, cols, lang) -> None:
    weights = np.random.default_rng(0).random((rows, cols))
    labels = [TOKENS[i % 5] + str(i) for i in range(max(rows, cols))]
    title = "因果注意力 causal attention"
    fig = figures.heatmap_figure(weights, labels[:rows], labels[:cols], title=title, lang=lang)
    assert _title_overlaps(fig) == []


def test_the_overlap_check_can_fail() -> None:
    weights = np.random.default_rng(0).random((8, 3))
    fig = figures.heatmap_figure(weights, list("abcdefgh"), list("abc"), title="causal weights")
    fig.suptitle("causal weights", y=0.02, va="bottom")  # where it was: over the bottom row
    assert "the plot" in _title_overlaps(fig)
