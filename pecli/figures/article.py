"""The article's figures, built on :class:`matplotlib.figure.Figure` (never pyplot).

Each builder takes plain arrays or numbers, returns a new ``Figure`` and touches no global
state; the caller saves it (:func:`pecli.io.writing.save_figure`). Importing this module imports
matplotlib, so the command line imports it only in plotting commands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from matplotlib.figure import Figure

from ..core.encoding import DEFAULT_BASE, angular_frequencies, wavelengths
from ..core.errors import ParameterError

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis.precision import PrecisionReport

__all__ = [
    "check_heatmap_size",
    "heatmap_figure",
    "precision_figure",
    "wave_curves",
    "waves_figure",
]

#: Largest heatmap drawn: more positions or components than this are far more columns or
#: rows than the figure has pixels, and the table would only exhaust memory.
MAX_HEATMAP_POSITIONS = 10_000
MAX_HEATMAP_COMPONENTS = 8_192
#: Largest number of sample positions of a wave plot.
MAX_WAVE_POINTS = 1_000_000

#: Figure size in inches and resolution of the committed figures.
FIGSIZE = (9.0, 4.5)
DPI = 100


def wave_curves(
    positions: np.ndarray,
    *,
    d: int,
    pairs: list[int],
    base: float = DEFAULT_BASE,
    schedule: str = "paper",
) -> np.ndarray:
    """The sine component of each pair against position (docs/figures.md#sine-curves).

    Parameters
    ----------
    positions : numpy.ndarray
        Real positions, shape ``(m,)``.
    d : int, keyword-only
        Width of the encoding, even and >= 2.
    pairs : list of int, keyword-only
        Pair indices ``i`` (1-based, ``1 <= i <= d/2``).
    base : float, keyword-only
        The base ``C``.
    schedule : str, keyword-only
        Frequency schedule (``paper``, ``tensor2tensor``, ``shift:S``).

    Returns
    -------
    numpy.ndarray
        Shape ``(m, len(pairs))``, float64: column ``k`` is ``pe(pos)[2 i_k - 1]``.

    Raises
    ------
    ParameterError
        (a ``ValueError``) for an invalid ``d``, ``base`` or a pair outside ``1 … d/2``.

    """
    omega = angular_frequencies(d, base=base, schedule=schedule)
    for i in pairs:
        if not 1 <= i <= d // 2:
            raise ParameterError("pairs", f"must be between 1 and d/2 = {d // 2}", i)
    pos = np.asarray(positions, dtype=np.float64)
    curves: np.ndarray = np.sin(pos[:, None] * omega[[i - 1 for i in pairs]][None, :])
    return curves


def waves_figure(
    positions: np.ndarray,
    curves: np.ndarray,
    *,
    pairs: list[int],
    d: int,
    base: float,
    schedule: str = "paper",
    layout: str = "interleaved",
) -> Figure:
    """Line plot of :func:`wave_curves`, one line per pair, legend naming ``i`` and ``λ_i``.

    Parameters
    ----------
    positions : numpy.ndarray
        Shape ``(m,)``, the x values.
    curves : numpy.ndarray
        Shape ``(m, len(pairs))``, the y values in ``[-1, 1]``.
    pairs, d, base, schedule : keyword-only
        As given to :func:`wave_curves`; used for the legend and title.
    layout : str, keyword-only
        The layout, for the y label (the component number of a sine depends on it).

    Returns
    -------
    matplotlib.figure.Figure

    """
    fig = Figure(figsize=FIGSIZE, dpi=DPI, layout="constrained")
    ax = fig.add_subplot()
    lam = wavelengths(d, base=base, schedule=schedule)
    for column, i in enumerate(pairs):
        label = f"i = {i} (λ = {lam[i - 1]:.4g})"
        ax.plot(positions, curves[:, column], label=label, linewidth=1.2)
    ax.set_xlim(positions[0], positions[-1])
    ax.set_ylim(-1.1, 1.1)
    ax.set_xlabel("position")
    component = {"interleaved": "2i-1", "sin-cos": "i", "cos-sin": "d/2+i"}[layout]
    ax.set_ylabel(rf"$pe(pos)_{{{component}}} = \sin(pos\,\omega_i)$")
    extra = "" if schedule == "paper" else f", {schedule} schedule"
    ax.set_title(f"Sine components of the positional encoding, d = {d}, C = {base:g}{extra}")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small", title="pair")
    ax.grid(alpha=0.3)
    return fig


def check_heatmap_size(*, n: int, d: int) -> None:
    """Refuse heatmaps larger than :data:`MAX_HEATMAP_POSITIONS` × :data:`MAX_HEATMAP_COMPONENTS`.

    Raises
    ------
    ParameterError
        Naming ``n`` or ``d`` and the bound.

    """
    if not 1 <= n <= MAX_HEATMAP_POSITIONS:
        rule = f"must be an integer from 1 to {MAX_HEATMAP_POSITIONS} for a heatmap"
        raise ParameterError("n", rule, n)
    if not 2 <= d <= MAX_HEATMAP_COMPONENTS:
        rule = f"must be an integer from 2 to {MAX_HEATMAP_COMPONENTS} for a heatmap"
        raise ParameterError("d", rule, d)


def heatmap_figure(table: np.ndarray, *, start: float = 1, base: float = DEFAULT_BASE) -> Figure:
    """Heatmap of a table: positions on x, component index on y with component 1 at the bottom.

    The drawn image is ``table.T`` (shape ``(d, n)``), drawn with ``origin="lower"`` on the
    fixed colour range ``[-1, 1]`` of a diverging colormap, with a colorbar
    (docs/figures.md#heatmap).

    Parameters
    ----------
    table : numpy.ndarray
        Shape ``(n, d)``, rows ``pe(start) … pe(start + n - 1)``.
    start : float, keyword-only
        Position of the first row, for the x axis.
    base : float, keyword-only
        The base ``C``, for the title.

    Returns
    -------
    matplotlib.figure.Figure

    """
    n, d = table.shape
    check_heatmap_size(n=n, d=d)
    fig = Figure(figsize=FIGSIZE, dpi=DPI, layout="constrained")
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
    )
    ax.set_xlabel("position")
    ax.set_ylabel("component")
    ax.set_title(
        f"Positional encoding pe({start:g}) … pe({start + n - 1:g}), d = {d}, C = {base:g}"
    )
    fig.colorbar(image, ax=ax, label="value")
    return fig


def precision_figure(report: PrecisionReport) -> Figure:
    """Error against position of a framework-style table and of pecli's, log scale.

    Parameters
    ----------
    report : pecli.analysis.precision.PrecisionReport
        Per-row errors (:func:`pecli.analysis.precision.precision_report`).

    Returns
    -------
    matplotlib.figure.Figure

    """
    fig = Figure(figsize=FIGSIZE, dpi=DPI, layout="constrained")
    ax = fig.add_subplot()
    floor = 1e-18  # exact rows (error 0) are drawn at the bottom of the log scale
    ax.plot(
        report.positions, np.maximum(report.framework_error, floor), linewidth=0.8,
        label=f"framework style, {report.dtype} arithmetic",
    )  # fmt: skip
    ax.plot(
        report.positions, np.maximum(report.pecli_error, floor), linewidth=0.8,
        label=f"pecli: float64, rounded once to {report.dtype}",
    )  # fmt: skip
    ax.axhline(report.threshold, color="grey", linestyle="--", linewidth=0.8, label="threshold")
    if report.positions[0] <= report.largest_exact <= report.positions[-1]:
        ax.axvline(report.largest_exact, color="black", linestyle=":", linewidth=0.8,
                   label=f"last exact position ({report.largest_exact})")  # fmt: skip
    ax.set_yscale("log")
    ax.set_ylim(bottom=1e-10)
    ax.set_xlabel("position")
    ax.set_ylabel("max |error| in the row")
    ax.set_title(f"Precision of the positional encoding table, {report.dtype} vs float64")
    ax.legend(loc="lower right", fontsize="small")
    ax.grid(alpha=0.3)
    return fig
