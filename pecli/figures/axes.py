"""The channel → axis map of a multi-axis rotary embedding, with each pair's wavelength.

Top: one cell per rotary pair, coloured by the position axis that turns it (the strip readers
of the Qwen-VL and FLUX code draw by hand). Below: each pair's wavelength ``λ = 2π/ω`` in
positions, log scale, in the axis's colour: a schedule per axis restarts at ``λ = 2π`` on every
axis, a shared schedule falls across all of them. Importing this module imports matplotlib.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure

from .style import new_figure

__all__ = ["axis_map_figure"]


def axis_map_figure(
    columns: Mapping[str, np.ndarray],
    *,
    title: str,
    size: tuple[float, float] | None = None,
    dpi: float | None = None,
) -> Figure:
    """The strip of axes and the wavelengths of the pairs of one plan.

    Parameters
    ----------
    columns : mapping of str to numpy.ndarray
        ``pair``, ``axis`` (names) and ``wavelength`` per pair
        (:func:`pecli.core.multiaxis.resolve.plan_columns`).
    title : str, keyword-only
        The figure's title.
    size, dpi : keyword-only
        Inches and dots per inch; by default 9 × 4.5 in at 100 dpi.

    Returns
    -------
    matplotlib.figure.Figure
        Two axes: the strip, then the wavelengths (one line per position axis, in order).

    """
    pairs, axis, lam = columns["pair"], columns["axis"], columns["wavelength"]
    names = list(dict.fromkeys(axis.tolist()))
    fig = new_figure(size, dpi)
    strip, waves = fig.subplots(2, 1, sharex=True, height_ratios=[1, 6])
    codes = np.array([names.index(a) for a in axis.tolist()])[None, :]
    colours = [f"C{k}" for k in range(len(names))]
    strip.imshow(
        codes,
        aspect="auto",
        cmap=ListedColormap(colours),
        vmin=-0.5,
        vmax=len(names) - 0.5,
        extent=(pairs[0] - 0.5, pairs[-1] + 0.5, 0, 1),
        interpolation="nearest",
    )
    strip.set_yticks([])
    strip.set_title(title)
    for k, name in enumerate(names):
        mine = axis == name
        waves.plot(
            pairs[mine],
            lam[mine],
            linestyle="none",
            marker="o",
            markersize=3.5,
            color=colours[k],
            label=_label(name, int(mine.sum())),
        )
    waves.set_yscale("log")
    waves.set_xlim(pairs[0] - 0.5, pairs[-1] + 0.5)
    waves.set_xlabel("rotary pair j (channels as the layout places them)")
    waves.set_ylabel(r"wavelength $\lambda_j = 2\pi/\omega_j$ (positions)")
    waves.legend(loc="upper left", fontsize="small")
    waves.grid(alpha=0.3)
    return fig


def _label(name: str, count: int) -> str:
    """The legend entry of one axis; padding pairs (axis ``-``, ω = 0) are named as such."""
    pairs = "pair" if count == 1 else "pairs"
    return f"padding, ω = 0 ({count} {pairs})" if name == "-" else f"axis {name} ({count} {pairs})"
