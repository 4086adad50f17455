"""Similarity against offset: how alike ``pe(p)`` and ``pe(p + k)`` are (docs/figures.md).

The curves are :func:`pecli.core.sinusoidal.similarity.offset_similarity`; this module only
draws them.
Importing it imports matplotlib, so the command line imports it only when plotting.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from matplotlib.figure import Figure

from ..style import new_figure, number_label

__all__ = ["first_below", "similarity_figure"]


def first_below(offsets: np.ndarray, values: np.ndarray, threshold: float) -> float | None:
    """The first offset ``k > 0`` whose value is below ``threshold`` (None if none is).

    >>> first_below(np.arange(4.0), np.array([1.0, 0.8, 0.4, 0.2]), 0.5)
    2.0
    """
    below = np.flatnonzero((np.asarray(offsets) > 0) & (np.asarray(values) < threshold))
    return float(offsets[below[0]]) if below.size else None


def similarity_figure(
    offsets: np.ndarray,
    curves: Mapping[str, np.ndarray],
    *,
    d: int,
    threshold: float = 0.5,
    size: tuple[float, float] | None = None,
    dpi: float | None = None,
) -> Figure:
    """Cosine similarity of ``pe(p)`` and ``pe(p + k)`` against the offset ``k``, one line a curve.

    A dotted line marks ``threshold``, and each curve's legend entry names its first
    offset below it (``below 0.5 from k = 54`` for the paper's d = 512, C = 10000).

    Parameters
    ----------
    offsets : numpy.ndarray
        Shape ``(m,)``, increasing offsets ``k`` (x axis).
    curves : mapping of str to numpy.ndarray
        Legend label → shape ``(m,)`` similarities
        (:func:`pecli.core.sinusoidal.similarity.offset_similarity`), drawn in order.
    d : int, keyword-only
        Width of the encoding, for the title.
    threshold : float, keyword-only
        The similarity marked and named in the legend.
    size, dpi : keyword-only
        Inches and dots per inch; by default 9 × 4.5 in at 100 dpi.

    Returns
    -------
    matplotlib.figure.Figure
        One axes; its first lines are the curves, in order.

    """
    fig = new_figure(size, dpi)
    ax = fig.add_subplot()
    for label, values in curves.items():
        first = first_below(offsets, values, threshold)
        below = "" if first is None else f" (below {threshold:g} from k = {number_label(first)})"
        ax.plot(offsets, values, linewidth=1.2, label=f"{label}{below}")
    ax.axhline(threshold, color="0.4", linestyle=":", linewidth=0.9)
    ax.axhline(0.0, color="0.2", linewidth=0.6)
    ax.set_xlim(offsets[0], offsets[-1])
    ax.set_ylim(min(-0.1, float(np.min([np.min(v) for v in curves.values()])) - 0.05), 1.05)
    ax.set_xlabel("offset k (positions)")
    ax.set_ylabel(r"$pe(p)\cdot pe(p+k)\ /\ |pe(p)|\,|pe(p+k)|$")
    ax.set_title(f"Similarity of the encodings of positions k apart, d = {d} (any p)")
    ax.legend(loc="upper right", fontsize="small")
    ax.grid(alpha=0.3)
    return fig
