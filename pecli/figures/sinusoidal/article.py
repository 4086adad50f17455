"""The article's heatmap and the precision plot, as :class:`matplotlib.figure.Figure` objects.

The sine curves are in :mod:`pecli.figures.sinusoidal.waves` (re-exported here). Never pyplot:

Each builder takes plain arrays or numbers, returns a new ``Figure`` and touches no global
state; the caller saves it (:func:`pecli.io.writing.save_figure`). Importing this module imports
matplotlib, so the command line imports it only in plotting commands.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from matplotlib.figure import Figure

from ...core.errors import ParameterError
from ...core.sinusoidal.encoding import DEFAULT_BASE
from ..style import new_figure, number_label
from .waves import MAX_WAVE_POINTS, wave_curves, waves_figure

if TYPE_CHECKING:  # pragma: no cover
    from ...analysis.sinusoidal.precision import PrecisionReport

__all__ = [
    "MAX_WAVE_POINTS",
    "check_heatmap_size",
    "error_range",
    "heatmap_figure",
    "precision_figure",
    "wave_curves",
    "waves_figure",
]

#: Largest heatmap drawn: more positions or components than this are far more columns or
#: rows than the figure has pixels, and the table would only exhaust memory.
MAX_HEATMAP_POSITIONS = 10_000
MAX_HEATMAP_COMPONENTS = 8_192


def check_heatmap_size(*, n: int, d: int, pad_odd_d: bool = True) -> None:
    """Refuse heatmaps larger than :data:`MAX_HEATMAP_POSITIONS` × :data:`MAX_HEATMAP_COMPONENTS`.

    ``d`` must be even unless ``pad_odd_d`` (a preset that appends a zero column to odd ``d``).

    Raises
    ------
    ParameterError
        Naming ``n`` or ``d`` and the heatmap's own bound.

    """
    if not 1 <= n <= MAX_HEATMAP_POSITIONS:
        rule = f"must be an integer from 1 to {MAX_HEATMAP_POSITIONS} for a heatmap"
        raise ParameterError("n", rule, n)
    if not 2 <= d <= MAX_HEATMAP_COMPONENTS or (d % 2 and not pad_odd_d):
        kind = "an integer" if pad_odd_d else "an even integer"
        rule = f"must be {kind} from 2 to {MAX_HEATMAP_COMPONENTS} for a heatmap"
        if not pad_odd_d:
            rule += " (odd only with presets that pad it)"
        raise ParameterError("d", rule, d)


def heatmap_figure(
    table: np.ndarray,
    *,
    start: float = 1,
    base: float = DEFAULT_BASE,
    size: tuple[float, float] | None = None,
    dpi: float | None = None,
) -> Figure:
    """Heatmap of a table: positions on x, component index on y with component 1 at the bottom.

    The drawn image is ``table.T`` (shape ``(d, n)``), drawn with ``origin="lower"`` on the
    fixed colour range ``[-1, 1]`` of a diverging colormap, with a colorbar
    (docs/figures.md#heatmap). Where every cell gets at least a pixel each cell is a
    sharp block; a table with more positions or components than the axes has pixels is
    resampled with an anti-aliasing (Hann) filter applied to the values, so each pixel
    shows a local mean of its cells instead of one sampled cell, and no moiré appears.
    The choice is made at the figure's own size and dpi.

    Parameters
    ----------
    table : numpy.ndarray
        Shape ``(n, d)``, rows ``pe(start) … pe(start + n - 1)``.
    start : float, keyword-only
        Position of the first row, for the x axis.
    base : float, keyword-only
        The base ``C``, for the title.
    size, dpi : keyword-only
        Inches and dots per inch; by default 9 × 4.5 in at 100 dpi.

    Returns
    -------
    matplotlib.figure.Figure

    """
    n, d = table.shape
    check_heatmap_size(n=n, d=d)
    fig = new_figure(size, dpi)
    ax = fig.add_subplot()
    extent = (start - 0.5, start + n - 0.5, 0.5, d + 0.5)
    image = ax.imshow(
        np.asarray(table, dtype=np.float64).T,
        origin="lower",
        aspect="auto",
        cmap="RdBu_r",
        vmin=-1.0,
        vmax=1.0,
        extent=extent,
        interpolation="nearest",
        interpolation_stage="data",  # filters average values, not the colours of +1 and -1
    )
    ax.set_xlabel("position")
    ax.set_ylabel("component")
    ax.set_title(
        f"Positional encoding pe({start:g}) … pe({start + n - 1:g}), d = {d}, C = {base:g}"
    )
    fig.colorbar(image, ax=ax, label="value")
    fig.draw_without_rendering()  # the layout: how many pixels the axes has
    box = ax.get_window_extent()
    if n > box.width or d > box.height:  # fewer pixels than cells: a filter, not a sample
        image.set_interpolation("hanning")
    return fig


def precision_figure(
    report: PrecisionReport,
    *,
    size: tuple[float, float] | None = None,
    dpi: float | None = None,
) -> Figure:
    """Error against position of a framework-style table and of pecli's, log scale.

    Parameters
    ----------
    report : pecli.analysis.sinusoidal.precision.PrecisionReport
        Per-row errors (:func:`pecli.analysis.sinusoidal.precision.precision_report`).
    size, dpi : keyword-only
        Inches and dots per inch; by default 9 × 4.5 in at 100 dpi.

    Returns
    -------
    matplotlib.figure.Figure

    """
    fig = new_figure(size, dpi)
    ax = fig.add_subplot()
    floor, top = error_range(report)  # exact rows (error 0) are drawn at the bottom
    ax.plot(
        report.positions,
        np.maximum(report.framework_error, floor),
        linewidth=0.8,
        label=f"framework style, {report.dtype} arithmetic",
    )
    ax.plot(
        report.positions,
        np.maximum(report.pecli_error, floor),
        linewidth=0.8,
        label=f"pecli: float64, rounded once to {report.dtype}",
    )
    ax.axhline(
        report.threshold,
        color="grey",
        linestyle="--",
        linewidth=0.8,
        label=f"threshold = {number_label(report.threshold)}",
    )
    if report.positions[0] <= report.largest_exact <= report.positions[-1]:
        ax.axvline(
            report.largest_exact,
            color="black",
            linestyle=":",
            linewidth=0.8,
            label=f"last exact position ({report.largest_exact})",
        )
    ax.set_yscale("log")
    ax.set_ylim(floor, top)
    ax.set_xlabel("position")
    ax.set_ylabel("max |error| in the row")
    ax.set_title(f"Precision of the positional encoding table, {report.dtype} vs float64")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")  # off the data
    ax.grid(alpha=0.3)
    return fig


def error_range(report: PrecisionReport) -> tuple[float, float]:
    """The y range of the precision plot: the decades its errors and threshold span.

    From a power of ten below half the smallest non-zero value to one above twice the
    largest, so that no line lies on the frame; rows without error are drawn at the bottom.
    """
    values = np.concatenate(
        [report.framework_error, report.pecli_error, [report.threshold]]
    ).astype(np.float64)
    positive = values[np.isfinite(values) & (values > 0)]
    low = 10.0 ** math.floor(math.log10(positive.min() / 2))  # a line never on the frame
    high = 10.0 ** math.ceil(math.log10(positive.max() * 2))
    return low, max(high, 10 * low)
