"""Pictures of attention: a heatmap of the weight matrix with token labels (PDF and PNG).

Imports nothing from symattn but the kernel (errors, expr, arrays; matplotlib lazily,
inside the functions); must not import a front end.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import sympy

from symattn.kernel.arrays import evaluate, to_float64
from symattn.kernel.errors import ShapeError, SymattnError
from symattn.kernel.expr import MatExpr

if TYPE_CHECKING:
    from typing import TypeAlias

    import numpy.typing as npt
    from matplotlib.figure import Figure

    Weights: TypeAlias = Sequence[Sequence[float]] | npt.ArrayLike | sympy.MatrixBase | MatExpr

#: CJK families tried in order; the first is what Debian's fonts-noto-cjk installs.
CJK_FONT_FAMILIES: tuple[str, ...] = (
    "Noto Sans CJK SC",
    "Noto Sans CJK JP",
    "Noto Serif CJK SC",
    "Source Han Sans SC",
    "WenQuanYi Zen Hei",
    "AR PL UMing CN",
)
#: The files Debian's CJK font packages install (fonts-noto-cjk first), read directly when
#: matplotlib's font cache was built before the package was installed and so does not list it.
CJK_FONT_FILES: tuple[str, ...] = (
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
    "/usr/share/fonts/truetype/arphic/uming.ttc",
)
FIGSIZE_INCHES = (4.8, 4.2)
PNG_DPI = 150

_AXIS_LABELS = {"zh": ("键（被关注的词元）", "查询（关注者）"), "en": ("key token", "query token")}


class FontWarning(UserWarning):
    """No CJK font was found; Chinese labels will show as empty boxes."""


def find_cjk_family() -> str | None:
    """The first family of ``CJK_FONT_FAMILIES`` that matplotlib knows, or None.

    A font cache made before the fonts were installed does not list them: then the files of
    ``CJK_FONT_FILES`` that exist are added to matplotlib's font manager, and the search runs again.

    >>> find_cjk_family() in (None, *CJK_FONT_FAMILIES)
    True
    """
    from matplotlib import font_manager

    found = _known_cjk_family(font_manager.fontManager)
    if found is not None:
        return found
    for path in CJK_FONT_FILES:
        if Path(path).is_file():
            try:
                font_manager.fontManager.addfont(path)
            except (OSError, RuntimeError, ValueError):  # unreadable or not a font: try the next
                continue
    return _known_cjk_family(font_manager.fontManager)


def _known_cjk_family(manager: Any) -> str | None:
    known = {entry.name for entry in manager.ttflist}
    return next((family for family in CJK_FONT_FAMILIES if family in known), None)


def _weights_array(
    weights: Weights,
    rows: int,
    cols: int,
    inputs: Mapping[Any, Any] | None,
    sizes: Mapping[Any, int] | None,
) -> np.ndarray:
    if isinstance(weights, MatExpr):
        if inputs is None:
            raise SymattnError(
                f"the weights {weights} are a kernel matrix: pass inputs={{...}} to evaluate them "
                "on numbers (symattn.evaluate), or pass an array"
            )
        array = evaluate(weights, inputs, sizes=sizes)
    elif inputs is not None or sizes is not None:
        raise SymattnError("inputs= and sizes= are for weights given as a kernel matrix")
    elif isinstance(weights, sympy.MatrixBase):
        array = np.array(
            [[_number(weights, i, j) for j in range(weights.cols)] for i in range(weights.rows)]
        )
    else:
        array = to_float64(weights, "the weight matrix")
    if array.ndim != 2 or array.shape != (rows, cols):
        raise ShapeError(
            f"attention weights have shape {' × '.join(map(str, array.shape))} but there are "
            f"{rows} row labels and {cols} column labels"
        )
    return array


def _number(m: sympy.MatrixBase, i: int, j: int) -> float:
    x = m[i, j]
    if not (x.is_number and x.is_real and x.is_finite):
        raise SymattnError(f"entry ({i + 1}, {j + 1}) of the weights is {x}, not a real number")
    return float(x)


def _font_families(labels: Sequence[str]) -> list[str]:
    family = find_cjk_family()
    if family is not None:
        return ["DejaVu Sans", family]
    if any(ord(ch) > 0x2E7F for label in labels for ch in label):
        warnings.warn(
            "no CJK font found (install fonts-noto-cjk); Chinese labels will not render",
            FontWarning,
            stacklevel=3,
        )
    return ["DejaVu Sans"]


def _draw(
    figure: Any,
    array: Any,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    title: str | None,
    lang: Literal["zh", "en"],
) -> None:
    axes = figure.add_subplot()
    top = max(1.0, float(array.max()))
    image = axes.imshow(array, cmap="Blues", vmin=min(0.0, float(array.min())), vmax=top)
    axes.set_xticks(range(len(col_labels)), labels=list(col_labels))
    axes.set_yticks(range(len(row_labels)), labels=list(row_labels))
    axes.xaxis.tick_top()
    xlabel, ylabel = _AXIS_LABELS[lang]
    axes.set_xlabel(xlabel)
    axes.xaxis.set_label_position("top")
    axes.set_ylabel(ylabel)
    threshold = 0.6 * float(image.norm.vmax)
    for (i, j), value in _cells(array):
        colour = "white" if value > threshold else "black"
        axes.text(j, i, f"{value:.2f}", ha="center", va="center", color=colour, fontsize=8)
    if title is not None:
        # above the top tick labels and the key axis label: constrained layout makes room for a
        # suptitle at the top of the figure, never for one drawn over the bottom row
        figure.suptitle(title)
    figure.colorbar(image, ax=axes, shrink=0.85)


def _cells(array: Any) -> list[tuple[tuple[int, int], float]]:
    rows, cols = array.shape
    return [((i, j), float(array[i, j])) for i in range(rows) for j in range(cols)]


def heatmap_figure(
    weights: Weights,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    title: str | None = None,
    lang: Literal["zh", "en"] = "en",
    inputs: Mapping[Any, Any] | None = None,
    sizes: Mapping[Any, int] | None = None,
) -> Figure:
    """The heatmap as a matplotlib `Figure` (constrained layout), not yet drawn or saved.

    `weights`: an array-like (numpy, nested lists, tensors with `__array__`), a sympy `Matrix` of
    exact numbers, or a kernel matrix (`MatExpr`) evaluated on `inputs` with `symattn.evaluate`.
    Axis labels are in `lang` ("en" or "zh").

    >>> fig = heatmap_figure([[1.0, 0.0], [0.5, 0.5]], ["a", "b"], ["a", "b"], title="causal")
    >>> fig.get_suptitle()
    'causal'
    """
    if lang not in _AXIS_LABELS:
        raise SymattnError(f"unknown figure language {lang!r}; expected 'zh' or 'en'")
    array = _weights_array(weights, len(row_labels), len(col_labels), inputs, sizes)
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    families = _font_families([*row_labels, *col_labels, title or "", *_AXIS_LABELS[lang]])
    with matplotlib.rc_context({"font.family": families}):
        figure = Figure(figsize=FIGSIZE_INCHES, dpi=PNG_DPI, layout="constrained")
        FigureCanvasAgg(figure)
        _draw(figure, array, row_labels, col_labels, title, lang)
        # tick labels are made when first drawn: draw once here, so they get these fonts too
        with warnings.catch_warnings():
            if len(families) == 1:  # already warned once with FontWarning
                warnings.filterwarnings("ignore", message="Glyph .* missing from font")
            figure.draw_without_rendering()
    return figure


def attention_heatmap(
    weights: Weights,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    out_stem: Path,
    *,
    title: str | None = None,
    lang: Literal["zh", "en"] = "en",
    inputs: Mapping[Any, Any] | None = None,
    sizes: Mapping[Any, int] | None = None,
) -> tuple[Path, Path]:
    """Write ``<out_stem>.pdf`` and ``<out_stem>.png``: the weights as an annotated heatmap.

    Rows are queries, columns keys; `weights` as in `heatmap_figure` (an array-like, an exact
    sympy `Matrix`, or a kernel matrix evaluated on `inputs`); axis labels in English unless
    `lang="zh"`; the title sits above the plot. Files are byte-stable (no dates, no software stamp).
    """
    out_stem = Path(out_stem)
    figure = heatmap_figure(
        weights, row_labels, col_labels, title=title, lang=lang, inputs=inputs, sizes=sizes
    )
    with warnings.catch_warnings():
        if find_cjk_family() is None:  # already warned once with FontWarning
            warnings.filterwarnings("ignore", message="Glyph .* missing from font")
        pdf, png = (out_stem.with_name(f"{out_stem.name}.{ext}") for ext in ("pdf", "png"))
        figure.savefig(pdf, metadata={"CreationDate": None})
        figure.savefig(png, dpi=PNG_DPI, metadata={"Software": None})
    return pdf, png
