"""The zoo's figures: an ALiBi bias matrix beside its slopes, and T5's bucket staircase.

See docs/figures.md#alibi-and-t5-buckets. Importing this module imports matplotlib, so the
command line imports it only when plotting.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ..core.zoo.t5_buckets import check_buckets
from .style import new_figure

__all__ = ["alibi_figure", "t5_buckets_figure"]


def alibi_figure(
    bias: np.ndarray,
    slopes: np.ndarray,
    *,
    head: int,
    convention: str,
    max_bias: float,
    other: tuple[str, np.ndarray] | None = None,
    series: str = "press",
    size: tuple[float, float] | None = None,
    dpi: float | None = None,
) -> Figure:
    """Head ``head``'s bias matrix (left) and every head's slope, log scale (right).

    Parameters
    ----------
    bias : numpy.ndarray
        One head's ``(q, k)`` matrix (``-inf`` where masked: drawn blank) or key-only
        ``(1, k)`` row.
    slopes : numpy.ndarray
        ``(n,)``: the slopes of the series drawn.
    head, convention, max_bias : keyword-only
        For the titles.
    other : (str, numpy.ndarray) or None, keyword-only
        Another series drawn dashed beside the slopes (a wrong one, to compare).
    series : str, keyword-only
        The name of the series drawn (``press``: the paper's rule), for the legend.
    size, dpi : keyword-only
        Inches and dots per inch; by default 9 × 4.5 in at 100 dpi.

    Returns
    -------
    matplotlib.figure.Figure
        Two axes: the matrix (an image with a colour bar), then the slopes.

    """
    fig = new_figure(size, dpi)
    left, right = fig.subplots(1, 2, width_ratios=(1.1, 1.0))
    shown = np.ma.masked_invalid(np.asarray(bias, dtype=np.float64))
    image = left.imshow(shown, cmap="viridis", aspect="auto", interpolation="nearest")
    fig.colorbar(image, ax=left, label="bias added to the logit")
    left.set_xlabel("key position j")
    if bias.shape[0] > 1:
        left.set_ylabel("query row i")
    else:  # a key-only row: the same for every query
        left.set_yticks([])
        left.set_ylabel("every query (one key-only row)")
    left.set_title(f"{convention} bias, head {head} (m = {slopes[head]:.4g})", fontsize="medium")
    heads = np.arange(slopes.size)
    right.semilogy(heads, slopes, marker="o", linewidth=1.2, label=_series_label(series))
    if other is not None:
        label = _series_label(other[0])
        right.semilogy(heads, other[1], marker="x", linestyle="--", linewidth=1.0, label=label)
    right.axvline(head, color="black", linewidth=0.8, alpha=0.5)
    right.set_xlabel("head h")
    right.set_ylabel("slope m_h")
    right.set_title(f"{slopes.size} heads, max_bias {max_bias:g}", fontsize="medium")
    lowest = min(float(slopes.min()), float(other[1].min()) if other is not None else np.inf)
    right.set_ylim(bottom=lowest / 12)  # room below the curves for the legend
    right.legend(loc="lower left", fontsize="small")
    right.grid(alpha=0.3)
    fig.suptitle(f"ALiBi: the {convention} bias of head {head}, and the slopes of all heads")
    return fig


def _series_label(name: str) -> str:
    return "press (the paper's rule)" if name == "press" else f"{name} (wrong)"


def t5_buckets_figure(
    relative_positions: np.ndarray,
    buckets: np.ndarray,
    *,
    num_buckets: int,
    max_distance: int,
    bidirectional: bool,
    size: tuple[float, float] | None = None,
    dpi: float | None = None,
) -> Figure:
    """T5's bucket against the relative position ``memory − query``: a staircase.

    Dotted lines mark ``±max_exact`` (one bucket per distance below it) and
    ``±max_distance`` (one bucket for everything beyond).

    Returns
    -------
    matplotlib.figure.Figure
        One axes; its first line is the staircase.

    """
    fig = new_figure(size, dpi)
    ax = fig.add_subplot()
    ax.step(relative_positions, buckets, where="mid", linewidth=1.3)
    max_exact = check_buckets(num_buckets, max_distance, bidirectional)
    signs = (-1, 1) if bidirectional else (-1,)
    for sign in signs:
        ax.axvline(sign * max_exact, color="C1", linestyle=":", linewidth=1.0)
        ax.axvline(sign * max_distance, color="C2", linestyle=":", linewidth=1.0)
    ax.plot([], [], color="C1", linestyle=":", label=f"±max_exact = {max_exact}")
    ax.plot([], [], color="C2", linestyle=":", label=f"±max_distance = {max_distance}")
    ax.set_xlabel("relative position memory − query (key − query)")
    ax.set_ylabel("bucket")
    kind = "bidirectional (encoder)" if bidirectional else "causal (decoder)"
    ax.set_title(f"T5 relative-position buckets: {num_buckets} buckets, {kind}")
    ax.legend(loc="upper left", fontsize="small")
    ax.grid(alpha=0.3)
    return fig
