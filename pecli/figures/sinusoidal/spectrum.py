"""The spectrum of the encoding: wavelength ``λ_i`` against pair ``i``, log scale (docs/figures.md).

A line marks a context length; optional per-pair band labels shade runs of pairs (the bands a
RoPE scaling leaves unchanged, smooths or interpolates: ``plot-spectrum --rope-type …``).
Importing this module imports matplotlib, so the command line imports it only when plotting.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ...core.errors import ParameterError
from ..style import new_figure, number_label

__all__ = ["band_runs", "spectrum_figure"]


def band_runs(bands: Sequence[str], first_pair: int = 1) -> list[tuple[str, int, int]]:
    """Runs of equal labels as ``(label, first pair, last pair)``, pairs from ``first_pair``.

    >>> band_runs(["unchanged", "unchanged", "smoothed", "interpolated"])
    [('unchanged', 1, 2), ('smoothed', 3, 3), ('interpolated', 4, 4)]
    >>> band_runs(["unchanged", "interpolated"], first_pair=0)
    [('unchanged', 0, 0), ('interpolated', 1, 1)]
    """
    runs, first = [], first_pair
    for label, group in itertools.groupby(bands):
        count = len(list(group))
        runs.append((label, first, first + count - 1))
        first += count
    return runs


def spectrum_figure(
    curves: Mapping[str, np.ndarray],
    *,
    d: int,
    context: float | None = None,
    bands: Sequence[str] | None = None,
    size: tuple[float, float] | None = None,
    dpi: float | None = None,
    title: str | None = None,
    first_pair: int = 1,
) -> Figure:
    """Wavelength ``λ_i = 2π/ω_i`` (positions, log scale) against pair ``i``, one line a curve.

    Parameters
    ----------
    curves : mapping of str to numpy.ndarray
        Legend label → shape ``(d/2,)`` wavelengths (:func:`pecli.wavelengths`), in order.
    d : int, keyword-only
        Width of the encoding, for the title.
    context : float or None, keyword-only
        A context length in positions, drawn as a horizontal line; the legend counts each
        curve's pairs whose wavelength exceeds it (they never complete a period within the
        context).
    bands : sequence of str or None, keyword-only
        One label per pair (``d/2`` labels, e.g. ``"unchanged"``, ``"smoothed"``,
        ``"interpolated"``); each run of equal labels is shaded and named once in the legend.
    size, dpi : keyword-only
        Inches and dots per inch; by default 9 × 4.5 in at 100 dpi.
    title : str or None, keyword-only
        The axes' title (default: the positional encoding's, with ``d``).
    first_pair : int, keyword-only
        Index of the first pair on the x axis: 1 for the encoding's pairs (the article's
        1-based ``i``), 0 for RoPE's ``inv_freq[i]``.

    Returns
    -------
    matplotlib.figure.Figure
        One axes; its first lines are the curves, in order.

    Raises
    ------
    ParameterError
        If ``bands`` does not hold one label per pair.

    """
    h = d // 2
    if bands is not None and len(bands) != h:
        raise ParameterError("bands", f"must hold one label per pair (d/2 = {h})", len(bands))
    fig = new_figure(size, dpi)
    ax = fig.add_subplot()
    pairs = np.arange(first_pair, first_pair + h)
    for label, lam in curves.items():
        count = 0 if context is None else np.count_nonzero(lam > context)
        longer = "" if context is None else f" ({count} pairs longer than L)"
        ax.plot(pairs, lam, linewidth=1.4, marker="." if h <= 64 else None, label=label + longer)
    if context is not None:
        text = f"context L = {number_label(context)}"
        ax.axhline(context, color="black", linestyle="--", linewidth=1.0, label=text)
    if bands is not None:
        _shade(ax, bands, first_pair)
    ax.set_yscale("log")
    ax.set_xlim(first_pair - 0.5, first_pair + h - 0.5)
    ax.set_xlabel("pair i")
    ax.set_ylabel(r"wavelength $\lambda_i = 2\pi/\omega_i$ (positions)")
    ax.set_title(title or f"Wavelength of each pair of the positional encoding, d = {d}")
    ax.legend(loc="upper left", fontsize="small")
    ax.grid(alpha=0.3)
    return fig


def _shade(ax: Axes, bands: Sequence[str], first_pair: int) -> None:
    """One shaded span per run of equal labels; one legend entry per label."""
    from matplotlib import colormaps

    palette = colormaps["Dark2"]  # 8 distinct hues, unlike the curves' blue and orange
    colours: dict[str, object] = {}
    for label, first, last in band_runs(bands, first_pair):
        named = None if label in colours else label  # the first run of a label names it
        colour = colours.setdefault(label, palette(len(colours) % palette.N))
        ax.axvspan(first - 0.5, last + 0.5, color=colour, alpha=0.25, linewidth=0, label=named)
